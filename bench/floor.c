/* bench-floor PID HZ SECS: runs the floor program (floor.bpf.c) on every CPU's cpu-clock at
 * HZ for SECS seconds against PID and prints, for each second, "ns_per_sample samples": the
 * BPF run time of that second over the samples of PID it counted. Needs root and
 * kernel.bpf_stats_enabled=1 (scripts/bench-lua.sh sets it). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "floor.skel.h"

static int open_tick(int cpu, int hz)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000000ULL / (unsigned long long)hz; /* as lua-flame samples */
	return (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* "run_time_ns samples" so far. */
static int counters(struct floor_bpf *skel, int ncpu, unsigned long long *rt, unsigned long long *n)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info), zero = 0;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.on_tick), &info, &len))
		return -1;
	__u64 per[ncpu];
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.counted), &zero, per))
		return -1;
	*rt = info.run_time_ns;
	*n = 0;
	for (int i = 0; i < ncpu; i++)
		*n += per[i];
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: bench-floor PID HZ SECS\n");
		return 2;
	}
	__u32 pid = (__u32)atoi(argv[1]), one = 1;
	int hz = atoi(argv[2]), secs = atoi(argv[3]), ncpu = libbpf_num_possible_cpus();
	struct floor_bpf *skel = floor_bpf__open_and_load();
	if (!skel || hz <= 0 || secs <= 0 || ncpu <= 0) {
		fprintf(stderr, "bench-floor: cannot load the floor program (root? BTF?)\n");
		return 1;
	}
	bpf_map_update_elem(bpf_map__fd(skel->maps.targets), &pid, &one, BPF_ANY);
	for (int c = 0; c < ncpu; c++) {
		int fd = open_tick(c, hz);
		if (fd < 0 && errno == ENODEV)
			continue; /* a possible CPU that is not online */
		if (fd < 0 || !bpf_program__attach_perf_event(skel->progs.on_tick, fd)) {
			fprintf(stderr, "bench-floor: cannot sample CPU %d: %s\n", c, strerror(errno));
			return 1;
		}
	}
	unsigned long long rt0, n0, rt1, n1;
	if (counters(skel, ncpu, &rt0, &n0))
		return 1;
	for (int s = 0; s < secs; s++) {
		sleep(1);
		if (counters(skel, ncpu, &rt1, &n1))
			return 1;
		if (n1 > n0)
			printf("%.0f %llu\n", (double)(rt1 - rt0) / (double)(n1 - n0), n1 - n0);
		fflush(stdout);
		rt0 = rt1, n0 = n1;
	}
	return 0; /* the process's exit detaches everything */
}
