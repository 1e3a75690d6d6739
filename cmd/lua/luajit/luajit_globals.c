/* LuaJIT's tables as global_names.c reads them: the registry of a thread's VM, a GCtab's
 * hash part, what a node holds (TValues of 8 bytes: the type in the top 17 bits in GC64, in
 * the upper half otherwise), and the proto of a Lua function. */
#include <string.h>

#include "global_names.h"
#include "luajit_frames.h"
#include "luajit_tables.h"

struct jg { const struct luajit_layout *l; const struct luajit_mem *m; };

/* A TValue's type and GC object. */
static uint32_t tv_type(const struct luajit_layout *l, uint64_t tv, uint64_t *gc)
{
	if (l->gc64) {
		*gc = tv & ((1ULL << 47) - 1);
		return (uint32_t)((int64_t)tv >> 47);
	}
	*gc = tv & 0xffffffffULL;
	return (uint32_t)(tv >> 32);
}

static int rd(const void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct jg *c = ctx;
	return luajit_rd(c->m, addr, buf, len);
}

int luajit_registry(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t L, uint64_t *g,
		    uint64_t *reg)
{
	uint64_t tv;
	if (l->g_registrytv < 0 || l->tvalue_size != 8 || luajit_rd_ref(m, L + l->L_glref, l->gcref_size, g) ||
	    luajit_rd(m, *g + l->g_registrytv, &tv, 8))
		return -1;
	return tv_type(l, tv, reg) == (uint32_t)l->it_tab ? 0 : -1;
}

int luajit_hash_part(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t t, uint64_t *nodes,
		     uint32_t *count)
{
	uint8_t hdr[64];
	uint32_t hmask;
	int32_t end = l->tab_node > l->tab_hmask ? l->tab_node + l->mref_size : l->tab_hmask + 4;
	if (l->tab_node < 0 || l->tab_hmask < 0 || end > (int32_t)sizeof hdr || luajit_rd(m, t, hdr, (size_t)end))
		return -1;
	*nodes = luajit_load_ref(hdr + l->tab_node, l->mref_size);
	memcpy(&hmask, hdr + l->tab_hmask, 4);
	if (hmask >= (1u << 30))
		return -1;
	*count = hmask + 1;
	return 0;
}

void luajit_node(const struct luajit_layout *l, const uint8_t *raw, uint64_t *key, enum gn_kind *kind,
		 uint64_t *val)
{
	uint64_t k, v;
	memcpy(&k, raw + l->node_key, 8);
	memcpy(&v, raw + l->node_val, 8);
	if (tv_type(l, k, key) != (uint32_t)l->it_str)
		*key = 0;
	uint32_t t = tv_type(l, v, val);
	*kind = t == (uint32_t)l->it_tab ? GN_TABLE : t == (uint32_t)l->it_func ? GN_FUNC : GN_OTHER;
}

static int registry(const void *ctx, uint64_t L, uint64_t *g, uint64_t *reg)
{
	const struct jg *c = ctx;
	return luajit_registry(c->l, c->m, L, g, reg);
}

static int hash_part(const void *ctx, uint64_t t, uint64_t *nodes, uint32_t *count)
{
	const struct jg *c = ctx;
	return luajit_hash_part(c->l, c->m, t, nodes, count);
}

static void node(const void *ctx, const uint8_t *raw, uint64_t *key, enum gn_kind *kind, uint64_t *val)
{
	luajit_node(((const struct jg *)ctx)->l, raw, key, kind, val);
}

static long string(const void *ctx, uint64_t s, char *out, size_t size, uint64_t *full)
{
	const struct jg *c = ctx;
	uint32_t len = 0;
	long n = luajit_gcstr(c->l, c->m, s, out, size, &len);
	*full = len;
	return n;
}

static uint64_t proto_of(const void *ctx, uint64_t fn)
{
	const struct jg *c = ctx;
	uint64_t p = 0;
	int ffid;
	return luajit_func_info(c->l, c->m, fn, &p, &ffid) == LJ_FN_LUA ? p : 0;
}

int luajit_global_name(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto, uint64_t L,
		       char *out, size_t size)
{
	static const struct gn_ops ops = { rd, registry, hash_part, 0, node, string, proto_of };
	struct gn_ops o = ops;
	struct jg c = { l, m };
	o.node_size = (size_t)l->node_size;
	return global_name(&o, &c, (uint64_t)(uintptr_t)m->ctx, L, proto, out, size);
}
