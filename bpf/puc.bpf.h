/* Walks the CallInfo chain of a PUC Lua 5.1-5.5 lua_State from raw memory and appends
 * its frames to the stack record: Lua functions as (Proto, savedpc) with the Proto's
 * fingerprint, C functions as their lua_CFunction pointer. Offsets come from the
 * per-process lf_puc_cfg. */
#ifndef LF_PUC_BPF_H
#define LF_PUC_BPF_H
#include "config.bpf.h"
#include "lua.h"
#include "lua_fp.bpf.h"
#include "lua_walk.bpf.h"
#include "memo_frame.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct lf_puc_cfg);
} puc_cfgs SEC(".maps");

/* Offset in the window (buf, *lo, *wlen) of the len bytes at addr, refilled when it does not
 * hold them all: with up to LF_LWIN bytes ending at addr + len, none below addr's page. A
 * chain walked from its innermost link outwards (a Lua stack, CallInfos allocated one after
 * another) finds the next links already there. The window lies in the pages the exact read
 * touches, so it fails only where that read would, and never faults where it would not.
 * Returns the offset, or -1 when the memory cannot be read. */
static __always_inline int lwin_at(__u8 *buf, __u64 *lo, __u32 *wlen, __u64 addr, __u32 len)
{
	__u64 off = addr - *lo;
	if (off < *wlen && *wlen - off >= len)
		return (int)off;
	__u64 end = addr + len, page = addr & ~(__u64)(LF_PAGE_MIN - 1);
	__u64 start = end - LF_LWIN;
	if (start < page || start > addr)
		start = page;
	__u64 n = end - start;
	*wlen = 0;
	if (!len || n > LF_LWIN || end < addr)
		return -1;
	*lo = start;
	if (bpf_probe_read_user(buf, n, (const void *)start))
		return -1;
	*wlen = (__u32)n;
	return (int)(addr - start);
}

/* As lwin_at, for the headers of values that may be a lua_State: those are far apart (each
 * malloc'ed on its own), so a window reaching back finds little; this one holds up to
 * LF_CAND_SPAN bytes from addr on, none past addr's page unless the exact read goes there too. */
static __always_inline int lwin_fwd(__u8 *buf, __u64 *lo, __u32 *wlen, __u64 addr, __u32 len)
{
	__u64 off = addr - *lo;
	if (off < *wlen && *wlen - off >= len)
		return (int)off;
	__u64 n = ((addr | (LF_PAGE_MIN - 1)) + 1) - addr;
	if (n > LF_CAND_SPAN)
		n = LF_CAND_SPAN;
	if (n < len)
		n = len;
	*wlen = 0;
	if (!len || n > LF_CAND_SPAN)
		return -1;
	*lo = addr;
	if (bpf_probe_read_user(buf, n, (const void *)addr))
		return -1;
	*wlen = (__u32)n;
	return 0;
}

enum { LF_LWIN_CI, LF_LWIN_TV, LF_LWIN_CAND }; /* PUC Lua's read-ahead windows */

/* The window `which` of the sample: lwin_at for CallInfos and stack slots, lwin_fwd for what
 * may be a lua_State. A global function: the verifier checks it once,
 * not in every copy of the Lua walk's step (unrolled on kernels before 5.17), where each of
 * its ways out would double the states to check. */
__noinline int lf_lwin_at(__u32 which, __u64 addr, __u32 len)
{
	__u32 zero = 0;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	if (!u)
		return -1;
	if (which == LF_LWIN_CI)
		return lwin_at(u->puc.lw_ci, &u->puc.lw_ci_lo, &u->puc.lw_ci_len, addr, len);
	if (which == LF_LWIN_TV)
		return lwin_at(u->puc.lw_tv, &u->puc.lw_tv_lo, &u->puc.lw_tv_len, addr, len);
	return lwin_fwd(u->puc.lw_cand, &u->puc.lw_cand_lo, &u->puc.lw_cand_len, addr, len);
}

/* lf_take_fp with pid's configuration (lua_fp.bpf.h says why a global function). */
__noinline __u32 puc_take_fp(__u32 pid, __u64 proto)
{
	__u32 zero = 0;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	const struct lf_puc_cfg *c = bpf_map_lookup_elem(&puc_cfgs, &pid);
	return u && c ? lf_take_fp(u, &c->fp, proto) : 0;
}

/* The fingerprint of proto, from the memo when the last frame had the same one (recursion). */
static __always_inline __u32 lf_proto_fp(struct lf_ustate *u, __u32 pid, __u64 proto)
{
	if (u->memo_key != proto || !proto) {
		u->memo_key = proto;
		u->memo_ptr = proto;
		u->memo_fp = puc_take_fp(pid, proto);
	}
	return u->memo_fp;
}

#define LF_STACK_NEAR (1ULL << 20) /* the sampled thread's stack above its sp (no lua_State there) */

/* A lua_State of a VM user space has not found yet (a command's first VM, a thread's VM
 * made while recording): its global state's main thread points back to that global state.
 * The sample says so, and user space looks at once. */
static __always_inline int puc_state_shape(const struct lf_puc_cfg *c, __u64 g)
{
	__u64 m, mg;
	if (c->g_mainthread == 0xffff || read_u64(g + c->g_mainthread, &m) || !m || read_u64(m + c->l_l_G, &mg))
		return 0;
	return mg == g;
}

/* Whether cand is a lua_State of one of pid's VMs: an object tagged as a thread whose l_G
 * is a known global state. Returns 2 for a lua_State of a VM user space has not found yet,
 * known by its shape: a host that makes a VM per request runs mostly in VMs not found yet,
 * and keeps L in whichever register each function of the core chose.
 * A value that cannot point into the heap costs no read: one outside the process's data, or
 * one into the sampled thread's own stack above sp (the C code spills the global state
 * there, so a stack slot can look like a lua_State but for its tag). The tag is read first:
 * most other objects stop there. */
static __always_inline int puc_is_state(struct lf_ustate *u, __u32 pid, __u64 cand)
{
	const struct lf_puc_cfg *c = bpf_map_lookup_elem(&puc_cfgs, &pid);
	if (!c || !lf_may_point(pid, cand))
		return 0;
	/* One read holds the tag and, after it, l_G (lwin_fwd): when they lie on two pages, l_G
	 * is read only after a thread's tag. */
	int at = lf_lwin_at(LF_LWIN_CAND, cand + c->gch_tt, 1);
	if (at < 0 || u->puc.lw_cand[(__u32)at & (LF_CAND_SPAN - 1)] != c->gctag_thread)
		return 0;
	at = lf_lwin_at(LF_LWIN_CAND, cand + c->l_l_G, 8);
	if (at < 0)
		return 0;
	__u64 g = lf_load_u64(&u->puc.lw_cand[(__u32)at & (LF_CAND_SPAN - 1)]);
	if (!g)
		return 0;
	for (__u32 i = 0; i < LF_MAX_GS; i++)
		if (i < c->ngs && c->gs[i] == g)
			return 1;
	return puc_state_shape(c, g) ? 2 : 0;
}

/* Whether a register value can be a lua_State at all, with nothing looked up: most values are
 * numbers, code addresses or pointers into the sampled thread's stack. */
static __always_inline int puc_may_be_state(__u64 cand, __u64 sp)
{
	return cand - sp >= LF_STACK_NEAR && may_be_object_at(cand);
}

/* The answer is remembered for the last few values of the sample that could point at one: the
 * core's frames pass the same few pointers (L, its stack, a CallInfo) on in their registers,
 * and a check that reads costs far more than these compares. Values puc_may_be_state turns
 * down take no slot, so that they do not push L out. A global function: verified once, not
 * at each call. */
__noinline int lf_lua_is_state(__u32 pid, __u64 cand, __u64 sp)
{
	__u32 zero = 0;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	if (!puc_may_be_state(cand, sp))
		return 0; /* before the memo: its empty slots hold 0, with a stale answer */
	if (!u)
		return 0;
	for (int i = 0; i < LF_SEEN; i++)
		if (u->puc.seen_v[i] == cand)
			return u->puc.seen_r[i];
	int r = puc_is_state(u, pid, cand);
	__u32 k = u->puc.seen_next++ & (LF_SEEN - 1);
	u->puc.seen_v[k] = cand;
	u->puc.seen_r[k] = (__u8)r;
	return r;
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

#define LF_REG_MEMO 256 /* code blocks remembered per CPU (a power of two) */
#define LF_REG_BLOCK 8  /* log2 of a block's bytes */

/* In which register a lua_State was found last in a block of the core's code (key: the core's
 * file and the block's number, plus 1; 0 is an empty slot). A function keeps L in one
 * register, but not every function in the same one: the leaf, sampled all over the
 * interpreter, tried the registers most other frames use first. Only the order in which
 * registers are tried comes from here, never whether they are. */
struct lf_reg_memo {
	__u64 key;
	__u32 reg, pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LF_REG_MEMO);
	__type(key, __u32);
	__type(value, struct lf_reg_memo);
} lua_reg_memo SEC(".maps");

/* At a sample's start: where hosts enter the VM (c NULL: not PUC Lua), for puc_note_entry;
 * nothing found yet. */
static __always_inline void puc_begin(struct lf_ustate *u, const struct lf_puc_cfg *c)
{
	__builtin_memset(&u->puc, 0, __builtin_offsetof(struct lf_puc_ustate, l_reg_hint));
	for (int i = 0; i < LF_LUA_ENTRIES; i++) {
		u->puc.entry_lo[i] = c ? c->entry_lo[i] : 0;
		u->puc.entry_hi[i] = c ? c->entry_hi[i] : 0;
	}
	for (int i = 0; i < LF_SEEN; i++)
		u->puc.seen_v[i] = 0;
	u->puc.cl_key = 0;
	u->puc.lw_ci_len = u->puc.lw_tv_len = u->puc.lw_cand_len = 0;
}

/* The callee-saved registers regs and bp into to, as one array (LF_NSAVED: bp). */
static __always_inline void puc_regs_keep(__u64 *to, const __u64 *regs, __u64 bp)
{
	for (int i = 0; i < LF_NSAVED; i++)
		to[i] = regs[i];
	to[LF_NSAVED] = bp;
}

/* A frame of the core at pc inside one of the API functions a host enters the VM by: the
 * merge shows the host's frames down to it, then the Lua frames that call ran. */
static __always_inline void puc_note_entry(struct lf_ustate *u, struct lf_stack *s, __u32 pc)
{
	for (int i = 0; i < LF_LUA_ENTRIES; i++)
		if (pc >= u->puc.entry_lo[i] && pc < u->puc.entry_hi[i])
			s->user[u->cur & (LF_MAX_USTACK - 1)] |= LF_NAT_ENTRY;
}

/* The outermost frame of the run of frames that held the lua_State seen last, as a second
 * position: a host without the VM's API symbols (a stripped static build) entered the VM at
 * or below the outermost frame that held its lua_State. */
static __always_inline void puc_close_run(struct lf_ustate *u)
{
	if (u->puc.cand && u->puc.cand_frame != u->puc.cand_noted && u->nlpos < LF_MAX_LPOS)
		lf_note_position_at(u->puc.cand, u->puc.cand_frame);
}

/* Frame frame of the walk holds cand (0: none) in its registers: a position where the
 * running lua_State changes (the innermost frame of each run of frames holding it). */
static __always_inline void puc_take_cand(struct lf_ustate *u, __u64 cand, __u32 frame)
{
	__u64 prev = u->puc.cand;
	if (cand != prev)
		puc_close_run(u);
	u->puc.cand = cand;
	if (!cand)
		return;
	u->puc.cand_frame = frame;
	if (cand == prev || u->nlpos >= LF_MAX_LPOS)
		return;
	lf_note_position_at(cand, frame);
	u->puc.cand_noted = frame;
}

/* The value of register i of the frame looked at (LF_NSAVED: the frame pointer). */
static __always_inline __u64 puc_reg_value(const struct lf_ustate *u, __u32 i)
{
	__u32 k = i;
	barrier_var(k); /* the mask below must reach the verifier, not be folded into a check of i */
	k &= LF_SAVED_MASK;
	return k < LF_NSAVED ? u->regs[k] : u->bp;
}

/* Whether register i holds a lua_State, as lf_lua_is_state tells, its value in *v. */
static __always_inline int puc_reg_state(struct lf_ustate *u, __u32 pid, __u32 i, __u64 *v)
{
	*v = puc_reg_value(u, i);
	return puc_may_be_state(*v, u->leaf_sp) ? lf_lua_is_state(pid, *v, u->leaf_sp) : 0;
}

/* puc_reg_state for register i of the sample's walk, as a global function: the loop over the
 * registers in lf_puc_note_state has the verifier check its body once, not once for each. */
__noinline int lf_puc_reg_state(__u32 pid, __u32 i)
{
	__u32 zero = 0;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	__u64 v;
	return u ? puc_reg_state(u, pid, i, &v) : 0;
}

/* The interpreter keeps its lua_State in a callee-saved register: the innermost frame of
 * the Lua core holding one tells which thread runs, and where its activation sits. Looks at
 * frame frame of the walk, at pc, with the registers u->regs and u->bp, which differ from
 * those it answered for last (puc_note_state). A global function: the verifier checks it
 * once, not in each of the walk's step and its replay's hooks. */
__noinline int lf_puc_note_state(__u32 pid, __u32 pc, __u32 frame)
{
	__u32 zero = 0;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	if (!u)
		return 0;
	/* Try first the register that held L last in this block of code, else the one that
	 * held it most often, and the others only when it does not. */
	__u64 key = (((__u64)u->core_file << 32) | (pc >> LF_REG_BLOCK)) + 1, cand = 0, v;
	__u32 slot = (__u32)((key * 0x9e3779b97f4a7c15ULL) >> 56) & (LF_REG_MEMO - 1);
	struct lf_reg_memo *rm = bpf_map_lookup_elem(&lua_reg_memo, &slot);
	__u32 hint = rm && rm->key == key ? rm->reg : u->puc.l_reg_hint;
	int found = 0;
	if (hint <= LF_NSAVED) {
		found = puc_reg_state(u, pid, hint, &v);
		cand = found ? v : 0;
	}
	for (int i = 0; !found && i <= LF_NSAVED; i++) {
		if ((__u32)i == hint)
			continue; /* tried first */
		found = lf_puc_reg_state(pid, i);
		if (found) {
			cand = puc_reg_value(u, (__u32)i);
			reg_hit(i);
			if (rm) {
				rm->key = key;
				rm->reg = (__u32)i;
			}
		}
	}
	if (found == 2)
		u->vm_unknown = 1;
	puc_regs_keep(u->puc.last_regs, u->regs, u->bp);
	u->puc.checked = 1;
	puc_take_cand(u, cand, frame);
	return 0;
}

/* Callee-saved registers rarely change from one frame to the next: while they are the ones
 * lf_puc_note_state answered for last, its answer stands (puc_take_cand with the same
 * lua_State, or none, in a further frame of the same run). */
static __always_inline void puc_note_state(struct lf_ustate *u, __u32 pid, __u32 pc, __u32 frame)
{
	int same = u->puc.checked && u->puc.last_regs[LF_NSAVED] == u->bp;
	for (int i = 0; i < LF_NSAVED; i++)
		same = same && u->puc.last_regs[i] == u->regs[i];
	if (!same)
		lf_puc_note_state(pid, pc, frame);
	else if (u->puc.cand)
		u->puc.cand_frame = frame;
}

/* Frame frame of the walk, of the core, replayed from a walk memo (walk_memo.bpf.h) with the
 * registers with which the walk it keeps found cand (0: none) in them: the same answer, if
 * cand still is one of pid's lua_States (else none: a value left in a register of a frame
 * that no longer uses it, whose thread is gone). */
static __always_inline void puc_replay_state(struct lf_ustate *u, __u32 pid, __u64 cand, __u32 frame)
{
	int r = cand && cand != u->puc.cand ? lf_lua_is_state(pid, cand, u->leaf_sp) : 1;
	if (r == 2)
		u->vm_unknown = 1;
	u->puc.checked = 1;
	puc_take_cand(u, r ? cand : 0, frame);
}

struct puc_walk {
	struct lf_stack *s;
	struct lf_ustate *u;
	const struct lf_puc_cfg *c;
	__u64 L, ci, stop, next;
	__u32 steps;         /* CallInfos walked (the loop index, which the verifier does not
			      * follow as a constant) */
	__u32 inner, outer;  /* frames kept at the leaf end and at the root end */
	__u32 limit;         /* CallInfos walked at most */
};

/* Fields of the CallInfo at lw_ci_at in its window (lf_lwin_at keeps it whole inside). */
static __always_inline __u64 ci_u64(const struct lf_ustate *u, __u16 off)
{
	return lf_load_u64(&u->puc.lw_ci[(u->puc.lw_ci_at + off) & (LF_LWIN - 1)]);
}

static __always_inline __u32 ci_u32(const struct lf_ustate *u, __u16 off)
{
	return lf_load_u32(&u->puc.lw_ci[(u->puc.lw_ci_at + off) & (LF_LWIN - 1)]);
}

/* Makes the CallInfo at ci readable with ci_u64 and ci_u32. Returns 0, or -1. */
static __always_inline int puc_load_ci(struct lf_ustate *u, const struct lf_puc_cfg *c, __u64 ci)
{
	__u32 size = c->ci_sizeof & (LF_CI_BUF - 1);
	int at = size ? lf_lwin_at(LF_LWIN_CI, ci, size) : -1;
	u->puc.lw_ci_at = (__u32)at;
	return at < 0 ? -1 : 0;
}

/* Emits the frame of w->ci, if it runs a function: one read for the CallInfo, one for the
 * function's TValue, one for the closure's Proto or C function. Sets w->next. running: the
 * frame is the innermost one, whose pc names nothing (an argument, not w->steps: verifiers
 * before 6.7 take the walker's stack for the caller's, where steps is 0, and would drop the
 * pc of every frame the ring's flush emits). */
static __always_inline void puc_emit_ci(struct puc_walk *w, int running)
{
	const struct lf_puc_cfg *c = w->c;
	struct lf_ustate *u = w->u;
	w->next = 0;
	if (puc_load_ci(u, c, w->ci))
		return;
	w->next = ci_u64(u, c->ci_previous);
	__u64 func = ci_u64(u, c->ci_func), pc = 0, f = 0;
	int tv = lf_lwin_at(LF_LWIN_TV, func, 16);
	if (tv < 0)
		return;
	__u64 val = lf_load_u64(&u->puc.lw_tv[((__u32)tv + (c->tv_value & 7)) & (LF_LWIN - 1)]);
	__u8 tt = u->puc.lw_tv[((__u32)tv + (c->tv_tt & 15)) & (LF_LWIN - 1)];
	__u32 cs = c->ci_callstatus_size ? ci_u32(u, c->ci_callstatus) : 0;
	if (c->ci_callstatus_size == 1)
		cs &= 0xff;
	else
		cs &= 0xffff;
	__u64 flags = (cs & c->cist_fresh ? LF_LFLAG_FRESH : 0) | (cs & c->cist_tail ? LF_LFLAG_TAIL : 0);
	if (c->ci_tailcalls != 0xffff && (__s32)ci_u32(u, c->ci_tailcalls) > 0)
		flags |= LF_LFLAG_TAIL;
	int is_lua = 0, is_c = 0;
	if (c->flags & LF_LUA_CL_ISC) {
		__u8 isC = 0;
		if (tt != c->tvtag_func51 || bpf_probe_read_user(&isC, 1, (const void *)(val + c->cl_isC)))
			return;
		is_lua = !isC;
		is_c = isC;
	} else if (tt == c->tvtag_lcl) {
		is_lua = 1;
	} else if (tt == c->tvtag_ccl) {
		is_c = 1;
	} else if (tt == c->tvtag_lcf && c->tvtag_lcf) {
		f = val;
	} else {
		return;
	}
	if (is_c && read_u64(val + c->ccl_f, &f))
		return;
	if (!is_lua) {
		put_word(w->s, u, lf_word(LF_TAG_LCFUNC, f));
		put_word(w->s, u, flags);
		return;
	}
	/* A recursion runs the same closure frame after frame; its Proto never changes. */
	__u64 proto = u->puc.cl_proto;
	if (val != u->puc.cl_key || !val) {
		if (read_u64(val + c->lcl_p, &proto))
			return;
		u->puc.cl_key = val;
		u->puc.cl_proto = proto;
	}
	if (running && !want_lines)
		pc = 0;  /* the running function: its pc names nothing, only --lines uses it */
	else if ((c->flags & LF_LUA_L_SAVEDPC) && !w->u->puc.walk_emitted)
		read_u64(w->L + c->l_savedpc, &pc);
	else
		pc = ci_u64(u, c->ci_savedpc);
	/* the fingerprint rides in the bits the address and the pc leave free */
	__u32 fp = lf_proto_fp(u, w->s->pid, proto);
	proto |= lf_fp_hi(fp);
	flags |= lf_fp_lo(fp);
	pc &= LF_ADDR_MASK;
	put_word(w->s, u, lf_word(LF_TAG_LFUNC, proto));
	put_word(w->s, u, (pc & LF_PC_MASK) | flags);
	w->u->puc.walk_emitted = 1;
}

/* 5.1's CallInfos are an array: past the innermost frames, jump to the outermost ones. */
static __always_inline void puc_jump_array(struct puc_walk *w)
{
	__u32 size = w->c->ci_sizeof;
	__u64 left = size && w->ci > w->stop ? (w->ci - w->stop) / size : 0;
	if (left > w->outer) {
		put_lua_marker(w->s, w->u, LF_TAG_LFUNC, left - w->outer);
		w->ci = w->stop + (__u64)w->outer * size;
	}
	w->inner = LF_LUA_WALK; /* what is left is emitted */
}

/* The walk reached the base CallInfo. Every frame was emitted as it was walked, unless there
 * were more than the two ends keep: then the record goes back to where the innermost ones
 * end, and the marker and the ring follow (the outermost frames, oldest entry, the innermost
 * of them, at ring_n % outer once it has wrapped). */
static __always_inline long puc_walk_end(struct puc_walk *w)
{
	__u32 n = w->u->ring_n;
	if (n <= w->outer)
		return 1;
	w->u->n = w->u->puc.ring_from;
	put_lua_marker(w->s, w->u, LF_TAG_LFUNC, n - w->outer);
	w->u->ring_at = w->outer ? n % w->outer : 0;
	w->u->ring_left = w->outer;
	w->u->walk_flushing = 1;
	return w->outer == 0;
}

static long puc_flush_one(struct puc_walk *w)
{
	/* outer first: the walk without bpf_loop has none (a constant the verifier prunes
	 * by), and ring_left, in the map value, would not tell it that nothing is left */
	if (!w->outer || !w->u->ring_left || w->u->n >= LF_MAX_USTACK - 2)
		return 1;
	struct lf_ustate *u = w->u;
	w->ci = u->ring[u->ring_at & LF_RING_MASK];
	u->ring_at = u->ring_at + 1 >= w->outer ? 0 : u->ring_at + 1;
	w->u->ring_left--;
	puc_emit_ci(w, 0);
	return 0;
}

/* One CallInfo: emitted while the two ends' frames may still be all there is, and past the
 * innermost part also remembered in the ring (a deeper walk keeps only its last entries).
 * Then the flush of the ring, if the walk went past what the ends keep. */
static __noinline long puc_step_cb(__u32 idx, void *data)
{
	struct puc_walk *w = data;
	const struct lf_puc_cfg *c = w->c;
	struct lf_ustate *u = w->u;
	if (u->walk_flushing)
		return puc_flush_one(w);
	w->steps = idx;
	if (!w->ci || w->ci == w->stop)
		return puc_walk_end(w);
	if (w->steps >= w->limit) {
		put_lua_marker(w->s, u, LF_TAG_LFUNC, 0);
		return 1;
	}
	if (w->steps == w->inner && (c->flags & LF_LUA_CI_ARRAY))
		puc_jump_array(w);
#ifndef LF_NO_BPF_LOOP
	/* The ring is not in the walk without bpf_loop, which stops at its innermost frames: the
	 * verifier would take each step's ways through it in each copy of the unrolled walk. */
	if (w->steps == w->inner)
		u->puc.ring_from = u->n;
	if (w->steps >= w->inner) {
		if (w->outer)
			u->ring[(u->ring_n % w->outer) & LF_RING_MASK] = w->ci;
		u->ring_n++;
	}
#endif
	if (w->steps < w->inner + w->outer) {
		if (u->n >= LF_MAX_USTACK - 2)
			return 1;
		puc_emit_ci(w, w->steps == 0);
	} else {
		w->next = 0;
		if (!(c->flags & LF_LUA_CI_ARRAY) && !puc_load_ci(u, c, w->ci))
			w->next = ci_u64(u, c->ci_previous);
	}
	if (c->flags & LF_LUA_CI_ARRAY) {
		w->ci -= c->ci_sizeof;
		return w->ci < w->stop ? puc_walk_end(w) : 0;
	}
	w->ci = w->next; /* read with the CallInfo; 0 ends the walk */
	return 0;
}

/* Appends an LTHREAD word and the frames of L, innermost first: all of them, or the
 * innermost and the outermost ones with a marker between, or (deeper than LF_LUA_WALK)
 * the innermost ones and a depth marker. threads_left counts this lua_State. */
static __always_inline void puc_walk_thread(struct lf_stack *s, struct lf_ustate *u,
					    const struct lf_puc_cfg *c, __u64 L, __u32 threads_left)
{
	struct puc_walk w = { .s = s, .u = u, .c = c, .L = L };
	if (read_u64(L + c->l_ci, &w.ci))
		return;
	/* The base CallInfo stands for the C code that created the thread: not a frame. */
	if (c->flags & LF_LUA_CI_ARRAY)
		read_u64(L + c->l_base_ci, &w.stop);
	else
		w.stop = L + c->l_base_ci;
	lf_lua_keep(u, threads_left, 1, &w.inner, &w.outer);
	u->ring_n = 0;
	u->puc.walk_emitted = u->walk_flushing = 0;
	put_word(s, u, lf_word(LF_TAG_LTHREAD, L));
	LF_WALK_LUA(u, w, puc_step_cb);
}

#ifdef LF_NO_BPF_LOOP
/* Without bpf_loop the loop over the lua_States is unrolled: the walk of each, a global
 * function, is checked once rather than once for each lua_State a sample may have. */
__noinline int lf_puc_walk_thread(__u64 L, __u32 threads_left)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return 0;
	__u32 pid = s->pid;
	const struct lf_puc_cfg *c = bpf_map_lookup_elem(&puc_cfgs, &pid);
	if (c)
		puc_walk_thread(s, u, c, L, threads_left);
	return 0;
}
#define PUC_WALK_THREAD(s, u, c, L, left) lf_puc_walk_thread((L), (left))
#else
#define PUC_WALK_THREAD(s, u, c, L, left) puc_walk_thread((s), (u), (c), (L), (left))
#endif

struct puc_threads {
	struct lf_stack *s;
	struct lf_ustate *u;
	const struct lf_puc_cfg *c;
};

/* The walk of the t-th lua_State seen (LF_EACH's callback: the verifier checks the walk once
 * rather than once per lua_State). */
static long puc_thread_cb(__u32 t, void *data)
{
	struct puc_threads *p = data;
	struct lf_ustate *u = p->u;
	if (t >= u->nthreads || t >= LF_MAX_LTHREADS)
		return 1;
	barrier_var(t); /* keeps the mask below, which the verifier needs */
	PUC_WALK_THREAD(p->s, u, p->c, u->threads[t & (LF_MAX_LTHREADS - 1)], u->nthreads - t);
	return 0;
}

/* After the native walk: the Lua frames of every lua_State seen, then where each ran. */
static __always_inline void puc_append(struct lf_stack *s, struct lf_ustate *u)
{
	__u32 pid = s->pid;
	const struct lf_puc_cfg *c = bpf_map_lookup_elem(&puc_cfgs, &pid);
	if (!c || !u->nthreads)
		return;
	struct puc_threads pt = { s, u, c };
	LF_EACH(LF_MAX_LTHREADS, puc_thread_cb, &pt);
	lf_put_positions(s, u, 0);
}

/* The dispatcher's hooks (runtime.bpf.h) for PUC Lua. */

/* pid's configuration, or 0: looked up once per program run. */
static __always_inline const struct lf_puc_cfg *puc_cfg_of(__u32 pid)
{
	return bpf_map_lookup_elem(&puc_cfgs, &pid);
}

/* Whether pid runs PUC Lua: then u learns the file holding its VM and where lua_State was
 * found most often. */
static __always_inline int puc_hook_begin(struct lf_ustate *u, const struct lf_puc_cfg *c)
{
	if (!c)
		return 0;
	u->core_file = c->core_file;
	u->puc.l_reg_hint = c->l_reg_hint;
	return 1;
}

/* A frame in the VM's file at pc, before the unwinder steps out of it: the running
 * lua_State in its registers, the host's call into the VM. */
static __always_inline int puc_hook_core_frame(struct lf_ustate *u, struct lf_stack *s, __u32 pc)
{
	puc_note_entry(u, s, pc);
	puc_note_state(u, s->pid, pc, u->n - 1);
	return -1;
}

/* The walk's end: the last run of frames holding a lua_State gets its outer end; a walk
 * through the VM that found none of its states asks for the process's data again. */
static __always_inline int puc_hook_walk_end(struct lf_ustate *u)
{
	puc_close_run(u);
	return u->puc.checked && !u->nthreads;
}

/* The walk memo's hooks (memo_frame.bpf.h), through the dispatcher. */

/* What the hook on a core frame looked at: its callee-saved registers and bp. */
static __always_inline __u64 puc_regs_key(const __u64 *regs, __u64 bp)
{
	__u64 h = bp * 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < LF_NSAVED; i++) {
		h = (h ^ regs[i]) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

/* A plain core frame at pc, its hook done, before the step out of it: the registers the hook
 * looked at, the lua_State it found in them (0: none), the pc, and whether the host entered
 * the VM there. */
static __always_inline void puc_memo_note(const struct lf_ustate *u, const struct lf_stack *s, __u32 pc,
					  struct lf_core_note *n)
{
	n->key = puc_regs_key(u->regs, u->bp);
	n->val = u->puc.cand;
	n->pc = pc;
	n->entry = (s->user[u->cur & (LF_MAX_USTACK - 1)] & LF_NAT_ENTRY) != 0;
}

/* Before the replayed frames' hooks: the registers as the walk's last stepped frame has them,
 * which the replay carries on from frame to frame. */
static __always_inline void puc_replay_begin(struct lf_ustate *u)
{
	puc_regs_keep(u->puc.replay_regs, u->regs, u->bp);
}

/* Frame at of the memo's frames mf, replayed as the walk's frame-th: its registers carried on
 * from the frame before (first: the walk's own), and for a frame of the core its hook's answer,
 * as the kept walk found it when the registers are the ones that walk saw, else looked for
 * again. Returns 1 to end the pass (the stack no longer reads), else 0. */
static __always_inline int puc_hook_replay_frame(struct lf_ustate *u, struct lf_stack *s,
						 const struct lf_memo_frame *mf, __u32 at, __u32 frame, int first)
{
	const struct lf_memo_frame *f = &mf[at & (LF_MEMO_FRAMES - 1)];
	__u64 *regs = u->puc.replay_regs;
	if (!first && memo_carry_regs(u, &mf[(at - 1) & (LF_MEMO_FRAMES - 1)], f, regs))
		return 1;
	if (!(f->flags & LF_MF_CORE))
		return 0;
	if (puc_regs_key(regs, regs[LF_NSAVED]) == f->note.key) {
		/* the registers the answer is for, as puc_note_state keeps them: a later frame with
		 * the same ones reuses it */
		puc_regs_keep(u->puc.last_regs, regs, regs[LF_NSAVED]);
		puc_replay_state(u, s->pid, f->note.val, frame);
		return 0;
	}
	for (int j = 0; j < LF_NSAVED; j++)
		u->regs[j] = regs[j];
	u->bp = regs[LF_NSAVED];
	puc_note_state(u, s->pid, f->note.pc, frame);
	return 0;
}

#endif
