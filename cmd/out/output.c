/* Writing the profile in each output format; the format follows the file extension.
 * Every file is written to an unpredictable temporary name in the same directory and
 * renamed (render/outfile.c), so a reader never sees half a file and no link is followed. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out_formats.h"
#include "flame.h"
#include "output.h"
#include "outfile.h"
#include "short_copy.h"
#include "util.h"

enum out_format output_format_for(const char *path, const char *forced)
{
	const char *f = forced;
	if (f) {
		if (!strcmp(f, "folded"))
			return OUT_FOLDED;
		if (!strcmp(f, "svg"))
			return OUT_SVG;
		if (!strcmp(f, "pprof"))
			return OUT_PPROF;
		if (!strcmp(f, "speedscope"))
			return OUT_SPEEDSCOPE;
		if (!strcmp(f, "callgrind"))
			return OUT_CALLGRIND;
		return OUT_UNKNOWN;
	}
	size_t len = strlen(path);
	if (ends_with(path, len, ".folded") || !strcmp(path, "-"))
		return OUT_FOLDED;
	if (ends_with(path, len, ".svg"))
		return OUT_SVG;
	if (ends_with(path, len, ".pb.gz"))
		return OUT_PPROF;
	if (ends_with(path, len, ".speedscope.json"))
		return OUT_SPEEDSCOPE;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (ends_with(path, len, ".callgrind") || !strncmp(base, "callgrind.out", 13))
		return OUT_CALLGRIND;
	return OUT_UNKNOWN;
}

const char *output_format_name(enum out_format f)
{
	switch (f) {
	case OUT_FOLDED: return "folded";
	case OUT_SVG: return "svg";
	case OUT_PPROF: return "pprof";
	case OUT_SPEEDSCOPE: return "speedscope";
	case OUT_CALLGRIND: return "callgrind";
	default: return "unknown";
	}
}

int output_check_writable(const char *path)
{
	char err[4300];
	if (!strcmp(path, "-") || !outfile_check(path, err, sizeof(err)))
		return 0;
	warnx_lf("%s", err);
	return -1;
}

/* " COUNT\n" into out (at least 23 bytes); returns its length. */
static size_t count_text(char *out, uint64_t count)
{
	char digits[20];
	size_t n = 0, len = 0;
	do
		digits[n++] = (char)('0' + count % 10);
	while ((count /= 10));
	out[len++] = ' ';
	while (n)
		out[len++] = digits[--n];
	out[len++] = '\n';
	return len;
}

/* Sorted, the entries and their stacks lie all over memory: the next ones are asked for
 * early, each entry before its stack. */
static inline void prefetch_ahead(struct prof_entry *const *v, size_t i, size_t n)
{
	if (i + 16 < n)
		__builtin_prefetch(v[i + 16]);
	if (i + 8 < n)
		__builtin_prefetch(v[i + 8]->stack);
}

/* Lines go out in large writes of their own: a heap snapshot has about a million of them,
 * for which a formatted print each and the stream's small buffer cost more than the rest. */
int write_folded(FILE *f, const struct profile *p)
{
	enum { BUF = 1 << 16 };
	char *buf = xmalloc(BUF);   /* outputs are written on threads of their own */
	struct prof_entry **v = profile_sorted(p);
	size_t used = 0;
	size_t n = 0;
	while (v[n])
		n++;
	for (size_t i = 0; i < n; i++) {
		prefetch_ahead(v, i, n);
		size_t len = v[i]->len;
		if (used + len + 24 > BUF) {
			fwrite(buf, 1, used, f);
			used = 0;
		}
		if (len + 24 > BUF)
			fwrite(v[i]->stack, 1, len, f);
		else {
			short_copy(buf + used, v[i]->stack, len);
			used += len;
		}
		used += count_text(buf + used, v[i]->count);
	}
	fwrite(buf, 1, used, f);
	free(buf);
	free(v);
	return ferror(f) ? -1 : 0;
}

/* The tree to draw with o: built from the sorted stacks, dropping what is too narrow to
 * draw as it goes (a heap snapshot has about a stack per object, nearly all of them that
 * narrow), or from every stack when a frame's stacks turn out not to follow each other. */
static struct flame *tree_for(const struct profile *p, const struct flame_opts *o)
{
	struct flame *f = flame_new();
	struct flame_sorted *s = f ? flame_sorted_begin(f, o) : NULL;
	struct prof_entry **v = s ? profile_sorted(p) : NULL;
	int rc = v ? 0 : 1;
	size_t n = 0;
	while (v && v[n])
		n++;
	for (size_t i = 0; i < n && !rc; i++) {
		prefetch_ahead(v, i, n);
		rc = flame_sorted_add(s, v[i]->stack, v[i]->len, v[i]->count);
	}
	if (s && flame_sorted_end(s) && !rc)
		rc = 1;
	free(v);
	if (!rc)
		return f;
	flame_free(f);
	f = flame_new();
	for (size_t i = 0; i < p->cap; i++)
		if (p->e[i].stack)
			flame_add(f, p->e[i].stack, p->e[i].len, p->e[i].count);
	return f;
}

/* The built-in flame graph; the subtitle says what was profiled. */
static int write_svg(FILE *out, const struct profile *p)
{
	struct flame_opts o;
	flame_opts_default(&o);
	char sub[1024];
	if (p->heap) {
		snprintf(sub, sizeof(sub), "%s (PID %s), heap snapshot%s%s, %.1f MB of Lua memory", p->command[0] ?
			 p->command : "?", p->pids, p->taken[0] ? " at " : "", p->taken, (double)p->total / 1e6);
		o.countname = "bytes";
		o.heap = 1;
	} else if (p->alloc) {
		snprintf(sub, sizeof(sub), "%s (PID %s), %.1f s, Lua allocations sampled in windows, %.1f MB",
			 p->command[0] ? p->command : "?", p->pids, p->duration, (double)p->total / 1e6);
		o.countname = "bytes";
	} else
		snprintf(sub, sizeof(sub), "%s (PID %s), %.1f s at %d Hz, %s, %llu samples, %llu lost",
			 p->command[0] ? p->command : "?", p->pids, p->duration, p->hz,
			 p->wall ? "wall clock (on and off CPU)" : "CPU time",
			 (unsigned long long)p->total, (unsigned long long)p->lost);
	o.title = "lua-flame";
	o.subtitle = sub;
	struct flame *f = tree_for(p, &o);
	int rc = f ? flame_write_svg(f, &o, out) : -1;
	flame_free(f);
	return rc;
}

static int write_format(FILE *f, enum out_format fmt, const struct profile *p)
{
	switch (fmt) {
	case OUT_FOLDED: return write_folded(f, p);
	case OUT_SVG: return write_svg(f, p);
	case OUT_PPROF: return write_pprof(f, p);
	case OUT_SPEEDSCOPE: return write_speedscope(f, p);
	case OUT_CALLGRIND: return write_callgrind(f, p);
	default: return -1;
	}
}

int output_write(const struct output *o, struct profile *p, unsigned mode)
{
	profile_sort(p);
	if (!strcmp(o->path, "-")) {
		if (write_format(stdout, o->fmt, p) || fflush(stdout)) {
			warnx_lf("writing the profile to standard output failed: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	struct outfile f;
	char err[4300];
	if (outfile_open(&f, o->path, (mode_t)mode, err, sizeof(err))) {
		warnx_lf("%s", err);
		return -1;
	}
	if (write_format(f.f, o->fmt, p)) {
		warnx_lf("writing %s failed: %s (disk full?)", o->path, strerror(errno));
		outfile_abort(&f);
		return -1;
	}
	if (outfile_commit(&f, err, sizeof(err))) {
		warnx_lf("%s", err);
		return -1;
	}
	return 0;
}

struct out_job {
	const struct output *o;
	struct profile *p;
	unsigned mode;
	int rc;
	pthread_t t;
};

static void *out_thread(void *arg)
{
	struct out_job *j = arg;
	j->rc = output_write(j->o, j->p, j->mode);
	return NULL;
}

int output_write_all(const struct output *outs, int n, struct profile *p, unsigned mode, int *ok)
{
	struct out_job job[OUTPUTS_MAX];
	int started[OUTPUTS_MAX] = { 0 }, failed = 0;
	n = n < OUTPUTS_MAX ? n : OUTPUTS_MAX;
	profile_sort(p);   /* before the threads, which only read the profile */
	for (int i = 0; i < n; i++) {
		job[i] = (struct out_job){ &outs[i], p, mode, 0, 0 };
		started[i] = i > 0 && start_helper(&job[i].t, out_thread, &job[i]);
	}
	for (int i = 0; i < n; i++) {
		if (!started[i])
			out_thread(&job[i]);   /* the first, or one no thread could be started for */
	}
	for (int i = 0; i < n; i++) {
		if (started[i])
			pthread_join(job[i].t, NULL);
		if (ok)
			ok[i] = job[i].rc == 0;
		failed += job[i].rc != 0;
	}
	return failed;
}
