/* Processes beyond the -p list: descendants of the targets (--children), found by
 * reading the parent PID of every process in /proc, and the command lua-flame starts
 * itself (-- COMMAND), held before exec until sampling is on. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "children.h"
#include "util.h"

struct fresh { pid_t pid, ppid; int taken; };

static int has_pid(const pid_t *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return 1;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

static int seen_before(const struct child_scan *cs, pid_t pid)
{
	return bsearch(&pid, cs->seen, cs->nseen, sizeof(pid_t), cmp_pid) != NULL;
}

/* Parent PID from /proc/PID/stat; -1 when gone or a zombie (nothing left to sample). */
static pid_t read_ppid(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	const char *p = strrchr(buf, ')'); /* the name may contain spaces and ')' */
	char state;
	int ppid;
	if (!p || sscanf(p + 1, " %c %d", &state, &ppid) != 2 || state == 'Z' || state == 'X')
		return -1;
	return (pid_t)ppid;
}

/* Every PID listed in /proc now (processes only: threads live under /proc/PID/task). */
static pid_t *list_pids(size_t *n)
{
	size_t cap = 1024;
	pid_t *v = xmalloc(cap * sizeof(*v));
	*n = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return v;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (*n == cap)
			v = xrealloc(v, (cap *= 2) * sizeof(*v));
		v[(*n)++] = (pid_t)pid;
	}
	closedir(d);
	qsort(v, *n, sizeof(*v), cmp_pid);
	return v;
}

/* New processes whose parent is a target, or a new descendant found in an earlier pass
 * (a grandchild may be listed before its parent). */
static size_t pick_descendants(struct fresh *f, size_t nf, const pid_t *targets, size_t n,
			       pid_t *out, size_t max)
{
	size_t nout = 0;
	for (int changed = 1; changed && nout < max;) {
		changed = 0;
		for (size_t i = 0; i < nf && nout < max; i++) {
			if (f[i].taken || f[i].ppid <= 0)
				continue;
			if (!has_pid(targets, n, f[i].ppid) && !has_pid(out, nout, f[i].ppid))
				continue;
			f[i].taken = changed = 1;
			out[nout++] = f[i].pid;
		}
	}
	return nout;
}

size_t children_scan(struct child_scan *cs, const pid_t *targets, size_t n, pid_t *out, size_t max)
{
	size_t np;
	pid_t *now = list_pids(&np);
	struct fresh *f = xmalloc((np ? np : 1) * sizeof(*f));
	size_t nf = 0;
	for (size_t i = 0; i < np; i++)
		if (!seen_before(cs, now[i]) && !has_pid(targets, n, now[i]))
			f[nf++] = (struct fresh){ now[i], read_ppid(now[i]), 0 };
	size_t nout = pick_descendants(f, nf, targets, n, out, max);
	/* Forget processes that are gone: their PID may come back as a new process. Only a
	 * process that ran past the check without becoming a child stays "seen"; the ones
	 * left out because max was reached are looked at again next time. */
	free(cs->seen);
	cs->seen = now;
	cs->nseen = 0;
	for (size_t i = 0, j = 0; i < np; i++) {
		while (j < nf && f[j].pid < now[i])
			j++;
		int skipped = j < nf && f[j].pid == now[i] && !f[j].taken && f[j].ppid > 0 &&
			      nout == max;
		if (!skipped)
			now[cs->nseen++] = now[i];
	}
	free(f);
	return nout;
}

void children_free(struct child_scan *cs)
{
	free(cs->seen);
	cs->seen = NULL;
	cs->nseen = 0;
}

/* In the forked child: wait for the go byte, then become the command. */
static void __attribute__((noreturn)) run_held(char **argv, int go_fd, int exec_fd)
{
	char go = 0;
	/* EOF without the byte: lua-flame died before sampling; never run unprofiled. */
	while (read(go_fd, &go, 1) < 0 && errno == EINTR)
		;
	if (go != 'g')
		_exit(127);
	close(go_fd);
	execvp(argv[0], argv);
	int e = errno;
	if (write(exec_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int command_start(struct command *c, char **argv)
{
	int go[2], ex[2];
	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		warnx_lf("cannot start %s: pipe: %s", argv[0], strerror(errno));
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		warnx_lf("cannot start %s: fork: %s", argv[0], strerror(errno));
		return -1;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(ex[0]);
		run_held(argv, go[0], ex[1]);
	}
	close(go[0]);
	close(ex[1]);
	c->go_fd = go[1];
	c->exec_fd = ex[0];
	command_seize(c); /* without ptrace, tables come after exec: a few samples unwind late */
	return 0;
}

int command_release(struct command *c, const char *name, void (*mapped)(void *, int), void *ctx)
{
	ssize_t n = write(c->go_fd, "g", 1);
	close(c->go_fd);
	c->go_fd = -1;
	int e = 0;
	if (n == 1 && c->traced)
		command_follow_loader(c, mapped, ctx);
	if (n == 1) {
		/* EOF here means exec succeeded (the pipe is close-on-exec). */
		while ((n = read(c->exec_fd, &e, sizeof(e))) < 0 && errno == EINTR)
			;
	} else {
		e = errno;
	}
	close(c->exec_fd);
	c->exec_fd = -1;
	if (n == 0)
		return 0;
	warnx_lf("cannot run '%s': %s; check the command name, PATH and permissions", name, strerror(e));
	return -1;
}

int command_wait(struct command *c)
{
	int st = c->status;
	while (!c->ended && waitpid(c->pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
