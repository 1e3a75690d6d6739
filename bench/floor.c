/* bench-floor PID HZ SECS: runs the floor program (floor.bpf.c) on every CPU's cpu-clock at
 * HZ for SECS seconds against PID and prints, for each second, "ns_per_sample samples
 * ns_per_read failed_reads": the BPF run time of that second over the samples of PID it
 * counted; what one user read cost, from the floor with LF_FLOOR_READS reads more (on ticks
 * of its own, at the same rate) over the floor; and the reads of the latter that failed.
 * Needs root and
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

#include "floor.h"
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

/* The run time so far of prog, and the sum over the CPUs of map's slot key. */
static int counters(struct bpf_program *prog, struct bpf_map *map, __u32 key, int ncpu, unsigned long long *rt,
		    unsigned long long *n)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return -1;
	__u64 per[ncpu];
	if (bpf_map_lookup_elem(bpf_map__fd(map), &key, per))
		return -1;
	*rt = info.run_time_ns;
	*n = 0;
	for (int i = 0; i < ncpu; i++)
		*n += per[i];
	return 0;
}

/* Where both programs stand: [0] floor run time, [1] its samples, [2] the reads' run time,
 * [3] their samples, [4] failed reads. */
static int snapshot(struct floor_bpf *skel, int ncpu, unsigned long long v[5])
{
	unsigned long long rt;
	return counters(skel->progs.on_tick, skel->maps.counted, 0, ncpu, &v[0], &v[1]) ||
	       counters(skel->progs.on_tick_reads, skel->maps.reads_done, 0, ncpu, &v[2], &v[3]) ||
	       counters(skel->progs.on_tick_reads, skel->maps.reads_done, 1, ncpu, &rt, &v[4]);
}

/* Both programs on their own cpu-clock event of every online CPU. */
static int attach_all(struct floor_bpf *skel, int ncpu, int hz)
{
	struct bpf_program *progs[2] = { skel->progs.on_tick, skel->progs.on_tick_reads };
	for (int c = 0; c < ncpu; c++)
		for (int k = 0; k < 2; k++) {
			int fd = open_tick(c, hz);
			if (fd < 0 && errno == ENODEV)
				break; /* a possible CPU that is not online */
			if (fd < 0 || !bpf_program__attach_perf_event(progs[k], fd)) {
				fprintf(stderr, "bench-floor: cannot sample CPU %d: %s\n", c, strerror(errno));
				return -1;
			}
		}
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
	if (attach_all(skel, ncpu, hz))
		return 1;
	unsigned long long a[5], b[5];
	if (snapshot(skel, ncpu, a))
		return 1;
	for (int s = 0; s < secs; s++) {
		sleep(1);
		if (snapshot(skel, ncpu, b))
			return 1;
		if (b[1] > a[1] && b[3] > a[3]) {
			double floor_ns = (double)(b[0] - a[0]) / (double)(b[1] - a[1]);
			double reads_ns = (double)(b[2] - a[2]) / (double)(b[3] - a[3]);
			printf("%.0f %llu %.1f %llu\n", floor_ns, b[1] - a[1], (reads_ns - floor_ns) / LF_FLOOR_READS,
			       b[4] - a[4]);
		}
		fflush(stdout);
		memcpy(a, b, sizeof(a));
	}
	return 0; /* the process's exit detaches everything */
}
