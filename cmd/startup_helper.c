/* The start-up helper (see startup_helper.h): forked once the targets' files are registered,
 * it builds their rows, reads their files as runtime detection does, and sends both; the
 * parent takes them in once its BPF program is loaded, or does the rows itself. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc_scan.h"
#include "runtime.h"
#include "startup_helper.h"
#include "util.h"

/* The child: the rows first (their time is the start-up's), then the files' scores, then
 * everything at once, as the parent reads only after its load. Detection's words are said
 * by the parent when it detects. */
static void helper_main(struct unwind_tables *ut, const pid_t *pids, size_t n, int fd)
{
	double t0 = now_sec();
	ut_build_pending(ut);
	double ms = (now_sec() - t0) * 1000.0;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	for (size_t i = 0; i < n; i++)
		runtime_free(runtime_detect(pids[i], NULL));
	_exit(ut_send_tables(ut, fd, ms) || proc_scores_send(fd) ? 1 : 0);
}

int startup_helper_start(struct startup_helper *h, struct unwind_tables *ut, const pid_t *pids, size_t n)
{
	int p[2];
	h->pid = 0;
	if (!ut_pending(ut) || pipe2(p, O_CLOEXEC))
		return -1;
	fflush(NULL); /* nothing buffered is written twice */
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		helper_main(ut, pids, n, p[1]);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	h->pid = pid;
	h->fd = p[0];
	return 0;
}

double startup_helper_finish(struct startup_helper *h, struct unwind_tables *ut)
{
	double ms = 0, t0 = now_sec();
	int ok = 0;
	if (h->pid) {
		ok = ut_take_tables(ut, h->fd, &ms) == 0;
		if (ok)
			proc_scores_take(h->fd); /* without them, detection reads the files itself */
		close(h->fd);
		while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
			;
		h->pid = 0;
	}
	if (!ok) {
		ut_build_pending(ut);
		ms = (now_sec() - t0) * 1000.0;
	}
	return ms;
}
