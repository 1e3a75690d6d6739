/* What a LuaJIT thread's stack holds, each slot named as lua_getlocal would name it: "local
 * NAME" for a slot that a Lua frame's debug information (varinfo) calls a live variable at the
 * frame's pc, "[stack]" for the others. Frames are walked down from L->base as lj_gc.c's
 * gc_traverse_frames walks them; a frame's pc is the one its callee's frame link saved. */
#include <stdlib.h>
#include <string.h>

#include "frame_label.h"
#include "heap_luajit.h"
#include "safe_name.h"
#include "util.h"

#define STACK_SLOTS_MAX (1u << 24)
#define FRAMES_MAX (1u << 20)
#define VARS_MAX (1u << 16)        /* varinfo entries read for one frame */
#define ULEB_MAX_BYTES 5
#define NAME_MAX_BYTES 96

static const char *const builtin_vars[] = { NULL, "(for index)", "(for limit)", "(for step)",
					    "(for generator)", "(for state)", "(for control)" };

struct stack { uint64_t base; uint64_t n; uint32_t *names; };

/* The frame link of the slot at f: a pc or a delta with the frame's type in its low bits. */
static uint64_t frame_link(const struct lj_heap *h, uint64_t f)
{
	return h->l->fr2 ? lh_u64(h, f) : lh_u32(h, f + 4);
}

static uint64_t frame_func(const struct lj_heap *h, uint64_t f)
{
	struct lh_tv t;
	if (!h->l->fr2)
		return lh_u32(h, f);
	return !lh_tv(h, f - (uint64_t)h->l->tvalue_size, &t) && lh_tv_isgc(h->l, t.it) ? t.gc : 0;
}

static int64_t uleb(const uint8_t *p, size_t n, size_t *off)
{
	uint64_t v = 0;
	for (int i = 0; i < ULEB_MAX_BYTES && *off < n; i++) {
		uint8_t b = p[(*off)++];
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return (int64_t)(uint32_t)v;
	}
	return -1;
}

static uint32_t var_label(struct lj_heap *h, const uint8_t *name, size_t len)
{
	struct sbuf b;
	sb_init(&b);
	sb_puts(&b, LF_HEAP_LOCAL);
	sb_add_safe(&b, (const char *)name, len < NAME_MAX_BYTES ? len : NAME_MAX_BYTES, SAFE_FOLDED);
	uint32_t id = hg_label(h->g, b.s, b.len);
	sb_free(&b);
	return id;
}

/* Names the variables live at instruction pos of proto pt, whose slot 0 is stack slot first:
 * the n-th live one is slot n. varinfo entries are a name (a string, or one byte below
 * varname_max for the built-in ones), then the start as a ULEB128 delta from the previous
 * entry's and the length; a 0 byte ends them. They lie inside the proto's allocation. */
static void name_vars(struct lj_heap *h, struct stack *s, uint64_t pt, uint32_t pos, uint64_t first)
{
	const struct luajit_layout *l = h->l;
	uint64_t vi = lh_mref(h, pt + l->pt_varinfo), end = pt + lh_u32(h, pt + l->pt_sizept);
	const uint8_t *p = vi > pt && vi < end ? lh_at(h, vi, (size_t)(end - vi)) : NULL;
	size_t n = p ? (size_t)(end - vi) : 0, off = 0;
	uint64_t lastpc = 0, slot = first;
	for (uint32_t k = 0; p && off < n && k < VARS_MAX && slot < s->n; k++) {
		size_t name = off;
		uint8_t vn = p[off];
		if (vn == 0)
			return;
		const uint8_t *nul = vn < l->varname_max ? p + off : memchr(p + off, 0, n - off);
		if (!nul)
			return;
		off = (size_t)(nul - p) + 1;
		int64_t start = uleb(p, n, &off), len = start < 0 ? -1 : uleb(p, n, &off);
		if (len < 0)
			return;
		lastpc += (uint64_t)start;
		if (lastpc > pos)
			return;
		if (pos >= lastpc + (uint64_t)len)
			continue;
		if (!s->names[slot]) {
			if (vn >= l->varname_max)
				s->names[slot] = var_label(h, p + name, (size_t)(nul - p - (ptrdiff_t)name));
			else if (vn < sizeof(builtin_vars) / sizeof(builtin_vars[0]))
				s->names[slot] = var_label(h, (const uint8_t *)builtin_vars[vn], strlen(builtin_vars[vn]));
		}
		slot++;
	}
}

/* The frame below f: a Lua frame's link is the pc after its call, whose A operand says how
 * far down the caller's frame is; other frames keep their size in the link. */
static uint64_t frame_prev(const struct lj_heap *h, uint64_t f, uint64_t link)
{
	const struct luajit_layout *l = h->l;
	if ((link & (uint64_t)l->frame_type) == (uint64_t)l->frame_lua) {
		uint32_t ins = lh_u32(h, link - 4);
		return f - (1 + (uint64_t)l->fr2 + LUAJIT_BC_A(ins)) * (uint64_t)l->tvalue_size;
	}
	return f - (link & ~(uint64_t)l->frame_typep);
}

/* The pc in f's function that its callee's frame saved: a Lua frame's link, a continuation's
 * saved pc; 0 when no Lua code called it (a C frame, pcall, the innermost frame). */
static uint64_t callee_pc(const struct lj_heap *h, uint64_t next)
{
	const struct luajit_layout *l = h->l;
	if (!next)
		return 0;
	uint64_t link = frame_link(h, next);
	if ((link & (uint64_t)l->frame_type) == (uint64_t)l->frame_lua)
		return link;
	if ((link & (uint64_t)l->frame_typep) == (uint64_t)l->frame_cont)
		return frame_link(h, next - (uint64_t)(l->fr2 ? 2 : 1) * l->tvalue_size);
	return 0;
}

static void name_frames(struct lj_heap *h, struct stack *s, uint32_t i, uint64_t L)
{
	const struct luajit_layout *l = h->l;
	uint64_t tv = (uint64_t)l->tvalue_size, bot = s->base + (uint64_t)l->fr2 * tv;
	uint64_t f = lh_u64(h, L + l->L_base) - tv, next = 0;
	uint32_t stack_label = hg_label(h->g, "[stack]", 7);
	for (uint32_t k = 0; k < FRAMES_MAX && f > bot && f < s->base + s->n * tv; k++) {
		uint64_t fn = frame_func(h, f), link = frame_link(h, f), pc = callee_pc(h, next);
		if (!l->fr2)
			lh_ref(h, i, fn, stack_label);   /* no TValue of the stack holds it */
		if (pc && lh_kind(h, fn) == HK_FUNCTION) {
			uint64_t pt = lh_mref(h, fn + l->fn_pc) - (uint64_t)l->pt_size, bc = pt + l->pt_size;
			uint64_t nbc = lh_u32(h, pt + l->pt_sizebc);
			if (pc > bc && pc <= bc + nbc * 4)
				name_vars(h, s, pt, (uint32_t)((pc - bc) / 4 - 1), (f - s->base) / tv + 1);
		}
		uint64_t prev = frame_prev(h, f, link);
		if (prev >= f)
			break;
		next = f;
		f = prev;
	}
}

void lj_heap_thread_refs(struct lj_heap *h, uint32_t i, uint64_t L)
{
	const struct luajit_layout *l = h->l;
	uint64_t tv = (uint64_t)l->tvalue_size;
	struct stack s = { lh_mref(h, L + l->L_stack), 0, NULL };
	uint64_t top = lh_u64(h, L + l->L_top);
	s.n = top > s.base ? (top - s.base) / tv : 0;
	lh_ref(h, i, lh_gcref(h, L + l->L_env), lh_fixed(h, "[env]"));
	if (s.n > STACK_SLOTS_MAX || !lh_at(h, s.base, s.n * tv)) {
		h->cut += s.n > 0;
		return;
	}
	s.names = xcalloc(s.n ? s.n : 1, sizeof(*s.names));
	name_frames(h, &s, i, L);
	uint32_t anon = hg_label(h->g, "[stack]", 7);
	for (uint64_t k = 1 + (uint64_t)l->fr2; k < s.n; k++) {
		struct lh_tv t;
		if (lh_tv(h, s.base + k * tv, &t) || !lh_tv_isgc(l, t.it))
			continue;
		uint32_t j = hg_unreached(h->g, t.gc);
		if (j != HG_NONE)
			hg_reach(h->g, j, i, s.names[k] ? s.names[k] : anon);
	}
	free(s.names);
}
