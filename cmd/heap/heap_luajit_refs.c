/* The references between a LuaJIT VM's objects, walked breadth-first from its roots as lj_gc.c
 * marks them (the main thread's globals, the registry, the main thread, the base types'
 * metatables and the VM's other roots in g->gcroot): each object is placed under the first, so
 * shortest, path that reaches it. Steps are named as for PUC Lua (heap_puc_refs.c): a string
 * key as it is, "[n]" for numeric keys and the array part, "upvalue NAME", bracketed others. */
#include <stdio.h>
#include <string.h>

#include "frame_label.h"
#include "heap_label.h"
#include "heap_luajit.h"
#include "safe_name.h"
#include "util.h"

#define NAME_MAX_BYTES 96          /* of a key or variable name in a label */
#define UVNAMES_MAX 256            /* upvalues of one closure named */

/* By ~itype, the order of lj_obj.h's LJ_T* list and of the base metatables in g->gcroot. */
static const char *const type_names[14] = { "nil", "false", "true", "lightuserdata", "string", "upvalue",
					    "thread", "proto", "function", "trace", "cdata", "table",
					    "userdata", "number" };

uint32_t lh_fixed(struct lj_heap *h, const char *s)
{
	return hg_label(h->g, s, strlen(s));
}

uint32_t lh_named(struct lj_heap *h, const char *prefix, uint64_t s, const char *none)
{
	const struct luajit_layout *l = h->l;
	if (lh_kind(h, s) != HK_STRING)
		return lh_fixed(h, none);
	uint32_t len = lh_u32(h, s + l->str_len), n = len < NAME_MAX_BYTES ? len : NAME_MAX_BYTES;
	const uint8_t *p = lh_at(h, s + l->str_size, n);
	if (!p)
		return lh_fixed(h, none);
	return heap_named(h->g, prefix, (const char *)p, n, len);
}

void lh_ref(struct lj_heap *h, uint32_t from, uint64_t a, uint32_t label)
{
	uint32_t i = a ? hg_unreached(h->g, a) : HG_NONE;
	if (i != HG_NONE)
		hg_reach(h->g, i, from, label);
}

void lh_ref_tv(struct lj_heap *h, uint32_t from, uint64_t a, uint32_t label)
{
	struct lh_tv t;
	if (!lh_tv(h, a, &t) && lh_tv_isgc(h->l, t.it))
		lh_ref(h, from, t.gc, label);
}

/* n TValues at a, all under one label. */
static void ref_tvs(struct lj_heap *h, uint32_t from, uint64_t a, uint64_t n, uint32_t label)
{
	if (n > (1u << 30) || !lh_at(h, a, n * h->l->tvalue_size)) {
		h->cut += n > 0;
		return;
	}
	for (uint64_t k = 0; k < n; k++)
		lh_ref_tv(h, from, a + k * h->l->tvalue_size, label);
}

static uint32_t key_label(struct lj_heap *h, const struct lh_tv *k)
{
	const struct luajit_layout *l = h->l;
	if (lh_tv_isnum(l, k->it))
		return lh_fixed(h, LF_HEAP_NUMERIC);
	if (k->it == (uint32_t)l->it_str)
		return lh_named(h, "", k->gc, "[string key]");
	char b[40];
	uint32_t t = ~k->it;
	snprintf(b, sizeof(b), "[%s key]", t < 14 ? type_names[t] : "other");
	return lh_fixed(h, b);
}

static void node_refs(struct lj_heap *h, uint32_t from, uint64_t node)
{
	const struct luajit_layout *l = h->l;
	struct lh_tv v, k;
	if (lh_tv(h, node + l->node_val, &v) || lh_tv(h, node + l->node_key, &k))
		return;
	if (lh_tv_isgc(l, v.it)) {
		uint32_t i = hg_unreached(h->g, v.gc);
		if (i != HG_NONE)
			hg_reach(h->g, i, from, key_label(h, &k));
	}
	if (lh_tv_isgc(l, k.it))
		lh_ref(h, from, k.gc, lh_fixed(h, "[keys]"));
}

static void table_refs(struct lj_heap *h, uint32_t i, uint64_t t)
{
	const struct luajit_layout *l = h->l;
	lh_ref(h, i, lh_gcref(h, t + l->tab_metatable), lh_fixed(h, "[metatable]"));
	ref_tvs(h, i, lh_mref(h, t + l->tab_array), lh_u32(h, t + l->tab_asize), lh_fixed(h, LF_HEAP_NUMERIC));
	uint64_t n = (uint64_t)lh_u32(h, t + l->tab_hmask) + 1, node = lh_mref(h, t + l->tab_node);
	if (n > (1u << 30) || !lh_at(h, node, n * l->node_size)) {
		h->cut++;
		return;
	}
	for (uint64_t k = 0; k < n; k++)
		node_refs(h, i, node + k * l->node_size);
}

/* The name of upvalue k from the proto's uvinfo: its upvalues' names, each ending in a NUL. */
static uint32_t upvalue_label(struct lj_heap *h, uint64_t pt, uint32_t k)
{
	const struct luajit_layout *l = h->l;
	uint64_t p = lh_mref(h, pt + l->pt_uvinfo), end = pt + lh_u32(h, pt + l->pt_sizept);
	for (uint32_t j = 0; p && p < end && j <= k; j++) {
		const uint8_t *s = lh_at(h, p, (size_t)(end - p));
		const uint8_t *nul = s ? memchr(s, 0, (size_t)(end - p)) : NULL;
		if (!nul)
			break;
		if (j == k && nul > s) {
			struct sbuf b;
			sb_init(&b);
			sb_puts(&b, LF_HEAP_UPVALUE);
			size_t n = (size_t)(nul - s);
			sb_add_safe(&b, (const char *)s, n < NAME_MAX_BYTES ? n : NAME_MAX_BYTES, SAFE_FOLDED);
			uint32_t id = hg_label(h->g, b.s, b.len);
			sb_free(&b);
			return id;
		}
		p += (uint64_t)(nul - s) + 1;
	}
	return lh_fixed(h, LF_HEAP_UPVALUE "?");
}

/* fn->l.pc points just past the GCproto, at its first instruction. */
static void lua_func_refs(struct lj_heap *h, uint32_t i, uint64_t fn)
{
	const struct luajit_layout *l = h->l;
	uint64_t pt = lh_mref(h, fn + l->fn_pc) - (uint64_t)l->pt_size;
	lh_ref(h, i, pt, 0);
	lh_ref(h, i, lh_gcref(h, fn + l->fn_env), lh_fixed(h, "[env]"));
	unsigned n = lh_u8(h, fn + l->fn_nupvalues);
	for (unsigned k = 0; k < n && k < UVNAMES_MAX; k++) {
		uint32_t u = hg_unreached(h->g, lh_gcref(h, fn + l->fn_l_uvptr + (uint64_t)k * l->gcref_size));
		if (u != HG_NONE)
			hg_reach(h->g, u, i, upvalue_label(h, pt, k));
	}
}

static void c_func_refs(struct lj_heap *h, uint32_t i, uint64_t fn)
{
	const struct luajit_layout *l = h->l;
	lh_ref(h, i, lh_gcref(h, fn + l->fn_env), lh_fixed(h, "[env]"));
	ref_tvs(h, i, fn + l->fn_c_upvalue, lh_u8(h, fn + l->fn_nupvalues), lh_fixed(h, LF_HEAP_UPVALUE LF_HEAP_NUMERIC));
}

/* Collectable constants sit below pt->k, the last one first (proto_kgc); child protos are
 * among them. */
static void proto_refs(struct lj_heap *h, uint32_t i, uint64_t pt)
{
	const struct luajit_layout *l = h->l;
	uint64_t k = lh_mref(h, pt + l->pt_k), n = lh_u32(h, pt + l->pt_sizekgc);
	if (n > (1u << 26) || k < n * l->gcref_size || !lh_at(h, k - n * l->gcref_size, n * l->gcref_size)) {
		h->cut += n > 0;
	} else {
		uint32_t kl = lh_fixed(h, "[constants]"), pl = lh_fixed(h, "[protos]");
		for (uint64_t j = 1; j <= n; j++) {
			uint64_t o = lh_gcref(h, k - j * l->gcref_size);
			lh_ref(h, i, o, lh_kind(h, o) == HK_PROTO ? pl : kl);
		}
	}
	lh_ref(h, i, lh_gcref(h, pt + l->pt_chunkname), lh_fixed(h, "[debug]"));
	uint32_t tn = l->traceno_size == 2 ? lh_u16(h, pt + l->pt_trace) : lh_u32(h, pt + l->pt_trace);
	lh_ref(h, i, lh_trace(h, tn), lh_fixed(h, "[traces]"));
}

/* A trace keeps its IR's object constants (a 64-bit constant takes two slots, as
 * gc_traverse_trace steps), the traces it links to and its starting proto. */
static void trace_refs(struct lj_heap *h, uint32_t i, uint64_t T)
{
	const struct luajit_layout *l = h->l;
	uint64_t ir = lh_u64(h, T + l->T_ir);
	uint32_t nk = lh_u32(h, T + l->T_nk), kl = lh_fixed(h, "[constants]"), tl = lh_fixed(h, "[traces]");
	for (uint32_t ref = nk; ref < (uint32_t)l->ref_true; ref++) {
		uint64_t a = ir + (uint64_t)ref * l->irins_size;
		if (!lh_at(h, a, (size_t)l->irins_size * 2)) {
			h->cut++;
			break;
		}
		unsigned o = lh_u8(h, a + l->ir_o), t = lh_u8(h, a + l->ir_t) & (unsigned)l->irt_type_mask;
		if (o == (unsigned)l->ir_kgc)
			lh_ref(h, i, lh_gcref(h, a + (l->gc64 ? (uint64_t)l->irins_size : 0)), kl);
		if ((((uint32_t)l->irt_is64 >> t) & 1) && o != (unsigned)l->ir_knull)
			ref++;
	}
	const int32_t links[3] = { l->T_link, l->T_nextroot, l->T_nextside };
	for (int k = 0; k < 3; k++)
		lh_ref(h, i, lh_trace(h, l->traceno_size == 2 ? lh_u16(h, T + links[k]) : lh_u32(h, T + links[k])), tl);
	lh_ref(h, i, lh_gcref(h, T + l->T_startpt), 0);
}

/* A string.buffer keeps the string it shares and its serializer's dictionaries. */
static void udata_refs(struct lj_heap *h, uint32_t i, uint64_t u)
{
	const struct luajit_layout *l = h->l;
	uint64_t x = u + l->ud_size;
	lh_ref(h, i, lh_gcref(h, u + l->ud_metatable), lh_fixed(h, "[metatable]"));
	lh_ref(h, i, lh_gcref(h, u + l->ud_env), lh_fixed(h, "[env]"));
	if (l->udtype_buffer < 0 || lh_u8(h, u + l->ud_udtype) != l->udtype_buffer)
		return;
	uint32_t bl = lh_fixed(h, "[buffer]");
	if (lh_mref(h, x + l->sbx_flags) & (uint64_t)l->sbx_notowned)
		lh_ref(h, i, lh_gcref(h, x + l->sbx_cowref), bl);
	lh_ref(h, i, lh_gcref(h, x + l->sbx_dict_str), bl);
	lh_ref(h, i, lh_gcref(h, x + l->sbx_dict_mt), bl);
}

static void refs_of(struct lj_heap *h, uint32_t i)
{
	const struct luajit_layout *l = h->l;
	uint64_t a = h->g->o[i].addr, v;
	switch (h->g->o[i].kind) {
	case HK_TABLE: table_refs(h, i, a); break;
	case HK_FUNCTION: lua_func_refs(h, i, a); break;
	case HK_CFUNCTION: c_func_refs(h, i, a); break;
	case HK_USERDATA: udata_refs(h, i, a); break;
	case HK_THREAD: lj_heap_thread_refs(h, i, a); break;
	case HK_PROTO: proto_refs(h, i, a); break;
	case HK_TRACE: trace_refs(h, i, a); break;
	case HK_UPVALUE:   /* closed: the value is inside; open: a slot of its thread's stack */
		v = lh_u8(h, a + l->uv_closed) ? a + l->uv_tv : lh_mref(h, a + l->uv_v);
		lh_ref_tv(h, i, v, 0);
		break;
	default: break;
	}
}

static void root(struct lj_heap *h, uint64_t a, uint32_t label)
{
	lh_ref(h, HG_NONE, a, label);
}

/* g->gcroot: metamethod names, the base types' metatables (by ~itype), the I/O library's
 * default files. */
static void gcroots(struct lj_heap *h)
{
	const struct luajit_layout *l = h->l;
	for (int32_t k = 0; k < l->gcroot_max && k < 64; k++) {
		char b[40];
		int32_t t = k - l->gcroot_basemt;
		if (k < l->gcroot_basemt)
			snprintf(b, sizeof(b), "[metamethod names]");
		else if (k <= l->gcroot_basemt_num && t < 14)
			snprintf(b, sizeof(b), "[%s metatable]", type_names[t]);
		else
			snprintf(b, sizeof(b), "[io files]");
		root(h, lh_gcref(h, h->G + l->g_gcroot + (uint64_t)k * l->gcref_size), lh_fixed(h, b));
	}
}

void lj_heap_refs(struct lj_heap *h)
{
	const struct luajit_layout *l = h->l;
	struct lh_tv reg = { 0, 0 };
	root(h, lh_gcref(h, h->L0 + l->L_env), 0);
	if (!lh_tv(h, h->G + l->g_registrytv, &reg) && lh_tv_isgc(l, reg.it))
		root(h, reg.gc, lh_fixed(h, "[registry]"));
	root(h, h->L0, lh_fixed(h, "[main thread]"));
	gcroots(h);
	for (uint32_t i; (i = hg_next(h->g)) != HG_NONE;)
		refs_of(h, i);
}
