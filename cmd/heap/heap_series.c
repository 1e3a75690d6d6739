/* The parts of a heap snapshot series that are not one snapshot: numbered output names, and
 * the stop signals, which end a series only between snapshots so that the one in progress is
 * written whole. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "heap_series.h"
#include "util.h"

/* Extensions of two parts, which the number must not split. */
static const char *const long_exts[] = { ".pb.gz", ".speedscope.json" };

/* Where PATH's extension starts: its last dot in the file name (not the first character,
 * which makes a hidden file), a known double extension whole; else its end. */
static size_t ext_at(const char *path)
{
	size_t n = strlen(path);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(long_exts) / sizeof(*long_exts); i++) {
		size_t m = strlen(long_exts[i]);
		if (n >= m && path + n - m > base && !strcmp(path + n - m, long_exts[i]))
			return n - m;
	}
	const char *dot = strrchr(base, '.');
	return dot && dot > base ? (size_t)(dot - path) : n;
}

int heap_series_name(const char *path, unsigned k, char *out, size_t size)
{
	size_t at = ext_at(path);
	int n = snprintf(out, size, "%.*s-%03u%s", (int)at, path, k, path + at);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	if (stop_signal && sig == SIGINT)
		_exit(130);   /* second Ctrl-C: the user wants out now; the files written stay */
	stop_signal = sig;
}

/* SA_RESTART: a signal during a snapshot must not cut its copy of the target's memory
 * short; the wait below sleeps in short steps, so it sees the flag soon anyway. */
void heap_series_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int heap_series_stopped(void)
{
	return stop_signal;
}

int heap_series_wait(double when)
{
	for (;;) {
		if (stop_signal)
			return 1;
		double left = when - now_sec();
		if (left <= 0)
			return 0;
		if (left > 0.05)
			left = 0.05;
		struct timespec ts = { 0, (long)(left * 1e9) };
		nanosleep(&ts, NULL);
	}
}
