/* Re-arms the per-CPU sampling timers with random periods. A fixed period lets a target lock
 * onto it: a thread whose short sleeps the kernel ends on the sampling interrupt (timer slack)
 * starts its work there, and each later sample falls at the same point of that work. */
#include "period_jitter.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util.h"

/* A period lasts for a random number of periods in this range before the next is drawn. A
 * longer run of one period lets a target lock onto it again in between; a shorter one wakes
 * lua-flame more often, and each re-arm drops what had passed of the period it ends. */
#define JITTER_MIN_PERIODS 2
#define JITTER_MAX_PERIODS 6
#define JITTER_MIN_NS 1000000ULL /* lua-flame's own wakeups stay few at high rates */
/* The drawn periods are shortened by this many parts in 1000 for the share of a period each
 * re-arm drops (half a period in about four), so that the rate stays the one asked. */
#define JITTER_SHORTEN 20

struct period_jitter {
	const int *pfds;
	int n;
	uint64_t period;
	uint64_t rng;
	int stop; /* eventfd */
	pthread_t thread;
};

/* Uniform in [lo, hi). */
static uint64_t rand_between(struct period_jitter *j, uint64_t lo, uint64_t hi)
{
	return hi > lo ? lo + rand_next(&j->rng) % (hi - lo) : lo;
}

/* Each CPU's next period, uniform in [period/2, 3*period/2), shortened by JITTER_SHORTEN. */
static void rearm_all(struct period_jitter *j)
{
	uint64_t mean = j->period - j->period * JITTER_SHORTEN / 1000;
	for (int i = 0; i < j->n; i++) {
		if (j->pfds[i] < 0)
			continue;
		__u64 p = rand_between(j, mean / 2, mean + mean / 2);
		if (p < 10000)
			p = 10000; /* the kernel's floor for an hrtimer event */
		(void)ioctl(j->pfds[i], PERF_EVENT_IOC_PERIOD, &p);
	}
}

static void *jitter_main(void *arg)
{
	struct period_jitter *j = arg;
	for (;;) {
		uint64_t wait = j->period * rand_between(j, JITTER_MIN_PERIODS, JITTER_MAX_PERIODS + 1);
		if (wait_or_readable(j->stop, (double)(wait < JITTER_MIN_NS ? JITTER_MIN_NS : wait) / 1e9))
			return NULL;
		rearm_all(j);
	}
}

struct period_jitter *period_jitter_start(const int *pfds, int n, uint64_t period_ns)
{
	struct period_jitter *j = xcalloc(1, sizeof(*j));
	j->pfds = pfds;
	j->n = n;
	j->period = period_ns;
	j->rng = rand_seed();
	j->stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rearm_all(j); /* the CPUs' timers were started together: set them apart at once */
	if (j->stop < 0 || !start_helper(&j->thread, jitter_main, j)) {
		if (j->stop >= 0)
			close(j->stop);
		free(j);
		return NULL;
	}
	return j;
}

void period_jitter_stop(struct period_jitter *j)
{
	if (!j)
		return;
	uint64_t one = 1;
	(void)!write(j->stop, &one, sizeof(one));
	pthread_join(j->thread, NULL);
	close(j->stop);
	free(j);
}
