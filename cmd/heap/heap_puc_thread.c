/* What a PUC Lua thread's stack holds, each slot named as Lua's debug library would name it:
 * "local NAME" for a slot a Lua frame's debug information calls a live local at the frame's
 * pc (luaF_getlocalname), "[stack]" for the others (temporaries, C frames' values). */
#include <stdlib.h>
#include <string.h>

#include "frame_label.h"
#include "heap_puc.h"
#include "util.h"

#define STACK_SLOTS_MAX (1u << 24)
#define FRAMES_MAX (1u << 20)

struct frame { uint64_t func, base, savedpc; };

/* The Proto of the Lua function in the stack slot at func, or 0. */
static uint64_t frame_proto(const struct puc_heap *h, uint64_t func)
{
	const struct puc_layout *l = h->l;
	const uint8_t *p = ph_at(h, func, l->tv_sizeof);
	if (!p || puc_tag_at(p, l->tv_tt, l->tv_tt_size) != l->tvtag_lcl)
		return 0;
	uint64_t cl = puc_u64_at(p, l->tv_value);
	if (l->cl_isC != LUA_OFF_NONE && ph_u8(h, cl + l->cl_isC))
		return 0;
	return ph_u64(h, cl + l->lcl_p);
}

/* Names the live locals of one frame: the n-th local active at pc is register n. */
static void name_locals(struct puc_heap *h, const struct frame *f, uint64_t stack, uint64_t nslots,
			uint32_t *names)
{
	const struct puc_layout *l = h->l;
	uint64_t p = frame_proto(h, f->func), code = ph_u64(h, p + l->p_code);
	if (!p || f->savedpc < code || f->base < stack)
		return;
	int64_t pc = (int64_t)((f->savedpc - code) / 4) - 1;
	uint32_t nlv = ph_u32(h, p + l->p_sizelocvars);
	uint64_t lv = ph_u64(h, p + l->p_locvars), slot = (f->base - stack) / l->stack_slot;
	if (nlv > (1u << 20) || !ph_at(h, lv, (uint64_t)nlv * l->lv_sizeof))
		return;
	for (uint32_t j = 0; j < nlv && slot < nslots; j++) {
		uint64_t v = lv + (uint64_t)j * l->lv_sizeof;
		int32_t start = (int32_t)ph_u32(h, v + l->lv_startpc), end = (int32_t)ph_u32(h, v + l->lv_endpc);
		if (start > pc)
			break;
		if (pc < end && !names[slot])
			names[slot] = ph_named(h, LF_HEAP_LOCAL, ph_u64(h, v + l->lv_varname), LF_HEAP_LOCAL "?");
		slot += pc < end;
	}
}

/* 5.2+: CallInfo records linked by previous from L->ci. */
static void name_linked(struct puc_heap *h, uint64_t L, uint64_t stack, uint64_t n, uint32_t *names)
{
	const struct puc_layout *l = h->l;
	uint64_t ci = ph_u64(h, L + l->l_ci);
	for (uint32_t k = 0; ci && k < FRAMES_MAX && ph_at(h, ci, l->ci_sizeof); k++) {
		struct frame f = { ph_u64(h, ci + l->ci_func), 0, ph_u64(h, ci + l->ci_savedpc) };
		f.base = l->ci_base != LUA_OFF_NONE ? ph_u64(h, ci + l->ci_base) : f.func + l->stack_slot;
		name_locals(h, &f, stack, n, names);
		ci = ph_u64(h, ci + l->ci_previous);
	}
}

/* 5.1: an array of CallInfo from base_ci to L->ci; the innermost one's pc is L->savedpc. */
static void name_array(struct puc_heap *h, uint64_t L, uint64_t stack, uint64_t n, uint32_t *names)
{
	const struct puc_layout *l = h->l;
	uint64_t base = ph_u64(h, L + l->l_base_ci), ci = ph_u64(h, L + l->l_ci);
	if (ci < base || (ci - base) / l->ci_sizeof > FRAMES_MAX || !ph_at(h, base, ci - base + l->ci_sizeof))
		return;
	for (uint64_t c = ci;; c -= l->ci_sizeof) {
		struct frame f = { ph_u64(h, c + l->ci_func), ph_u64(h, c + l->ci_base),
				   ph_u64(h, c == ci ? L + l->l_savedpc : c + l->ci_savedpc) };
		name_locals(h, &f, stack, n, names);
		if (c == base)
			break;
	}
}

void puc_heap_thread_refs(struct puc_heap *h, uint32_t i, uint64_t L)
{
	const struct puc_layout *l = h->l;
	uint64_t stack = ph_u64(h, L + l->l_stack), top = ph_u64(h, L + l->l_top);
	uint64_t n = top > stack ? (top - stack) / l->stack_slot : 0;
	if (l->l_gt != LUA_OFF_NONE) {
		const uint8_t *gt = ph_at(h, L + l->l_gt, l->tv_sizeof);
		uint32_t j = gt && ph_collectable(l, puc_tag_at(gt, l->tv_tt, l->tv_tt_size)) ?
			hg_unreached(h->g, puc_u64_at(gt, l->tv_value)) : HG_NONE;
		if (j != HG_NONE)
			hg_reach(h->g, j, i, hg_label(h->g, "[globals]", 9));
	}
	if (n > STACK_SLOTS_MAX || !ph_at(h, stack, n * l->stack_slot)) {
		h->cut += n > 0;
		return;
	}
	uint32_t *names = xcalloc(n ? n : 1, sizeof(*names));
	if (l->flags & LUA_LF_CI_ARRAY)
		name_array(h, L, stack, n, names);
	else
		name_linked(h, L, stack, n, names);
	uint32_t anon = hg_label(h->g, "[stack]", 7);
	for (uint64_t k = 0; k < n; k++) {
		const uint8_t *p = ph_at(h, stack + k * l->stack_slot, l->tv_sizeof);
		if (!ph_collectable(l, puc_tag_at(p, l->tv_tt, l->tv_tt_size)))
			continue;
		uint32_t j = hg_unreached(h->g, puc_u64_at(p, l->tv_value));
		if (j != HG_NONE)
			hg_reach(h->g, j, i, names[k] ? names[k] : anon);
	}
	free(names);
}
