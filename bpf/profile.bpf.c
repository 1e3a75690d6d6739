/* The sampling program: runs on every cpu-clock tick of every CPU, keeps samples of the
 * target processes, collects their kernel and user stacks, and counts identical stacks
 * in a hash map that user space drains generation by generation. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "profile.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool per_thread = false;
const volatile bool want_kernel = true;

__u32 cur_gen = 0; /* written by user space to switch generations */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);   /* tgid */
	__type(value, __u32); /* flags, unused for now */
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192); /* resized by user space before load */
	__type(key, struct lf_stack_key);
	__type(value, struct lf_stack);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lf_stack);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LF_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);
	if (v)
		(*v)++;
}

static __always_inline __u64 mix(__u64 h, __u64 w)
{
	h ^= w;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static __always_inline __u64 stack_hash(const struct lf_stack *s)
{
	__u64 h = mix(s->nkern, s->nuser);
	for (int i = 0; i < LF_MAX_KSTACK; i++) {
		if (i >= s->nkern)
			break;
		h = mix(h, s->kern[i]);
	}
	for (int i = 0; i < LF_MAX_USTACK; i++) {
		if (i >= s->nuser)
			break;
		h = mix(h, s->user[i]);
	}
	return h;
}

static __always_inline void collect_kernel(struct bpf_perf_event_data *ctx, struct lf_stack *s)
{
	s->nkern = 0;
	if (!want_kernel)
		return;
	long n = bpf_get_stack(ctx, s->kern, sizeof(s->kern), 0);
	if (n < 0) {
		stat_inc(LF_STAT_KSTACK_ERR);
		return;
	}
	s->nkern = n / sizeof(__u64);
}

/* Frame-pointer user stack; replaced by the CFI unwinder where tables exist. */
static __always_inline void collect_user(struct bpf_perf_event_data *ctx, struct lf_stack *s)
{
	long n = bpf_get_stack(ctx, s->user, sizeof(s->user), BPF_F_USER_STACK);
	if (n <= 0) {
		stat_inc(LF_STAT_USTACK_ERR);
		s->user[0] = ((__u64)LF_TAG_MARK << LF_TAG_SHIFT) | LF_MARK_NO_USTACK;
		s->nuser = 1;
		return;
	}
	s->nuser = n / sizeof(__u64);
}

static __always_inline void count_stack(struct lf_stack *s)
{
	struct lf_stack_key key = {
		.hash = stack_hash(s), .pid = s->pid, .tid = s->tid, .gen = cur_gen,
	};
	struct lf_stack *old = bpf_map_lookup_elem(&stacks, &key);
	if (old) {
		__sync_fetch_and_add(&old->count, 1);
		return;
	}
	s->count = 1;
	if (bpf_map_update_elem(&stacks, &key, s, BPF_NOEXIST) == 0)
		return;
	old = bpf_map_lookup_elem(&stacks, &key);
	if (old)
		__sync_fetch_and_add(&old->count, 1);
	else
		stat_inc(LF_STAT_LOST_MAPFULL);
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	if (!bpf_map_lookup_elem(&targets, &tgid))
		return 0;
	__u32 zero = 0;
	struct lf_stack *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	stat_inc(LF_STAT_SAMPLES);
	s->pid = tgid;
	s->tid = per_thread ? (__u32)id : 0;
	s->flags = 0;
	collect_kernel(ctx, s);
	collect_user(ctx, s);
	count_stack(s);
	return 0;
}
