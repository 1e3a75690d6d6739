/* Checks done before anything is loaded, so that an unusable target or environment
 * fails fast with a message that says what to do (exit status 2). */
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "checks.h"
#include "proc.h"
#include "util.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

int check_targets(const pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		if (pids[i] <= 0 || proc_state(pids[i]) == PROC_GONE) {
			warnx_lf("no such process: PID %d; check the PID with 'ps -ef' (inside a container, "
				 "use the host's PID)", (int)pids[i]);
			return 2;
		}
		if (proc_is_kernel_thread(pids[i])) {
			warnx_lf("PID %d is a kernel thread and runs no user code; give the PID of a Lua "
				 "process", (int)pids[i]);
			return 2;
		}
		if (proc_state(pids[i]) == PROC_ZOMBIE) {
			warnx_lf("PID %d has exited (zombie); nothing to profile", (int)pids[i]);
			return 2;
		}
	}
	return 0;
}

static int has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return (d[cap / 32].effective >> (cap % 32)) & 1;
}

static int check_privileges(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	if (syscall(SYS_capget, &h, d))
		return 0; /* cannot tell: let the BPF load report it */
	int bpf_ok = has_cap(d, CAP_SYS_ADMIN) || (has_cap(d, CAP_BPF) && has_cap(d, CAP_PERFMON));
	if (bpf_ok && has_cap(d, CAP_SYS_PTRACE))
		return 0;
	warnx_lf("not permitted: profiling needs root, or the capabilities CAP_BPF, CAP_PERFMON and "
		 "CAP_SYS_PTRACE (run with sudo, or: setcap cap_bpf,cap_perfmon,cap_sys_ptrace+ep lua-flame)");
	return 2;
}

static int check_btf(const char *btf)
{
	if (btf) {
		if (access(btf, R_OK) == 0)
			return 0;
		warnx_lf("no BTF: cannot read %s (given with --btf or LUA_FLAME_BTF): %s", btf, strerror(errno));
		return 2;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		return 0;
	warnx_lf("this kernel has no BTF (/sys/kernel/btf/vmlinux is missing); lua-flame needs a kernel built "
		 "with CONFIG_DEBUG_INFO_BTF=y (most distributions since 2021 ship it), or this kernel's BTF in a "
		 "file given with --btf FILE (for example from the kernel's debug package: "
		 "pahole --btf_encode_detached FILE vmlinux)");
	return 2;
}

static int check_bpf_syscall(void)
{
	if (syscall(SYS_bpf, -1, NULL, 0) < 0 && errno == ENOSYS) {
		warnx_lf("this kernel has no BPF support (bpf() returns ENOSYS); a kernel with "
			 "CONFIG_BPF_SYSCALL=y is needed");
		return 2;
	}
	return 0;
}

int check_environment(const char *btf)
{
	int rc = check_privileges();
	if (!rc)
		rc = check_bpf_syscall();
	if (!rc)
		rc = check_btf(btf);
	return rc;
}
