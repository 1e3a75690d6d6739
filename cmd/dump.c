/* `lua-flame dump -p PID`: what every thread of a process is running right now, printed
 * once to stdout, one frame per line from the root, taken from a short burst of samples
 * (sampling sees only threads that run on a CPU; the others are listed with their state).
 * Per thread it shows the stack seen most often in the burst: the counts are aggregated
 * in the kernel without timestamps, so "most frequent" is what a sample can say soundly. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "proc.h"
#include "safe_name.h"
#include "util.h"

struct dthread {
	long tid;
	char name[64];
	uint64_t samples;        /* all samples of this thread */
	const struct prof_entry *top; /* its most frequent stack */
};

struct dump {
	struct dthread *t;
	size_t n;
};

static struct dthread *thread_of(struct dump *d, long tid)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->t[i].tid == tid)
			return &d->t[i];
	d->t = xrealloc(d->t, (d->n + 1) * sizeof(*d->t));
	struct dthread *t = &d->t[d->n++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

static int cmp_tid(const void *a, const void *b)
{
	long x = ((const struct dthread *)a)->tid, y = ((const struct dthread *)b)->tid;
	return (x > y) - (x < y);
}

/* Every thread alive now, sampled or not. */
static void list_threads(struct dump *d, pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return;
	struct dirent *e;
	while ((e = readdir(dir))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (!*end && tid > 0)
			thread_of(d, tid);
	}
	closedir(dir);
}

/* "comm;name-TID;frames..." (the thread level that --threads adds) -> TID, or -1. */
static long stack_tid(const char *s, const char **frames)
{
	const char *a = strchr(s, ';');
	if (!a)
		return -1;
	const char *b = strchr(a + 1, ';');
	size_t len = b ? (size_t)(b - a - 1) : strlen(a + 1);
	const char *dash = NULL;
	for (const char *p = a + 1; p < a + 1 + len; p++)
		if (*p == '-')
			dash = p;
	*frames = b ? b + 1 : "";
	return dash ? strtol(dash + 1, NULL, 10) : -1;
}

static void assign_stacks(struct dump *d, const struct profile *p)
{
	for (size_t i = 0; i < p->cap; i++) {
		const struct prof_entry *e = &p->e[i];
		const char *frames;
		long tid;
		if (!e->stack || (tid = stack_tid(e->stack, &frames)) < 0)
			continue;
		struct dthread *t = thread_of(d, tid);
		t->samples += e->count;
		if (!t->top || e->count > t->top->count)
			t->top = e;
	}
}

static void thread_info(pid_t pid, struct dthread *t, char *state, size_t size)
{
	char path[96], buf[1024], wchan[128] = "";
	snprintf(path, sizeof(path), "/proc/%d/task/%ld/comm", (int)pid, t->tid);
	if (read_file(path, t->name, sizeof(t->name)) <= 0)
		snprintf(t->name, sizeof(t->name), "?");
	t->name[strcspn(t->name, "\n")] = 0;
	safe_name_fix(t->name, sizeof(t->name), SAFE_TERMINAL);
	snprintf(path, sizeof(path), "/proc/%d/task/%ld/stat", (int)pid, t->tid);
	const char *p = read_file(path, buf, sizeof(buf)) > 0 ? strrchr(buf, ')') : NULL;
	char c = p && p[1] == ' ' ? p[2] : '?';
	snprintf(path, sizeof(path), "/proc/%d/task/%ld/wchan", (int)pid, t->tid);
	if (read_file(path, wchan, sizeof(wchan)) <= 0 || !strcmp(wchan, "0"))
		wchan[0] = 0;
	static const char *const names[] = { ['R'] = "running", ['S'] = "sleeping",
		['D'] = "uninterruptible (disk or lock)", ['T'] = "stopped", ['t'] = "stopped by a debugger",
		['Z'] = "exited", ['X'] = "exited", ['I'] = "idle" };
	const char *name = (c > 0 && (size_t)c < ARRAY_SIZE(names) && names[(int)c]) ? names[(int)c] : "gone";
	snprintf(state, size, "%s%s%s", name, wchan[0] ? ", in the kernel at " : "", wchan);
}

static void print_stack(const char *frames, size_t len)
{
	while (len) {
		const char *semi = memchr(frames, ';', len);
		size_t n = semi ? (size_t)(semi - frames) : len;
		char safe[4096];
		safe_name_write(safe, sizeof(safe), frames, n, SAFE_TERMINAL);
		printf("    %s\n", safe);
		if (!semi)
			break;
		len -= n + 1;
		frames = semi + 1;
	}
}

static void print_thread(pid_t pid, struct dthread *t)
{
	char state[256];
	thread_info(pid, t, state, sizeof(state));
	if (!t->top) {
		printf("Thread %ld \"%s\": not on a CPU while sampled (%s)\n\n", t->tid, t->name, state);
		return;
	}
	const char *frames;
	stack_tid(t->top->stack, &frames);
	printf("Thread %ld \"%s\": on a CPU in %llu samples; this stack in %llu of them (%.0f%%):\n",
	       t->tid, t->name, (unsigned long long)t->samples, (unsigned long long)t->top->count,
	       100.0 * (double)t->top->count / (double)t->samples);
	print_stack(frames, t->top->len - (size_t)(frames - t->top->stack));
	printf("\n");
}

static void print_header(const struct record_opts *o, const struct profile *p, const struct record_result *r,
			 size_t nthreads)
{
	char comm[64], who[1024], lua[512];
	proc_comm(o->pids[0], comm, sizeof(comm));
	const char *w = comm[0] ? comm : p->command;
	safe_name_write(who, sizeof(who), w, strlen(w), SAFE_TERMINAL);
	safe_name_write(lua, sizeof(lua), r->lua, strlen(r->lua), SAFE_TERMINAL);
	printf("Process %d (%s): %s; %zu thread%s\n", (int)o->pids[0], who,
	       lua[0] ? lua : "no Lua runtime found", nthreads, nthreads == 1 ? "" : "s");
	printf("Sampled %.2f s at %d Hz: each stack is the one seen most often in that time, "
	       "root first (a sample, not an exact snapshot).\n\n", p->duration, o->hz);
}

int dump_run(struct record_opts *o)
{
	struct profile prof;
	struct record_result res;
	profile_init(&prof);
	int quiet = lf_quiet;
	lf_quiet = 1; /* attach chatter would bury the dump; errors still show */
	int rc = record_collect(o, &prof, &res);
	lf_quiet = quiet;
	if (rc) {
		profile_free(&prof);
		return rc;
	}
	struct dump d = { NULL, 0 };
	list_threads(&d, o->pids[0]);
	assign_stacks(&d, &prof);
	qsort(d.t, d.n, sizeof(*d.t), cmp_tid);
	print_header(o, &prof, &res, d.n);
	for (size_t i = 0; i < d.n; i++)
		print_thread(o->pids[0], &d.t[i]);
	fflush(stdout);
	free(d.t);
	profile_free(&prof);
	return 0;
}
