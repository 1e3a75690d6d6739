/* Small helpers shared by the user-space engine: checked allocation, a growable
 * string buffer, bounded file reads and uniform error messages. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "safe_name.h"
#include "short_copy.h"
#include "util.h"

int lf_quiet;

static void oom(size_t n)
{
	fprintf(stderr, "lua-flame: out of memory allocating %zu bytes\n", n);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void huge_hint(void *p, size_t n)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + n) & ~(huge - 1);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

char *xarena_text(struct arena *a, const char *s, size_t n)
{
	char *t = arena_text(a, s, n);
	if (!t)
		oom(n + 1);
	return t;
}

void sb_init(struct sbuf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
}

void sb_free(struct sbuf *b)
{
	free(b->s);
	sb_init(b);
}

void sb_reset(struct sbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
}

static void sb_grow(struct sbuf *b, size_t need)
{
	if (b->len + need + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap * 2 : 256;
	while (cap < b->len + need + 1)
		cap *= 2;
	b->s = xrealloc(b->s, cap);
	b->cap = cap;
}

void sb_add(struct sbuf *b, const char *s, size_t n)
{
	sb_grow(b, n);
	short_copy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sb_puts(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

int read_all(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t n)
{
	for (size_t put = 0; put < n;) {
		ssize_t w = write(fd, (const char *)buf + put, n - put);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		put += (size_t)w;
	}
	return 0;
}

ssize_t read_file(const char *path, char *buf, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = 0;
	while (len + 1 < max) {
		ssize_t n = read(fd, buf + len, max - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	return (ssize_t)len;
}

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Messages name paths and processes of the target: one line each, with no byte that a
 * terminal would obey. */
static void message(const char *fmt, va_list ap)
{
	struct sbuf raw, safe;
	sb_init(&raw);
	sb_init(&safe);
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n > 0) {
		char *tmp = xmalloc((size_t)n + 1);
		vsnprintf(tmp, (size_t)n + 1, fmt, ap);
		sb_add(&raw, tmp, (size_t)n);
		free(tmp);
	}
	sb_add_safe(&safe, raw.s ? raw.s : "", raw.len, SAFE_TERMINAL);
	fprintf(stderr, "lua-flame: %s\n", safe.s ? safe.s : "");
	sb_free(&raw);
	sb_free(&safe);
}

void warnx_lf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	message(fmt, ap);
	va_end(ap);
}

void info_lf(const char *fmt, ...)
{
	if (lf_quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	message(fmt, ap);
	va_end(ap);
}

double now_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int wait_or_readable(int fd, double secs)
{
	double end = now_sec() + secs;
	for (;;) {
		double left = end - now_sec();
		if (left < 0)
			left = 0;
		struct timespec ts = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = ppoll(&p, 1, &ts, NULL);
		if (r >= 0 || errno != EINTR)
			return r != 0;
	}
}

int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t m = strlen(suffix);
	return len >= m && !memcmp(s + len - m, suffix, m);
}

uint64_t rand_seed(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return ((uint64_t)now.tv_nsec << 20) ^ (uint64_t)now.tv_sec ^ ((uint64_t)getpid() << 40) ^
	       0x9e3779b97f4a7c15ULL;
}

uint64_t rand_next(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ULL;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

double rand_unit(uint64_t *state)
{
	return (double)(rand_next(state) >> 11) / (double)(1ULL << 53);
}

int start_helper(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int ok = pthread_create(t, NULL, fn, arg) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}
