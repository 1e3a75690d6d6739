/* The sampling program: runs on every cpu-clock tick of every CPU, keeps samples of the
 * target processes, collects their kernel stack, unwinds their user stack from CFI
 * tables (unwind.bpf.h), and counts identical stacks in a hash map that user space
 * drains generation by generation. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "stats.h"
#include "config.bpf.h"
#include "unwind.bpf.h"
#include "stage_time.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* The programs a sample runs: on a perf event (CPU and wall modes), or, built with LF_ALLOC,
 * on a uprobe (alloc mode), whose context is the probed thread's pt_regs: the regs member at
 * the start of bpf_perf_event_data, so the same code reads both. */
#ifdef LF_ALLOC
#define LF_PROG_SEC "uprobe"
#else
#define LF_PROG_SEC "perf_event"
#endif

__u32 cur_gen = 0; /* written by user space to switch generations */
/* cpu mode: the timer ticks this many times per sample taken (written by user space before
 * sampling starts); tick_kept says which */
__u32 ticks_per_sample = 1;

/* Per CPU: ticks counted in the current run of ticks_per_sample, and the one of them kept (in
 * every object, alloc's too: they share one skeleton's layout). */
struct lf_ticks {
	__u32 n, keep;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lf_ticks);
} ticks SEC(".maps");

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

/* The records lf_stack_is_small says fit a small value, where maps are allocated on demand
 * (preallocated, it would hold its full size in memory beside the full map's): user space
 * reads both maps. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192); /* resized by user space before load */
	__type(key, struct lf_stack_key);
	__type(value, struct lf_stack_small);
} stacks_small SEC(".maps");

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

/* Two lanes per hash (h and h2, lua and lua2), words taken in turn: each word's mix waits
 * for the one before it in its lane only, so the lanes' multiplies overlap. */
struct hash_ctx {
	const struct lf_stack *s;
	const __u32 *nd; /* each native word's note_run delta: the word is hashed less it */
	__u64 h, h2, lua, lua2, any;
	__u32 lua_from, traces;
};

#ifndef LF_NO_BPF_LOOP
#define LF_HASH_CHUNK 8 /* words a call: a call costs as much as hashing several words */

/* h with w mixed in when in is 1, as it was when in is 0. A product, not a branch or a mask
 * of ones ANDed: the verifier follows one path through it, where it takes each case of
 * those on its own, word by word. */
static __always_inline __u64 mix_if(__u64 h, __u64 w, __u64 in)
{
	return h + (mix(h, w) - h) * in;
}

/* 1 for a LuaJIT trace word, else 0 (the branchless way of mix_if). */
static __always_inline __u64 is_trace_word(__u64 w)
{
	__u64 t = (w >> LF_TAG_SHIFT) ^ LF_TAG_LJTRACE;
	__u64 bit = 1 ^ ((t | -t) >> 63);
	barrier_var(bit); /* as in lf_below */
	return bit;
}

/* Word i of w less nd's entry for it (nd: the native part's deltas, else 0). */
static __always_inline __u64 hashed_word(const __u64 *w, const __u32 *nd, __u32 i)
{
	return w[i & (LF_MAX_USTACK - 1)] - (nd ? nd[i & (LF_NDELTA - 1)] : 0);
}

/* The chunk of words from at into the lanes *a and *b, when all of it is below end; else
 * only those below end, into *a alone (the last chunk). Every word of a chunk wholly inside
 * goes in without the product of mix_if. */
static __always_inline void hash_chunk(const __u64 *w, const __u32 *nd, __u32 at, __u32 end, __u64 *a, __u64 *b)
{
	if (at + LF_HASH_CHUNK <= end) {
		__u64 x = *a, y = *b;
#pragma clang loop unroll(full)
		for (__u32 d = 0; d < LF_HASH_CHUNK; d += 2) {
			x = mix(x, hashed_word(w, nd, at + d));
			y = mix(y, hashed_word(w, nd, at + d + 1));
		}
		*a = x;
		*b = y;
		return;
	}
#pragma clang loop unroll(full)
	for (__u32 d = 0; d < LF_HASH_CHUNK; d++)
		*a = mix_if(*a, hashed_word(w, nd, at + d), lf_below(at + d, end));
}

/* Kernel words LF_HASH_CHUNK * j onwards, those below the record's count. */
static long hash_kern(__u32 j, void *data)
{
	struct hash_ctx *c = data;
	__u32 at = j * LF_HASH_CHUNK;
#pragma clang loop unroll(full)
	for (__u32 d = 0; d < LF_HASH_CHUNK; d++) {
		__u32 k = at + d;
		c->h = mix_if(c->h, c->s->kern[k & (LF_MAX_KSTACK - 1)], lf_below(k, c->s->nkern));
	}
	return 0;
}

/* Native words LF_HASH_CHUNK * j onwards, into the record's hash, and a LuaJIT process's
 * trace words also into its names' hash: they name traces. */
static long hash_native(__u32 j, void *data)
{
	struct hash_ctx *c = data;
	__u32 at = j * LF_HASH_CHUNK;
	if (!c->traces) {
		hash_chunk(c->s->user, c->nd, at, c->lua_from, &c->h, &c->h2);
		return 0;
	}
#pragma clang loop unroll(full)
	for (__u32 d = 0; d < LF_HASH_CHUNK; d++) {
		__u32 i = at + d;
		__u64 w = hashed_word(c->s->user, c->nd, i), in = lf_below(i, c->lua_from);
		__u64 names = is_trace_word(w) & in;
		c->h = mix_if(c->h, w, in);
		c->lua = mix_if(c->lua, w, names);
		c->any |= names;
	}
	return 0;
}

/* Words of the Lua part LF_HASH_CHUNK * j onwards, into its names' hash alone: the record's
 * hash takes that hash at the end rather than each word again. */
static long hash_lua(__u32 j, void *data)
{
	struct hash_ctx *c = data;
	c->any = 1;
	hash_chunk(c->s->user, 0, c->lua_from + j * LF_HASH_CHUNK, c->s->nuser, &c->lua, &c->lua2);
	return 0;
}
#endif

/* The record's hash, and in *lua the hash of what its functions' names depend on (0: it
 * has nothing to name): its Lua part and LuaJIT's trace words. Stacks with the same ones
 * name the same functions, whatever their native frames and exact pcs; native words are
 * hashed as note_run said, so that pcs user space labels alike make one stack. Through
 * bpf_loop where there is one: its callback is verified once, where an unrolled loop is
 * verified at each of the several places a sample can end. */
static __always_inline __u64 stack_hash(const struct lf_stack *s, const struct lf_ustate *u, __u64 *lua)
{
	__u32 lua_from = u->lua_from, traces = rt_native_names(u);
	struct hash_ctx c = { s, u->ndelta, mix(s->nkern, s->nuser), 0, 0, 0, 0, lua_from, traces };
	if (s->flags & LF_FLAG_OFFCPU) /* the same frames on and off the CPU are two stacks */
		c.h = mix(c.h, s->flags & (LF_FLAG_OFFCPU | LF_FLAG_RUNNABLE));
#ifndef LF_NO_BPF_LOOP
	if (has_bpf_loop) {
		__u32 nk = s->nkern & (2 * LF_MAX_KSTACK - 1), nu = s->nuser & (2 * LF_MAX_USTACK - 1);
		__u32 nn = lua_from < nu ? lua_from : nu;
		c.lua_from = nn;
		bpf_loop((nk + LF_HASH_CHUNK - 1) / LF_HASH_CHUNK, hash_kern, &c, 0);
		bpf_loop((nn + LF_HASH_CHUNK - 1) / LF_HASH_CHUNK, hash_native, &c, 0);
		bpf_loop((nu - nn + LF_HASH_CHUNK - 1) / LF_HASH_CHUNK, hash_lua, &c, 0);
		__u64 names = mix(c.lua, c.lua2);
		*lua = c.any ? names | 1 : 0;
		return mix(mix(c.h, c.h2), names);
	}
#endif
	for (int i = 0; i < LF_MAX_KSTACK; i++) {
		if (i >= s->nkern)
			break;
		c.h = mix(c.h, s->kern[i]);
	}
	for (int i = 0; i < LF_MAX_USTACK; i++) {
		if (i >= s->nuser)
			break;
		c.h = mix(c.h, s->user[i]);
	}
	/* Its verifier takes every word of the unrolled loop one by one: hashing the Lua part
	 * too makes the program too large for it. Each new stack is announced there. */
	*lua = c.h | 1;
	return c.h;
}

static __always_inline void collect_kernel(struct bpf_perf_event_data *ctx, struct lf_stack *s)
{
	s->nkern = 0;
	if (!want_kernel && !(s->flags & LF_FLAG_OFFCPU)) /* off the CPU, it names the wait */
		return;
	if (arch_in_user(ctx)) /* the kernel would walk nothing, at the price of a call */
		return;
	long n = bpf_get_stack(ctx, s->kern, sizeof(s->kern), 0);
	if (n < 0) {
		stat_inc(LF_STAT_KSTACK_ERR);
		return;
	}
	s->nkern = n / sizeof(__u64);
}

/* Lua parts announced already (their hash mixed with the PID): a workload runs the same Lua
 * stack under ever other native pcs, and in every generation, but its functions need naming
 * once. The least recently announced go first when it is full; such a part is then announced
 * again, which is harmless. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u8);
} announced SEC(".maps");

/* Tells user space of a stack new in its generation (on `fresh`, so that it names the stack's
 * functions while they exist, not at the next drain), unless it has nothing to name or a
 * stack with the same Lua part was announced before. */
static __always_inline void announce(struct lf_stack_key *key, __u64 lua)
{
	__u64 tag = (lua ^ ((__u64)key->pid * 0x9e3779b97f4a7c15ULL)) | 1;
	__u8 one = 1;
	if (!lua || bpf_map_lookup_elem(&announced, &tag))
		return;
	bpf_map_update_elem(&announced, &tag, &one, BPF_ANY);
	if (bpf_ringbuf_output(&fresh, key, sizeof(*key), 0))
		stat_inc(LF_STAT_FRESH_LOST);
}

/* Adds n to the count of key's stack in map (stacks or stacks_small: the value's first words
 * are the count), making its entry from s if it is new in this generation (announced on
 * `fresh` if its Lua part, hashed in lua, is new); with n 0, only makes it. */
static __always_inline void add_stack_in(void *map, struct lf_stack_key *key, struct lf_stack *s, __u64 n,
					 __u64 lua)
{
	__u64 *old = bpf_map_lookup_elem(map, key);
	if (!old) {
		s->count = n;
		if (bpf_map_update_elem(map, key, s, BPF_NOEXIST) == 0) {
			stat_inc(LF_STAT_ENTRIES);
			announce(key, lua);
			return;
		}
		old = bpf_map_lookup_elem(map, key); /* made by another CPU meanwhile */
	}
	if (!old)
		stat_inc(LF_STAT_LOST_MAPFULL);
	else if (n) /* no atomic op on a constant 0: clang makes it an atomic OR, which 5.10 lacks */
		__sync_fetch_and_add(old, n);
}

/* add_stack_in the map s's record belongs in. */
static __always_inline void add_stack(struct lf_stack_key *key, struct lf_stack *s, __u64 n, __u64 lua)
{
	if (small_stacks && lf_stack_is_small(s->nkern, s->nuser, s->flags))
		add_stack_in(&stacks_small, key, s, n, lua);
	else
		add_stack_in(&stacks, key, s, n, lua);
}

/* Adds n to the count of the sample's stack (whose hash is h, its Lua part's lua) in the
 * current generation. A global function: the verifier checks the count once, not at each
 * of the ends a sample has (on the CPU, and parked off it in wall mode). */
__noinline int lf_count_stack(__u64 h, __u64 n, __u64 lua)
{
	__u32 zero = 0;
	struct lf_stack *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	struct lf_stack_key key = {
		.hash = h, .pid = s->pid, .tid = s->tid, .gen = cur_gen,
	};
	add_stack(&key, s, n, lua);
	return 0;
}

#include "wall.bpf.h"

/* Tail-called programs: the native walk (again, for the next frames), the Lua walk, and the
 * sample's end (its statistics and count). The end is a program of its own so the verifier
 * checks it once: a global function called from each program is checked once for each, and
 * the end is a large part of the verifier's work at start-up. */
enum { LF_TAIL_UNWIND, LF_TAIL_LUA, LF_TAIL_END, LF_NTAILS };
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, LF_NTAILS);
	__type(key, __u32);
	__type(value, __u32);
} tails SEC(".maps");

/* User registers of the sampled thread: from the sample itself when it interrupted user
 * code, else from the task's saved user registers (sample taken in the kernel). */
static __always_inline int user_regs(struct bpf_perf_event_data *ctx, struct lf_ustate *u)
{
	if (arch_in_user(ctx)) {
		arch_regs_from_sample(ctx, u);
		u->leaf_sp = u->sp;
		return 0;
	}
	struct pt_regs *r;
	if (has_task_pt_regs) {
		r = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	} else {
		/* Before 5.15: the user registers sit at the top of the task's kernel stack. */
		struct task_struct *t = (struct task_struct *)bpf_get_current_task();
		char *stack = BPF_CORE_READ(t, stack);
		r = stack ? (struct pt_regs *)(stack + LF_THREAD_SIZE) - 1 : 0;
	}
	if (!r)
		return -1;
	arch_regs_from_task(r, u);
	u->leaf_sp = u->sp;
	return u->ip ? 0 : -1;
}

/* The native part's end: its last word, and whether it reached the root. A global
 * function: the verifier checks it once, not at each place a walk ends (the deep stack's
 * fold alone is a hundred stores). */
__noinline int lf_end_walk(int rc)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return 0;
	/* exit_group unmaps the address space before the task's last ticks: a stack unreadable
	 * then is the process's end, not a walk gone wrong */
	if (rc == LF_MARK_BAD_READ && lf_task_exiting())
		rc = LF_MARK_EXITING;
	rt_walk_end(u, s->pid);
	fold_deep(s, u);
	u->mark = rc > 0 ? (__u32)rc : 0;
	if (rc > 0) {
		__u32 i = u->n;
		if (i > LF_MAX_NATIVE)
			i = LF_MAX_NATIVE;
		s->user[i] = lf_word(LF_TAG_MARK, (__u32)rc);
		u->ndelta[i & (LF_NDELTA - 1)] = 0;
		u->n = i + 1;
		if (!(s->flags & LF_FLAG_OFFCPU)) /* the statistics are of CPU samples */
			stat_inc(LF_STAT_MARK_BASE + (rc < LF_MARK_COUNT ? rc : 0));
	} else {
		s->flags |= LF_FLAG_COMPLETE;
		if (!(s->flags & LF_FLAG_OFFCPU))
			stat_inc(LF_STAT_COMPLETE);
	}
	return 0;
}

/* The sample's statistics, and the stack counted: the work of end_sample, the program every
 * sample ends in by a tail call. */
__noinline int lf_end_counts(void)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return 0;
	if (u->lua_short)
		stat_inc(LF_STAT_LUA_NO_LOOP);
	if (u->lua_elided)
		stat_inc(LF_STAT_LUA_ELIDED);
	if (u->lua_depth)
		stat_inc(LF_STAT_LUA_DEPTH);
	if (u->vm_unknown)
		stat_inc(LF_STAT_VM_UNKNOWN);
	if (u->replayed)
		stat_inc(LF_STAT_REPLAYED);
	s->nuser = u->n < LF_MAX_USTACK ? u->n : LF_MAX_USTACK;
	/* hashed once: the verifier walks each copy of its loop over the whole record */
	stage(LF_STAGE_STATS);
	__u64 lua, h = stack_hash(s, u, &lua);
	stage(LF_STAGE_HASH);
	if (s->flags & LF_FLAG_OFFCPU)
		wall_park(s, h, lua);
	else
		lf_count_stack(h, u->weight, lua);
	stage(LF_STAGE_COUNT);
	return 0;
}

/* Ends the user part of a sample. Only the walk's own end (with_lua) has Lua frames to
 * append, which runtime_part does: a sample whose native walk never started has no Lua
 * position. */
static __always_inline void end_user(struct bpf_perf_event_data *ctx, struct lf_ustate *u,
				     int rc, int with_lua)
{
	stage(LF_STAGE_WALK_LAST);
	lf_end_walk(rc);
	u->lua_from = u->n;
	stage(LF_STAGE_END_WALK);
	if (walk_lua && with_lua)
		bpf_tail_call(ctx, &tails, LF_TAIL_LUA); /* on success, runtime_part ends the sample */
	bpf_tail_call(ctx, &tails, LF_TAIL_END);
}

/* The Lua walk itself: a global function, checked on its own. Inline, with the program's
 * context live across it for the tail call that follows, 5.10's verifier went past its
 * million instructions. */
__noinline int lf_lua_part(void)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return 0;
	if (walk_lua)
		rt_append(s, u);
	stage(LF_STAGE_LUA);
	return 0;
}

/* The Lua part of a sample whose native walk is done, then its end. A program of its own:
 * each chain of calls the verifier checks against its 512 bytes of stack starts here, not
 * below the native walk's frame, and verifiers before 5.17 take the Lua walk only so. */
SEC(LF_PROG_SEC)
int runtime_part(struct bpf_perf_event_data *ctx)
{
	lf_lua_part();
	bpf_tail_call(ctx, &tails, LF_TAIL_END);
	return 0;
}

/* The end of every sample, tail-called once its walks are done. */
SEC(LF_PROG_SEC)
int end_sample(struct bpf_perf_event_data *ctx)
{
	(void)ctx;
	lf_end_counts();
	return 0;
}

#ifndef LF_NO_BPF_LOOP
struct step_ctx {
	struct lf_ustate *u;
	struct lf_stack *s;
	const struct lf_proc *p;
	int rc;
};

static long step_cb(__u32 idx, void *data)
{
	struct step_ctx *c = data;
	(void)idx;
	c->rc = unwind_step(c->u, c->s, c->p);
	return c->rc != 0;
}
#endif

SEC(LF_PROG_SEC)
int unwind_user(struct bpf_perf_event_data *ctx)
{
	__u32 zero = 0;
	struct lf_stack *s = bpf_map_lookup_elem(&scratch, &zero);
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	if (!s || !u)
		return 0;
	__u32 pid = s->pid;
	const struct lf_proc *p = bpf_map_lookup_elem(&procs, &pid);
	int first = p && !u->n;
	stage(LF_STAGE_ENTER_WALK);
	if (first) {
		if (u->m_pid != pid || u->m_gen != p->gen) /* the last sample's process, as it was? */
			u->m_end = u->sr_hi = 0;
		u->m_pid = pid;
		u->m_gen = p->gen;
		/* a thread's samples mostly follow each other on a CPU: its stack mapping is kept */
		if (u->sp < u->sr_lo || u->sp >= u->sr_hi) {
			u->sr_hi = stack_range(p, u->sp, &u->sr_lo);
			u->sr_bad_lo = u->sr_bad_hi = 0;
		}
		u->stack_lo = u->sr_lo;
		u->memo_slot = memo_slot_of(u->sr_lo);
		u->stack_hi = u->sr_hi;
		u->win_len = 0;
	}
	rt_begin(u, pid, first);
	stage(LF_STAGE_RT_BEGIN);
	if (!p) {
		end_user(ctx, u, LF_MARK_NO_PROC, 0);
		return 0;
	}
	int rc = 0;
#ifndef LF_NO_BPF_LOOP
	if (has_bpf_loop) {
		struct step_ctx c = { u, s, p, 0 };
		bpf_loop(LF_MAX_WALK, step_cb, &c, 0);
		rc = c.rc ? c.rc : LF_MARK_TRUNCATED;
		memo_hooks(u);
	} else
#endif
	{
#pragma clang loop unroll(full)
		for (int i = 0; i < LF_STEPS_PER_CALL; i++) {
			rc = unwind_step(u, s, p);
			if (rc)
				break;
		}
	}
	if (rc == 0) {
		if (++u->tails < LF_MAX_TAILS)
			bpf_tail_call(ctx, &tails, LF_TAIL_UNWIND);
		rc = LF_MARK_TRUNCATED;
	}
	end_user(ctx, u, rc, 1);
	return 0;
}

/* The start of a sample: the thread's kernel stack, then its user stack from its
 * registers, walked by the tail-called programs. */
static __always_inline int begin_sample(struct bpf_perf_event_data *ctx, __u32 flags, __u64 weight)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (pidns_ino) {
		/* lua-flame runs in a child PID namespace: its PIDs are that namespace's. */
		struct bpf_pidns_info ns;
		if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)))
			return 0;
		id = ((__u64)ns.tgid << 32) | ns.pid;
	}
	__u32 tgid = id >> 32;
	if (!bpf_map_lookup_elem(&targets, &tgid))
		return 0;
	__u32 zero = 0;
	struct lf_stack *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	if (!flags)
		stat_inc(LF_STAT_SAMPLES);
	s->pid = tgid;
	s->tid = per_thread ? (__u32)id : 0;
	s->flags = flags;
	stage(LF_STAGE_START);
	collect_kernel(ctx, s);
	stage(LF_STAGE_KSTACK);
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	if (!u)
		return 0;
	__builtin_memset(u, 0, __builtin_offsetof(struct lf_ustate, ring)); /* the rings are written before read */
	u->exact = 1;
	u->weight = weight;
	s->nuser = 0;
	if (user_regs(ctx, u)) {
		stat_inc(LF_STAT_USTACK_ERR);
		end_user(ctx, u, LF_MARK_NO_USTACK, 0);
		return 0;
	}
	bpf_tail_call(ctx, &tails, LF_TAIL_UNWIND);
	end_user(ctx, u, LF_MARK_TRUNCATED, 0); /* tail call failed */
	return 0;
}

#ifndef LF_ALLOC
/* One tick of each run of ticks_per_sample is kept, which one at random: a target that the
 * ticks themselves wake (a sleep whose timer slack lets it end on the tick, softirqs run at
 * its exit) starts its work on a tick, and with every tick a sample the next would always fall
 * one period into that work. One kept in each run, not each kept by chance: a steady workload's
 * shares then vary no more than with a fixed period. */
static __always_inline int tick_kept(void)
{
	__u32 k = ticks_per_sample, zero = 0;
	struct lf_ticks *t = k > 1 ? bpf_map_lookup_elem(&ticks, &zero) : NULL;
	if (!t)
		return 1;
	int kept = t->n == t->keep;
	if (++t->n >= k) {
		t->n = 0;
		t->keep = bpf_get_prandom_u32() % k;
	}
	return kept;
}

SEC(LF_PROG_SEC)
int on_sample(struct bpf_perf_event_data *ctx)
{
	if (!tick_kept())
		return 0;
	return begin_sample(ctx, 0, 1);
}
#else
/* Alloc mode: a uprobe on the VM's allocation function (PUC Lua's frealloc, LuaJIT's allocf,
 * both (ud, ptr, osize, nsize)): a call that grows a block is a sample that counts for the
 * bytes it adds; frees and shrinks are not samples. */
SEC(LF_PROG_SEC)
int on_sample(struct bpf_perf_event_data *ctx)
{
	/* A new block's osize is not a size: PUC Lua passes the object's type there */
	__u64 osize = arch_arg(ctx, 1) ? arch_arg(ctx, 2) : 0, nsize = arch_arg(ctx, 3);
	if (nsize <= osize || nsize - osize > LF_ALLOC_BYTES_MASK)
		return 0;
	/* the probes are on the targets' threads only; begin_sample checks the PID as always */
	return begin_sample(ctx, 0, (1ULL << LF_ALLOC_OBJ_SHIFT) | (nsize - osize));
}
#endif

/* Wall mode: a target thread leaves the CPU (the software context-switch event, in the
 * thread's own context): its stack is kept, and counted for the time until it runs again. */
SEC(LF_PROG_SEC)
int on_switch_out(struct bpf_perf_event_data *ctx)
{
	if (wall_exiting())
		return 0;
	return begin_sample(ctx, LF_FLAG_OFFCPU | (wall_runnable() ? LF_FLAG_RUNNABLE : 0), 1);
}
