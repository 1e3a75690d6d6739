/* What holding a command at its entry point needs of the architecture: a breakpoint
 * instruction, the registers at a system-call stop, and putting the program counter back on
 * the breakpoint's address once it has been hit. */
#ifndef LF_PTRACE_ARCH_H
#define LF_PTRACE_ARCH_H
#include <stdint.h>
#include <sys/types.h>

/* The instruction word `word` (read at an instruction's address) with a breakpoint in
 * place of that instruction. */
long ptrace_arch_breakpoint(long word);

/* At a system-call stop of pid: whether an mmap or mprotect that made memory executable just
 * returned successfully. */
int ptrace_arch_mapped_code(pid_t pid);

/* At a SIGTRAP of pid: whether it is the breakpoint at addr; then the program counter is put
 * back on addr (the caller restores the instruction). */
int ptrace_arch_at_breakpoint(pid_t pid, uint64_t addr);

#endif
