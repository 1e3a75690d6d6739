/* Unit tests for cmd/proc/proc_ns.c: NSpid parsing on status texts, and the live answers for
 * ourselves and for a child started as PID 1 of a new PID and mount namespace, which also
 * finds itself in a child PID namespace (needs root). */
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "proc_ns.h"

static void parses_nspid(void)
{
	pid_t in = 0;
	CHECK_INT(proc_ns_parse_nspid("Name:\tlua5.4\nPid:\t4242\nNSpid:\t4242\t17\t1\nNSsid:\t1\n", &in), 0);
	CHECK_INT(in, 1);
	CHECK_INT(proc_ns_parse_nspid("Name:\tx\nNSpid:\t99\n", &in), 0);
	CHECK_INT(in, 99);
	CHECK_INT(proc_ns_parse_nspid("NSpid:\t7\t3", &in), 0); /* last line without newline */
	CHECK_INT(in, 3);
	in = -5;
	CHECK_INT(proc_ns_parse_nspid("Name:\tx\nPid:\t99\n", &in), -1); /* no NSpid line */
	CHECK_INT(proc_ns_parse_nspid("NSpid:\t\n", &in), -1);
	CHECK_INT(proc_ns_parse_nspid("NSpid:\t12 x\n", &in), -1);
	CHECK_INT(proc_ns_parse_nspid("NSpidx\nNSpid:\t0\n", &in), -1);
	CHECK_INT(proc_ns_parse_nspid("", &in), -1);
	CHECK_INT(in, -5); /* untouched on failure */
}

static void self_is_in_our_namespaces(void)
{
	pid_t in = 0;
	CHECK_INT(proc_ns_pid(getpid(), &in), 0);
	CHECK_INT(in, getpid());
	CHECK_INT(proc_in_other_pidns(getpid()), 0);
	CHECK_INT(proc_in_other_mntns(getpid()), 0);
	CHECK_INT(proc_in_other_pidns(getppid()), 0);
	int child = proc_self_in_child_pidns();
	CHECK(child == 0 || child == 1);
	uint64_t dev = 0, ino = 0;
	CHECK_INT(proc_ns_self_pidns(&dev, &ino), 0);
	CHECK(ino != 0);
	CHECK_INT(child, ino != 0xEFFFFFFCu);
}

static void gone_process_is_unknown(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	pid_t in = 0;
	CHECK_INT(proc_ns_pid(p, &in), -1);
	CHECK_INT(proc_in_other_pidns(p), -1);
	CHECK_INT(proc_in_other_mntns(p), -1);
	CHECK_INT(proc_ns_pid(0, &in), -1);
	CHECK_INT(proc_in_other_pidns(-1), -1);
}

/* A middle process unshares PID and mount namespaces and forks the container's PID 1,
 * which waits on a pipe; the middle one reports its host PID to us and exits. */
static void child_in_new_namespaces(void)
{
	int report[2], hold[2], res[2];
	CHECK(pipe(report) == 0 && pipe(hold) == 0 && pipe(res) == 0);
	pid_t mid = fork();
	if (mid == 0) {
		close(report[0]);
		close(hold[1]);
		pid_t g = -1;
		if (unshare(CLONE_NEWPID | CLONE_NEWNS) == 0 && (g = fork()) == 0) {
			char c = (char)proc_self_in_child_pidns();
			close(report[1]);
			if (write(res[1], &c, 1) != 1)
				_exit(1);
			_exit(read(hold[0], &c, 1) < 0 ? 2 : (getpid() == 1 ? 0 : 3));
		}
		_exit(write(report[1], &g, sizeof(g)) == sizeof(g) ? 0 : 1);
	}
	close(report[1]);
	close(hold[0]);
	pid_t g = -1;
	if (read(report[0], &g, sizeof(g)) != sizeof(g))
		g = -1;
	waitpid(mid, NULL, 0);
	CHECK(g > 1);
	if (g > 1) {
		pid_t in = 0;
		CHECK_INT(proc_ns_pid(g, &in), 0);
		CHECK_INT(in, 1);
		CHECK_INT(proc_in_other_pidns(g), 1);
		CHECK_INT(proc_in_other_mntns(g), 1);
		char c = -2;
		CHECK(read(res[0], &c, 1) == 1);
		CHECK_INT(c, 1); /* it sees itself in a child PID namespace */
		close(hold[1]); /* lets it exit; the middle process is gone, so reap through init */
		kill(g, SIGKILL);
	}
	close(report[0]);
	close(res[0]);
	close(res[1]);
}

int main(void)
{
	RUN(parses_nspid);
	RUN(self_is_in_our_namespaces);
	RUN(gone_process_is_unknown);
	RUN(child_in_new_namespaces);
	CHECK_EXIT();
}
