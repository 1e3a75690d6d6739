/* Works in three phases of 5:3:2 CPU time, then sleeps 50 us, over and over: within its timer
 * slack the kernel ends each sleep on whatever timer interrupt comes first, the sampler's
 * too. At SIGTERM it writes the phases' shares of its own thread CPU time to argv[1] as
 * "A B C" (tenths of a percent). argv[2]: the timer slack in ns (default: the thread's). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static volatile unsigned long sink;
static volatile sig_atomic_t stop;

#define PHASE(name, k)                                                      \
	__attribute__((noinline, noclone)) static void name(long n)                  \
	{                                                                   \
		unsigned long s = 0;                                        \
		for (long i = 0; i < n; i++)                                \
			s = (s + (unsigned long)i * k) % 1000003;          \
		sink += s;                                                  \
	}
PHASE(phase_fifty, 7)
PHASE(phase_thirty, 11)
PHASE(phase_twenty, 13)

static long long thread_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return fprintf(stderr, "usage: sleepy_phases OUT [SLACK_NS]\n"), 2;
	signal(SIGTERM, on_term);
	if (argc > 2 && prctl(PR_SET_TIMERSLACK, strtoul(argv[2], NULL, 10)))
		return perror("PR_SET_TIMERSLACK"), 1;
	long long t[3] = { 0, 0, 0 };
	const struct timespec nap = { 0, 50000 };
	const long n = 40000; /* a round takes about a millisecond */
	while (!stop) {
		long long t0 = thread_ns();
		phase_fifty(5 * n);
		long long t1 = thread_ns();
		phase_thirty(3 * n);
		long long t2 = thread_ns();
		phase_twenty(2 * n);
		long long t3 = thread_ns();
		t[0] += t1 - t0, t[1] += t2 - t1, t[2] += t3 - t2;
		nanosleep(&nap, NULL);
	}
	long long all = t[0] + t[1] + t[2];
	FILE *f = fopen(argv[1], "w");
	if (!f || all <= 0)
		return 1;
	fprintf(f, "%lld %lld %lld\n", 1000 * t[0] / all, 1000 * t[1] / all, 1000 * t[2] / all);
	return fclose(f) != 0;
}
