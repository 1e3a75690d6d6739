/* The references between a PUC Lua VM's objects, walked breadth-first from its roots (the
 * globals table, the registry, the main thread, the basic types' metatables) as the collector
 * marks them (lgc.c): each object is placed under the first, so shortest, path that reaches
 * it. A step is a table's string key, "[n]" for every numeric key and the array part, "local
 * NAME" for a thread's stack slot that a Lua frame names, "upvalue NAME" for a closure's
 * upvalue; the rest are bracketed ("[metatable]", "[constants]"). */
#include <stdlib.h>
#include <string.h>

#include "frame_label.h"
#include "heap_label.h"
#include "heap_puc.h"
#include "safe_name.h"
#include "util.h"

#define NAME_MAX_BYTES 96          /* of a key or variable name in a label */

struct tv { uint64_t v; uint32_t tt; };

static int tv_read(const struct puc_heap *h, uint64_t a, struct tv *t)
{
	const struct puc_layout *l = h->l;
	const uint8_t *p = ph_at(h, a, l->tv_sizeof);
	if (!p)
		return -1;
	t->v = puc_u64_at(p, l->tv_value);
	t->tt = puc_tag_at(p, l->tv_tt, l->tv_tt_size);
	return 0;
}

static uint32_t fixed(struct puc_heap *h, const char *s)
{
	return hg_label(h->g, s, strlen(s));
}

uint32_t ph_named(struct puc_heap *h, const char *prefix, uint64_t ts, const char *none)
{
	char raw[NAME_MAX_BYTES + 1];
	uint64_t full = 0;
	long n = ts ? puc_tstring(h->l, &h->m, ts, raw, sizeof(raw), &full) : -1;
	if (n < 0)
		return fixed(h, none);
	return heap_named(h->g, prefix, raw, (size_t)n, full);
}

static void ref(struct puc_heap *h, uint32_t from, uint64_t a, uint32_t label)
{
	uint32_t i = hg_unreached(h->g, a);
	if (i != HG_NONE)
		hg_reach(h->g, i, from, label);
}

static int tv_obj(const struct puc_heap *h, uint64_t a, uint64_t *obj)
{
	struct tv t;
	if (tv_read(h, a, &t) || !ph_collectable(h->l, t.tt))
		return 0;
	*obj = t.v;
	return 1;
}

static void ref_tv(struct puc_heap *h, uint32_t from, uint64_t a, uint32_t label)
{
	uint64_t o;
	if (tv_obj(h, a, &o))
		ref(h, from, o, label);
}

/* The values of n TValues of stride bytes at a, all under one label. */
static void ref_tvs(struct puc_heap *h, uint32_t from, uint64_t a, uint64_t n, unsigned stride, uint32_t label)
{
	if (n > (1u << 30) || !ph_at(h, a, n * stride)) {
		h->cut += n > 0;
		return;
	}
	for (uint64_t k = 0; k < n; k++)
		ref_tv(h, from, a + k * stride, label);
}

static const char *const type_names[9] = { "nil", "boolean", "userdata", "number", "string", "table",
					   "function", "userdata", "thread" };

static uint32_t key_label(struct puc_heap *h, const uint8_t *node)
{
	const struct puc_layout *l = h->l;
	uint32_t kt = puc_tag_at(node, l->n_key_tt, l->n_key_tt_size);
	int basic = ph_basic(l, kt);
	if (basic == 4)
		return ph_named(h, "", puc_u64_at(node, l->n_key_val), "[string key]");
	if (basic == 3)
		return fixed(h, LF_HEAP_NUMERIC);
	char b[40];
	snprintf(b, sizeof(b), "[%s key]", basic >= 0 && basic < 9 ? type_names[basic] : "other");
	return fixed(h, b);
}

static void node_refs(struct puc_heap *h, uint32_t from, const uint8_t *node)
{
	const struct puc_layout *l = h->l;
	uint32_t vt = puc_tag_at(node, l->n_val + l->tv_tt, l->tv_tt_size);
	if (ph_basic(l, vt) == 0)
		return;   /* an empty or dead entry: the collector marks neither part */
	if (ph_collectable(l, vt)) {
		uint32_t i = hg_unreached(h->g, puc_u64_at(node, l->n_val + l->tv_value));
		if (i != HG_NONE)
			hg_reach(h->g, i, from, key_label(h, node));
	}
	uint32_t kt = puc_tag_at(node, l->n_key_tt, l->n_key_tt_size);
	uint32_t k = ph_collectable(l, kt) ? hg_unreached(h->g, puc_u64_at(node, l->n_key_val)) : HG_NONE;
	if (k != HG_NONE)   /* the label looked up only for a key placed here: most were before */
		hg_reach(h->g, k, from, fixed(h, "[keys]"));
}

/* 5.5's array part: value k below the array pointer, its tag byte above the hint word. */
static int split_array(const struct puc_heap *h, uint64_t arr, uint64_t n, const uint8_t **vals,
		       const uint8_t **tags)
{
	const struct puc_layout *l = h->l;
	if (n > (1u << 30) || arr < n * l->t_arr_val)
		return -1;
	*vals = ph_at(h, arr - n * l->t_arr_val, n * l->t_arr_val);
	*tags = ph_at(h, arr + l->t_arr_hint, n);
	return *vals && *tags ? 0 : -1;
}

/* The collectable value in slot k of the array part of t (k < its size), or 0. */
static uint64_t array_obj(const struct puc_heap *h, uint64_t t, uint64_t k)
{
	const struct puc_layout *l = h->l;
	uint64_t arr = ph_u64(h, t + l->t_array), o = 0;
	const uint8_t *vals, *tags;
	if (l->t_arr_hint == LUA_OFF_NONE)
		return tv_obj(h, arr + k * l->tv_sizeof, &o) ? o : 0;
	if (split_array(h, arr, k + 1, &vals, &tags) || !ph_collectable(l, tags[k]))
		return 0;
	return puc_u64_at(vals, 0);   /* value k is the lowest of the k + 1 read */
}

static void array_refs(struct puc_heap *h, uint32_t i, uint64_t t, uint32_t label)
{
	const struct puc_layout *l = h->l;
	uint64_t arr = ph_u64(h, t + l->t_array), n = ph_array_size(h, t);
	const uint8_t *vals, *tags;
	if (l->t_arr_hint == LUA_OFF_NONE) {
		ref_tvs(h, i, arr, n, l->tv_sizeof, label);
		return;
	}
	if (!n)
		return;
	if (split_array(h, arr, n, &vals, &tags)) {
		h->cut++;
		return;
	}
	for (uint64_t k = 0; k < n; k++)
		if (ph_collectable(l, tags[k]))
			ref(h, i, puc_u64_at(vals, (unsigned)((n - 1 - k) * l->t_arr_val)), label);
}

static void table_refs(struct puc_heap *h, uint32_t i, uint64_t t)
{
	const struct puc_layout *l = h->l;
	uint64_t mt = ph_u64(h, t + l->t_metatable);
	if (mt)
		ref(h, i, mt, fixed(h, "[metatable]"));
	array_refs(h, i, t, fixed(h, LF_HEAP_NUMERIC));
	uint64_t node = ph_u64(h, t + l->t_node);
	unsigned ls = ph_u8(h, t + l->t_lsizenode);
	uint64_t n = ls < 31 ? (uint64_t)1 << ls : 0;
	const uint8_t *p = ph_at(h, node, n * l->n_sizeof);
	if (!p)
		return;   /* the dummy node of a table without a hash part */
	for (uint64_t k = 0; k < n; k++)
		node_refs(h, i, p + k * l->n_sizeof);
}

static uint64_t upvalue_name(const struct puc_heap *h, uint64_t proto, uint32_t k)
{
	const struct puc_layout *l = h->l;
	if (k >= ph_u32(h, proto + l->p_sizeupvalues))
		return 0;
	return ph_u64(h, ph_u64(h, proto + l->p_upvalues) + (uint64_t)k * l->uv_sizeof + l->uv_name);
}

static void lua_closure_refs(struct puc_heap *h, uint32_t i, uint64_t f)
{
	const struct puc_layout *l = h->l;
	uint64_t p = ph_u64(h, f + l->lcl_p);
	ref(h, i, p, 0);
	if (l->cl_env != LUA_OFF_NONE)
		ref(h, i, ph_u64(h, f + l->cl_env), fixed(h, "[env]"));
	unsigned n = ph_u8(h, f + l->cl_nupvalues);
	for (unsigned k = 0; k < n; k++) {
		uint32_t u = hg_unreached(h->g, ph_u64(h, f + l->lcl_upvals + (uint64_t)k * 8));
		if (u != HG_NONE)
			hg_reach(h->g, u, i, ph_named(h, LF_HEAP_UPVALUE, upvalue_name(h, p, k), LF_HEAP_UPVALUE "?"));
	}
}

static void c_closure_refs(struct puc_heap *h, uint32_t i, uint64_t f)
{
	const struct puc_layout *l = h->l;
	if (l->cl_env != LUA_OFF_NONE)
		ref(h, i, ph_u64(h, f + l->cl_env), fixed(h, "[env]"));
	ref_tvs(h, i, f + l->ccl_upvalue, ph_u8(h, f + l->cl_nupvalues), l->tv_sizeof, fixed(h, LF_HEAP_UPVALUE LF_HEAP_NUMERIC));
}

static void udata_refs(struct puc_heap *h, uint32_t i, uint64_t u)
{
	const struct puc_layout *l = h->l;
	ref(h, i, ph_u64(h, u + l->u_metatable), fixed(h, "[metatable]"));
	if (l->u_env != LUA_OFF_NONE)
		ref(h, i, ph_u64(h, u + l->u_env), fixed(h, "[env]"));
	if (l->u_uvtag != LUA_OFF_NONE && ph_collectable(l, ph_u8(h, u + l->u_uvtag)))
		ref(h, i, ph_u64(h, u + l->u_uv), fixed(h, "[user value]"));
	if (l->u_nuvalue != LUA_OFF_NONE) {
		unsigned nuv = ph_u8(h, u + l->u_nuvalue) | ph_u8(h, u + l->u_nuvalue + 1) << 8;
		ref_tvs(h, i, u + l->u_uv, nuv, l->u_uv_sizeof, fixed(h, "[user value]"));
	}
}

/* Names in a Proto's debug information, each a TString pointer at off in n records. */
static void ref_names(struct puc_heap *h, uint32_t i, uint64_t a, uint32_t n, unsigned stride, unsigned off)
{
	if (n > (1u << 26) || !ph_at(h, a, (uint64_t)n * stride))
		return;
	for (uint32_t k = 0; k < n; k++)
		ref(h, i, ph_u64(h, a + (uint64_t)k * stride + off), fixed(h, "[debug]"));
}

static void proto_refs(struct puc_heap *h, uint32_t i, uint64_t p)
{
	const struct puc_layout *l = h->l;
	ref_tvs(h, i, ph_u64(h, p + l->p_k), ph_u32(h, p + l->p_sizek), l->tv_sizeof, fixed(h, "[constants]"));
	uint32_t np = ph_u32(h, p + l->p_sizep);
	uint64_t pp = ph_u64(h, p + l->p_p);
	if (np < (1u << 26) && ph_at(h, pp, (uint64_t)np * 8))
		for (uint32_t k = 0; k < np; k++)
			ref(h, i, ph_u64(h, pp + (uint64_t)k * 8), fixed(h, "[protos]"));
	ref(h, i, ph_u64(h, p + l->p_source), fixed(h, "[debug]"));
	ref_names(h, i, ph_u64(h, p + l->p_upvalues), ph_u32(h, p + l->p_sizeupvalues), l->uv_sizeof, l->uv_name);
	ref_names(h, i, ph_u64(h, p + l->p_locvars), ph_u32(h, p + l->p_sizelocvars), l->lv_sizeof, l->lv_varname);
}

static void upvalue_refs(struct puc_heap *h, uint32_t i, uint64_t u)
{
	ref_tv(h, i, ph_u64(h, u + h->l->upv_v), 0);
}

static void refs_of(struct puc_heap *h, uint32_t i)
{
	uint64_t a = h->g->o[i].addr;
	switch (h->g->o[i].kind) {
	case HK_TABLE: table_refs(h, i, a); break;
	case HK_FUNCTION: lua_closure_refs(h, i, a); break;
	case HK_CFUNCTION: c_closure_refs(h, i, a); break;
	case HK_USERDATA: udata_refs(h, i, a); break;
	case HK_THREAD: puc_heap_thread_refs(h, i, a); break;
	case HK_PROTO: proto_refs(h, i, a); break;
	case HK_UPVALUE: upvalue_refs(h, i, a); break;
	default: break;
	}
}

/* 5.2+ keep the globals in the registry's array part (LUA_RIDX_GLOBALS), 5.1 in the main
 * thread's l_gt. */
static uint64_t globals_table(struct puc_heap *h, uint64_t reg)
{
	const struct puc_layout *l = h->l;
	uint64_t g = 0;
	if (l->l_gt != LUA_OFF_NONE)
		tv_obj(h, h->L0 + l->l_gt, &g);
	else if (reg && ph_array_size(h, reg) >= 2)
		g = array_obj(h, reg, 1);
	return g;
}

static void root(struct puc_heap *h, uint64_t a, uint32_t label)
{
	uint32_t i = hg_unreached(h->g, a);
	if (i != HG_NONE)
		hg_reach(h->g, i, HG_NONE, label);
}

/* The queued objects lie all over the heap: the walk asks for an object's header AHEAD
 * objects before it reaches it, and for a table's nodes half as far ahead, once its
 * header is in. The queue grows only at its end, so what lies ahead is final. */
#define AHEAD 8

static void queued_ahead(const struct puc_heap *h)
{
	const struct hgraph *g = h->g;
	if (g->qhead + AHEAD < g->qn) {
		const uint8_t *p = ph_at(h, g->o[g->queue[g->qhead + AHEAD]].addr, 16);
		if (p)
			__builtin_prefetch(p);
	}
	if (g->qhead + AHEAD / 2 < g->qn) {
		const struct hg_obj *o = &g->o[g->queue[g->qhead + AHEAD / 2]];
		const uint8_t *n = o->kind == HK_TABLE ? ph_at(h, ph_u64(h, o->addr + h->l->t_node), 64) : NULL;
		if (n)
			__builtin_prefetch(n);
	}
}

void puc_heap_refs(struct puc_heap *h)
{
	const struct puc_layout *l = h->l;
	uint64_t reg = 0;
	tv_obj(h, h->G + l->g_l_registry, &reg);
	root(h, globals_table(h, reg), 0);
	root(h, reg, fixed(h, "[registry]"));
	root(h, h->L0, fixed(h, "[main thread]"));
	for (unsigned k = 0; k < l->g_mt_n && k < 9; k++) {
		char b[40];
		snprintf(b, sizeof(b), "[%s metatable]", type_names[k]);
		root(h, ph_u64(h, h->G + l->g_mt + k * 8u), fixed(h, b));
	}
	for (uint32_t i; (i = hg_next(h->g)) != HG_NONE;) {
		queued_ahead(h);
		refs_of(h, i);
	}
}
