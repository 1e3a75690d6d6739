/* The namer's scheduling. A request's Lua state may be closed a millisecond after a sample
 * lands in it; named later, its functions are gone. Under the ordinary scheduler a woken
 * thread, however high its nice value, may wait a slice for the target's busy threads, so
 * the namer asks for a deadline reservation: it then runs within microseconds of being woken,
 * ahead of ordinary threads for RUNTIME_US in every PERIOD_US, whatever a target makes it do. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "namer_sched.h"

#define NAMER_NICE -15
#define RUNTIME_US 400  /* naming a new stack takes ~0.1 ms here: a few per period */
#define PERIOD_US 1000

#ifndef SYS_sched_setattr
#if defined(__x86_64__)
#define SYS_sched_setattr 314
#elif defined(__aarch64__)
#define SYS_sched_setattr 274
#endif
#endif

/* The kernel's struct sched_attr (include/uapi/linux/sched/types.h), version 1: 48 bytes. */
struct lf_sched_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

#define LF_SCHED_DEADLINE 6
/* The namer may also use CPU time that would otherwise idle: capped at its reservation alone, it
 * falls behind the announcements of a host that makes a Lua state per request
 * (tests/progs/vm_threads.c), whose functions are then freed before they are named. */
#define LF_SCHED_FLAG_RECLAIM 0x02

static int set_attr(int tid, const struct lf_sched_attr *a)
{
#ifdef SYS_sched_setattr
	return (int)syscall(SYS_sched_setattr, tid, a, 0);
#else
	(void)tid;
	(void)a;
	errno = ENOSYS;
	return -1;
#endif
}

static int deadline(uint64_t flags)
{
	struct lf_sched_attr a = {
		.size = sizeof(a), .policy = LF_SCHED_DEADLINE, .flags = flags,
		.runtime = RUNTIME_US * 1000ULL, .deadline = PERIOD_US * 1000ULL, .period = PERIOD_US * 1000ULL,
	};
	return set_attr(0, &a);
}

enum namer_sched namer_sched_raise(void)
{
	/* Refused without CAP_SYS_NICE, in a cpuset narrower than its scheduling domain (some
	 * containers, taskset) or past the system's deadline bandwidth: then nice alone. */
	if (deadline(LF_SCHED_FLAG_RECLAIM) == 0 || deadline(0) == 0)
		return NAMER_DEADLINE;
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), NAMER_NICE);
	return NAMER_NICE_ONLY;
}

void namer_sched_lower(int tid)
{
	struct lf_sched_attr a = { .size = sizeof(a), .policy = 0 /* SCHED_OTHER */, .nice = NAMER_NICE };
	(void)set_attr(tid, &a);
}
