/* LuaJIT in the kernel: steps native unwinding out of JIT-compiled trace code onto the
 * interpreter's C frame, and walks the running lua_State's frames (interpreter, trace or
 * C call) from raw memory, appending one function (a Lua function's GCproto and fingerprint,
 * else the GCfunc) and pc per frame to the stack record. */
#ifndef LF_LUAJIT_BPF_H
#define LF_LUAJIT_BPF_H
#include "lua.h"
#include "lua_fp.bpf.h"

struct lj_walk {
	struct lf_stack *s;
	struct lf_ustate *u;
	const struct lf_lj_cfg *c;
	__u64 base, stack, pc;
};

static __always_inline int lj_read_link(const struct lj_walk *w, __u64 *func, __s64 *ftsz)
{
	if (w->c->gc64) {
		__u64 f = 0, t = 0;
		if (read_u64(w->base - 16, &f) || read_u64(w->base - 8, &t))
			return -1;
		*func = f & ((1ULL << 47) - 1);
		*ftsz = (__s64)t;
		return 0;
	}
	__u32 v[2];
	if (bpf_probe_read_user(v, sizeof(v), (const void *)(w->base - 8)))
		return -1;
	*func = v[0];
	*ftsz = (__s32)v[1];
	return 0;
}

static long lj_step_cb(__u32 idx, void *data)
{
	struct lj_walk *w = data;
	const struct lf_lj_cfg *c = w->c;
	__u64 func = 0;
	__s64 ftsz = 0;
	(void)idx;
	if (w->base <= w->stack + 8 * (1 + c->fr2) || w->u->n >= LF_MAX_USTACK - 2 ||
	    lj_read_link(w, &func, &ftsz) || !ftsz)
		return 1;
	__u32 typep = (__u32)ftsz & c->frame_typep;
	__u64 delta = (__u64)ftsz & ~(__u64)7;
	if (typep == c->frame_varg) {   /* the real frame of a vararg call sits above it */
		w->base -= delta;
		return 0;
	}
	__u64 centry = (typep == c->frame_c || typep == c->frame_cp) ? LF_LFLAG_CENTRY : 0;
	__u64 aux = (w->pc & LF_ADDR_MASK) | centry;
	lj_frame_fp(w->u, w->c, &func, &aux);
	put_word(w->s, w->u, tagged(LF_TAG_LJFUNC, func));
	put_word(w->s, w->u, aux);
	if ((typep & 3) == c->frame_lua) {
		__u64 pc = c->gc64 ? (__u64)ftsz : (__u32)ftsz;
		__u32 ins = 0;
		if (bpf_probe_read_user(&ins, 4, (const void *)(pc - 4)))
			return 1;
		w->base -= 8 * (1 + c->fr2 + ((ins >> 8) & 0xff));
		w->pc = pc;
	} else {
		w->base -= delta;
		w->pc = 0;
	}
	return 0;
}

/* Appends one lua_State's frames from base (innermost first), then a depth marker if the
 * walk stopped at its limit. */
static __always_inline void lj_walk_thread(struct lf_stack *s, struct lf_ustate *u, const struct lf_lj_cfg *c,
					   __u64 L, __u64 base, __u64 pc, __s32 vmstate)
{
	put_word(s, u, tagged(LF_TAG_LTHREAD, L));
	put_word(s, u, tagged(LF_TAG_LJSTATE, (__u32)vmstate));
	struct lj_walk w = { .s = s, .u = u, .c = c, .base = base, .stack = lj_ref(c, L + c->L_stack),
			     .pc = want_lines ? pc : 0 };
	long n = bpf_loop(LF_MAX_LUA, lj_step_cb, &w, 0);
	if (n >= LF_MAX_LUA && w.base > w.stack + 8 * (1 + c->fr2)) {
		put_word(s, u, tagged(LF_TAG_LJFUNC, 0));
		put_word(s, u, 0);
	}
}

/* After the native walk: the frames of the running lua_State, then of the threads that
 * resumed it (found along the chain of the VM's C frames), innermost first. */
static __always_inline void lj_append(struct lf_stack *s, struct lf_ustate *u)
{
	__u32 pid = s->pid;
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	if (!c)
		return;
	__u64 L = lj_ref(c, c->g + c->g_cur_L), base = 0, pc = 0;
	__s32 vmstate = 0;
	if (!L)
		return;
	bpf_probe_read_user(&vmstate, 4, (const void *)(c->g + c->g_vmstate));
	if (vmstate >= 0) {                       /* in a trace: its frames start at jit_base */
		base = lj_ref(c, c->g + c->g_jit_base);
	} else if (vmstate == ~(__s32)c->vmst_interp) {
		/* The interpreter keeps BASE in rdx and PC in rbx, but only while the sample is in
		 * its own code: C called by a built-in finds BASE stored in L->base. */
		__u64 cf = lj_cframe(c);
		if (cf && (u->leaf_sp == cf || u->leaf_sp + 8 == cf)) {
			base = u->leaf_rdx;
			pc = u->leaf_rbx;
		}
	}
	if (!base)
		read_u64(L + c->L_base, &base); /* a plain pointer in every variant */
	lj_walk_thread(s, u, c, L, base, pc, vmstate);
	/* Threads seen in the VM's C frames further out resumed this one: they wait in C. */
	for (__u32 t = 0; t < LF_MAX_LTHREADS; t++) {
		if (t >= u->nthreads)
			break;
		__u64 Lt = u->threads[t];
		__u64 b = 0;
		if (Lt != L && read_u64(Lt + c->L_base, &b) == 0)
			lj_walk_thread(s, u, c, Lt, b, 0, ~(__s32)c->vmst_c);
	}
	for (__u32 i = 0; i < LF_MAX_LPOS; i++) {
		if (i >= u->nlpos)
			break;
		const struct lf_lpos *p = &u->lpos[i];
		/* thread numbers as emitted: cur_L first, then the others in order */
		__u32 th = p->L == L ? 0 : p->thread + 1;
		for (__u32 k = 0; k < LF_MAX_LTHREADS; k++)
			if (k < p->thread && u->threads[k] == L)
				th = p->thread; /* cur_L was also seen: one fewer thread before this one */
		put_word(s, u, tagged(LF_TAG_LPOS, ((__u64)th << 16) | (p->frame & 0xffff)));
	}
}

#endif
