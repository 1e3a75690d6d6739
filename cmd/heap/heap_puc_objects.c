/* Every object a PUC Lua VM counts, from its collector's lists (allgc, finobj, tobefnz,
 * fixedgc; 5.1's rootgc and tmudata), its string table and its threads' open upvalues, each
 * with the size the collector frees it at (lgc.c, lfunc.c, lstate.c, ltable.c). Every list
 * is cut at an address outside the copy or one seen before. */
#include <string.h>

#include "heap_puc.h"

#define LIST_MAX (1u << 28)        /* objects followed on one list */
#define OPEN_MAX (1u << 20)        /* open upvalues of a thread: LUAI_MAXSTACK is 1,000,000 */

const uint8_t *ph_at(const struct puc_heap *h, uint64_t a, size_t n)
{
	return heap_at(h->c, a, n);
}

uint64_t ph_u64(const struct puc_heap *h, uint64_t a) { return heap_u64(h->c, a); }
uint32_t ph_u32(const struct puc_heap *h, uint64_t a) { return heap_u32(h->c, a); }
uint8_t ph_u8(const struct puc_heap *h, uint64_t a) { return heap_u8(h->c, a); }

int ph_collectable(const struct puc_layout *l, uint32_t tt)
{
	return l->tv_ctb ? (tt & l->tv_ctb) != 0 : tt >= 4 && tt <= 8;
}

int ph_basic(const struct puc_layout *l, uint32_t tt)
{
	return l->tv_ctb ? (int)(tt & 0x0f) : (int)tt;
}

int ph_kind(const struct puc_heap *h, uint64_t a)
{
	const struct puc_layout *l = h->l;
	const uint8_t *p = ph_at(h, a, l->gch_tt + 1u);
	if (!p)
		return -1;
	unsigned tt = p[l->gch_tt];
	if (tt == l->gctag_shrstr || tt == l->gctag_lngstr)
		return HK_STRING;
	if (tt == l->gctag_table)
		return HK_TABLE;
	if (tt == l->gctag_lcl && (l->cl_isC == LUA_OFF_NONE || !ph_u8(h, a + l->cl_isC)))
		return HK_FUNCTION;
	if (tt == l->gctag_ccl)
		return HK_CFUNCTION;
	if (tt == l->gctag_udata)
		return HK_USERDATA;
	if (tt == l->gctag_thread)
		return HK_THREAD;
	if (tt == l->gctag_proto)
		return HK_PROTO;
	if (tt == l->gctag_upval)
		return HK_UPVALUE;
	return -1;
}

/* 5.5's long strings keep their kind in shrlen: inline contents, fixed or own external ones. */
static uint64_t long_string_size(const struct puc_heap *h, uint64_t s, uint64_t len)
{
	const struct puc_layout *l = h->l;
	if (l->ts_lngreg == LUA_OFF_NONE)
		return l->ts_contents + len + 1;
	switch ((int8_t)ph_u8(h, s + l->ts_shrlen)) {
	case -1: return l->ts_lngreg + len + 1;
	case -2: return l->ts_lngreg;
	default: return l->ts_sizeof;
	}
}

static uint64_t string_size(const struct puc_heap *h, uint64_t s)
{
	const struct puc_layout *l = h->l;
	if (l->ts_len != LUA_OFF_NONE)
		return l->ts_contents + ph_u64(h, s + l->ts_len) + 1;
	if (ph_u8(h, s + l->gch_tt) == l->gctag_shrstr)
		return l->ts_contents + ph_u8(h, s + l->ts_shrlen) + 1;
	return long_string_size(h, s, ph_u64(h, s + l->ts_lnglen));
}

/* 5.4's alimit is the array's size unless a flag says it was lowered: then the size is the
 * next power of two (luaH_realasize). */
uint64_t ph_array_size(const struct puc_heap *h, uint64_t t)
{
	const struct puc_layout *l = h->l;
	uint64_t n = ph_u32(h, t + l->t_asize);
	if (l->t_flags != LUA_OFF_NONE && (ph_u8(h, t + l->t_flags) & l->t_bitras) && (n & (n - 1))) {
		uint64_t p = 1;
		while (p < n)
			p <<= 1;
		n = p;
	}
	return n;
}

/* The array part's block: 5.5 keeps the values below the pointer and their tags above it. */
static int array_in_copy(const struct puc_heap *h, uint64_t t, uint64_t n, uint64_t bytes)
{
	const struct puc_layout *l = h->l;
	uint64_t a = ph_u64(h, t + l->t_array);
	if (l->t_arr_hint != LUA_OFF_NONE)
		a -= n * l->t_arr_val;
	return ph_at(h, a, bytes) != NULL;
}

/* The hash part of a table without one is the VM's static dummy node, in read-only data:
 * outside the writable memory copied. A part whose size or pointer a wild write changed is
 * not in the copy either, so only parts wholly in it count (the others: a list cut short). */
static uint64_t table_size(struct puc_heap *h, uint64_t t)
{
	const struct puc_layout *l = h->l;
	uint64_t n = ph_array_size(h, t), size = l->t_sizeof, cut = h->cut;
	uint64_t arr = l->t_arr_hint == LUA_OFF_NONE ? n * l->tv_sizeof : n ? n * (l->t_arr_val + 1u) + l->t_arr_hint : 0;
	if (arr && array_in_copy(h, t, n, arr))
		size += arr;
	else if (arr)
		h->cut++;
	uint64_t node = ph_u64(h, t + l->t_node);
	unsigned ls = ph_u8(h, t + l->t_lsizenode);
	if (ls < 31 && ph_at(h, node, l->n_sizeof)) {
		uint64_t nodes = ((uint64_t)1 << ls) * l->n_sizeof;
		if (ph_at(h, node, nodes))
			size += nodes + (ls >= l->t_limfor ? l->t_limbox : 0u);
		else
			h->cut++;
	} else if (ls >= 31) {
		h->cut++;
	}
	h->tables++;
	h->misfit_tables += h->cut != cut;
	return size;
}

/* More than a tenth of the tables, and a few at least: no wild write breaks that many. */
int puc_heap_misfit(const struct puc_heap *h)
{
	return h->misfit_tables >= 3 && h->misfit_tables * 10 > h->tables;
}

static uint64_t closure_size(const struct puc_heap *h, uint64_t f, int lua)
{
	const struct puc_layout *l = h->l;
	uint64_t n = ph_u8(h, f + l->cl_nupvalues);
	return lua ? l->lcl_size0 + n * l->lcl_slot : l->ccl_size0 + n * l->ccl_slot;
}

static uint64_t udata_size(const struct puc_heap *h, uint64_t u)
{
	const struct puc_layout *l = h->l;
	uint64_t len = ph_u64(h, u + l->u_len);
	unsigned nuv = l->u_nuvalue == LUA_OFF_NONE ? 0 : ph_u8(h, u + l->u_nuvalue) | ph_u8(h, u + l->u_nuvalue + 1) << 8;
	return (nuv ? l->u_uv + (uint64_t)nuv * l->u_uv_sizeof : l->u_size0) + len;
}

/* The length of the list of CallInfo records after thread L's base_ci. */
static uint64_t ci_list_length(const struct puc_heap *h, uint64_t L)
{
	const struct puc_layout *l = h->l;
	uint64_t n = 0;
	for (uint64_t ci = ph_u64(h, L + l->l_base_ci + l->ci_next); ci && n < LIST_MAX; n++)
		ci = ph_u64(h, ci + l->ci_next);
	return n;
}

/* CallInfo records a thread allocated: 5.1's array, the count kept beside the list after
 * base_ci (5.2.1+), or that list's length (5.2.0). A 16-bit count wraps in a coroutine as deep
 * as a million-slot stack allows, so the list is walked too, and its length taken when the
 * count is that length's low bits. */
static uint64_t thread_cis(const struct puc_heap *h, uint64_t L)
{
	const struct puc_layout *l = h->l;
	if (l->l_size_ci != LUA_OFF_NONE)
		return ph_u32(h, L + l->l_size_ci);
	if (l->l_nci_size == 2) {
		uint64_t nci = ph_u8(h, L + l->l_nci) | (uint32_t)ph_u8(h, L + l->l_nci + 1) << 8;
		uint64_t len = ci_list_length(h, L);
		return (len & 0xffff) == nci ? len : nci; /* else a list cut short: the count stands */
	}
	if (l->l_nci_size == 4)
		return ph_u32(h, L + l->l_nci);
	return ci_list_length(h, L);
}

/* A thread's block (the main thread's is inside the global state's), its stack and its
 * CallInfo records. */
static uint64_t thread_size(const struct puc_heap *h, uint64_t L)
{
	const struct puc_layout *l = h->l;
	uint64_t size = (L == h->L0 ? 0 : l->lx_sizeof) + thread_cis(h, L) * l->ci_sizeof;
	if (l->l_stacksize != LUA_OFF_NONE)
		return size + (uint64_t)ph_u32(h, L + l->l_stacksize) * l->tv_sizeof;
	uint64_t stack = ph_u64(h, L + l->l_stack), last = ph_u64(h, L + l->l_stack_last);
	return size + (last > stack ? (last - stack) / l->stack_slot + l->extra_stack : 0) * l->stack_slot;
}

static uint64_t proto_size(const struct puc_heap *h, uint64_t p)
{
	const struct puc_layout *l = h->l;
	uint64_t s = l->p_sizeof;
	if (!(ph_u8(h, p + l->p_is_vararg) & l->pf_fixed)) {
		s += (uint64_t)ph_u32(h, p + l->p_sizecode) * 4;
		s += (uint64_t)ph_u32(h, p + l->p_sizelineinfo) * l->p_lineinfo_size;
		if (l->p_sizeabslineinfo != LUA_OFF_NONE)
			s += (uint64_t)ph_u32(h, p + l->p_sizeabslineinfo) * l->ali_sizeof;
	}
	s += (uint64_t)ph_u32(h, p + l->p_sizep) * 8;
	s += (uint64_t)ph_u32(h, p + l->p_sizek) * l->tv_sizeof;
	s += (uint64_t)ph_u32(h, p + l->p_sizelocvars) * l->lv_sizeof;
	s += (uint64_t)ph_u32(h, p + l->p_sizeupvalues) * l->uv_sizeof;
	return s;
}

static uint64_t object_size(struct puc_heap *h, uint64_t a, int kind)
{
	switch (kind) {
	case HK_STRING: return string_size(h, a);
	case HK_TABLE: return table_size(h, a);
	case HK_FUNCTION: return closure_size(h, a, 1);
	case HK_CFUNCTION: return closure_size(h, a, 0);
	case HK_USERDATA: return udata_size(h, a);
	case HK_THREAD: return thread_size(h, a);
	case HK_PROTO: return proto_size(h, a);
	default: return h->l->upv_sizeof;
	}
}

/* Adds the object at a; 1 when it is new, 0 when known, -1 when unreadable. */
static int add(struct puc_heap *h, uint64_t a)
{
	int kind = ph_kind(h, a), added = 0;
	if (kind < 0) {
		h->bad++;
		return -1;
	}
	uint32_t i = hg_add(h->g, a, (enum hg_kind)kind, 0, &added);
	/* sized once: a known object keeps its first size (a string's bytes follow its header) */
	if (added)
		hg_set_size(&h->g->o[i], heap_checked_size(h->c, a, object_size(h, a, kind),
							   kind == HK_STRING || kind == HK_USERDATA, &h->bad));
	return added;
}

/* The objects chained from first by link (the offset of each one's next pointer). */
static void add_chain(struct puc_heap *h, uint64_t first, unsigned link)
{
	uint64_t a = first;
	for (uint32_t n = 0; a && n < LIST_MAX; n++) {
		if (!ph_at(h, a, 16)) {
			h->cut++;
			return;
		}
		int rc = add(h, a);
		if (rc < 0 || (rc == 0 && a != h->L0)) {
			/* a bad header, or a cycle: 5.1's tmudata is circular, any other loop is a list
			 * broken by a wild write, whose objects past the loop are not found */
			h->cut += rc == 0 && a != first;
			return;
		}
		a = ph_u64(h, a + link);
	}
}

static void add_list(struct puc_heap *h, unsigned g_off)
{
	if (g_off != LUA_OFF_NONE)
		add_chain(h, ph_u64(h, h->G + g_off), h->l->gch_next);
}

static void add_strings(struct puc_heap *h)
{
	const struct puc_layout *l = h->l;
	uint64_t hash = ph_u64(h, h->G + l->g_strt + l->st_hash);
	uint32_t size = ph_u32(h, h->G + l->g_strt + l->st_size);
	if (size > (1u << 30) || !ph_at(h, hash, (size_t)size * 8)) {
		h->cut++;
		return;
	}
	h->vm_own += (uint64_t)size * 8;
	for (uint32_t i = 0; i < size; i++)
		add_chain(h, ph_u64(h, hash + (uint64_t)i * 8), l->ts_hnext);
}

/* 5.3's upvalues have no header: each is known by the closures and threads that point at it. */
static void add_bare_upvalue(struct puc_heap *h, uint64_t u)
{
	if (u && ph_at(h, u, h->l->upv_sizeof))
		hg_add(h->g, u, HK_UPVALUE, h->l->upv_sizeof, NULL);
	else if (u)
		h->cut++;
}

static void add_bare_upvalues(struct puc_heap *h)
{
	const struct puc_layout *l = h->l;
	size_t n = h->g->n;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = h->g->o[i].addr;
		if (h->g->o[i].kind == HK_FUNCTION) {
			unsigned nup = ph_u8(h, a + l->cl_nupvalues);
			for (unsigned k = 0; k < nup; k++)
				add_bare_upvalue(h, ph_u64(h, a + l->lcl_upvals + (uint64_t)k * 8));
		} else if (h->g->o[i].kind == HK_THREAD) {
			uint64_t u = ph_u64(h, a + l->l_openupval);
			for (uint32_t k = 0; u && k < OPEN_MAX; k++) {   /* one per stack slot at most */
				add_bare_upvalue(h, u);
				u = ph_u64(h, u + l->upv_onext);
			}
		}
	}
}

/* Open upvalues live on their thread's list (5.1, 5.2: only there). */
static void add_open_upvalues(struct puc_heap *h)
{
	if (h->l->upv_onext != LUA_OFF_NONE) {
		add_bare_upvalues(h);
		return;
	}
	size_t n = h->g->n;
	for (size_t i = 0; i < n; i++)
		if (h->g->o[i].kind == HK_THREAD)
			add_chain(h, ph_u64(h, h->g->o[i].addr + h->l->l_openupval), h->l->gch_next);
}

static int read_state(struct puc_heap *h, uint64_t G)
{
	const struct puc_layout *l = h->l;
	h->G = G;
	if (!ph_at(h, G, l->g_sizeof))
		return -1;
	h->L0 = l->g_mainthread != LUA_OFF_NONE ? ph_u64(h, G + l->g_mainthread) : G + l->lg_l;
	h->vm_count = ph_u64(h, G + l->g_totalbytes);
	if (l->g_gcdebt != LUA_OFF_NONE && l->g_debt_sub)
		h->vm_count -= ph_u64(h, G + l->g_gcdebt);
	else if (l->g_gcdebt != LUA_OFF_NONE)
		h->vm_count += ph_u64(h, G + l->g_gcdebt);
	h->vm_own = l->lg_sizeof;
	if (l->g_buff != LUA_OFF_NONE)
		h->vm_own += ph_u64(h, G + l->g_buff + l->mb_buffsize);
	return ph_at(h, h->L0, l->l_sizeof) ? 0 : -1;
}

int puc_heap_objects(struct puc_heap *h, uint64_t G)
{
	const struct puc_layout *l = h->l;
	if (read_state(h, G))
		return -1;
	if (add(h, h->L0) != 1)
		return -1;
	add_list(h, l->g_allgc);
	add_list(h, l->g_finobj);
	add_list(h, l->g_tobefnz);
	add_list(h, l->g_fixedgc);
	add_strings(h);
	add_open_upvalues(h);
	return 0;
}
