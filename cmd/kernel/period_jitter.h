/* Re-arms the per-CPU sampling timers with random periods, so that a target whose sleeps end
 * on the sampling interrupt (timer slack lets the kernel fire them together) is not sampled
 * at the same point of its work every time. */
#ifndef LF_PERIOD_JITTER_H
#define LF_PERIOD_JITTER_H
#include <stdint.h>

struct period_jitter;

/* Starts a thread that re-arms the n events in pfds (entries < 0 skipped), whose mean period
 * is period_ns; NULL if it could not (the timers then keep their fixed period). */
struct period_jitter *period_jitter_start(const int *pfds, int n, uint64_t period_ns);
/* Ends the thread; the events keep the period last set. NULL does nothing. */
void period_jitter_stop(struct period_jitter *j);

#endif
