/* How the thread naming new stacks is scheduled (namer_sched.c): ahead of the target's own
 * threads, within a fixed share of a CPU. */
#ifndef LF_NAMER_SCHED_H
#define LF_NAMER_SCHED_H

enum namer_sched { NAMER_DEADLINE = 0, NAMER_NICE_ONLY }; /* 0 also stands for "not raised yet" */

/* Puts the calling thread ahead of ordinary threads: a deadline reservation where the kernel
 * grants one, else a high nice value. Returns which it got. */
enum namer_sched namer_sched_raise(void);
/* Makes thread tid (the namer, raised) an ordinary thread at that nice value again. */
void namer_sched_lower(int tid);
#endif
