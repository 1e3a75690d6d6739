/* The in-kernel native unwinder: walks a user stack from the sampled registers using the
 * per-file CFI rows user space loaded, follows signal frames through the ucontext, and
 * falls back to frame pointers only in anonymous executable memory (JIT code). It runs
 * LF_STEPS_PER_CALL frames per program invocation and tail-calls itself for deep stacks. */
#ifndef LF_UNWIND_BPF_H
#define LF_UNWIND_BPF_H
#include "ustate.bpf.h"
#include "runtime.bpf.h"
#include "stage_time.bpf.h"
#include "arch.bpf.h"
#include "walk_memo.bpf.h"

#define LF_STEPS_PER_CALL 2 /* without bpf_loop: frames per tail call */
/* Tail calls of the native walk; the kernel allows 32 in a chain (33 from 5.12), and the
 * program built without bpf_loop keeps one for its Lua walk and one for on_sample's. */
#define LF_MAX_TAILS      30


/* The sampled leaf in code without unwind information, such as glibc's clone3 wrapper past
 * the end of its FDE, where a vfork-style spawn (posix_spawn, popen, system) leaves its
 * parent waiting: a function without a frame, taken only if its return address is mapped
 * code. Returns 0, or -1 when it is not that. */
static __always_inline int step_bare_leaf(struct lf_ustate *u, __u32 pid)
{
	__u64 ra, sp;
	if (!u->exact || u->n != 1 || arch_frameless_ra(u, u->sp, &ra, &sp) || lf_find_map(pid, ra) < 0)
		return -1;
	u->sp = sp;
	u->ip = ra;
	u->exact = 0;
	return 0;
}

/* Frame pointers, with sanity checks: the chain must move up the stack. */
static __always_inline int step_fp(struct lf_ustate *u)
{
	__u64 bp = u->bp, nbp, ra;
	if (bp < u->sp || bp & 7 || read_u64(bp, &nbp) || read_u64(bp + 8, &ra))
		return LF_MARK_FP_FAILED;
	if (nbp && nbp <= bp)
		return LF_MARK_FP_FAILED;
	u->sp = bp + 16;
	u->bp = nbp;
	u->ip = ra;
	u->exact = 0;
	return 0;
}

/* The frame pointer and the callee-saved registers rule rid says a frame saved under its CFA:
 * the registers into u->regs, the frame pointer into window_val (the frame's bp as it was
 * when not saved). One call for all of them: most frames save several, and a call for each
 * cost more than its read from the window. Returns 0, or -1 when the frame pointer cannot be
 * read (the registers are then left as they were). */
__noinline int lf_read_saved(__u64 cfa, __u32 rid)
{
	__u32 zero = 0;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	const struct lf_rule *r = bpf_map_lookup_elem(&rules, &rid);
	if (!u || !r)
		return -1;
	u->window_val = u->bp;
	if ((r->flags & LF_RULE_FP_SAVED) && win_get(u, cfa + (__s64)r->fp_off, &u->window_val))
		return -1;
	for (int i = 0; i < LF_NSAVED; i++)
		if (r->saved[i])
			win_get(u, cfa + 8 * (__s64)r->saved[i], &u->regs[i]);
	return 0;
}

static __always_inline int step_rule(struct lf_ustate *u, const struct lf_rule *r, __u32 rid)
{
	__u64 cfa;
	switch (r->kind) {
	case LF_RULE_NORMAL:
		cfa = r->flags & LF_RULE_CFA_FP ? u->bp : u->sp;
		if (r->cfa_saved) {
			__u32 k = r->cfa_saved - 1u;
			if (k >= LF_NSAVED)
				return LF_MARK_INVALID;
			cfa = u->regs[k];
		}
		cfa += (__s64)r->cfa_off;
		break;
	case LF_RULE_PLT:
		cfa = u->sp + 8 + ((__s64)(u->ip & 15) >= (__s64)r->cfa_off ? 8 : 0);
		break;
	case LF_RULE_STOP:
		return -1;
	case LF_RULE_END:
		return LF_MARK_NO_TABLE;
	default:
		return LF_MARK_INVALID;
	}
	/* The return address, a saved frame pointer and the callee-saved registers lie just
	 * under the CFA: the frame's slots. Only the stack from the frame's sp up is read, which
	 * is mapped. */
	__u64 base = cfa - 8 * LF_FRAME_SLOTS <= u->sp ? u->sp : cfa - 8 * LF_FRAME_SLOTS;
	if (cfa > u->sp)
		stack_window(u, base, cfa);
	__u64 ra;
	int rc = arch_frame_ra(u, r, cfa, &ra);
	if (rc)
		return rc;
	if (lf_read_saved(cfa, rid))
		return LF_MARK_BAD_READ;
	u->sp = cfa;
	u->bp = u->window_val;
	u->ip = ra;
	u->exact = 0;
	return 0;
}


/* Mapping of ip in p (pid's): consecutive frames are mostly in the same file, so the last
 * one found is tried first. */
static __always_inline int find_map_cached(struct lf_ustate *u, const struct lf_proc *p, __u32 pid, __u64 ip)
{
	if (ip >= u->m_start && ip < u->m_end)
		return (int)u->m_idx;
	int mi = lf_find_map(pid, ip);
	u->m_end = 0;
	if (mi >= 0 && mi < LF_MAX_PROC_MAPS) {
		const struct lf_map_ent *m = &p->m[(__u32)mi & (LF_MAX_PROC_MAPS - 1)];
		u->m_start = m->start;
		u->m_end = m->end;
		u->m_idx = (__u32)mi;
	}
	return mi;
}

#define LF_RULE_MEMO 256 /* rows remembered per CPU (a power of two) */

/* Rows found lately on this CPU, by a hash of file and pc: the return addresses of a
 * workload's hot paths repeat from sample to sample, and a file's rows never change once
 * loaded (they are only ever appended). An empty slot has hi 0, which no pc is below. run:
 * the start of the row's label run, LF_NO_RUN when it has none. */
struct lf_rule_memo {
	__u32 file, lo, hi, rule, run;
};

#define LF_NO_RUN 0xffffffffu

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LF_RULE_MEMO);
	__type(key, __u32);
	__type(value, struct lf_rule_memo);
} rule_memo SEC(".maps");

/* The pc where row idx's label run starts, or LF_NO_RUN. */
static __always_inline __u32 run_start(const struct lf_row *r, __u32 idx)
{
	__u32 back = r->rule >> LF_ROW_RUN_SHIFT, first = idx - (back - 1);
	const struct lf_row *f = back && back - 1 <= idx ? bpf_map_lookup_elem(&rows, &first) : 0;
	return f ? f->pc : LF_NO_RUN;
}

/* Rule for pc in file: recursion and loops repeat the same rows, so the last row's range
 * is tried first, then this CPU's memo, then the file's rows. Returns the rule index or -1;
 * u->r_* then describe the row. */
static __always_inline int find_rule_cached(struct lf_ustate *u, __u32 file, __u32 pc)
{
	if (u->r_valid && file == u->r_file && pc >= u->r_lo && pc < u->r_hi)
		return (int)u->r_rule;
	__u32 slot = ((pc ^ (file * 0x9e3779b1u)) * 0x85ebca6bu) >> 24;
	struct lf_rule_memo *m = bpf_map_lookup_elem(&rule_memo, &slot);
	if (!m)
		return -1;
	if (m->file != file || pc < m->lo || pc >= m->hi) {
		int ri = lf_find_row(file, pc);
		if (ri < 0)
			return -1;
		__u32 idx = (__u32)ri, next = idx + 1;
		const struct lf_row *r = bpf_map_lookup_elem(&rows, &idx);
		if (!r)
			return -1;
		const struct lf_row *n = bpf_map_lookup_elem(&rows, &next);
		m->file = file;
		m->lo = r->pc;
		m->hi = n && n->pc > r->pc ? n->pc : r->pc + 1;
		m->rule = r->rule & LF_ROW_RULE;
		m->run = run_start(r, idx);
	}
	u->r_valid = 1;
	u->r_file = file;
	u->r_lo = m->lo;
	u->r_hi = m->hi;
	u->r_rule = m->rule;
	u->r_run = m->run;
	return (int)m->rule;
}

/* How far the current frame's pc lies past the one its label run (unwind.h) is hashed as,
 * into ndelta (lf_end_counts subtracts it): a hot loop's instructions and a function's call
 * sites make one stack, not one each. A leaf (exact pc) is hashed as its run's second byte
 * (user space also labels its pc - 1: the run's first byte stays apart), a return address as
 * its run's first byte unless it is its row's last (then the return address is the next
 * row's first byte, maybe a function's start, which user space looks for). */
static __always_inline void note_run(struct lf_ustate *u, __u32 pc)
{
#ifndef LF_NO_BPF_LOOP
	__u32 norm = u->exact ? u->r_run + 1 : u->r_run;
	if (!label_runs || u->r_run == LF_NO_RUN || pc <= norm || pc - norm >= 0x1000000)
		return;
	if (u->exact ? u->n != 1 : pc + 1 >= u->r_hi)
		return;
	u->ndelta[u->cur & (LF_NDELTA - 1)] = pc - norm;
#else
	(void)u, (void)pc; /* hashed whole: the verifiers without bpf_loop take no more */
#endif
}

/* Records the current frame and moves to its caller. Returns 0 to go on, -1 when the
 * thread root was reached, or an lf_mark. */
static __always_inline int unwind_step(struct lf_ustate *u, struct lf_stack *s, const struct lf_proc *p)
{
	stage(LF_STAGE_STEP_ENTRY);
	if (u->n >= LF_MAX_WALK)
		return LF_MARK_TRUNCATED;
	__u64 tag = u->exact ? LF_TAG_EXACT : LF_TAG_NATIVE;
	u->cur = nat_slot(u->n);
	/* A runtime's step to this frame may have told that it entered the runtime's VM. */
	s->user[u->cur & (LF_MAX_USTACK - 1)] = lf_word(tag, u->ip) | (u->entry_next ? LF_NAT_ENTRY : 0);
	u->ndelta[u->cur & (LF_NDELTA - 1)] = 0;
	u->entry_next = 0;
	u->n++;
	if (memo_replay(u))
		return -1;
	int mi = find_map_cached(u, p, s->pid, u->ip);
	if (mi < 0 || mi >= LF_MAX_PROC_MAPS) {
		lf_ask_code(s->pid);
		int rc = lf_rt_unmapped_frame();
		return rc >= 0 ? rc : LF_MARK_NO_MAPPING;
	}
	const struct lf_map_ent *m = &p->m[(__u32)mi & (LF_MAX_PROC_MAPS - 1)];
	if (m->file == LF_FILE_JIT) {
		s->user[u->cur & (LF_MAX_USTACK - 1)] = lf_word(LF_TAG_FP, u->ip);
		int rc = lf_rt_jit_frame();
		return rc >= 0 ? rc : step_fp(u);
	}
	if (m->file == LF_FILE_NONE)
		return LF_MARK_NO_TABLE;
	stage(LF_STAGE_STEP_MAP);
	__u32 pc = (__u32)(u->ip - m->bias - (u->exact ? 0 : 1));
	/* before the runtime's look, which may step past a leaf in its VM: that one too is
	 * hashed by its label run */
	int ri = find_rule_cached(u, m->file, pc);
	if (ri >= 0)
		note_run(u, pc);
	stage(LF_STAGE_STEP_RULE);
	if (m->file == u->core_file) {
		int rc = lf_rt_core_frame(pc);
		if (rc >= 0)
			return rc;
	}
	stage(LF_STAGE_STEP_CORE);
	__u32 rid = (__u32)ri;
	const struct lf_rule *r = ri < 0 ? 0 : bpf_map_lookup_elem(&rules, &rid);
	/* A signal trampoline without CFI (musl's) is known by its bytes; glibc's has an 'S'
	 * CIE. Reading code bytes costs a user read, so only frames without a usable rule pay. */
	if ((!r || r->kind == LF_RULE_END) && !u->exact && is_sigreturn(u->ip)) {
		/* The handler "returns" to the trampoline's first byte: not a call site. */
		s->user[u->cur & (LF_MAX_USTACK - 1)] = lf_word(LF_TAG_EXACT, u->ip);
		return step_signal(u);
	}
	if ((!r || r->kind == LF_RULE_END) && step_bare_leaf(u, s->pid) == 0)
		return 0;
	if (!r)
		return LF_MARK_NO_TABLE;
	if (r->flags & LF_RULE_SIGNAL) {
		if (!u->exact) /* as above: the handler's return address, not a call site */
			s->user[u->cur & (LF_MAX_USTACK - 1)] = lf_word(LF_TAG_EXACT, u->ip);
		return step_signal(u);
	}
	if (m->file == u->core_file) {
		int rc = lf_rt_core_rule(pc);
		if (rc >= 0)
			return rc;
	}
	__u64 leaf_sp = u->exact && u->n == 1 ? u->sp : 0, bp_before = u->bp;
	memo_before(u, s, r, m->file, pc);
	int rc = step_rule(u, r, rid);
	stage(LF_STAGE_STEP_READ);
	/* A thread's outermost frame says so in its rules (STOP: glibc's _start and clone3,
	 * a program's entry point); a zero return address anywhere else is a walk gone wrong
	 * or a runtime's own convention, not a stack known to be whole. */
	int zero = rc == 0 && u->ip == 0;
	if (zero && !leaf_sp)
		return LF_MARK_ZERO_RA;
	if (!zero && u->step_plain && rc <= 0)
		memo_note(rid, rc);
	if (!zero && rc == 0 && m->file == u->core_file)
		lf_rt_core_stepped();
	/* Hand-written assembly (LuaJIT's VM helpers) can sit inside a bigger function's CFI
	 * although it is entered by a call: a sampled leaf whose rule leads nowhere (an
	 * unmapped pc, or a zero read from its caller's frame) is retried as a frameless
	 * function, accepted only if its caller is mapped code. */
	if (rc == 0 && leaf_sp && (zero || find_map_cached(u, p, s->pid, u->ip) < 0)) {
		__u64 ra, sp;
		if (arch_frameless_ra(u, leaf_sp, &ra, &sp) || lf_find_map(s->pid, ra) < 0)
			return zero ? LF_MARK_ZERO_RA : 0; /* else the next step reports the unmapped pc */
		u->sp = sp;
		u->bp = bp_before;
		u->ip = ra;
	}
	return rc;
}

struct fold_ctx {
	struct lf_stack *s;
	struct lf_ustate *u;
	__u32 first;
};

/* Outermost frame i into the ring's order, and back after the marker (LF_EACH's callbacks). */
static long fold_take(__u32 i, void *data)
{
	struct fold_ctx *c = data;
	__u32 j = LF_NATIVE_INNER + ((c->first + i - LF_NATIVE_INNER) & (LF_NATIVE_OUTER - 1));
	barrier_var(i); /* keeps the mask, which the verifier needs, from being folded away */
	c->u->native_ring[i & (LF_NATIVE_OUTER - 1)] = c->s->user[j & (LF_MAX_USTACK - 1)];
	return 0;
}

static long fold_put(__u32 i, void *data)
{
	struct fold_ctx *c = data;
	barrier_var(i);
	c->s->user[(LF_NATIVE_INNER + 1 + (i & (LF_NATIVE_OUTER - 1))) & (LF_MAX_USTACK - 1)] =
		c->u->native_ring[i & (LF_NATIVE_OUTER - 1)];
	return 0;
}

/* Lua position i renumbered for the folded record (LF_EACH's callback). */
static long fold_lpos(__u32 i, void *data)
{
	struct fold_ctx *c = data;
	if (i >= c->u->nlpos)
		return 1;
	struct lf_lpos *p = &c->u->lpos[i & (LF_MAX_LPOS - 1)];
	__u32 f = p->frame;
	if (f >= c->first)
		p->frame = LF_NATIVE_INNER + 1 + (f - c->first);
	else if (f >= LF_NATIVE_INNER)
		p->frame = LF_NATIVE_INNER;
	return 0;
}

/* After the walk: a stack deeper than the record keeps its innermost frames, then an
 * LF_TAG_ELIDED word, then its outermost frames in order; Lua positions follow their frames
 * (one in the left-out part goes to the marker). u->n becomes the number of words. */
static __always_inline void fold_deep(struct lf_stack *s, struct lf_ustate *u)
{
	__u32 n = u->n;
	if (n <= LF_NATIVE_INNER + LF_NATIVE_OUTER)
		return;
	__u32 first = n - LF_NATIVE_OUTER; /* the outermost frames are first..n-1, all in the ring */
	__builtin_memset(u->ndelta, 0, sizeof(u->ndelta)); /* it no longer follows the words */
	struct fold_ctx fc = { s, u, first };
	LF_EACH(LF_NATIVE_OUTER, fold_take, &fc);
	s->user[LF_NATIVE_INNER] = lf_word(LF_TAG_ELIDED, n - LF_NATIVE_INNER - LF_NATIVE_OUTER);
	LF_EACH(LF_NATIVE_OUTER, fold_put, &fc);
	LF_EACH(LF_MAX_LPOS, fold_lpos, &fc);
	u->n = LF_NATIVE_INNER + 1 + LF_NATIVE_OUTER;
}


#endif
