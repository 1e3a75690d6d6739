/* The floor of `make bench`: a perf_event program that does only what every sampler must,
 * look up whether the sampled task belongs to a target process and count the sample. The
 * cost of lua-flame's own program is read as a multiple of this one's, measured in the
 * same run on the same target. Beside it, the same program with LF_FLOOR_READS user reads
 * more: what one read costs on this machine, the price of each frame a walk reads. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "floor.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);   /* tgid */
	__type(value, __u32);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} counted SEC(".maps");

SEC("perf_event")
int on_tick(void *ctx)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32), zero = 0;
	(void)ctx;
	if (!bpf_map_lookup_elem(&targets, &tgid))
		return 0;
	__u64 *n = bpf_map_lookup_elem(&counted, &zero);
	if (n)
		*n += 1;
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} reads_done SEC(".maps"); /* [0] samples, [1] reads that failed */

/* The floor, then LF_FLOOR_READS reads of 8 bytes from the sampled thread's stack above its
 * stack pointer (mapped, and most of it in the cache: the price of the read itself). The
 * task's saved user registers hold that pointer whether the tick came in user or kernel
 * mode. */
SEC("perf_event")
int on_tick_reads(void *ctx)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32), zero = 0, one = 1;
	(void)ctx;
	if (!bpf_map_lookup_elem(&targets, &tgid))
		return 0;
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	__u64 sp = r ? r->sp : 0, v, failed = 0;
	for (__u32 i = 0; i < LF_FLOOR_READS; i++)
		if (bpf_probe_read_user(&v, sizeof(v), (const void *)(sp + i * 64)))
			failed++;
	__u64 *n = bpf_map_lookup_elem(&reads_done, &zero);
	if (n)
		*n += 1;
	__u64 *f = bpf_map_lookup_elem(&reads_done, &one);
	if (f)
		*f += failed;
	return 0;
}
