/* The floor of `make bench`: a perf_event program that does only what every sampler must,
 * look up whether the sampled task belongs to a target process and count the sample. The
 * cost of lua-flame's own program is read as a multiple of this one's, measured in the
 * same run on the same target. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

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
