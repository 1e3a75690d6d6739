/* Runs a command with one system call refused, the way a container's seccomp profile
 * (Docker's default blocks bpf and perf_event_open) or a kernel without the call would:
 *   deny_syscall bpf|perf_event_open EPERM|EACCES|ENOSYS COMMAND [ARGS...] */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int syscall_nr(const char *name)
{
	if (!strcmp(name, "bpf"))
		return SYS_bpf;
	if (!strcmp(name, "perf_event_open"))
		return SYS_perf_event_open;
	return -1;
}

static int errno_value(const char *name)
{
	if (!strcmp(name, "EPERM"))
		return EPERM;
	if (!strcmp(name, "EACCES"))
		return EACCES;
	if (!strcmp(name, "ENOSYS"))
		return ENOSYS;
	return -1;
}

static int deny(int nr, int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(int argc, char **argv)
{
	int nr = argc > 3 ? syscall_nr(argv[1]) : -1, err = argc > 3 ? errno_value(argv[2]) : -1;
	if (nr < 0 || err < 0) {
		fprintf(stderr, "usage: deny_syscall bpf|perf_event_open EPERM|EACCES|ENOSYS COMMAND [ARGS...]\n");
		return 2;
	}
	if (deny(nr, err)) {
		perror("deny_syscall: seccomp");
		return 1;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
