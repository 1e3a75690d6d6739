/* How much work naming Lua functions from their callers' bytecode may take: the target
 * writes that bytecode, so each name and all names together are bounded. */
#ifndef LF_NAME_BUDGET_H
#define LF_NAME_BUDGET_H

/* Steps one name may take at most: a step is an instruction or debug entry scanned (a few
 * ns); a read of the target's memory costs READ_STEPS more (a system call). */
#define NAME_WORK (1L << 20)
#define READ_STEPS 512

/* Steps granted to the next name: NAME_WORK, or less when names have used the process-wide
 * allowance lately (then a name cut short is worth trying again later). */
long name_budget_take(void);
/* Gives back what the name did not use of what it was granted. */
void name_budget_return(long unused);
#endif
