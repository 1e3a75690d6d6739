/* The in-kernel native unwinder: walks a user stack from the sampled registers using the
 * per-file CFI rows user space loaded, follows signal frames through the ucontext, and
 * falls back to frame pointers only in anonymous executable memory (JIT code). It runs
 * LF_STEPS_PER_CALL frames per program invocation and tail-calls itself for deep stacks. */
#ifndef LF_UNWIND_BPF_H
#define LF_UNWIND_BPF_H
#include "unwind.h"
#include "lua.h"

#define LF_STEPS_PER_CALL 2 /* without bpf_loop: frames per tail call */
#define LF_MAX_TAILS      ((LF_MAX_USTACK + LF_STEPS_PER_CALL - 1) / LF_STEPS_PER_CALL)

struct lf_lpos { __u64 L; __u32 frame; __u32 thread; };

#define LF_CI_BUF 128 /* bytes of a CallInfo read at once (every version's is smaller) */

struct lf_ustate {
	__u64 ip, sp, bp;
	__u64 regs[LF_NSAVED]; /* rbx, r12..r15 as recovered for the current frame */
	__u32 n;      /* frames walked; words in the stack record once the walk is done */
	__u32 cur;    /* word of the current frame (nat_slot of n - 1) */
	__u8 exact;   /* ip is exact, not a return address */
	__u8 done;
	__u16 tails;
	__u32 mark;   /* lf_mark that ended the walk, 0 if none */
	__u32 core_file;  /* file of the Lua core, LF_FILE_NONE without Lua */
	__u32 lj;         /* the process runs LuaJIT: JIT code is traces */
	__u64 leaf_rdx, leaf_rbx, leaf_sp; /* LuaJIT interpreter's BASE and PC at the sample */
	__u64 last_regs[LF_NSAVED + 1], last_cand; /* note_lua_state's last answer */
	__u64 m_start, m_end;  /* last mapping found, index m_idx (m_end 0: none) */
	__u32 m_idx, r_file;   /* last row found: rule r_rule for [r_lo, r_hi) of r_file */
	__u32 r_lo, r_hi, r_rule, r_valid;
	__u8 ci_buf[LF_CI_BUF + 8];  /* the CallInfo being walked, read in one go */
	__u8 tv_buf[24];             /* the TValue of its function */
	__u8 fp_pbuf[LF_FP_BUF + 8]; /* a Proto's fingerprinted fields */
	__u8 fp_sbuf[LF_FP_BUF + 8]; /* its chunk name's header; a GCfunc's before that */
	__u64 memo_key, memo_ptr;    /* last function fingerprinted in this sample */
	__u32 memo_fp, memo_pad;
	__u32 checked;
	__u32 l_reg_hint;        /* from lf_lua_cfg, 0xff when unknown */
	__u32 nlpos, nthreads;
	struct lf_lpos lpos[LF_MAX_LPOS];
	__u64 threads[LF_MAX_LTHREADS];
	__u32 lua_elided, lua_depth; /* lua_States whose walk left frames out / lost the root */
	__u32 lua_short;             /* lua_States walked without bpf_loop */
	/* Ring of the Lua walk: entries stored, next entry to emit. In the map value, not in
	 * the walker's stack frame, so that the verifier does not follow them as constants. */
	__u32 ring_n, ring_at;
	/* Flags of the lua_State being walked (a frame was emitted; the ring is being emitted),
	 * here for the same reason: verifiers before 6.7 check a bpf_loop callback once, from
	 * the caller's state, and would take a flag on the caller's stack for the constant 0. */
	__u32 walk_emitted, walk_flushing;
	/* Kept last and not cleared per sample: the outermost Lua frames of a deep walk, as a
	 * ring, until the walk reaches the root (PUC: CallInfo addresses; LuaJIT: word pairs). */
	__u64 ring[2 * LF_LUA_OUTER];
	__u64 native_ring[LF_NATIVE_OUTER]; /* outermost native frames in order, while folding a deep stack */
};

/* Word of the d-th frame walked: the innermost frames in place, then a ring holding the
 * last LF_NATIVE_OUTER frames walked, which are the outermost once the walk ends. */
static __always_inline __u32 nat_slot(__u32 d)
{
	return d < LF_NATIVE_INNER ? d : LF_NATIVE_INNER + ((d - LF_NATIVE_INNER) & (LF_NATIVE_OUTER - 1));
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct lf_lua_cfg);
} lua_cfgs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* sized by user space */
	__type(key, __u32);
	__type(value, struct lf_row);
} rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, LF_MAX_RULES);
	__type(key, __u32);
	__type(value, struct lf_rule);
} rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* sized by user space */
	__type(key, __u32);
	__type(value, struct lf_file);
} files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct lf_proc);
} procs SEC(".maps");

/* Processes whose maps should be re-read: a pc fell outside every known mapping. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} rescan SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lf_ustate);
} ustate SEC(".maps");

/* The two searches are global functions so the verifier checks each once, not once per
 * path through the unwinder (which exceeds its budget). */

/* Index of the mapping of pid holding ip, or -1. */
__noinline int lf_find_map(__u32 pid, __u64 ip)
{
	const struct lf_proc *p = bpf_map_lookup_elem(&procs, &pid);
	if (!p)
		return -1;
	__u32 lo = 0, hi = p->n;
	if (hi > LF_MAX_PROC_MAPS)
		hi = LF_MAX_PROC_MAPS;
	for (int i = 0; i < 9 && lo < hi; i++) {
		__u32 mid = (lo + hi) / 2;
		if (mid >= LF_MAX_PROC_MAPS)
			return -1;
		if (ip < p->m[mid].start)
			hi = mid;
		else if (ip >= p->m[mid].end)
			lo = mid + 1;
		else
			return (int)mid;
	}
	return -1;
}

/* Index of the last row with row.pc <= pc among the file's rows, or -1. */
__noinline int lf_find_row(__u32 file, __u32 pc)
{
	const struct lf_file *f = bpf_map_lookup_elem(&files, &file);
	if (!f || !f->row_count)
		return -1;
	__u32 lo = f->row_start, hi = f->row_start + f->row_count;
	int found = -1;
	for (int i = 0; i < 24 && lo < hi; i++) {
		__u32 mid = lo + (hi - lo) / 2;
		const struct lf_row *r = bpf_map_lookup_elem(&rows, &mid);
		if (!r)
			return -1;
		if (r->pc <= pc) {
			found = (int)mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return found;
}

static __always_inline int read_u64(__u64 addr, __u64 *v)
{
	return bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
}

/* x86-64 rt_sigreturn trampoline: mov $15,%rax; syscall. */
static __always_inline int is_sigreturn(__u64 ip)
{
	unsigned char b[9];
	if (bpf_probe_read_user(b, sizeof(b), (const void *)ip))
		return 0;
	return b[0] == 0x48 && b[1] == 0xc7 && b[2] == 0xc0 && b[3] == 0x0f && b[4] == 0 && b[5] == 0 &&
	       b[6] == 0 && b[7] == 0x0f && b[8] == 0x05;
}

/* In the trampoline, sp points at the ucontext; its mcontext starts 40 bytes in and holds
 * rbp, rsp and rip at 80, 120 and 128. */
static __always_inline int step_signal(struct lf_ustate *u)
{
	__u64 mc = u->sp + 40, bp, sp, ip;
	if (read_u64(mc + 80, &bp) || read_u64(mc + 120, &sp) || read_u64(mc + 128, &ip))
		return LF_MARK_BAD_READ;
	u->bp = bp;
	u->sp = sp;
	u->ip = ip;
	u->exact = 1;
	/* mcontext: r8..r15 at 0..56, rbx at 88 */
	read_u64(mc + 88, &u->regs[0]);
	for (int i = 1; i < LF_NSAVED; i++)
		read_u64(mc + 24 + 8 * i, &u->regs[i]);
	return 0;
}

#include "luajit_trace.bpf.h"

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

static __always_inline int step_rule(struct lf_ustate *u, const struct lf_rule *r)
{
	__u64 cfa;
	switch (r->kind) {
	case LF_RULE_NORMAL:
		cfa = r->flags & LF_RULE_CFA_RBP ? u->bp : u->sp;
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
	__u64 ra, bp = u->bp;
	if ((r->flags & LF_RULE_RBP_SAVED) && r->rbp_off == -16) {
		__u64 pair[2]; /* push %rbp right after the call: one read for both */
		if (bpf_probe_read_user(pair, sizeof(pair), (const void *)(cfa - 16)))
			return LF_MARK_BAD_READ;
		bp = pair[0];
		ra = pair[1];
	} else {
		if (read_u64(cfa - 8, &ra))
			return LF_MARK_BAD_READ;
		if ((r->flags & LF_RULE_RBP_SAVED) && read_u64(cfa + (__s64)r->rbp_off, &bp))
			return LF_MARK_BAD_READ;
	}
	for (int i = 0; i < LF_NSAVED; i++)
		if (r->saved[i])
			read_u64(cfa + 8 * (__s64)r->saved[i], &u->regs[i]);
	u->sp = cfa;
	u->bp = bp;
	u->ip = ra;
	u->exact = 0;
	return 0;
}

/* Whether cand is a lua_State of one of pid's VMs: its l_G is a known global state. */
__noinline int lf_lua_is_state(__u32 pid, __u64 cand)
{
	const struct lf_lua_cfg *c = bpf_map_lookup_elem(&lua_cfgs, &pid);
	if (!c || cand < 4096 || cand >= (1ULL << 47) || (cand & 7))
		return 0;
	__u64 g;
	if (read_u64(cand + c->l_l_G, &g) || !g)
		return 0;
	for (__u32 i = 0; i < LF_MAX_GS; i++)
		if (i < c->ngs && c->gs[i] == g)
			return 1;
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LF_NSAVED + 1);
	__type(key, __u32);
	__type(value, __u64);
} lua_reg_hits SEC(".maps");

/* Counts in which register lua_State was found, so user space can set the hint. */
static __always_inline void reg_hit(__u32 i)
{
	__u64 *v = bpf_map_lookup_elem(&lua_reg_hits, &i);
	if (v)
		(*v)++;
}

/* The interpreter keeps its lua_State in a callee-saved register: the innermost frame of
 * the Lua core holding one tells which thread runs, and where its activation sits. */
static __always_inline void note_lua_state(struct lf_ustate *u, __u32 pid)
{
	/* Callee-saved registers rarely change from one frame to the next: reuse the last
	 * answer when they did not, and record a position only where the running lua_State
	 * changes (the innermost frame of each run of frames holding it). */
	int same = u->checked && u->last_regs[LF_NSAVED] == u->bp;
	for (int i = 0; i < LF_NSAVED; i++)
		same = same && u->last_regs[i] == u->regs[i];
	__u64 cand = same ? u->last_cand : 0;
	if (!same) {
		/* The interpreter keeps L in one register per build: try the one that held it
		 * most often first, and the others only when it does not. */
		__u32 hint = u->l_reg_hint;
		int found = 0;
		if (hint <= LF_NSAVED) {
			__u64 v = hint < LF_NSAVED ? u->regs[hint & 7] : u->bp;
			found = lf_lua_is_state(pid, v);
			cand = found ? v : 0;
		}
		for (int i = 0; !found && i <= LF_NSAVED; i++) {
			__u64 v = i < LF_NSAVED ? u->regs[i] : u->bp;
			if (lf_lua_is_state(pid, v)) {
				cand = v;
				found = 1;
				reg_hit(i);
			}
		}
		for (int i = 0; i < LF_NSAVED; i++)
			u->last_regs[i] = u->regs[i];
		u->last_regs[LF_NSAVED] = u->bp;
		u->checked = 1;
	}
	__u64 prev = u->last_cand;
	u->last_cand = cand;
	if (!cand || cand == prev || u->nlpos >= LF_MAX_LPOS)
		return;
	__u32 t = LF_MAX_LTHREADS;
	for (__u32 i = 0; i < LF_MAX_LTHREADS; i++)
		if (i < u->nthreads && u->threads[i] == cand)
			t = i;
	if (t == LF_MAX_LTHREADS) {
		if (u->nthreads >= LF_MAX_LTHREADS)
			return;
		t = u->nthreads++;
		u->threads[t & (LF_MAX_LTHREADS - 1)] = cand;
	}
	struct lf_lpos *p = &u->lpos[u->nlpos & (LF_MAX_LPOS - 1)];
	p->L = cand;
	p->frame = u->n - 1;
	p->thread = t;
	u->nlpos++;
}

/* Mapping of ip: consecutive frames are mostly in the same file, so the last one is
 * tried first. */
static __always_inline int find_map_cached(struct lf_ustate *u, __u32 pid, __u64 ip)
{
	if (ip >= u->m_start && ip < u->m_end)
		return (int)u->m_idx;
	int mi = lf_find_map(pid, ip);
	u->m_end = 0;
	return mi;
}

/* Rule for pc in file: recursion and loops repeat the same rows, so the last row's range
 * is tried first. Returns the rule index or -1. */
static __always_inline int find_rule_cached(struct lf_ustate *u, __u32 file, __u32 pc)
{
	if (u->r_valid && file == u->r_file && pc >= u->r_lo && pc < u->r_hi)
		return (int)u->r_rule;
	int ri = lf_find_row(file, pc);
	if (ri < 0)
		return -1;
	__u32 idx = (__u32)ri, next = idx + 1;
	const struct lf_row *r = bpf_map_lookup_elem(&rows, &idx);
	if (!r)
		return -1;
	const struct lf_row *n = bpf_map_lookup_elem(&rows, &next);
	u->r_valid = 1;
	u->r_file = file;
	u->r_lo = r->pc;
	u->r_hi = n && n->pc > r->pc ? n->pc : r->pc + 1;
	u->r_rule = r->rule;
	return (int)r->rule;
}

/* Records the current frame and moves to its caller. Returns 0 to go on, -1 when the
 * thread root was reached, or an lf_mark. */
static __always_inline int unwind_step(struct lf_ustate *u, struct lf_stack *s, const struct lf_proc *p)
{
	if (u->n >= LF_MAX_WALK)
		return LF_MARK_TRUNCATED;
	__u64 tag = u->exact ? LF_TAG_EXACT : LF_TAG_NATIVE;
	u->cur = nat_slot(u->n);
	s->user[u->cur & (LF_MAX_USTACK - 1)] = u->ip | (tag << LF_TAG_SHIFT);
	u->n++;
	int mi = find_map_cached(u, s->pid, u->ip);
	if (mi < 0 || mi >= LF_MAX_PROC_MAPS) {
		__u32 pid = s->pid, one = 1;
		bpf_map_update_elem(&rescan, &pid, &one, BPF_ANY);
		return LF_MARK_NO_MAPPING;
	}
	const struct lf_map_ent *m = &p->m[(__u32)mi & (LF_MAX_PROC_MAPS - 1)];
	u->m_start = m->start;
	u->m_end = m->end;
	u->m_idx = (__u32)mi;
	if (m->file == LF_FILE_JIT) {
		s->user[u->cur & (LF_MAX_USTACK - 1)] = u->ip | ((__u64)LF_TAG_FP << LF_TAG_SHIFT);
		if (u->lj) {
			__u32 pid = s->pid;
			const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
			if (c)
				return step_lj_trace(u, s, c);
		}
		return step_fp(u);
	}
	if (m->file == LF_FILE_NONE)
		return LF_MARK_NO_TABLE;
	if (m->file == u->core_file && !u->lj)
		note_lua_state(u, s->pid);
	/* LuaJIT's interpreter helpers are called from the VM but described by the VM's own
	 * frame: a sampled leaf right below the VM's C frame steps straight to its caller. */
	if (u->lj && u->n == 1 && m->file == u->core_file) {
		__u32 pid = s->pid;
		const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
		if (c && lj_leaf_in_vm(u, c))
			return step_lj_cframe(u, c);
	}
	__u32 pc = (__u32)(u->ip - m->bias - (u->exact ? 0 : 1));
	int ri = find_rule_cached(u, m->file, pc);
	__u32 rid = (__u32)ri;
	const struct lf_rule *r = ri < 0 ? 0 : bpf_map_lookup_elem(&rules, &rid);
	/* A signal trampoline without CFI (musl's) is known by its bytes; glibc's has an 'S'
	 * CIE. Reading code bytes costs a user read, so only frames without a usable rule pay. */
	if ((!r || r->kind == LF_RULE_END) && !u->exact && is_sigreturn(u->ip)) {
		/* The handler "returns" to the trampoline's first byte: not a call site. */
		s->user[u->cur & (LF_MAX_USTACK - 1)] = u->ip | ((__u64)LF_TAG_EXACT << LF_TAG_SHIFT);
		return step_signal(u);
	}
	if (!r)
		return LF_MARK_NO_TABLE;
	if (r->flags & LF_RULE_SIGNAL) {
		if (!u->exact) /* as above: the handler's return address, not a call site */
			s->user[u->cur & (LF_MAX_USTACK - 1)] = u->ip | ((__u64)LF_TAG_EXACT << LF_TAG_SHIFT);
		return step_signal(u);
	}
	__u64 leaf_sp = u->exact && u->n == 1 ? u->sp : 0, bp_before = u->bp;
	int rc = step_rule(u, r);
	if (rc == 0 && u->ip == 0)
		return -1; /* zero return address: the outermost frame */
	if (rc == 0 && u->lj && m->file == u->core_file) {
		__u32 pid = s->pid;
		const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
		if (c)
			lj_note_cframe(u, c);
	}
	/* Hand-written assembly (LuaJIT's VM helpers) can sit inside a bigger function's CFI
	 * although it is entered by a call: a sampled leaf whose rule leads nowhere is
	 * retried as a frameless function, accepted only if its caller is mapped code. */
	if (rc == 0 && leaf_sp && lf_find_map(s->pid, u->ip) < 0) {
		__u64 ra;
		if (read_u64(leaf_sp, &ra) || lf_find_map(s->pid, ra) < 0)
			return 0; /* the next step reports the unmapped pc */
		u->sp = leaf_sp + 8;
		u->bp = bp_before;
		u->ip = ra;
	}
	return rc;
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
	for (__u32 i = 0; i < LF_NATIVE_OUTER; i++)
		u->native_ring[i] = s->user[LF_NATIVE_INNER + ((first + i - LF_NATIVE_INNER) & (LF_NATIVE_OUTER - 1))];
	s->user[LF_NATIVE_INNER] = ((__u64)LF_TAG_ELIDED << LF_TAG_SHIFT) | (n - LF_NATIVE_INNER - LF_NATIVE_OUTER);
	for (__u32 i = 0; i < LF_NATIVE_OUTER; i++)
		s->user[LF_NATIVE_INNER + 1 + i] = u->native_ring[i];
	for (__u32 i = 0; i < LF_MAX_LPOS; i++) {
		if (i >= u->nlpos)
			break;
		__u32 f = u->lpos[i].frame;
		if (f >= first)
			u->lpos[i].frame = LF_NATIVE_INNER + 1 + (f - first);
		else if (f >= LF_NATIVE_INNER)
			u->lpos[i].frame = LF_NATIVE_INNER;
	}
	u->n = LF_NATIVE_INNER + 1 + LF_NATIVE_OUTER;
}

#endif
