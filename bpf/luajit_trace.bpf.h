/* LuaJIT trace code in the native unwinder: traces run on the interpreter's C frame and
 * have no unwind tables, so unwinding continues from that frame (L->cframe). Included by
 * runtime.bpf.h. */
#ifndef LF_LUAJIT_TRACE_BPF_H
#define LF_LUAJIT_TRACE_BPF_H
#include "config.bpf.h"
#include "lua.h"
#include "lua_walk.bpf.h"
#include "arch.bpf.h"

/* Bytes in a GCRef/MRef of the target: 8 with GC64, 4 without. Computed rather than
 * chosen by a branch, which the verifier would follow both ways at every reference. */
static __always_inline __u32 lj_ref_size(const struct lf_lj_cfg *c)
{
	__u64 wide = c->gc64 & 1;
	barrier_var(wide);
	return 4 + 4 * (__u32)wide;
}

/* A GCRef/MRef of the target (little-endian: a 4-byte one fills the low half). */
static __always_inline __u64 lj_ref(const struct lf_lj_cfg *c, __u64 addr)
{
	__u64 v = 0;
	bpf_probe_read_user(&v, lj_ref_size(c), (const void *)addr);
	return v;
}

/* A native word of the target (a C frame's address), 0 when it cannot be read. */
static __always_inline __u64 lj_word(__u64 addr)
{
	__u64 v = 0;
	bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

/* lj_ref of a slot of the sampled thread's stack, through its window. */
static __always_inline __u64 lj_stack_ref(struct lf_ustate *u, const struct lf_lj_cfg *c, __u64 addr)
{
	__u64 v = 0;
	if (window_read(u, addr, &v))
		return 0;
	return v & (~0ULL >> (64 - 8 * lj_ref_size(c)));
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct lf_lj_cfg);
} lj_cfgs SEC(".maps");

enum { LF_LJ_G, LF_LJ_L }; /* lf_lj_field's objects: a global_State, a lua_State */

/* [*lo, *hi): the span of the fields of a global_State (LF_LJ_G) or of a lua_State
 * (LF_LJ_L) that a sample reads. */
static __always_inline void lj_obj_span(const struct lf_lj_cfg *c, __u32 which, __u32 *lo, __u32 *hi)
{
	__u32 a = c->L_glref, b = c->L_base, x = c->L_stack, y = c->L_cframe;
	if (which == LF_LJ_G)
		a = c->g_vmstate, b = c->g_cur_L, x = y = c->g_jit_base;
	__u32 l1 = a < b ? a : b, l2 = x < y ? x : y, h1 = a > b ? a : b, h2 = x > y ? x : y;
	*lo = l1 < l2 ? l1 : l2;
	*hi = (h1 > h2 ? h1 : h2) + 8;
}

/* As lwin_at, for the fields of an object at obj: on a miss, the window takes [obj + lo,
 * obj + hi), the span of the fields a sample reads, so that the others come with the first
 * (lo <= off, off + len <= hi, hi - lo <= LF_OBJ_SPAN: else only the field's own bytes). It
 * is cut to the pages the exact read touches, so it fails only where that read would. */
static __always_inline int objwin_at(__u8 *buf, __u64 *wlo, __u32 *wlen, __u64 obj, __u32 lo, __u32 hi,
				     __u32 off, __u32 len)
{
	__u64 addr = obj + off, o = addr - *wlo;
	if (o < *wlen && *wlen - o >= len)
		return (int)o;
	__u64 start = obj + lo, end = obj + hi, page = addr & ~(__u64)(LF_PAGE_MIN - 1);
	if (lo > off || hi < off + len || hi - lo > LF_OBJ_SPAN || end < start)
		start = addr, end = addr + len;
	if (start < page)
		start = page;
	__u64 last = ((addr + len - 1) | (LF_PAGE_MIN - 1)) + 1;
	if (end > last)
		end = last;
	__u64 n = end - start;
	*wlen = 0;
	if (!len || n > LF_OBJ_SPAN || n < len || end < addr + len)
		return -1;
	*wlo = start;
	if (bpf_probe_read_user(buf, n, (const void *)start))
		return -1;
	*wlen = (__u32)n;
	return (int)(addr - start);
}

/* The len bytes (4 or 8) of field off of pid's LuaJIT object at obj, a global_State
 * (which LF_LJ_G) or a lua_State (LF_LJ_L), into the ustate's window_val (0 when they cannot
 * be read): through a window on the object, since a sample reads several fields of each and
 * every user read costs far more than its bytes. Returns 0, or -1 when they cannot be read.
 * A global function: the verifier checks it once for its many callers. */
__noinline int lf_lj_field(__u32 pid, __u32 which, __u64 obj, __u32 off, __u32 len)
{
	__u32 zero = 0, lo = 0, hi = 0;
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	if (!c || !u || !obj || (len != 4 && len != 8))
		return -1;
	lj_obj_span(c, which, &lo, &hi);
	__u32 w = which & 1;
	int at = objwin_at(u->lj.obj[w], &u->lj.obj_lo[w], &u->lj.obj_len[w], obj, lo, hi, off, len);
	u->window_val = 0;
	if (at < 0)
		return -1;
	__u64 v = lf_load_u64(&u->lj.obj[w][(__u32)at & (LF_OBJ_SPAN - 1)]);
	u->window_val = len == 4 ? v & 0xffffffffULL : v;
	return 0;
}

/* lf_lj_field into *v (0 when it cannot be read). Without a branch of its own: the verifiers
 * without bpf_loop would check the Lua walk that follows once for each way. */
static __always_inline int lj_field(struct lf_ustate *u, __u32 pid, __u32 which, __u64 obj, __u32 off, __u32 len,
				    __u64 *v)
{
	int rc = lf_lj_field(pid, which, obj, off, len);
	*v = u->window_val;
	return rc;
}

/* A GCRef/MRef field of a global_State or lua_State (lj_ref through lf_lj_field), 0 when it
 * cannot be read. */
static __always_inline __u64 lj_field_ref(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid, __u32 which,
					  __u64 obj, __u32 off)
{
	lf_lj_field(pid, which, obj, off, lj_ref_size(c));
	return u->window_val;
}

/* g's vmstate into *vmstate (0 when it cannot be read). Returns 0, or -1 then. */
static __always_inline int lj_vmstate(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid, __u64 g,
				      __s32 *vmstate)
{
	int rc = lf_lj_field(pid, LF_LJ_G, g, c->g_vmstate, 4);
	*vmstate = (__s32)u->window_val;
	return rc;
}

/* The C frame of g's running lua_State (the VM's rsp while it interprets), or 0. */
static __always_inline __u64 lj_cframe(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid, __u64 g)
{
	__u64 L = lj_field_ref(u, c, pid, LF_LJ_G, g, c->g_cur_L), cf = 0;
	if (!L || lj_field(u, pid, LF_LJ_L, L, c->L_cframe, 8, &cf))
		return 0;
	return cf & c->cframe_rawmask;
}

#define LF_LJ_NEAR 65536 /* a trace's frame lies this close below its VM's C frame, at most */

#define LF_LJ_PROBES 64 /* 16-byte steps above a trace's frame where its VM's C frame is looked for */

/* Whether g's running lua_State has its C frame at or just above sp. */
static __always_inline int lj_runs_near(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid, __u64 g,
					__u64 sp)
{
	__u64 cf = lj_cframe(u, c, pid, g);
	return cf && sp <= cf + 16 && cf - sp < LF_LJ_NEAR;
}

/* With one VM known, the one a sample that names none runs. */
static __always_inline __u64 lj_only_g(const struct lf_lj_cfg *c)
{
	return c->ngs == 1 ? c->gs[0] : 0;
}

/* lj_only_g of pid's VMs. */
__noinline __u64 lf_lj_only_g(__u32 pid)
{
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	return c ? lj_only_g(c) : 0;
}

/* The VM that runs on the stack at sp (a trace's frame, or the interpreter's): the one
 * whose running lua_State's C frame is at or just above sp. Each thread has its own stack,
 * so this tells the VMs of a host with one per thread apart. Else, unless the caller probes
 * next (probe), the one VM known if there is one. */
__noinline __u64 lf_lj_pick_g(__u32 pid, __u64 sp, int probe)
{
	__u32 zero = 0;
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	if (!c || !u)
		return 0;
	for (__u32 i = 0; i < LF_MAX_GS; i++) {
		if (i >= c->ngs)
			break;
		if (lj_runs_near(u, c, pid, c->gs[i], sp))
			return c->gs[i];
	}
	/* A host with more VMs than user space tracks runs the same few on a CPU for a while:
	 * those found on its stacks lately are tried before the stack is probed again. Either
	 * way the sample is in a VM user space has not found: it says so. */
	for (__u32 i = 0; i < LF_LJ_SEEN; i++)
		if (u->lj.seen_pid[i] == pid && u->lj.seen_g[i] && lj_runs_near(u, c, pid, u->lj.seen_g[i], sp)) {
			u->vm_unknown = 1;
			return u->lj.seen_g[i];
		}
	return probe ? 0 : lj_only_g(c);
}

struct lj_probe {
	const struct lf_lj_cfg *c;
	const struct lf_proc *p;
	__u64 base, g;
};

/* The k-th 16-byte step of lf_lj_probe_g (LF_EACH's callback): stops at the first VM found.
 * It tests where the process keeps data itself rather than call lf_may_point: that call
 * would be one frame too many on the chain. */
static long lj_probe_cb(__u32 k, void *data)
{
	struct lj_probe *p = data;
	const struct lf_lj_cfg *c = p->c;
	__u64 cf = p->base + 16 * (__u64)k, L = lj_ref(c, cf + c->cframe_ofs_l), g;
	if (!may_be_object_at(L) || !may_point_in(p->p, L) || (lj_word(L + c->L_cframe) & c->cframe_rawmask) != cf)
		return 0;
	g = lj_ref(c, L + c->L_glref);
	if (!g || lj_ref(c, g + c->g_cur_L) != L)
		return 0;
	p->g = g;
	return 1;
}

/* A VM user space has not found yet (a lua_State made for one request, say) running at sp,
 * a trace's frame: the VM keeps its C frame 16-byte aligned a little above it, and the
 * running lua_State saved there points back at it and is its global state's running thread.
 * 0 if none is found. Called beside lf_lj_pick_g, not from it, and with as little on its own
 * stack as can be: each call is a frame on the verifier's 512-byte chain. */
__noinline __u64 lf_lj_probe_g(__u32 pid, __u64 sp)
{
	struct lj_probe p = { bpf_map_lookup_elem(&lj_cfgs, &pid), bpf_map_lookup_elem(&procs, &pid),
			      (sp + 15) & ~15ULL, 0 };
	if (p.c && p.p)
		LF_EACH(LF_LJ_PROBES, lj_probe_cb, &p);
	return p.g;
}

/* lf_lj_pick_g, then, if it found none and probe is set, lf_lj_probe_g; a VM found so is kept
 * among those seen lately and the sample marked as in a VM not found yet (vm_unknown); with
 * none found, the one VM known if there is one. */
static __always_inline __u64 lj_pick_g(struct lf_ustate *u, __u32 pid, __u64 sp, int probe)
{
	__u64 g = lf_lj_pick_g(pid, sp, probe);
	if (g || !probe)
		return g;
	g = lf_lj_probe_g(pid, sp);
	if (!g)
		return lf_lj_only_g(pid);
	__u32 k = u->lj.seen_next++ & (LF_LJ_SEEN - 1);
	u->lj.seen_g[k] = g;
	u->lj.seen_pid[k] = pid;
	u->vm_unknown = 1;
	return g;
}

/* Whether g is one of pid's VMs. */
__noinline int lf_lj_known_g(__u32 pid, __u64 g)
{
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	for (__u32 i = 0; c && g && i < LF_MAX_GS; i++)
		if (i < c->ngs && c->gs[i] == g)
			return 1;
	return 0;
}

/* The VM this thread runs as found so far in the sample, else the one picked from the stack
 * pointer at hand (probe: a trace's frame, where a VM not found yet is looked for); u->lj.g
 * is left to the caller, to set once it is sure. */
static __always_inline __u64 lj_g_here(struct lf_ustate *u, __u32 pid, int probe)
{
	return u->lj.g ? u->lj.g : lj_pick_g(u, pid, u->sp, probe);
}

/* The VM this thread runs, found once per sample from the stack pointer at hand. */
static __always_inline __u64 lj_g_at(struct lf_ustate *u, __u32 pid)
{
	if (!u->lj.g) {
		u->lj.g = lj_pick_g(u, pid, u->sp, 1);
		if (!u->lj.g)
			u->vm_unknown = 1;
	}
	return u->lj.g;
}

/* The VM's C frame at cf was entered by a call from C: the frame the walk steps to next is
 * that caller, and the next C frame on cf's chain, further out, is another such entry of
 * the same lua_State (a C function called from Lua that called back into it). */
static __always_inline void lj_entered(struct lf_ustate *u, const struct lf_lj_cfg *c, __u64 cf)
{
	__u64 prev = 0;
	u->entry_next = 1;
	window_read(u, cf + c->cframe_ofs_prev, &prev);
	u->lj.chain = prev & c->cframe_rawmask;
}

/* A frame of the VM's own code whose CFA is a C frame of the VM: the lua_State saved
 * there ran at this point of the native stack. Coroutines run on the C stack of the thread
 * that resumed them, so this is how the resumer's frames are found; the first such frame
 * also says which VM this thread runs. A lua_State of a VM user space has not found yet (a
 * command's first, a state made for one request) is taken when its own C frame is this one,
 * and the sample says so, so that user space looks at once. frame: the walk's frame stepped
 * from, whose sp was from_sp: a frame smaller than a C frame of the VM is none, and what
 * lies under it is not looked at (every such look is a user read). */
static __always_inline void lj_note_cframe(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid, __u32 frame,
					   __u64 from_sp)
{
	__u64 cf = u->sp - c->cframe_size, L, own = 0, g;
	if (cf == u->lj.chain)
		lj_entered(u, c, cf);
	if (cf < from_sp || u->nthreads >= LF_MAX_LTHREADS || u->nlpos >= LF_MAX_LPOS)
		return;
	L = lj_stack_ref(u, c, cf + c->cframe_ofs_l);
	if (L == u->lj.last_L || !lf_may_be_object(pid, L))
		return;
	g = lj_field_ref(u, c, pid, LF_LJ_L, L, c->L_glref);
	int known = u->lj.g ? g == u->lj.g : lf_lj_known_g(pid, g);
	if (!known && (u->lj.g || !g))
		return;
	/* Only the VM's own C frame of that thread counts, not a stray copy of L. */
	if (lj_field(u, pid, LF_LJ_L, L, c->L_cframe, 8, &own) || (own & c->cframe_rawmask) != cf)
		return;
	if (!known)
		u->vm_unknown = 1;
	u->lj.g = g;
	u->lj.last_L = L;
	lj_entered(u, c, cf);
	lf_note_position_at(L, frame);
}

/* Moves from inside the VM (or a trace running on its frame) to the VM's caller, restoring
 * what the VM saved in its C frame. Returns 0 or a mark. */
static __always_inline int step_lj_cframe_at(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid, __u64 cf)
{
	__u64 ra = 0;
	if (!cf || cf + 16 < u->sp)
		return LF_MARK_FP_FAILED;
	__u64 cfa = cf + c->cframe_size;
	stack_window(u, cf > u->sp ? cf : u->sp, cfa);
	if (window_read(u, cfa + c->cf_ra, &ra))
		return LF_MARK_BAD_READ;
	window_read(u, cfa + c->cf_fp, &u->bp);
	for (int i = 0; i < LF_NSAVED; i++)
		if (c->cf_saved[i])
			window_read(u, cfa + c->cf_saved[i], &u->regs[i]);
	u->sp = cfa;
	u->ip = ra;
	u->exact = 0;
	lj_note_cframe(u, c, pid, u->n - 1, cf);
	return 0;
}

static __always_inline int step_lj_cframe(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid)
{
	__u64 g = lj_g_at(u, pid);
	return step_lj_cframe_at(u, c, pid, g ? lj_cframe(u, c, pid, g) : 0);
}

/* Whether the sample's leaf runs on the VM's C frame (in the interpreter or a helper it
 * called): rsp is the cframe, or one return address below it. The VM's code off its C frame
 * (leaving a trace) is found by lj_off_cframe. */
static __always_inline int lj_leaf_in_vm(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid)
{
	__s32 vmstate = 0;
	__u64 g = lj_g_here(u, pid, 0);
	if (!g || lj_vmstate(u, c, pid, g, &vmstate) || vmstate != ~(__s32)c->vmst_interp)
		return 0;
	__u64 cf = lj_cframe(u, c, pid, g);
	if (!cf || (u->sp != cf && u->sp + 8 != cf))
		return 0;
	u->lj.g = g;
	return 1;
}

/* A sampled leaf in the VM's own code while a trace runs, on an architecture whose calls
 * leave the return address in a register: a helper the trace called (arm64: lj_vm_modi,
 * lj_vm_floor...), which keeps the trace's sp and frame pointer, so that the VM's unwind rule
 * would step past the trace straight to the VM's caller. Steps to the trace at the return
 * address instead (anonymous executable memory, or code newer than the process's tables);
 * returns whether it did. */
static __always_inline int lj_trace_helper(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid, __u32 pc)
{
	__s32 vmstate = -1;
	__u64 ra, sp;
	if (!LF_ARCH_LINK_REG || pc < c->vm_lo || pc >= c->vm_hi)
		return 0;
	__u64 g = lj_g_here(u, pid, 0);
	if (!g || lj_vmstate(u, c, pid, g, &vmstate) || vmstate < 0 ||
	    arch_frameless_ra(u, u->sp, &ra, &sp))
		return 0;
	const struct lf_proc *p = bpf_map_lookup_elem(&procs, &pid);
	int mi = lf_find_map(pid, ra);
	if (!p || (mi >= 0 && p->m[(__u32)mi & (LF_MAX_PROC_MAPS - 1)].file != LF_FILE_JIT))
		return 0;
	u->lj.g = g;
	u->ip = ra;
	u->sp = sp;
	u->exact = 0;
	return 1;
}

#define LF_LJ_EXIT_STATE 65536 /* bytes below the C frame a trace's spill slots and exit state take, at most */

/* A frame in the VM's own code (pc in [vm_lo, vm_hi)) whose rsp is below the VM's C frame:
 * the trace-exit handler, which runs on the trace's frame and the registers it saved there
 * and calls the exit's C code. The VM's unwind rule, written for rsp at the C frame, does not
 * hold there; the VM's caller is found from that C frame: the first of L's chain of C frames
 * (the exit's C code may have pushed newer ones below) that lies a little above rsp.
 * Returns it, or 0. */
static __always_inline __u64 lj_off_cframe(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid, __u32 pc)
{
	if (pc < c->vm_lo || pc >= c->vm_hi)
		return 0;
	__u64 g = lj_g_here(u, pid, 0);
	__u64 cf = g ? lj_cframe(u, c, pid, g) : 0;
	for (int i = 0; i < 4 && cf; i++) {
		if (cf >= u->sp && cf <= u->sp + 8)
			return 0; /* the VM on one of its C frames: its rule holds */
		if (cf > u->sp + 8) {
			if (cf - u->sp > LF_LJ_EXIT_STATE)
				return 0;
			u->lj.g = g;
			return cf;
		}
		__u64 prev = 0;
		if (read_u64(cf + c->cframe_ofs_prev, &prev))
			return 0;
		cf = prev & c->cframe_rawmask;
	}
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct lf_lj_trace_ranges);
} lj_traces SEC(".maps");

/* The number of pid's trace whose machine code holds ip, from the ranges user space wrote
 * last, or LF_TRACE_UNNUMBERED (a trace made since). */
static __always_inline __u32 lj_trace_at(__u32 pid, __u64 ip)
{
	const struct lf_lj_trace_ranges *r = bpf_map_lookup_elem(&lj_traces, &pid);
	if (!r)
		return LF_TRACE_UNNUMBERED;
	__u32 lo = 0, hi = r->n < LF_LJ_TRACES ? r->n : LF_LJ_TRACES;
	for (int i = 0; i < 9 && lo < hi; i++) {
		__u32 mid = (lo + hi) / 2;
		const struct lf_lj_trace_range *t = &r->t[mid & (LF_LJ_TRACES - 1)];
		if (ip < t->lo)
			hi = mid;
		else if (ip - t->lo >= t->len)
			lo = mid + 1;
		else
			return t->traceno;
	}
	return LF_TRACE_UNNUMBERED;
}

/* A trace: the frame becomes a [trace N] marker, then unwinding continues from the VM's
 * C frame. */
static __always_inline int step_lj_trace(struct lf_ustate *u, struct lf_stack *s, const struct lf_lj_cfg *c)
{
	__s32 vmstate = -1;
	__u32 pid = s->pid;
	__u64 g = lj_g_at(u, pid);
	if (g && lj_vmstate(u, c, pid, g, &vmstate))
		vmstate = -1;
	/* Trace numbers start at 1: arm64's traces leave vmstate 0, whichever runs. */
	__u32 traceno = vmstate > 0 ? (__u32)vmstate : LF_TRACE_UNKNOWN;
	if (vmstate == 0)
		traceno = LF_LJ_TRACES_BY_ADDRESS ? lj_trace_at(pid, u->ip) : LF_TRACE_UNNUMBERED;
	s->user[u->cur & (LF_MAX_USTACK - 1)] = lf_word(LF_TAG_LJTRACE, traceno);
	return step_lj_cframe(u, c, pid);
}

#endif
