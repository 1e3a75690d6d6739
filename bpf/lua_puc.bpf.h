/* Walks the CallInfo chain of a PUC Lua 5.1-5.4 lua_State from raw memory and appends
 * its frames to the stack record: Lua functions as (Proto, savedpc) with the Proto's
 * fingerprint, C functions as their lua_CFunction pointer. Offsets come from the
 * per-process lf_lua_cfg. */
#ifndef LF_LUA_PUC_BPF_H
#define LF_LUA_PUC_BPF_H
#include "lua.h"
#include "lua_fp.bpf.h"

struct lua_walk {
	struct lf_stack *s;
	struct lf_ustate *u;
	const struct lf_lua_cfg *c;
	__u64 L, ci, stop, next;
	__u32 frames, steps;
};

static __always_inline void put_word(struct lf_stack *s, struct lf_ustate *u, __u64 w)
{
	if (u->n < LF_MAX_USTACK)
		s->user[u->n & (LF_MAX_USTACK - 1)] = w;
	u->n++;
}

static __always_inline __u64 tagged(__u64 tag, __u64 v)
{
	return (tag << LF_TAG_SHIFT) | (v & ((1ULL << LF_TAG_SHIFT) - 1));
}

/* Fields of the CallInfo copy; offsets come from the layout and are masked into the buffer. */
static __always_inline __u64 ci_u64(const struct lf_ustate *u, __u16 off)
{
	__u64 v;
	__builtin_memcpy(&v, &u->ci_buf[off & (LF_CI_BUF - 1)], 8);
	return v;
}

static __always_inline __u32 ci_u32(const struct lf_ustate *u, __u16 off)
{
	__u32 v;
	__builtin_memcpy(&v, &u->ci_buf[off & (LF_CI_BUF - 1)], 4);
	return v;
}

/* Emits the frame of w->ci, if it runs a function: one read for the CallInfo, one for the
 * function's TValue, one for the closure's Proto or C function. Sets w->next. */
static __always_inline void lua_emit_ci(struct lua_walk *w)
{
	const struct lf_lua_cfg *c = w->c;
	struct lf_ustate *u = w->u;
	__u32 size = c->ci_sizeof & (LF_CI_BUF - 1);
	w->next = 0;
	if (!size || bpf_probe_read_user(u->ci_buf, size, (const void *)w->ci))
		return;
	w->next = ci_u64(u, c->ci_previous);
	__u64 func = ci_u64(u, c->ci_func), pc = 0, f = 0;
	if (bpf_probe_read_user(u->tv_buf, 16, (const void *)func))
		return;
	__u64 val;
	__builtin_memcpy(&val, &u->tv_buf[c->tv_value & 7], 8);
	__u8 tt = u->tv_buf[c->tv_tt & 15];
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
		put_word(w->s, u, tagged(LF_TAG_LCFUNC, f));
		put_word(w->s, u, flags);
		return;
	}
	__u64 proto = 0;
	if (read_u64(val + c->lcl_p, &proto))
		return;
	if (w->steps == 0 && !want_lines)
		pc = 0;  /* the running function: its pc names nothing, only --lines uses it */
	else if ((c->flags & LF_LUA_L_SAVEDPC) && w->frames == 0)
		read_u64(w->L + c->l_savedpc, &pc);
	else
		pc = ci_u64(u, c->ci_savedpc);
	/* the fingerprint rides in the bits the address and the pc leave free */
	__u32 fp = lf_proto_fp(u, &c->fp, proto);
	proto |= lf_fp_hi(fp);
	flags |= lf_fp_lo(fp);
	pc &= LF_ADDR_MASK;
	put_word(w->s, u, tagged(LF_TAG_LFUNC, proto));
	put_word(w->s, u, (pc & ((1ULL << 48) - 1)) | flags);
	w->frames++;
}

static long lua_step_cb(__u32 idx, void *data)
{
	struct lua_walk *w = data;
	(void)idx;
	if (!w->ci || w->ci == w->stop || w->u->n >= LF_MAX_USTACK - 2)
		return 1;
	lua_emit_ci(w);
	w->steps++;
	const struct lf_lua_cfg *c = w->c;
	if (c->flags & LF_LUA_CI_ARRAY) {
		w->ci -= c->ci_sizeof;
		return w->ci < w->stop;
	}
	w->ci = w->next; /* read with the CallInfo; 0 ends the walk */
	return 0;
}

/* Appends an LTHREAD word and the frames of L, innermost first. */
static __always_inline void lua_walk_thread(struct lf_stack *s, struct lf_ustate *u,
					    const struct lf_lua_cfg *c, __u64 L)
{
	struct lua_walk w = { .s = s, .u = u, .c = c, .L = L };
	if (read_u64(L + c->l_ci, &w.ci))
		return;
	/* The base CallInfo stands for the C code that created the thread: not a frame. */
	if (c->flags & LF_LUA_CI_ARRAY)
		read_u64(L + c->l_base_ci, &w.stop);
	else
		w.stop = L + c->l_base_ci;
	put_word(s, u, tagged(LF_TAG_LTHREAD, L));
	bpf_loop(LF_MAX_LUA, lua_step_cb, &w, 0);
	int more = (c->flags & LF_LUA_CI_ARRAY) ? w.ci > w.stop : (w.ci && w.ci != w.stop);
	if (more && w.steps >= LF_MAX_LUA) {
		put_word(s, u, tagged(LF_TAG_LFUNC, 0));
		put_word(s, u, 0);
	}
}

/* After the native walk: the Lua frames of every lua_State seen, then where each ran. */
static __always_inline void lua_append(struct lf_stack *s, struct lf_ustate *u)
{
	__u32 pid = s->pid;
	const struct lf_lua_cfg *c = bpf_map_lookup_elem(&lua_cfgs, &pid);
	if (!c || !u->nthreads)
		return;
	for (__u32 t = 0; t < LF_MAX_LTHREADS; t++) {
		if (t >= u->nthreads)
			break;
		lua_walk_thread(s, u, c, u->threads[t]);
	}
	for (__u32 i = 0; i < LF_MAX_LPOS; i++) {
		if (i >= u->nlpos)
			break;
		const struct lf_lpos *p = &u->lpos[i];
		put_word(s, u, tagged(LF_TAG_LPOS, ((__u64)p->thread << 16) | (p->frame & 0xffff)));
	}
}

#endif
