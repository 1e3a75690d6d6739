/* Wall mode: a target thread's stack is kept where it leaves the CPU (on_switch_out), and
 * when it runs again the time it was off counts as that many samples at the rate, with the
 * remainder carried to the next time. Included by profile.bpf.c after add_stack. */
#ifndef LF_WALL_BPF_H
#define LF_WALL_BPF_H

/* Each thread's stack where it last left the CPU, by its TID as the kernel numbers it (user
 * space sizes it: one entry without wall mode). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct lf_stack);
} off_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct lf_parked);
} off_times SEC(".maps");

/* Before 5.14 the task's state was called state. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/* Whether the current thread leaves the CPU still runnable (preempted), not to wait. */
static __always_inline int wall_runnable(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	long st;
	if (bpf_core_field_exists(t->__state))
		st = BPF_CORE_READ(t, __state);
	else
		st = BPF_CORE_READ((struct task_struct___pre514 *)t, state);
	return st == 0;
}

#define LF_PF_EXITING 0x4 /* task->flags: the thread is exiting */

static __always_inline int lf_task_exiting(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	return (BPF_CORE_READ(t, flags) & LF_PF_EXITING) != 0;
}

/* Whether the current thread leaves the CPU to exit: it never runs again, so it is not
 * parked, and what was kept for it goes. */
static __always_inline int wall_exiting(void)
{
	if (!lf_task_exiting())
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_delete_elem(&off_times, &tid);
	bpf_map_delete_elem(&off_stacks, &tid);
	return 1;
}

/* The end of an off-CPU sample: its stack gets its entry now (so its frames are named while
 * they exist) and is kept for the thread, counted when the thread runs again. */
static __always_inline void wall_park(struct lf_stack *s, __u64 h, __u64 lua)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lf_parked t = { .since = bpf_ktime_get_ns() }, *old = bpf_map_lookup_elem(&off_times, &tid);
	if (old)
		t.carry = old->carry;
	t.key.hash = h;
	t.key.pid = s->pid;
	t.key.tid = s->tid;
	lf_count_stack(h, 0, lua);
	if (bpf_map_update_elem(&off_stacks, &tid, s, BPF_ANY) ||
	    bpf_map_update_elem(&off_times, &tid, &t, BPF_ANY))
		stat_inc(LF_STAT_OFF_LOST);
}

/* Adds n samples to the stack thread tid left the CPU with: to its entry of the current
 * generation, made again from the kept stack when user space drained the one it had (its
 * functions were announced when it was parked: lua 0 announces nothing). */
static __always_inline void wall_credit(__u32 tid, const struct lf_parked *t, __u64 n)
{
	struct lf_stack_key key = t->key;
	key.gen = cur_gen;
	struct lf_stack *s = bpf_map_lookup_elem(&off_stacks, &tid);
	if (s)
		add_stack(&key, s, n, 0);
	else
		stat_inc(LF_STAT_OFF_LOST);
}

/* A thread is switched in: if it was parked, its time off the CPU is counted. */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch_in, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	(void)ctx;
	(void)preempt;
	(void)prev;
	__u32 tid = next->pid;
	struct lf_parked *t = bpf_map_lookup_elem(&off_times, &tid);
	if (!t || !t->since)
		return 0;
	__u64 units = (bpf_ktime_get_ns() - t->since) * wall_hz + t->carry;
	__u64 n = units / 1000000000ULL;
	t->carry = units - n * 1000000000ULL;
	t->since = 0;
	if (n) {
		wall_credit(tid, t, n);
		__u32 idx = LF_STAT_OFFCPU;
		__u64 *v = bpf_map_lookup_elem(&stats, &idx);
		if (v)
			*v += n;
	}
	return 0;
}

#endif
