/* What the walkers of both runtime families share: where each lua_State ran on the native
 * stack, appending words to the record, and how many frames each lua_State may keep. */
#ifndef LF_LUA_WALK_BPF_H
#define LF_LUA_WALK_BPF_H
#include "config.bpf.h"
#include "lua.h"
#include "ustate.bpf.h"

/* Records that lua_State L runs at native frame `frame` (a position), numbering the
 * lua_States in the order they are first seen. A global function: the verifier checks its
 * search of the states seen once, not at each place a frame may note a position. */
__noinline int lf_note_position_at(__u64 L, __u32 frame)
{
	__u32 zero = 0, t = LF_MAX_LTHREADS;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	if (!u)
		return 0;
	for (__u32 i = 0; i < LF_MAX_LTHREADS; i++)
		if (i < u->nthreads && u->threads[i] == L)
			t = i;
	if (t == LF_MAX_LTHREADS) {
		if (u->nthreads >= LF_MAX_LTHREADS)
			return 0;
		t = u->nthreads++;
		u->threads[t & (LF_MAX_LTHREADS - 1)] = L;
	}
	struct lf_lpos *p = &u->lpos[u->nlpos & (LF_MAX_LPOS - 1)];
	p->L = L;
	p->frame = frame;
	p->thread = t;
	u->nlpos++;
	return 0;
}

_Static_assert((LF_LUA_OUTER & (LF_LUA_OUTER - 1)) == 0, "the ring index is masked");
#define LF_RING_MASK (2 * LF_LUA_OUTER - 1)

static __always_inline void put_word(struct lf_stack *s, struct lf_ustate *u, __u64 w)
{
	if (u->n < LF_MAX_USTACK)
		s->user[u->n & (LF_MAX_USTACK - 1)] = w;
	u->n++;
}

struct lf_positions {
	struct lf_stack *s;
	struct lf_ustate *u;
	__u64 first;
};

/* The i-th position as a word of the record (LF_EACH's callback). Its lua_State is numbered
 * as the walks were appended: in the order the states were first seen, or with `first`
 * (LuaJIT's running lua_State, walked before the others) moved to the front. */
static long lf_position_cb(__u32 i, void *data)
{
	struct lf_positions *c = data;
	struct lf_ustate *u = c->u;
	if (i >= u->nlpos)
		return 1;
	const struct lf_lpos *p = &u->lpos[i & (LF_MAX_LPOS - 1)];
	__u32 th = p->thread;
	if (c->first) {
		th = p->L == c->first ? 0 : p->thread + 1;
		for (__u32 k = 0; k < LF_MAX_LTHREADS; k++)
			if (k < p->thread && u->threads[k] == c->first)
				th = p->thread; /* first was seen before: one fewer state ahead of this one */
	}
	put_word(c->s, u, lf_lpos_word(th, p->frame));
	return 0;
}

/* Where each lua_State ran, after the Lua frames: one word per position. */
static __always_inline void lf_put_positions(struct lf_stack *s, struct lf_ustate *u, __u64 first)
{
	struct lf_positions c = { s, u, first };
	LF_EACH(LF_MAX_LPOS, lf_position_cb, &c);
}

/* Where frames are left out: a function word with address 0, then how many (0: the walk
 * stopped at LF_LUA_WALK and the root side is lost). */
static __always_inline void put_lua_marker(struct lf_stack *s, struct lf_ustate *u, __u64 tag, __u64 left_out)
{
	put_word(s, u, lf_word(tag, 0));
	put_word(s, u, left_out);
	if (left_out)
		u->lua_elided++;
	else
		u->lua_depth++;
}

/* Frames to keep for the first of threads_left lua_States still to walk (hdr words each
 * besides frames and a marker): LF_MAX_LUA, or what the record's room allows once the
 * positions and LF_LUA_SHARE frames for each further lua_State are set aside (most of
 * those hold a few frames, or none). Split between the ends as LF_LUA_INNER:OUTER. */
static __always_inline void lf_lua_keep(const struct lf_ustate *u, __u32 threads_left, __u32 hdr,
					__u32 *inner, __u32 *outer)
{
	if (!threads_left)
		threads_left = 1;
	__s32 room = LF_MAX_USTACK - (__s32)u->n - (__s32)u->nlpos - (__s32)((hdr + 2) * threads_left) -
		     (__s32)(2 * LF_LUA_SHARE * (threads_left - 1));
	__u32 keep = room > 0 ? (__u32)room / 2 : 0;
	if (keep > LF_MAX_LUA)
		keep = LF_MAX_LUA;
	*inner = keep * LF_LUA_INNER / LF_MAX_LUA;
	if (!*inner && keep)
		*inner = 1;
	*outer = keep - *inner;
}

/* Without bpf_loop, the walk's loop is unrolled by the verifier: it keeps the innermost
 * frames it can, LF_LUA_NOLOOP at most, and goes no further. */
static __always_inline void lf_lua_keep_short(struct lf_ustate *u, __u32 *inner, __u32 *outer, __u32 *limit)
{
	__u32 keep = *inner + *outer;
	*inner = keep < LF_LUA_NOLOOP ? keep : LF_LUA_NOLOOP;
	*outer = 0;
	*limit = *inner;
	u->lua_short++;
}

/* Fields of the CallInfo copy; offsets come from the layout and are masked into the buffer. */

/* Runs a walker's step callback over its walk state w (which has inner, outer and limit):
 * with bpf_loop, down to LF_LUA_WALK frames and then the outermost ones; without it, the
 * innermost frames only, then the depth marker. A macro: each walker's callback is called
 * directly in the unrolled loop, which the verifier needs before 5.13 (a loop around a call
 * is refused as a back-edge there). */
#ifndef LF_NO_BPF_LOOP
#define LF_WALK_LUA(u, w, step_cb)                                                       \
	do {                                                                             \
		if (has_bpf_loop) {                                                      \
			(w).limit = LF_LUA_WALK;                                          \
			bpf_loop(LF_LUA_WALK + LF_LUA_OUTER + 2, step_cb, &(w), 0);        \
			break;                                                           \
		}                                                                        \
		LF_WALK_LUA_SHORT(u, w, step_cb);                                        \
	} while (0)
#else
#define LF_WALK_LUA(u, w, step_cb) LF_WALK_LUA_SHORT(u, w, step_cb)
#endif
#define LF_WALK_LUA_SHORT(u, w, step_cb)                                                 \
	do {                                                                             \
		lf_lua_keep_short(u, &(w).inner, &(w).outer, &(w).limit);                \
		_Pragma("clang loop unroll(full)")                                       \
		for (__u32 i_ = 0; i_ < LF_LUA_NOLOOP + 2; i_++)                         \
			if (step_cb(i_, &(w)))                                           \
				break;                                                   \
	} while (0)

#endif
