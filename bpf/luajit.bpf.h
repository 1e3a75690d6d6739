/* LuaJIT in the kernel: steps native unwinding out of JIT-compiled trace code onto the
 * interpreter's C frame, and walks the running lua_State's frames (interpreter, trace or
 * C call) from raw memory, appending one function (a Lua function's GCproto and fingerprint,
 * else the GCfunc) and pc per frame to the stack record. */
#ifndef LF_LUAJIT_BPF_H
#define LF_LUAJIT_BPF_H
#include "config.bpf.h"
#include "lua.h"
#include "lua_fp.bpf.h"
#include "lua_walk.bpf.h"
#include "luajit_trace.bpf.h"
#include "memo_frame.bpf.h"

#define LJ_CFN_FFID 0x1ff        /* memo_cfn: a C function's ffid + 1 */
#define LJ_CFN_FUNC (1u << 31)   /* memo_cfn: the GCfunc's header says it is one */

/* lf_take_fp with pid's configuration (lua_fp.bpf.h says why a global function). */
__noinline __u32 lj_take_fp(__u32 pid, __u64 proto)
{
	__u32 zero = 0;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	return u && c ? lf_take_fp(u, &c->fp, proto) : 0;
}

/* What the GCfunc fn read into fp_sbuf is: a Lua function's GCproto and its fingerprint
 * (0: not known), or a C function's or built-in's C function and ffid + 1 in *cfn, which
 * also tells whether it is a function at all (LJ_CFN_FUNC). */
static __always_inline __u64 lj_func_of(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid, __u64 fn,
					__u32 *fp, __u32 *cfn)
{
	__u8 ffid = u->fp_sbuf[c->fn_ffid & (LF_FP_BUF - 1)];
	if (u->fp_sbuf[c->fn_gct & (LF_FP_BUF - 1)] != c->gct_func)
		return fn;
	*cfn = LJ_CFN_FUNC;
	if (ffid != c->ff_lua) {
		__u64 f = lf_ld64(u->fp_sbuf, c->fn_c_f) & LF_ADDR_MASK;
		*cfn |= f ? (__u32)ffid + 1 : 0;
		return f ? f : fn;
	}
	__u64 pc = lf_ld64(u->fp_sbuf, c->fn_pc);
	if (!c->gc64)
		pc &= 0xffffffffULL;
	if (pc > c->pt_size)
		*fp = lj_take_fp(pid, pc - c->pt_size);
	return *fp ? pc - c->pt_size : fn;
}

/* LuaJIT: a frame's function word and its pc word (*aux). A Lua function becomes its GCproto
 * with the proto's fingerprint in the bits the address and the pc leave free; a C function
 * or built-in its C function and ffid (LF_TAG_LJCFUNC), which outlive the closure; a GCfunc
 * that cannot be read stays the GCfunc, for user space to look at. Returns whether fn was
 * read as a function. */
static __always_inline int lj_frame_fp(struct lf_ustate *u, const struct lf_lj_cfg *c, __u32 pid, __u64 *func,
					__u64 *aux)
{
	__u64 fn = *func;
	if (u->memo_key != fn || !fn) {
		__u32 n = (c->fn_pc > c->fn_c_f ? c->fn_pc : c->fn_c_f) + 8;
		__u32 fp = 0, cfn = 0;
		__u64 ptr = fn;
		if (fn && n <= LF_FP_BUF && !bpf_probe_read_user(u->fp_sbuf, n, (const void *)fn))
			ptr = lj_func_of(u, c, pid, fn, &fp, &cfn);
		u->memo_key = fn;
		u->memo_ptr = ptr;
		u->memo_fp = fp;
		u->memo_cfn = cfn;
	}
	if (u->memo_cfn & LJ_CFN_FFID) {
		*func = lf_word(LF_TAG_LJCFUNC, u->memo_ptr);
		*aux |= ((__u64)((u->memo_cfn & LJ_CFN_FFID) - 1) << LF_LJ_FFID_SHIFT) & LF_LJ_FFID_BITS;
	} else {
		*func = lf_word(LF_TAG_LJFUNC, u->memo_ptr | lf_fp_hi(u->memo_fp));
		*aux |= lf_fp_lo(u->memo_fp);
	}
	return !!(u->memo_cfn & LJ_CFN_FUNC);
}

struct lj_walk {
	struct lf_stack *s;
	struct lf_ustate *u;
	const struct lf_lj_cfg *c;
	__u64 base, stack, pc;
	__u64 vm_pc;          /* the interpreter's PC register, while the first link is read */
	__u64 link0;          /* the first frame's link if it is not stored yet (lf_lj_entering) */
	__u64 ret_base;       /* where its BASE was if a return moved it (vm_ret_base) */
	__u32 frames;         /* frames found */
	__u64 ins_pc;         /* the last return pc whose call instruction was read, and it */
	__u32 ins;
	__u32 inner, outer;   /* frames kept at the leaf end and at the root end */
	__u32 limit;          /* links followed at most */
};

/* The link below the frame at base: its function and its type and size, and (GC64, where
 * values carry their type) whether the function slot holds a function: a call being set up
 * from C holds nil there. The frames lie in one array from the lua_State's stack up: a
 * window of it serves many links. */
#define LJ_GC64_TFUNC 0x1fff7 /* GC64: a function value's top 17 bits, its type tag */

static __always_inline int lj_read_link(const struct lj_walk *w, __u64 *func, __s64 *ftsz, int *isfn)
{
	struct lf_ustate *u = w->u;
	__u64 v[2];
	if (w->c->gc64) {
		array_window_down(u, w->stack, w->base);
		if (window_read(u, w->base - 16, &v[0]) || window_read(u, w->base - 8, &v[1]))
			return -1;
		*func = v[0] & ((1ULL << 47) - 1);
		*ftsz = (__s64)v[1];
		*isfn = (v[0] >> 47) == LJ_GC64_TFUNC;
		return 0;
	}
	array_window_down(u, w->stack, w->base);
	if (window_read(u, w->base - 8, &v[0]))
		return -1;
	*func = (__u32)v[0];
	*ftsz = (__s32)(v[0] >> 32);
	return 0;
}

/* A frame (its tagged function word and pc word): written out while in the innermost part,
 * else kept in the ring of the outermost. */
static __always_inline void lj_put_frame(struct lj_walk *w, __u64 func, __u64 aux)
{
	if (w->frames < w->inner) {
		put_word(w->s, w->u, func);
		put_word(w->s, w->u, aux);
	} else {
		struct lf_ustate *u = w->u;
		__u32 i = w->outer ? 2 * (u->ring_n % w->outer) : 0;
		u->ring[i & LF_RING_MASK] = func;
		u->ring[(i + 1) & LF_RING_MASK] = aux;
		u->ring_n++;
	}
	w->frames++;
}

/* The walk reached the bottom of the stack: the marker if frames were left out, then the
 * ring from its oldest entry (the innermost of the outermost frames). */
static __always_inline long lj_walk_end(struct lj_walk *w)
{
	__u32 n = w->u->ring_n, first = 0;
	if (n > w->outer) {
		put_lua_marker(w->s, w->u, LF_TAG_LJFUNC, n - w->outer);
		first = w->outer ? n % w->outer : 0;
		n = w->outer;
	}
	w->u->ring_at = first;
	w->u->ring_left = n;
	w->u->walk_flushing = 1;
	return n == 0;
}

static long lj_flush_one(struct lj_walk *w)
{
	if (!w->outer || !w->u->ring_left) /* outer first: see puc_flush_one */
		return 1;
	struct lf_ustate *u = w->u;
	__u32 i = 2 * u->ring_at;
	put_word(w->s, u, u->ring[i & LF_RING_MASK]);
	put_word(w->s, u, u->ring[(i + 1) & LF_RING_MASK]);
	u->ring_at = u->ring_at + 1 >= w->outer ? 0 : u->ring_at + 1;
	w->u->ring_left--;
	return 0;
}

/* Whether vm_pc can be a Lua frame's link, a return pc. */
static __always_inline int lj_pc_link(const struct lf_lj_cfg *c, __u64 vm_pc)
{
	return vm_pc && !(vm_pc & 3) && (c->gc64 || !(vm_pc >> 31));
}

/* Whether the interpreter is returning from the innermost frame, whose link (the return pc)
 * it has taken into its PC register: until BASE moves to the caller, the results are copied
 * down over the frame's function and link, so the link read is vm_pc or a result. What the
 * values alone tell; without GC64, a number's halves are read as function and link. */
static __always_inline int lj_returning(const struct lf_lj_cfg *c, __u64 func, __s64 ftsz, __u64 vm_pc)
{
	if (!lj_pc_link(c, vm_pc))
		return 0;
	if (c->gc64) /* a link is a pc or a small delta, a result a tagged value or a double */
		return (__u64)ftsz == vm_pc || (__u64)ftsz >> 47 || !ftsz;
	return (__u32)ftsz == (__u32)vm_pc || (__s32)ftsz < 0 || !func; /* a type tag, a whole number */
}

/* Whether pid's LuaJIT interpreter is entering a call from C (lua_call, lua_pcall) at the
 * frame at base: it has the frame's link, a C frame's, in its PC register before it stores
 * it, and until then the link slot holds what the stack held there before. Such a link leads
 * to the C function's frame, where L->base still points. A global function, checked once:
 * the walk's step, checked for every frame it may take, has no room for it. */
__noinline int lf_lj_entering(__u32 pid, __u64 L, __u64 base, __u64 vm_pc)
{
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	if (!c)
		return 0;
	__u64 link = c->gc64 ? vm_pc : (__u32)vm_pc, delta = link & ~7ULL, lbase = 0;
	__u32 typep = (__u32)link & c->frame_typep;
	if ((typep != c->frame_c && typep != c->frame_cp) || !delta || delta >= base)
		return 0;
	__u32 zero = 0;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	return u && lj_field(u, pid, LF_LJ_L, L, c->L_base, 8, &lbase) == 0 && lbase == base - delta;
}

static __noinline long lj_step_cb(__u32 idx, void *data)
{
	struct lj_walk *w = data;
	const struct lf_lj_cfg *c = w->c;
	__u64 func = 0;
	__s64 ftsz = 0;
	int isfn = 1;
	if (w->u->walk_flushing)
		return lj_flush_one(w);
	if (w->base <= w->stack + 8 * (1 + c->fr2) || (w->frames < w->inner && w->u->n >= LF_MAX_USTACK - 2) ||
	    lj_read_link(w, &func, &ftsz, &isfn))
		return lj_walk_end(w);
	if (w->link0) { /* taken here: kept across the step, it multiplies 5.10 verifier's work */
		ftsz = (__s64)w->link0;
		w->link0 = 0;
	}
	/* A frame being returned from is left out: the caller runs again, from vm_pc. A frame
	 * without a function yet is left out too, its link followed. */
	__u64 vm_pc = w->vm_pc, fp_bits = 0;
	w->vm_pc = 0;
	int gone = lj_returning(c, func, ftsz, vm_pc), shown = !gone && isfn;
	if (shown && !lj_frame_fp(w->u, c, w->s->pid, &func, &fp_bits) && !c->gc64 && lj_pc_link(c, vm_pc))
		gone = 1; /* no function: a number's halves */
	shown = shown && !gone;
	/* results copied already: BASE may have moved along them (arm64) */
	if (gone && (__u64)ftsz != vm_pc && w->ret_base <= w->base && w->base - w->ret_base < 2048 &&
	    !(w->ret_base & 7) && w->ret_base > w->stack)
		w->base = w->ret_base;
	if (gone)
		ftsz = (__s64)vm_pc;
	if (!ftsz)
		return lj_walk_end(w);
	if (idx >= w->limit) {   /* the loop index: not followed as a constant by the verifier */
		put_lua_marker(w->s, w->u, LF_TAG_LJFUNC, 0);
		return 1;
	}
	__u32 typep = (__u32)ftsz & c->frame_typep;
	__u64 delta = (__u64)ftsz & ~(__u64)7;
	if (typep == c->frame_varg) {   /* the real frame of a vararg call sits above it */
		w->base -= delta;
		return 0;
	}
	__u64 centry = (typep == c->frame_c || typep == c->frame_cp) ? LF_LFLAG_CENTRY : 0;
	if (shown)
		lj_put_frame(w, func, (w->pc & LF_ADDR_MASK) | centry | fp_bits);
	if ((typep & 3) == c->frame_lua) {
		__u64 pc = c->gc64 ? (__u64)ftsz : (__u32)ftsz;
		/* A recursion returns to the same call over and over: read it once. */
		if (pc != w->ins_pc) {
			if (bpf_probe_read_user(&w->ins, 4, (const void *)(pc - 4)))
				return lj_walk_end(w);
			w->ins_pc = pc;
		}
		w->base -= 8 * (1 + c->fr2 + ((w->ins >> 8) & 0xff));
		w->pc = pc;
	} else {
		w->base -= delta;
		w->pc = 0;
	}
	return 0;
}

/* Appends one lua_State's frames from base, innermost first: all of them, or the innermost
 * and the outermost ones with a marker between, or (deeper than LF_LUA_WALK) the innermost
 * ones and a depth marker. threads_left counts this lua_State. */
static __always_inline void lj_walk_thread(struct lf_stack *s, struct lf_ustate *u, const struct lf_lj_cfg *c,
					   __u64 L, __u64 base, __u64 pc, __s32 vmstate, __u32 threads_left)
{
	/* (a PC that is no bytecode's, a call's link, says the frame has not begun; L->stack is
	 * read on its own, not through lf_lj_field: the walk that follows had 5.10's verifier
	 * check twice the instructions with it) */
	struct lj_walk w = { .s = s, .u = u, .c = c, .base = base, .stack = lj_ref(c, L + c->L_stack),
			     .pc = want_lines && !(pc & 3) ? pc : 0, .vm_pc = pc, .ret_base = u->vm_ret_base };
	if ((pc & 3) && lf_lj_entering(s->pid, L, base, pc))
		w.link0 = c->gc64 ? pc : (__u32)pc;
	lf_lua_keep(u, threads_left, 2, &w.inner, &w.outer);
	u->ring_n = 0;
	u->walk_flushing = 0;
	put_word(s, u, lf_word(LF_TAG_LTHREAD, L));
	put_word(s, u, lf_word(LF_TAG_LJSTATE, (__u32)vmstate));
	LF_WALK_LUA(u, w, lj_step_cb);
}

/* The sample's state and record, and its process's LuaJIT configuration (0: none), for the
 * global functions below. */
static __always_inline const struct lf_lj_cfg *lj_sample(struct lf_ustate **u, struct lf_stack **s)
{
	if (lf_sample(u, s))
		return 0;
	__u32 pid = (*s)->pid;
	return bpf_map_lookup_elem(&lj_cfgs, &pid);
}

#ifndef LF_NO_BPF_LOOP
/* With bpf_loop, lj_walk_thread runs in a global function: the verifier checks the walk once,
 * not once for the running lua_State and again for the threads that resumed it. */
__noinline int lf_lj_walk_thread(__u64 L, __u64 base, __u64 pc, __u64 vmstate_left)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	const struct lf_lj_cfg *c = lj_sample(&u, &s);
	if (c)
		lj_walk_thread(s, u, c, L, base, pc, (__s32)(vmstate_left >> 32), (__u32)vmstate_left);
	return 0;
}
#else
/* Without bpf_loop, the running lua_State's walk stays inline, checked with what its caller
 * knows (as a global function 5.10's verifier went past its million instructions); the loop
 * over the threads that resumed it is unrolled, and the walk of each is a global function,
 * checked once rather than once for each, still with what the verifier knows of such a
 * thread (its pc 0, waiting in C). */
__noinline int lf_lj_walk_resumed(__u64 L, __u64 base, __u32 threads_left)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	const struct lf_lj_cfg *c = lj_sample(&u, &s);
	if (c)
		lj_walk_thread(s, u, c, L, base, 0, ~(__s32)c->vmst_c, threads_left);
	return 0;
}
#endif

/* lj_walk_thread, through the global function where there is one (its arguments: five at
 * most, vmstate rides in the high half of threads_left's). */
static __always_inline void lj_walk_thread_of(struct lf_stack *s, struct lf_ustate *u, const struct lf_lj_cfg *c,
					      __u64 L, __u64 base, __u64 pc, __s32 vmstate, __u32 threads_left)
{
#ifdef LF_NO_BPF_LOOP
	lj_walk_thread(s, u, c, L, base, pc, vmstate, threads_left);
#else
	(void)s, (void)u, (void)c;
	lf_lj_walk_thread(L, base, pc, ((__u64)(__u32)vmstate << 32) | threads_left);
#endif
}

struct lj_threads {
	struct lf_stack *s;
	struct lf_ustate *u;
	const struct lf_lj_cfg *c;
	__u64 L; /* the VM's running lua_State, walked already */
};

/* The walk of the t-th lua_State seen, unless it is the running one (LF_EACH's callback). */
static long lj_thread_cb(__u32 t, void *data)
{
	struct lj_threads *p = data;
	struct lf_ustate *u = p->u;
	if (t >= u->nthreads || t >= LF_MAX_LTHREADS)
		return 1;
	barrier_var(t); /* keeps the mask below, which the verifier needs */
	/* (L->base read on its own, as L->stack in lj_walk_thread) */
	__u64 Lt = u->threads[t & (LF_MAX_LTHREADS - 1)], b = 0;
	if (Lt != p->L && read_u64(Lt + p->c->L_base, &b) == 0)
#ifdef LF_NO_BPF_LOOP
		lf_lj_walk_resumed(Lt, b, u->nthreads - t);
#else
		lj_walk_thread_of(p->s, u, p->c, Lt, b, 0, ~(__s32)p->c->vmst_c, u->nthreads - t);
#endif
	return 0;
}

/* After the native walk: the frames of the running lua_State, then of the threads that
 * resumed it (found along the chain of the VM's C frames), innermost first. */
static __always_inline void lj_append(struct lf_stack *s, struct lf_ustate *u)
{
	__u32 pid = s->pid;
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	if (!c)
		return;
	/* The VM this thread was seen running; a stack walked to its root without meeting one
	 * belongs to a thread that runs no Lua now, whatever the VM's other threads do. Only a
	 * walk cut short leaves the doubt, and a single VM is then the likely one. */
	__u64 g = u->lj.g ? u->lj.g : u->mark && c->ngs == 1 ? c->gs[0] : 0;
	if (!g)
		return;
	__u64 L = lj_field_ref(u, c, pid, LF_LJ_G, g, c->g_cur_L), base = 0, pc = 0;
	__s32 vmstate = 0;
	if (!L)
		return;
	lj_vmstate(u, c, pid, g, &vmstate);
	if (vmstate >= 0) {                       /* in a trace: its frames start at jit_base */
		base = lj_field_ref(u, c, pid, LF_LJ_G, g, c->g_jit_base);
	} else if (vmstate == ~(__s32)c->vmst_interp) {
		/* The interpreter keeps BASE in rdx and PC in rbx, but only while the sample is in
		 * its own code: C called by a built-in finds BASE stored in L->base. */
		__u64 cf = lj_cframe(u, c, pid, g);
		if (cf && (u->leaf_sp == cf || u->leaf_sp + 8 == cf)) {
			base = u->vm_base;
			pc = u->vm_pc;
		}
	}
	if (!base)
		lj_field(u, pid, LF_LJ_L, L, c->L_base, 8, &base); /* a plain pointer in every variant */
	/* cur_L is nearly always among the threads seen: the others share the room with it. */
	lj_walk_thread_of(s, u, c, L, base, pc, vmstate, u->nthreads ? u->nthreads : 1);
	/* Threads seen in the VM's C frames further out resumed this one: they wait in C. */
	struct lj_threads lt = { s, u, c, L };
	LF_EACH(LF_MAX_LTHREADS, lj_thread_cb, &lt);
	lf_put_positions(s, u, L);
}

/* The dispatcher's hooks (runtime.bpf.h) for LuaJIT. */

static __always_inline const struct lf_lj_cfg *lj_cfg_of(__u32 pid)
{
	return bpf_map_lookup_elem(&lj_cfgs, &pid);
}

/* At a sample's start: no VM, lua_State or C frame found yet, the windows empty. */
static __always_inline void lj_begin(struct lf_ustate *u)
{
	u->lj.g = u->lj.last_L = u->lj.chain = 0;
	u->lj.obj_len[0] = u->lj.obj_len[1] = 0;
}

/* Whether pid runs LuaJIT: then u learns the file holding its VM. */
static __always_inline int lj_hook_begin(struct lf_ustate *u, __u32 pid)
{
	const struct lf_lj_cfg *c = lj_cfg_of(pid);
	if (!c)
		return 0;
	u->core_file = c->core_file;
	return 1;
}

/* A frame in the VM's file at pc, before the unwinder steps out of it: the interpreter's
 * helpers, called from the VM but described by the VM's own frame, step straight to the VM's
 * caller when sampled right below its C frame, and to the trace that called them when a
 * trace runs (arm64). Returns a step's result, or -1 to let the unwinder step. */
static __always_inline int lj_hook_core_frame(struct lf_ustate *u, struct lf_stack *s, __u32 pc)
{
	const struct lf_lj_cfg *c = u->n == 1 ? lj_cfg_of(s->pid) : 0;
	if (!c)
		return -1;
	if (lj_leaf_in_vm(u, c, s->pid))
		return step_lj_cframe(u, c, s->pid);
	return lj_trace_helper(u, c, s->pid, pc) ? 0 : -1;
}

/* Before a core frame's unwind rule is followed: the trace-exit handler, off its C frame,
 * steps from that frame. */
static __always_inline int lj_hook_core_rule(struct lf_ustate *u, struct lf_stack *s, __u32 pc)
{
	const struct lf_lj_cfg *c = lj_cfg_of(s->pid);
	__u64 cf = c ? lj_off_cframe(u, c, s->pid, pc) : 0;
	return cf ? step_lj_cframe_at(u, c, s->pid, cf) : -1;
}

/* After a step out of a core frame: the C frames tell where each lua_State ran. */
static __always_inline void lj_hook_core_stepped(struct lf_ustate *u, struct lf_stack *s)
{
	const struct lf_lj_cfg *c = lj_cfg_of(s->pid);
	if (c)
		lj_note_cframe(u, c, s->pid, u->n - 1, u->step_sp);
}

/* A frame in anonymous executable memory: a trace steps to the VM's C frame. */
static __always_inline int lj_hook_jit_frame(struct lf_ustate *u, struct lf_stack *s)
{
	const struct lf_lj_cfg *c = lj_cfg_of(s->pid);
	return c ? step_lj_trace(u, s, c) : -1;
}

/* A pc no known mapping covers: while a trace runs, machine code the JIT mapped since the
 * process's tables were last synced; it steps like any trace. A trace that called the GC (or
 * other C code that sets its own VM state) is still running as long as jit_base is set: the
 * VM clears it when a trace exits. */
static __always_inline int lj_hook_unmapped_frame(struct lf_ustate *u, struct lf_stack *s)
{
	const struct lf_lj_cfg *c = lj_cfg_of(s->pid);
	__u64 g = c ? lj_g_here(u, s->pid, 1) : 0;
	__s32 vmstate = -1;
	if (c && !c->ngs)
		u->vm_unknown = 1; /* a command's first traces, before its VM is found: look now */
	if (!g || lj_vmstate(u, c, s->pid, g, &vmstate) ||
	    (vmstate < 0 && !lj_field_ref(u, c, s->pid, LF_LJ_G, g, c->g_jit_base)))
		return -1;
	u->lj.g = g;
	return step_lj_trace(u, s, c);
}

/* The walk memo's hook (memo_frame.bpf.h), through the dispatcher: frame at of the memo's
 * frames mf, replayed as the walk's frame-th. For a frame of the core but the root (last, which
 * has no step): the step out of it to its caller, as the step's hook looks at the C frame there
 * (the entry it tells of flags the caller's word, which the replay wrote). Returns 0. */
static __always_inline int lj_hook_replay_frame(struct lf_ustate *u, struct lf_stack *s,
						const struct lf_memo_frame *mf, __u32 at, __u32 frame, int last)
{
	const struct lf_memo_frame *f = &mf[at & (LF_MEMO_FRAMES - 1)];
	const struct lf_lj_cfg *c = (f->flags & LF_MF_CORE) && !last ? lj_cfg_of(s->pid) : 0;
	if (!c)
		return 0;
	u->sp = mf[(at + 1) & (LF_MEMO_FRAMES - 1)].sp;
	lj_note_cframe(u, c, s->pid, frame, f->sp);
	/* (in a stack deeper than the record keeps, the caller's word may be gone: the ring that
	 * holds the outermost frames took its place) */
	__u32 d = frame + 1;
	if (u->entry_next && (d < LF_NATIVE_INNER || d + LF_NATIVE_OUTER >= u->n)) {
		__u32 slot = nat_slot(d);
		barrier_var(slot); /* keeps the mask, which the verifier needs, from being folded away */
		s->user[slot & (LF_MAX_USTACK - 1)] |= LF_NAT_ENTRY;
	}
	u->entry_next = 0;
	return 0;
}

#endif
