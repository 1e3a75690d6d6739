/* Probes, before anything is loaded, for policies that refuse bpf() or perf_event_open
 * even when lua-flame looks privileged (kernel lockdown, a container's seccomp profile,
 * kernel.perf_event_paranoid, an LSM), and says which knob to turn (exit status 2). */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "restrictions.h"
#include "util.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

/* Kernels before 5.11 charge BPF maps to the locked-memory limit, which is 64 KiB or 8 MiB by
 * default: far below lua-flame's tables. Newer kernels ignore it, so raising it costs nothing. */
static void raise_memlock(void)
{
	struct rlimit r = { RLIM_INFINITY, RLIM_INFINITY };
	if (setrlimit(RLIMIT_MEMLOCK, &r)) {
		getrlimit(RLIMIT_MEMLOCK, &r);
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_MEMLOCK, &r);
	}
}

int check_bpf_allowed(void)
{
	raise_memlock();
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4, a.value_size = 4, a.max_entries = 1;
	int fd = (int)syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
	if (fd >= 0)
		return close(fd), 0;
	if (errno != EPERM && errno != EACCES)
		return 0; /* anything else: loading the program reports it */
	int e = errno;
	struct rlimit r;
	if (e == EPERM && getrlimit(RLIMIT_MEMLOCK, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
		warnx_lf("the kernel refused bpf(): %s. Kernels before 5.11 count BPF maps against the "
			 "locked-memory limit, %llu KiB here, which lua-flame could not raise: run it as root, or "
			 "raise it first (ulimit -l unlimited; LimitMEMLOCK=infinity in a systemd unit). On newer "
			 "kernels, see below.", strerror(e), (unsigned long long)r.rlim_cur / 1024);
	errno = e;
	warnx_lf("the kernel refused bpf(): %s. Kernel lockdown ('confidentiality' in "
		 "/sys/kernel/security/lockdown) forbids it; in a container, allow it: docker run "
		 "--privileged, or --cap-add BPF --cap-add PERFMON --cap-add SYS_PTRACE --security-opt "
		 "seccomp=unconfined", strerror(errno));
	return 2;
}

/* perf_event_paranoid does not apply to a process with CAP_PERFMON (or CAP_SYS_ADMIN). */
static int perfmon_capable(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return 0;
	int caps[] = { CAP_PERFMON, CAP_SYS_ADMIN };
	for (int i = 0; i < 2; i++)
		if ((d[caps[i] / 32].effective >> (caps[i] % 32)) & 1)
			return 1;
	return 0;
}

int check_perf_events(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 10000000,
				     .disabled = 1 };
	int fd = (int)syscall(__NR_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		return close(fd), 0;
	if (errno != EPERM && errno != EACCES)
		return 0; /* offline CPU 0 and the like: attaching reports real problems */
	int e = errno;
	char par[16] = "?";
	if (read_file("/proc/sys/kernel/perf_event_paranoid", par, sizeof(par)) > 0)
		par[strcspn(par, "\n")] = 0;
	if (!perfmon_capable())
		warnx_lf("perf events are restricted: perf_event_open failed: %s, and "
			 "kernel.perf_event_paranoid is %s; run as root, give lua-flame CAP_PERFMON, or "
			 "lower it: sysctl kernel.perf_event_paranoid=1", strerror(e), par);
	else
		warnx_lf("perf events are restricted: perf_event_open failed: %s although lua-flame has "
			 "CAP_PERFMON (kernel.perf_event_paranoid=%s does not apply). A seccomp policy blocks "
			 "it (in a container: docker run --privileged, or --security-opt seccomp=unconfined), "
			 "or an LSM (SELinux, AppArmor: check the audit log)", strerror(e), par);
	return 2;
}
