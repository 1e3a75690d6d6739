/* Every object a LuaJIT VM counts in gc.total, from the collector's lists (gc.root, which holds
 * userdata after the main thread, closed upvalues, traces and cdata; gc.mmudata; the string
 * table's chains; each thread's open upvalues), each with the size its free function gives
 * back (lj_gc.c's gc_freefunc; a string.buffer with the bytes it owns), and the VM's own
 * blocks. Every list is cut at an address
 * outside the copy or one seen before. */
#include <string.h>

#include "heap_luajit.h"

#define LIST_MAX (1u << 28)        /* objects followed on one list */
#define CTYPE_CHAIN_MAX 64         /* attributes followed to a C type's raw type */
#define BAD_RUN_MAX 4              /* headers without a type followed on one list */

const uint8_t *lh_at(const struct lj_heap *h, uint64_t a, size_t n)
{
	return heap_at(h->c, a, n);
}

uint64_t lh_u64(const struct lj_heap *h, uint64_t a) { return heap_u64(h->c, a); }
uint32_t lh_u32(const struct lj_heap *h, uint64_t a) { return heap_u32(h->c, a); }
uint16_t lh_u16(const struct lj_heap *h, uint64_t a) { return heap_u16(h->c, a); }
uint8_t lh_u8(const struct lj_heap *h, uint64_t a) { return heap_u8(h->c, a); }

uint64_t lh_gcref(const struct lj_heap *h, uint64_t a)
{
	return h->l->gcref_size == 8 ? lh_u64(h, a) : lh_u32(h, a);
}

uint64_t lh_mref(const struct lj_heap *h, uint64_t a)
{
	return h->l->mref_size == 8 ? lh_u64(h, a) : lh_u32(h, a);
}

/* GC64 keeps the type in the top 17 bits, sign-extended (itype), the pointer in the low 47;
 * else a TValue is a 32-bit payload, then the type word. */
int lh_tv(const struct lj_heap *h, uint64_t a, struct lh_tv *t)
{
	const uint8_t *p = lh_at(h, a, 8);
	if (!p)
		return -1;
	uint64_t raw;
	memcpy(&raw, p, 8);
	if (h->l->gc64) {
		t->it = (uint32_t)(raw >> 47) | (raw >> 63 ? 0xfffe0000u : 0);
		t->gc = raw & (((uint64_t)1 << 47) - 1);
	} else {
		t->it = (uint32_t)(raw >> 32);
		t->gc = (uint32_t)raw;
	}
	return 0;
}

int lh_tv_isgc(const struct luajit_layout *l, uint32_t it)
{
	return it >= (uint32_t)l->it_udata && it <= (uint32_t)l->it_str;
}

int lh_tv_isnum(const struct luajit_layout *l, uint32_t it)
{
	return it <= (uint32_t)l->it_isnum;
}

int lh_kind(const struct lj_heap *h, uint64_t a)
{
	const struct luajit_layout *l = h->l;
	const uint8_t *p = lh_at(h, a, (size_t)l->gch_marked + 2);
	if (!p)
		return -1;
	int gct = p[l->gch_marked + 1];
	if (gct == l->gct_str)
		return HK_STRING;
	if (gct == l->gct_tab)
		return HK_TABLE;
	if (gct == l->gct_func)
		return lh_u8(h, a + l->fn_ffid) == l->ff_lua ? HK_FUNCTION : HK_CFUNCTION;
	if (gct == l->gct_udata)
		return HK_USERDATA;
	if (gct == l->gct_thread)
		return HK_THREAD;
	if (gct == l->gct_proto)
		return HK_PROTO;
	if (gct == l->gct_upval)
		return HK_UPVALUE;
	if (gct == l->gct_cdata)
		return HK_CDATA;
	if (gct == l->gct_trace)
		return HK_TRACE;
	return -1;
}

uint64_t lh_trace(const struct lj_heap *h, uint32_t n)
{
	const struct luajit_layout *l = h->l;
	if (!n || n >= lh_u32(h, h->J + l->J_sizetrace))
		return 0;
	return lh_gcref(h, lh_u64(h, h->J + l->J_trace) + (uint64_t)n * l->gcref_size);
}

static uint64_t string_size(const struct lj_heap *h, uint64_t s)
{
	uint64_t len = lh_u32(h, s + h->l->str_len);
	return (uint64_t)h->l->str_size + (h->l->str_round4 ? (len + 4) & ~(uint64_t)3 : len + 1);
}

/* lj_tab_free: a colocated array is part of the table's own block; a hash part of one
 * node is the VM's nilnode. A part whose size or pointer a wild write changed is not in the
 * copy, so only parts wholly in it count (the others: a list cut short). */
static uint64_t table_size(struct lj_heap *h, uint64_t t)
{
	const struct luajit_layout *l = h->l;
	int colo = (int8_t)lh_u8(h, t + l->tab_colo);
	uint64_t asize = lh_u32(h, t + l->tab_asize), hmask = lh_u32(h, t + l->tab_hmask);
	uint64_t size = l->tab_size + (colo ? (uint64_t)(colo & 0x7f) * l->tvalue_size : 0);
	uint64_t arr = asize * l->tvalue_size, nodes = (hmask + 1) * l->node_size;
	if (asize && colo <= 0) {
		if (lh_at(h, lh_mref(h, t + l->tab_array), arr))
			size += arr;
		else
			h->cut++;
	}
	if (hmask) {
		if (lh_at(h, lh_mref(h, t + l->tab_node), nodes))
			size += nodes;
		else
			h->cut++;
	}
	return size;
}

static uint64_t thread_size(const struct lj_heap *h, uint64_t L)
{
	uint64_t stack = (uint64_t)lh_u32(h, L + h->l->L_stacksize) * h->l->tvalue_size;
	return stack + (L == h->L0 ? 0 : (uint64_t)h->l->L_size);
}

static uint64_t trace_size(const struct lj_heap *h, uint64_t T)
{
	const struct luajit_layout *l = h->l;
	uint32_t nins = lh_u32(h, T + l->T_nins), nk = lh_u32(h, T + l->T_nk);
	uint64_t nsnap = l->nsnap_size == 2 ? lh_u16(h, T + l->T_nsnap) : lh_u32(h, T + l->T_nsnap);
	return (uint64_t)l->T_size + (nins > nk ? (uint64_t)(nins - nk) * l->irins_size : 0) +
	       nsnap * l->snap_size + (uint64_t)lh_u32(h, T + l->T_nsnapmap) * l->snapentry_size;
}

/* The size of C type id as lj_cdata_free takes it: attributes lead to the raw type; a type
 * without a size (a function) holds a pointer. */
static uint64_t ctype_size(const struct lj_heap *h, uint32_t id)
{
	const struct luajit_layout *l = h->l;
	uint64_t cts = lh_mref(h, h->G + l->g_ctype_state);
	uint64_t tab = lh_u64(h, cts + l->cts_tab);
	uint32_t n = lh_u32(h, cts + l->cts_sizetab);
	for (int k = 0; k < CTYPE_CHAIN_MAX && id < n; k++) {
		uint64_t ct = tab + (uint64_t)id * l->ctype_size;
		if (!lh_at(h, ct, (size_t)l->ctype_size))
			return 0;
		uint32_t info = lh_u32(h, ct + l->ctype_info), type = info >> l->ct_shift_num;
		if (type != (uint32_t)l->ct_attrib)
			return type <= (uint32_t)l->ct_hassize ? lh_u32(h, ct + l->ctype_sizefield) : (uint64_t)l->ctsize_ptr;
		id = info & (uint32_t)l->ct_cidmask;
	}
	return 0;
}

/* A variable-length or realigned cdata has its length and extra bytes in front of it. */
static uint64_t cdata_size(const struct lj_heap *h, uint64_t cd)
{
	const struct luajit_layout *l = h->l;
	if (lh_u8(h, cd + l->gch_marked) & l->cd_varmark) {
		uint64_t v = cd - (uint64_t)l->cdv_size;
		return (uint64_t)lh_u32(h, v + l->cdv_len) + lh_u16(h, v + l->cdv_extra);
	}
	if (l->cts_size < 0)
		return (uint64_t)l->cd_size;
	return (uint64_t)l->cd_size + ctype_size(h, lh_u16(h, cd + l->cd_ctypeid));
}

/* A string.buffer's bytes are its userdata's unless it borrows them or shares a string's
 * (lj_bufx_free frees them with it). */
static uint64_t udata_size(const struct lj_heap *h, uint64_t u)
{
	const struct luajit_layout *l = h->l;
	uint64_t size = l->ud_size + (uint64_t)lh_u32(h, u + l->ud_len), x = u + l->ud_size;
	if (l->udtype_buffer < 0 || lh_u8(h, u + l->ud_udtype) != l->udtype_buffer ||
	    (lh_mref(h, x + l->sbx_flags) & (uint64_t)l->sbx_notowned))
		return size;
	uint64_t b = lh_u64(h, x + l->sbx_b), e = lh_u64(h, x + l->sbx_e);
	return size + (e > b ? e - b : 0);
}

static uint64_t object_size(struct lj_heap *h, uint64_t a, int kind)
{
	const struct luajit_layout *l = h->l;
	uint64_t n = lh_u8(h, a + l->fn_nupvalues);
	switch (kind) {
	case HK_STRING: return string_size(h, a);
	case HK_TABLE: return table_size(h, a);
	case HK_FUNCTION: return l->fn_l_size0 + n * l->gcref_size;
	case HK_CFUNCTION: return l->fn_c_size0 + n * l->tvalue_size;
	case HK_USERDATA: return udata_size(h, a);
	case HK_THREAD: return thread_size(h, a);
	case HK_PROTO: return lh_u32(h, a + l->pt_sizept);
	case HK_CDATA: return cdata_size(h, a);
	case HK_TRACE: return trace_size(h, a);
	default: return (uint64_t)l->uv_size;
	}
}

/* Adds the object at a; 1 when it is new, 0 when known, -1 when unreadable. */
static int add(struct lj_heap *h, uint64_t a)
{
	int kind = lh_kind(h, a), added = 0;
	if (kind < 0) {
		h->bad++;
		return -1;
	}
	uint32_t i = hg_add(h->g, a, (enum hg_kind)kind, 0, &added);
	/* sized once: a known object keeps its first size (a string's bytes follow its header) */
	if (added)
		hg_set_size(&h->g->o[i], heap_checked_size(h->c, a, object_size(h, a, kind),
							   kind == HK_STRING || kind == HK_PROTO, &h->bad));
	return added;
}

/* The objects chained from first by their nextgc; the main thread, added first, is passed
 * over (gc.root starts with it). An object the target was making when it was stopped is
 * linked before its type is set: its link is followed, past a few such headers at most. */
static void add_chain(struct lj_heap *h, uint64_t first)
{
	uint64_t a = first;
	for (uint32_t n = 0, bad = 0; a && n < LIST_MAX && bad <= BAD_RUN_MAX; n++) {
		if (!lh_at(h, a, 16)) {
			h->cut++;
			return;
		}
		int rc = add(h, a);
		if (rc == 0 && a != h->L0) {
			/* a cycle: mmudata is circular, any other loop is a list broken by a wild write */
			h->cut += a != first;
			return;
		}
		bad = rc < 0 ? bad + 1 : 0;
		a = lh_gcref(h, a);
	}
}

/* A chain's anchor keeps in bit 0 whether the chain uses the secondary hash. */
static void add_strings(struct lj_heap *h)
{
	const struct luajit_layout *l = h->l;
	uint64_t tab = lh_u64(h, h->G + l->g_strtab);
	uint64_t n = (uint64_t)lh_u32(h, h->G + l->g_strmask) + 1;
	if (n > (1u << 30) || !lh_at(h, tab, n * l->gcref_size)) {
		h->cut++;
		return;
	}
	h->own[LH_STRTAB] += n * l->gcref_size;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t a = lh_gcref(h, tab + i * l->gcref_size);
		add_chain(h, l->g_str_tagged ? a & ~(uint64_t)1 : a);
	}
}

static void add_open_upvalues(struct lj_heap *h)
{
	size_t n = h->g->n;
	for (size_t i = 0; i < n; i++)
		if (h->g->o[i].kind == HK_THREAD)
			add_chain(h, lh_gcref(h, h->g->o[i].addr + h->l->L_openupval));
}

/* lj_udata.c grows the light userdata segment map in powers of two: lj_state.c frees it as
 * 2 << fls(lightudnum) entries. */
static uint64_t lightud_map(const struct lj_heap *h)
{
	const struct luajit_layout *l = h->l;
	if (l->g_lightudseg < 0 || !lh_mref(h, h->G + l->g_lightudseg))
		return 0;
	uint64_t seg = 2;
	for (unsigned num = lh_u8(h, h->G + l->g_lightudnum) >> 1; num; num >>= 1)
		seg <<= 1;
	return seg * 4;
}

static void add_own_blocks(struct lj_heap *h)
{
	const struct luajit_layout *l = h->l;
	uint64_t b = lh_u64(h, h->G + l->g_tmpbuf_b), e = lh_u64(h, h->G + l->g_tmpbuf_e);
	if (l->sbuf_ptr_size == 4) {
		b = (uint32_t)b;
		e = (uint32_t)e;
	}
	h->own[LH_GG] = (uint64_t)l->gg_size;
	h->own[LH_BUFFERS] = (e > b ? e - b : 0) + lightud_map(h);
	uint32_t top = lh_u32(h, h->J + l->J_irtoplim), bot = lh_u32(h, h->J + l->J_irbotlim);
	h->own[LH_JIT] = (uint64_t)lh_u32(h, h->J + l->J_sizetrace) * l->gcref_size +
			 (top > bot ? (uint64_t)(top - bot) * l->irins_size : 0) +
			 (uint64_t)lh_u32(h, h->J + l->J_sizesnap) * l->snap_size +
			 (uint64_t)lh_u32(h, h->J + l->J_sizesnapmap) * l->snapentry_size;
	uint64_t cts = l->cts_size < 0 ? 0 : lh_mref(h, h->G + l->g_ctype_state);
	if (cts && lh_at(h, cts, (size_t)l->cts_size))
		h->own[LH_CTYPES] = (uint64_t)l->cts_size +
				    (uint64_t)lh_u32(h, cts + l->cts_sizetab) * l->ctype_size +
				    (uint64_t)lh_u32(h, cts + l->cts_sizeid) * 2;
}

static int read_state(struct lj_heap *h, uint64_t G)
{
	const struct luajit_layout *l = h->l;
	h->G = G;
	if (!lh_at(h, G - l->gg_g, (size_t)l->gg_size))
		return -1;
	h->L0 = lh_gcref(h, G + l->g_mainthref);
	h->J = G - l->gg_g + l->gg_J;
	h->vm_count = l->gcsize_size == 8 ? lh_u64(h, G + l->g_gc_total) : lh_u32(h, G + l->g_gc_total);
	return lh_at(h, h->L0, (size_t)l->L_size) ? 0 : -1;
}

int lj_heap_objects(struct lj_heap *h, uint64_t G)
{
	if (read_state(h, G) || add(h, h->L0) != 1)
		return -1;
	add_chain(h, lh_gcref(h, G + h->l->g_gc_root));
	add_chain(h, lh_gcref(h, G + h->l->g_gc_mmudata));
	add_strings(h);
	add_open_upvalues(h);
	add_own_blocks(h);
	return 0;
}
