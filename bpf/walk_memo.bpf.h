/* The outer frames of the last whole native walk on this CPU, kept so that the next walk that
 * reaches one of them in the same state takes the rest from memory instead of stepping: the
 * frames under a thread's hot code (main, the event loop, the host's call into Lua) are the
 * same sample after sample, and each step costs map lookups in lines the target evicted. */
#ifndef LF_WALK_MEMO_BPF_H
#define LF_WALK_MEMO_BPF_H
#include "ustate.bpf.h"
#include "arch.bpf.h"
#include "memo_frame.bpf.h"
#include "runtime.bpf.h"

#define LF_MEMO_SLOTS 4    /* threads' walks kept per CPU, by their stack mapping (a power of two) */

/* Walk positions lo..hi-1 of process pid's walk, with its mappings as of gen and its runtime
 * and core file as they were, at f[pos % LF_MEMO_FRAMES]: a run of "plain" frames (below)
 * whose last one is a thread's root. */
struct lf_walk_memo {
	__u32 valid, pid, gen, lo, hi, runtime, core_file, pad;
	struct lf_memo_frame f[LF_MEMO_FRAMES];
};

/* Per CPU, for each slot (threads whose samples take turns on a CPU, such as a server's
 * workers, each find their own walk there): the one replayed from (the slot's bit of the
 * ustate's replay_from) and the one the walk records into, which takes its place when the
 * walk reaches the root. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * LF_MEMO_SLOTS);
	__type(key, __u32);
	__type(value, struct lf_walk_memo);
} walk_memo SEC(".maps");

/* The slot of a thread whose stack mapping starts at stack_lo (0: not known). */
static __always_inline __u32 memo_slot_of(__u64 stack_lo)
{
	return (__u32)(((stack_lo >> 12) * 0x9e3779b97f4a7c15ULL) >> 32) & (LF_MEMO_SLOTS - 1);
}

/* The memo of the sample's slot replayed from (rec 0), or recorded into (rec 1). */
static __always_inline struct lf_walk_memo *memo_get(const struct lf_ustate *u, __u32 rec)
{
	__u32 slot = u->memo_slot & (LF_MEMO_SLOTS - 1);
	__u32 k = 2 * slot + (((u->replay_from >> slot) ^ rec) & 1);
	return bpf_map_lookup_elem(&walk_memo, &k);
}

/* A frame is plain when its step depends on nothing but its pc, sp and bp and the stack
 * memory its rule reads: a return address (not the leaf), in a file with unwind rows, by a
 * rule on sp or bp. Such a frame in the same state with the same memory steps to the same
 * caller, so a run of them up to the root is replayed by checking the memory they read. The
 * runtime's hooks on the Lua core's frames are run again once the walk is done, from what
 * each family noted of the frame (rt_memo_core_note, rt_replay_frame); a core frame its
 * runtime steps itself is never plain. */
static __always_inline int memo_plain(const struct lf_ustate *u, const struct lf_rule *r)
{
	return !u->exact && (r->kind == LF_RULE_NORMAL || r->kind == LF_RULE_PLT || r->kind == LF_RULE_STOP) &&
	       !(r->flags & LF_RULE_SIGNAL) && !r->cfa_saved;
}

/* Before a frame's step by rule r (the frame in file): whether it is plain, and the walk's
 * state then, for lf_memo_note. The walk keeps all it needs for the memo in the ustate and
 * the memo's work in global functions: the step's stack frame lies on the deepest chain of
 * calls the verifier counts (through the Lua core's hooks), which has no room to spare. */
static __always_inline void memo_before(struct lf_ustate *u, struct lf_stack *s, const struct lf_rule *r,
					__u32 file, __u32 pc)
{
	u->step_sp = u->sp;
	u->step_bp = u->bp;
#ifndef LF_NO_BPF_LOOP
	u->step_core = file == u->core_file;
	u->step_plain = walk_memo_on && memo_plain(u, r);
	if (u->step_plain && u->step_core) {
		__builtin_memset(&u->step_note, 0, sizeof(u->step_note));
		rt_memo_core_note(u, s, pc, &u->step_note);
	}
#else
	(void)s, (void)r, (void)file, (void)pc;
	u->step_plain = 0; /* nothing is kept without bpf_loop (memo_note) */
#endif
}

#ifndef LF_NO_BPF_LOOP
/* Where the step of the frame f at sp by rule r, to its caller at cfa, read the stack, as
 * offsets from sp (f's *_off, LF_MF_BP_SAVED and saved). Returns 0, or -1 for slots below sp
 * or too far above it to keep. */
static __always_inline int memo_slots(struct lf_memo_frame *f, const struct lf_rule *r, __u64 sp, __u64 cfa)
{
	__u64 ra_at = arch_ra_slot(r, cfa), lo = ra_at, hi = ra_at;
	if (!ra_at)
		return -1;
	f->bp_off = 0;
	if (r->flags & LF_RULE_FP_SAVED) {
		__u64 at = cfa + (__s64)r->fp_off;
		f->flags |= LF_MF_BP_SAVED;
		f->bp_off = (__s32)(at - sp);
		lo = at < lo ? at : lo;
		hi = at > hi ? at : hi;
	}
	for (int i = 0; i < LF_NSAVED; i++) {
		__u64 at = cfa + 8 * (__s64)r->saved[i];
		f->saved[i] = r->saved[i];
		if (r->saved[i]) {
			lo = at < lo ? at : lo;
			hi = at > hi ? at : hi;
		}
	}
	if (lo < sp || hi + 8 - sp > 0x7fffffff)
		return -1;
	f->ra_off = (__s32)(ra_at - sp);
	f->lo_off = (__s32)(lo - sp);
	f->hi_off = (__s32)(hi + 8 - sp);
	return 0;
}

/* After a plain frame's step by rule rid (rc 0, or -1 at the root): the frame into the memo
 * being recorded; at the root, that memo becomes the one replayed from. The frame continues
 * the run of plain frames noted last when it follows that run's end: no other kind of frame
 * comes here. */
__noinline int lf_memo_note(__u32 rid, int rc)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return 0;
	const struct lf_rule *r = bpf_map_lookup_elem(&rules, &rid);
	struct lf_walk_memo *w = memo_get(u, 1);
	if (!r || !w || !u->n)
		return 0;
	__u32 pos = u->n - 1;
	struct lf_memo_frame *f = &w->f[pos & (LF_MEMO_FRAMES - 1)];
	__u64 word = s->user[u->cur & (LF_MAX_USTACK - 1)];
	f->word = word & ~LF_NAT_ENTRY;
	f->sp = u->step_sp;
	f->bp = u->step_bp;
	f->nd = u->ndelta[u->cur & (LF_NDELTA - 1)];
	f->flags = r->kind == LF_RULE_NORMAL && (r->flags & LF_RULE_CFA_FP) ? LF_MF_USES_BP : 0;
	if (u->step_core) {
		/* the entry flag as the family noted it; one that comes from the step before is
		 * set again by that step's replayed hook */
		f->flags |= LF_MF_CORE | (u->step_note.entry ? LF_MF_ENTRY : 0);
		f->note = u->step_note;
	}
	if (rc == 0 && memo_slots(f, r, u->step_sp, u->sp)) {
		u->plain_run = 0; /* the next plain frame starts a run */
		return 0;
	}
	if (u->plain_end != pos || !u->plain_run)
		u->plain_run = pos + 1;
	u->plain_end = pos + 1;
	if (rc == 0)
		return 0;
	__u32 lo = u->plain_run - 1;
	if (u->n > LF_MEMO_FRAMES && lo < u->n - LF_MEMO_FRAMES)
		lo = u->n - LF_MEMO_FRAMES;
	w->lo = lo;
	w->hi = u->n;
	w->pid = s->pid;
	w->gen = u->m_gen;
	w->runtime = u->runtime;
	w->core_file = u->core_file;
	w->valid = 1;
	u->replay_from ^= 1u << (u->memo_slot & (LF_MEMO_SLOTS - 1));
	return 0;
}

/* What the replay's callbacks work on, found once. */
struct memo_ctx {
	struct lf_ustate *u;
	struct lf_stack *s;
	struct lf_walk_memo *w;
};

/* Frame replay_k + 1 + i of the memo, if the memory the step to it read still holds what it
 * did (bpf_loop's callback). */
static long replay_cb(__u32 i, void *data)
{
	struct memo_ctx *c = data;
	struct lf_ustate *u = c->u;
	__u32 at = u->replay_k + 1 + i;
	const struct lf_memo_frame *prev = &c->w->f[(at - 1) & (LF_MEMO_FRAMES - 1)];
	const struct lf_memo_frame *f = &c->w->f[at & (LF_MEMO_FRAMES - 1)];
	__u64 bp = u->replay_bp, sp = prev->sp;
	if (stack_span(u, sp + prev->lo_off, sp + prev->hi_off) ||
	    lf_word(LF_TAG_NATIVE, arch_ra_value(win_at(u, sp + prev->ra_off))) != f->word)
		return 1;
	if (prev->flags & LF_MF_BP_SAVED)
		bp = win_at(u, sp + prev->bp_off);
	if ((f->flags & LF_MF_USES_BP) && bp != f->bp)
		return 1;
	u->replay_bp = bp;
	__u32 slot = nat_slot(u->n);
	c->s->user[slot & (LF_MAX_USTACK - 1)] = f->word | (f->flags & LF_MF_ENTRY ? LF_NAT_ENTRY : 0);
	u->ndelta[slot & (LF_NDELTA - 1)] = f->nd;
	u->n++;
	if (at + 1 >= c->w->hi)
		u->replayed = 1;
	return 0;
}

/* At a return address (its word already in the record): the rest of the walk from the memo,
 * when it holds this frame in this state and the stack still holds what the walk read past
 * it. Returns 1 when the walk reached the root so, 0 to step on as usual. */
__noinline int lf_memo_replay(void)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return 0;
	struct lf_walk_memo *w = memo_get(u, 0);
	if (!w || !w->valid || w->pid != s->pid || w->gen != u->m_gen || w->runtime != u->runtime ||
	    w->core_file != u->core_file)
		return 0;
	__u32 k = u->replay_k < w->lo ? w->lo : u->replay_k;
	/* Both walks go up the one stack: the memo's frame at this sp is near the last one tried. */
	for (int j = 0; j < 8 && k < w->hi && w->f[k & (LF_MEMO_FRAMES - 1)].sp < u->sp; j++)
		k++;
	u->replay_k = k;
	if (k >= w->hi)
		return 0;
	const struct lf_memo_frame *f = &w->f[k & (LF_MEMO_FRAMES - 1)];
	if (f->sp != u->sp || ((f->flags & LF_MF_USES_BP) && f->bp != u->bp) ||
	    f->word != lf_word(LF_TAG_NATIVE, u->ip))
		return 0;
	__u32 n0 = u->n, cur = u->cur, more = w->hi - k - 1;
	if (more >= LF_MAX_WALK - n0)
		return 0;
	struct memo_ctx c = { u, s, w };
	u->replay_bp = u->bp;
	u->replayed = more == 0;
	bpf_loop(more, replay_cb, &c, 0);
	if (!u->replayed) {
		u->n = n0;
		return 0;
	}
	if (w->runtime != LF_RT_NONE) {
		u->replay_n0 = n0;
		u->replay_hooks = more + 1;
	}
	if (f->flags & LF_MF_ENTRY)
		s->user[cur & (LF_MAX_USTACK - 1)] |= LF_NAT_ENTRY;
	u->ndelta[cur & (LF_NDELTA - 1)] = f->nd;
	return 1;
}

/* The i-th frame replayed, from replay_k on (bpf_loop's callback): the runtime's hooks on the
 * core's frames, in the walk's order. A pass of its own once the walk is done: the chain of
 * calls below the step, which the verifier counts, has no room for the hooks. */
static long replay_hook_cb(__u32 i, void *data)
{
	struct memo_ctx *c = data;
	struct lf_ustate *u = c->u;
	return rt_replay_frame(u, c->s, c->w->f, u->replay_k + i, u->replay_n0 - 1 + i, i == 0,
			       i + 1 >= u->replay_hooks);
}

/* Once a walk whose rest was replayed is done, the runtime's hooks on the core's frames
 * replayed, from the state at the frame where the replay began (the walk's last stepped). */
__noinline int lf_memo_hooks(void)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return 0;
	struct lf_walk_memo *w = memo_get(u, 0);
	if (!w)
		return 0;
	struct memo_ctx c = { u, s, w };
	__u64 sp = u->sp;
	rt_replay_begin(u);
	bpf_loop(u->replay_hooks, replay_hook_cb, &c, 0);
	u->sp = sp;
	return 0;
}
#endif

/* The walk's step calls these, and the walk's end memo_hooks: nothing is kept or replayed
 * without bpf_loop (5.10), whose verifier takes no more. */
static __always_inline int memo_replay(const struct lf_ustate *u)
{
#ifndef LF_NO_BPF_LOOP
	return walk_memo_on && !u->exact ? lf_memo_replay() : 0;
#else
	(void)u;
	return 0;
#endif
}

static __always_inline void memo_note(__u32 rid, int rc)
{
#ifndef LF_NO_BPF_LOOP
	lf_memo_note(rid, rc);
#else
	(void)rid, (void)rc;
#endif
}

/* Once the walk is done: the runtime's hooks on the core's frames replayed. */
static __always_inline void memo_hooks(const struct lf_ustate *u)
{
#ifndef LF_NO_BPF_LOOP
	if (u->replay_hooks)
		lf_memo_hooks();
#else
	(void)u;
#endif
}

#endif
