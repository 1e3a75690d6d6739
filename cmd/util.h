/* Small helpers shared by the user-space engine: checked allocation, a growable
 * string buffer, bounded file reads and uniform error messages. */
#ifndef LF_UTIL_H
#define LF_UTIL_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Asks for huge pages under the whole 2 MB pages of [p, p + n), a table of megabytes read
 * at random (a heap snapshot's): best done before its pages are first touched, and fine if
 * the kernel refuses. */
void huge_hint(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
struct arena;
/* arena_text (render/arena.h), exiting as xmalloc does when memory runs out. */
char *xarena_text(struct arena *a, const char *s, size_t n);

/* Growable, always NUL-terminated string. */
struct sbuf { char *s; size_t len, cap; };
void sb_init(struct sbuf *b);
void sb_free(struct sbuf *b);
void sb_add(struct sbuf *b, const char *s, size_t n);
void sb_puts(struct sbuf *b, const char *s);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_reset(struct sbuf *b);

/* Reads at most max-1 bytes of a (proc) file into buf; returns length or -1. */
ssize_t read_file(const char *path, char *buf, size_t max);

/* Exactly n bytes from or to fd (a pipe), across short counts and EINTR; 0, or -1 when the
 * other end closed first or failed. */
int read_all(int fd, void *buf, size_t n);
int write_all(int fd, const void *buf, size_t n);

/* FNV-1a over bytes, for hash tables. */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);
/* Whether s[0..len) ends with the NUL-terminated suffix. */
int ends_with(const char *s, size_t len, const char *suffix);

/* Messages: "lua-flame: ..." on stderr. */
void warnx_lf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int lf_quiet;
void info_lf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

double now_sec(void);
/* Random numbers for sampling moments and periods, not for secrets: a seed that differs from
 * run to run and process to process, the next number of a xorshift sequence (*state never 0),
 * and one uniform in [0, 1). */
uint64_t rand_seed(void);
uint64_t rand_next(uint64_t *state);
double rand_unit(uint64_t *state);
/* Starts a helper thread that takes none of the process's signals (they stay with the main
 * thread, whose sleeps they must interrupt); 1 if it runs. */
int start_helper(pthread_t *t, void *(*fn)(void *), void *arg);
/* A helper thread's sleep: secs seconds, or until fd becomes readable (its stop signal);
 * 1 when it did (or cannot be waited on). */
int wait_or_readable(int fd, double secs);
#endif
