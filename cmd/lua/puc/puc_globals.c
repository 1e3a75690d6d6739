/* PUC Lua 5.1-5.5's tables as global_names.c reads them: the registry of a thread's VM, a
 * table's hash part, what a node holds, and the Proto of a Lua closure, from the layout
 * tables. */

#include "global_names.h"
#include "puc_frames.h"

struct pg { const struct puc_layout *l; const struct puc_mem *m; };

static int rd(const void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct pg *c = ctx;
	return puc_rd(c->m, addr, buf, len);
}

static int registry(const void *ctx, uint64_t L, uint64_t *g, uint64_t *reg)
{
	const struct pg *c = ctx;
	const struct puc_layout *l = c->l;
	uint8_t tv[32];
	if (l->g_l_registry == LUA_OFF_NONE || l->tv_sizeof > sizeof tv || puc_rd(c->m, L + l->l_l_G, g, 8) ||
	    puc_rd(c->m, *g + l->g_l_registry, tv, l->tv_sizeof) ||
	    puc_tag_at(tv, l->tv_tt, l->tv_tt_size) != l->tvtag_table)
		return -1;
	*reg = puc_u64_at(tv, l->tv_value);
	return 0;
}

static int hash_part(const void *ctx, uint64_t t, uint64_t *nodes, uint32_t *count)
{
	const struct pg *c = ctx;
	const struct puc_layout *l = c->l;
	uint8_t hdr[64];
	size_t end = (size_t)(l->t_node > l->t_lsizenode ? l->t_node + 8 : l->t_lsizenode + 1);
	if (l->t_node == LUA_OFF_NONE || end > sizeof hdr || puc_rd(c->m, t, hdr, end) || hdr[l->t_lsizenode] > 30)
		return -1;
	*nodes = puc_u64_at(hdr, l->t_node);
	*count = 1u << hdr[l->t_lsizenode];
	return 0;
}

static void node(const void *ctx, const uint8_t *raw, uint64_t *key, enum gn_kind *kind, uint64_t *val)
{
	const struct puc_layout *l = ((const struct pg *)ctx)->l;
	uint32_t kt = puc_tag_at(raw, l->n_key_tt, l->n_key_tt_size);
	uint32_t vt = puc_tag_at(raw, l->n_val + l->tv_tt, l->tv_tt_size);
	*key = kt == l->tvtag_shrstr || kt == l->tvtag_lngstr ? puc_u64_at(raw, l->n_key_val) : 0;
	*kind = vt == l->tvtag_table ? GN_TABLE : vt == l->tvtag_lcl ? GN_FUNC : GN_OTHER;
	*val = puc_u64_at(raw, l->n_val + l->tv_value);
}

static long string(const void *ctx, uint64_t s, char *out, size_t size, uint64_t *full)
{
	const struct pg *c = ctx;
	return puc_tstring(c->l, c->m, s, out, size, full);
}

/* 5.1 tags C and Lua closures alike: its isC byte tells them apart. */
static uint64_t proto_of(const void *ctx, uint64_t fn)
{
	const struct pg *c = ctx;
	uint8_t is_c = 0;
	uint64_t p = 0;
	if ((c->l->flags & LUA_LF_CL_ISC) && (puc_rd(c->m, fn + c->l->cl_isC, &is_c, 1) || is_c))
		return 0;
	return puc_rd(c->m, fn + c->l->lcl_p, &p, 8) ? 0 : p;
}

int puc_global_name(const struct puc_layout *l, const struct puc_mem *m, uint64_t proto, uint64_t L, char *out,
		    size_t size)
{
	static const struct gn_ops ops = { rd, registry, hash_part, 0, node, string, proto_of };
	struct gn_ops o = ops;
	struct pg c = { l, m };
	o.node_size = l->n_sizeof;
	return global_name(&o, &c, (uint64_t)(uintptr_t)m->ctx, L, proto, out, size);
}
