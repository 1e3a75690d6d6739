/* Tests for the PUC Lua layout tables and the version-string finder. With arguments
 * `--detect FILE...` it instead prints the Lua version found in each file (read with plain reads),
 * one line "FILE MAJ.MIN.PATCH ident|release|none", for tests/integ/puc_detect.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#include "puc_layouts.h"

#define NONE LUA_OFF_NONE
#define MAX_FILE (256u << 20)

static int present(unsigned v) { return v != NONE; }

/* Every (minor, patch) from 0 to the newest verified patch maps to exactly one covering table. */
static void test_lookup_covers_each_patch(void)
{
	for (int minor = 1; minor <= 5; minor++) {
		const struct puc_layout *newest = puc_layout_for(5, minor, -1);
		CHECK(newest != NULL);
		if (!newest)
			continue;
		for (int p = 0; p <= newest->patch_hi; p++) {
			const struct puc_layout *t = puc_layout_for(5, minor, p);
			CHECK(t != NULL);
			if (!t)
				continue;
			CHECK_INT(t->major, 5);
			CHECK_INT(t->minor, minor);
			CHECK(t->patch_lo <= p && p <= t->patch_hi);
		}
		/* No other table of this minor claims a patch past the newest. */
		for (size_t i = 0; i < puc_layout_count(); i++) {
			const struct puc_layout *t = puc_layout_at(i);
			if (t->minor == minor)
				CHECK(t->patch_hi <= newest->patch_hi);
		}
	}
}

static void test_lookup_unknown(void)
{
	CHECK(puc_layout_for(5, 0, 3) == NULL);
	CHECK(puc_layout_for(5, 6, 0) == NULL);
	CHECK(puc_layout_for(4, 1, 0) == NULL);
	CHECK(puc_layout_for(6, 4, 4) == NULL);
	CHECK(puc_layout_for(-5, 4, 4) == NULL);
	CHECK(puc_layout_at(puc_layout_count()) == NULL);
	/* Unknown or future patch: the newest table of the minor. */
	const struct puc_layout *n = puc_layout_for(5, 4, -1);
	CHECK(n != NULL && puc_layout_for(5, 4, 200) == n);
	CHECK(n != NULL && n->patch_lo <= n->patch_hi);
	for (size_t i = 0; n && i < puc_layout_count(); i++)
		if (puc_layout_at(i)->minor == 4)
			CHECK(puc_layout_at(i)->patch_hi <= n->patch_hi);
}

/* Ranges of one minor never overlap, so a version never has two answers. */
static void test_ranges_disjoint(void)
{
	size_t n = puc_layout_count();
	CHECK(n >= 4);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			const struct puc_layout *a = puc_layout_at(i), *b = puc_layout_at(j);
			if (a->minor == b->minor)
				CHECK(a->patch_hi < b->patch_lo || b->patch_hi < a->patch_lo);
		}
}

/* Facts from the sources' history that decide how the walker behaves. */
static void test_version_semantics(void)
{
	const struct puc_layout *l51 = puc_layout_for(5, 1, 5), *l52 = puc_layout_for(5, 2, 4),
		*l530 = puc_layout_for(5, 3, 0), *l536 = puc_layout_for(5, 3, 6),
		*l540 = puc_layout_for(5, 4, 0), *l544 = puc_layout_for(5, 4, 4);
	CHECK(l51 && l52 && l530 && l536 && l540 && l544);
	if (!(l51 && l52 && l530 && l536 && l540 && l544))
		return;
	CHECK(l51->flags & LUA_LF_CI_ARRAY);
	CHECK(l51->flags & LUA_LF_L_SAVEDPC);
	CHECK(!present(l51->ci_previous) && present(l51->l_end_ci) && present(l51->ci_tailcalls));
	CHECK(!(l52->flags & LUA_LF_CI_ARRAY) && present(l52->ci_previous));
	/* 5.2 and 5.3.0-5.3.1 mark re-entered calls; 5.3.2+ and 5.4.2+ mark fresh ones. */
	CHECK(l52->cist_reentry != 0 && l52->cist_fresh == 0);
	CHECK(l530->cist_reentry != 0 && l530->cist_fresh == 0);
	CHECK(l536->cist_fresh != 0 && l536->cist_reentry == 0);
	CHECK(l544->cist_fresh != 0 && !(l544->flags & LUA_LF_CALL_RECURSES));
	CHECK(l540->cist_fresh == 0 && (l540->flags & LUA_LF_CALL_RECURSES));
	/* 5.4 dropped CIST_LUA for CIST_C. */
	CHECK(l536->cist_lua != 0 && l544->cist_lua == 0 && l544->cist_c != 0);
	CHECK(l544->flags & LUA_LF_ABSLINEINFO);
	CHECK(present(l544->p_abslineinfo) && !present(l536->p_abslineinfo));
	CHECK_INT(l544->p_lineinfo_size, 1);
	CHECK_INT(l536->p_lineinfo_size, 4);
	/* 5.3.0 kept a plain length; from 5.3.1 short strings use shrlen. */
	CHECK(present(l530->ts_len) && !(l530->flags & LUA_LF_STR_SHRLEN));
	CHECK(present(l536->ts_shrlen) && (l536->flags & LUA_LF_STR_SHRLEN));
	CHECK(l544->flags & LUA_LF_OP_KBIT);
	CHECK(!(l536->flags & LUA_LF_OP_KBIT) && l536->bitrk != 0);
	/* Opcodes that exist only in some versions. */
	CHECK(l51->op[LOP_GETGLOBAL] != LUA_OP_NONE && l52->op[LOP_GETGLOBAL] == LUA_OP_NONE);
	CHECK(l51->op[LOP_GETTABUP] == LUA_OP_NONE && l52->op[LOP_GETTABUP] != LUA_OP_NONE);
	CHECK(l51->op[LOP_TFORCALL] == LUA_OP_NONE && l52->op[LOP_TFORCALL] != LUA_OP_NONE);
	CHECK(l536->op[LOP_MMBIN] == LUA_OP_NONE && l544->op[LOP_MMBIN] != LUA_OP_NONE);
	CHECK(l536->op[LOP_GETFIELD] == LUA_OP_NONE && l544->op[LOP_GETFIELD] != LUA_OP_NONE);
}

/* Lua 5.5's changes the walker, the scan and the namer depend on (lstate.h, lobject.h,
 * lopcodes.h), and the patch releases verified from Debian unstable's sources. */
static void test_version_55(void)
{
	const struct puc_layout *l544 = puc_layout_for(5, 4, 4), *l549 = puc_layout_for(5, 4, 9),
		*l550 = puc_layout_for(5, 5, 0), *l551 = puc_layout_for(5, 5, 1);
	CHECK(l544 && l549 && l550 && l551);
	if (!(l544 && l549 && l550 && l551))
		return;
	CHECK(l549 == l544 && l549->patch_hi >= 9);  /* 5.4.9 probed, same layout as 5.4.3+ */
	CHECK(l550 != l551 && l551->patch_lo == 1);    /* 5.5.1 fixed an opcode mode */
	/* the main thread lives inside global_State, which has no mainthread pointer */
	CHECK((l551->flags & LUA_LF_MAIN_IN_G) && !(l544->flags & LUA_LF_MAIN_IN_G));
	CHECK(!present(l551->g_mainthread) && l551->lg_g == 0);
	CHECK(l551->lg_l + l551->l_sizeof <= l551->g_sizeof && l551->lg_sizeof == l551->g_sizeof);
	/* callstatus is 32 bits, nresults is folded into it, the flags moved above bit 15 */
	CHECK_INT(l551->ci_callstatus_size, 4);
	CHECK(!present(l551->ci_nresults) && present(l544->ci_nresults));
	CHECK(l551->cist_fresh > 0xffff && l551->cist_tail > 0xffff && l551->cist_c == 0x8000);
	/* long strings keep their bytes behind a pointer */
	CHECK((l551->flags & LUA_LF_STR_LNGPTR) && !(l544->flags & LUA_LF_STR_LNGPTR));
	/* OP_GETVARG is new; one more instruction format (ivABC) shifts the mode numbers */
	CHECK(l551->op[LOP_GETVARG] != LUA_OP_NONE && l544->op[LOP_GETVARG] == LUA_OP_NONE);
	CHECK(l551->mode_iabx == l544->mode_iabx + 1 && l551->mode_isj == l544->mode_isj + 1);
}

/* off..off+size lies inside a struct of struct_size bytes (absent fields pass). */
static int inside(unsigned off, unsigned size, unsigned struct_size)
{
	return off == NONE || off + size <= struct_size;
}

static int distinct(const uint16_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (v[i] != NONE && v[i] == v[j])
				return 0;
	return 1;
}

static int ptr_aligned(const uint16_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] != NONE && v[i] % 8)
			return 0;
	return 1;
}

static void check_state_offsets(const struct puc_layout *t)
{
	const uint16_t l[] = { t->l_status, t->l_top, t->l_base, t->l_l_G, t->l_ci, t->l_savedpc,
		t->l_stack_last, t->l_stack, t->l_end_ci, t->l_base_ci, t->l_size_ci, t->l_nci, t->gch_tt };
	const uint16_t lp[] = { t->l_top, t->l_base, t->l_l_G, t->l_ci, t->l_savedpc, t->l_stack_last,
		t->l_stack, t->l_end_ci, t->l_base_ci };
	for (size_t i = 0; i < sizeof l / sizeof l[0]; i++)
		CHECK(inside(l[i], 1, t->l_sizeof));
	CHECK(distinct(l, sizeof l / sizeof l[0]));
	CHECK(ptr_aligned(lp, sizeof lp / sizeof lp[0]));
	CHECK(inside(t->l_l_G, 8, t->l_sizeof) && inside(t->l_ci, 8, t->l_sizeof));
	if (t->flags & LUA_LF_CI_ARRAY)
		CHECK(inside(t->l_base_ci, 8, t->l_sizeof));
	else
		CHECK(inside(t->l_base_ci, t->ci_sizeof, t->l_sizeof));
	CHECK(inside(t->g_tmname, 8u * t->tm[LTM_N], t->g_sizeof));
	if (t->flags & LUA_LF_MAIN_IN_G) {
		/* 5.5: global_State is the block; the main thread sits inside it, after tmname */
		CHECK(!present(t->g_mainthread) && t->lg_g == 0 && t->lg_sizeof == t->g_sizeof);
		CHECK(t->lg_l >= t->g_tmname + 8u * t->tm[LTM_N] && t->lg_l + t->l_sizeof <= t->g_sizeof);
		CHECK(t->lg_l % 8 == 0);
	} else {
		CHECK(inside(t->g_mainthread, 8, t->g_sizeof) && t->g_mainthread % 8 == 0);
		/* LG holds the main thread, then the global state at the next aligned offset. */
		CHECK(t->lg_g >= t->lg_l + t->l_sizeof && t->lg_g - (t->lg_l + t->l_sizeof) < 16);
		CHECK(t->lg_sizeof >= t->lg_g + t->g_sizeof);
	}
	CHECK(t->gch_tt == 8);  /* CommonHeader: next pointer, then the tag */
}

static void check_callinfo_offsets(const struct puc_layout *t)
{
	const uint16_t c[] = { t->ci_func, t->ci_top, t->ci_base, t->ci_savedpc, t->ci_previous,
		t->ci_next, t->ci_nresults, t->ci_callstatus, t->ci_tailcalls };
	const uint16_t cp[] = { t->ci_func, t->ci_top, t->ci_base, t->ci_savedpc, t->ci_previous,
		t->ci_next };
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		CHECK(inside(c[i], 1, t->ci_sizeof));
	CHECK(distinct(c, sizeof c / sizeof c[0]));
	CHECK(ptr_aligned(cp, sizeof cp / sizeof cp[0]));
	CHECK(present(t->ci_func) && present(t->ci_savedpc));
	if (present(t->ci_callstatus))
		CHECK(inside(t->ci_callstatus, t->ci_callstatus_size, t->ci_sizeof));
	CHECK(present(t->ci_previous) == present(t->ci_next));
	CHECK(present(t->ci_previous) != !!(t->flags & LUA_LF_CI_ARRAY));
	/* Exactly one way to tell Lua frames from C frames; bits are single and distinct. */
	CHECK((t->cist_lua != 0) + (t->cist_c != 0) <= 1);
	CHECK((t->cist_fresh != 0) + (t->cist_reentry != 0) <= 1);
	const uint32_t bits[] = { t->cist_lua, t->cist_c, t->cist_fresh, t->cist_reentry,
		t->cist_tail, t->cist_hooked, t->cist_fin };
	uint32_t seen = 0;
	for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
		CHECK((bits[i] & (bits[i] - 1)) == 0);
		CHECK((seen & bits[i]) == 0);
		seen |= bits[i];
	}
	if (present(t->ci_callstatus))
		CHECK(seen < (1ull << (8 * t->ci_callstatus_size)) && (t->cist_lua || t->cist_c));
}

static void check_value_offsets(const struct puc_layout *t)
{
	CHECK(inside(t->tv_value, 8, t->tv_sizeof));
	CHECK(inside(t->tv_tt, t->tv_tt_size, t->tv_sizeof) && t->tv_tt != t->tv_value);
	CHECK(t->stack_slot >= t->tv_sizeof);
	/* Basic type in the low nibble: 6 function, 4 string, 8 thread. */
	CHECK((t->tvtag_lcl & 0xf) == 6 && (t->tvtag_ccl & 0xf) == 6);
	CHECK((t->tvtag_shrstr & 0xf) == 4 && (t->tvtag_lngstr & 0xf) == 4);
	CHECK(t->gctag_thread == 8 && (t->gctag_lcl & 0xf) == 6 && (t->gctag_shrstr & 0xf) == 4);
	if (t->flags & LUA_LF_CL_ISC)
		CHECK(present(t->cl_isC) && t->tvtag_lcl == t->tvtag_ccl);
	else
		CHECK(!present(t->cl_isC) && t->tvtag_lcl != t->tvtag_ccl);
	CHECK(present(t->tvtag_lcf) == !!(t->flags & LUA_LF_LCF));
	const uint16_t tags[] = { t->tvtag_lcl, t->tvtag_lcf, t->tvtag_shrstr };
	CHECK(distinct(tags, 3));
	CHECK(t->lcl_p % 8 == 0 && t->ccl_f % 8 == 0 && t->lcl_p > t->gch_tt && t->ccl_f > t->gch_tt);
	CHECK(t->lcl_upvals > t->lcl_p && t->ccl_upvalue > t->ccl_f);
}

static void check_proto_offsets(const struct puc_layout *t)
{
	const uint16_t p[] = { t->p_source, t->p_linedefined, t->p_lastlinedefined, t->p_code,
		t->p_sizecode, t->p_lineinfo, t->p_sizelineinfo, t->p_abslineinfo, t->p_sizeabslineinfo,
		t->p_k, t->p_sizek, t->p_upvalues, t->p_sizeupvalues, t->p_locvars, t->p_sizelocvars,
		t->p_p, t->p_sizep, t->p_numparams, t->p_is_vararg, t->p_maxstacksize, t->gch_tt };
	const uint16_t pp[] = { t->p_source, t->p_code, t->p_lineinfo, t->p_abslineinfo, t->p_k,
		t->p_upvalues, t->p_locvars, t->p_p };
	for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
		CHECK(inside(p[i], 1, t->p_sizeof));
	CHECK(distinct(p, sizeof p / sizeof p[0]));
	CHECK(ptr_aligned(pp, sizeof pp / sizeof pp[0]));
	CHECK(present(t->p_abslineinfo) == !!(t->flags & LUA_LF_ABSLINEINFO));
	CHECK(present(t->p_sizeabslineinfo) == present(t->p_abslineinfo));
	if (present(t->ali_sizeof))
		CHECK(inside(t->ali_pc, 4, t->ali_sizeof) && inside(t->ali_line, 4, t->ali_sizeof));
	CHECK(inside(t->uv_name, 8, t->uv_sizeof));
	CHECK(inside(t->lv_varname, 8, t->lv_sizeof) && inside(t->lv_startpc, 4, t->lv_sizeof) &&
	      inside(t->lv_endpc, 4, t->lv_sizeof) && t->lv_startpc != t->lv_endpc);
	CHECK(t->p_lineinfo_size == 1 || t->p_lineinfo_size == 4);
	/* The string bytes follow the header; lengths sit inside it. */
	CHECK(t->ts_contents > t->gch_tt && t->ts_contents % 8 == 0);
	if (t->flags & LUA_LF_STR_SHRLEN)
		CHECK(!present(t->ts_len) && t->ts_shrlen < t->ts_contents &&
		      t->ts_lnglen + 8 <= t->ts_contents && t->tvtag_shrstr != t->tvtag_lngstr);
	else
		CHECK(present(t->ts_len) && t->ts_len + 8 <= t->ts_contents);
}

/* Field (pos, size) pairs of an instruction must not overlap and must fit in 32 bits. */
static void check_instruction_fields(const struct puc_layout *t)
{
	const uint16_t pos[] = { t->pos_op, t->pos_a, t->pos_b, t->pos_c, t->pos_k };
	const uint16_t size[] = { t->size_op, t->size_a, t->size_b, t->size_c, 1 };
	uint32_t used = 0;
	for (size_t i = 0; i < 5; i++) {
		if (pos[i] == NONE)
			continue;
		CHECK(pos[i] + size[i] <= 32 && size[i] > 0);
		uint32_t m = (uint32_t)(((1ull << size[i]) - 1) << pos[i]);
		CHECK((used & m) == 0);
		used |= m;
	}
	CHECK(used == 0xffffffffu);  /* op, A, B, C (and k) tile the word */
	CHECK(t->pos_bx == t->pos_a + t->size_a && t->pos_bx + t->size_bx == 32);
	CHECK(t->offset_sbx == ((1u << t->size_bx) - 1) >> 1);
	if (present(t->pos_ax))
		CHECK(t->pos_ax == t->pos_a && t->pos_ax + t->size_ax == 32);
	if (present(t->pos_sj))
		CHECK(t->pos_sj + t->size_sj == 32 && t->offset_sj == ((1u << t->size_sj) - 1) >> 1);
	if (t->flags & LUA_LF_OP_KBIT)
		CHECK(present(t->pos_k) && t->bitrk == 0 && t->offset_sc == ((1u << t->size_c) - 1) >> 1);
	else
		CHECK(!present(t->pos_k) && t->bitrk == 1u << (t->size_b - 1));
}

static void check_opcodes(const struct puc_layout *t)
{
	CHECK(t->num_opcodes > 30 && t->num_opcodes <= LUA_MAX_OPCODES);
	CHECK(t->num_opcodes <= (1u << t->size_op));
	uint8_t seen[256] = { 0 };
	for (int i = 0; i < LOP_COUNT; i++) {
		if (t->op[i] == LUA_OP_NONE)
			continue;
		CHECK(t->op[i] < t->num_opcodes);
		CHECK(!seen[t->op[i]]);
		seen[t->op[i]] = 1;
	}
	const int always[] = { LOP_MOVE, LOP_LOADK, LOP_LOADNIL, LOP_GETUPVAL, LOP_GETTABLE, LOP_SELF,
		LOP_CALL, LOP_TAILCALL, LOP_RETURN, LOP_JMP, LOP_CONCAT, LOP_CLOSURE, LOP_VARARG };
	for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
		CHECK(t->op[always[i]] != LUA_OP_NONE);
	unsigned maxmode = present(t->mode_isj) ? t->mode_isj : present(t->mode_iax) ? t->mode_iax : t->mode_iasbx;
	for (int i = 0; i < t->num_opcodes; i++)
		CHECK((t->opmodes[i] & t->om_mode_mask) <= maxmode);
	/* Opcode modes agree with what each instruction does. */
	uint8_t call = t->opmodes[t->op[LOP_CALL]], jmp = t->opmodes[t->op[LOP_JMP]];
	uint8_t move = t->opmodes[t->op[LOP_MOVE]], loadk = t->opmodes[t->op[LOP_LOADK]];
	CHECK(call & (1u << t->om_a_bit));
	CHECK((call & t->om_mode_mask) == t->mode_iabc);
	CHECK((move & (1u << t->om_a_bit)) && (loadk & t->om_mode_mask) == t->mode_iabx);
	CHECK(!(jmp & (1u << t->om_a_bit)));
	CHECK((jmp & t->om_mode_mask) == (present(t->mode_isj) ? t->mode_isj : t->mode_iasbx));
	CHECK(t->op[LOP_EQ] != LUA_OP_NONE && (t->opmodes[t->op[LOP_EQ]] & (1u << t->om_t_bit)));
	CHECK(t->om_a_bit != t->om_t_bit && t->om_a_bit < 8 && t->om_t_bit < 8);
	for (int i = t->num_opcodes; i < LUA_MAX_OPCODES; i++)
		CHECK(t->opmodes[i] == 0);
	/* Metamethod events: distinct, below TM_N, and __index first (Lua relies on that). */
	uint8_t tms[64] = { 0 };
	CHECK(t->tm[LTM_INDEX] == 0 && t->tm[LTM_N] < 64 && t->tm[LTM_N] >= 17);
	for (int i = 0; i < LTM_N; i++) {
		if (t->tm[i] == LUA_OP_NONE)
			continue;
		CHECK(t->tm[i] < t->tm[LTM_N] && !tms[t->tm[i] & 63]);
		tms[t->tm[i] & 63] = 1;
	}
}

static void test_sanity_every_table(void)
{
	for (size_t i = 0; i < puc_layout_count(); i++) {
		const struct puc_layout *t = puc_layout_at(i);
		int before = check_failed;
		CHECK(t->major == 5 && t->minor >= 1 && t->minor <= 5 && t->patch_lo <= t->patch_hi);
		check_state_offsets(t);
		check_callinfo_offsets(t);
		check_value_offsets(t);
		check_proto_offsets(t);
		check_instruction_fields(t);
		check_opcodes(t);
		if (check_failed != before)
			printf("  (in table for Lua 5.%d.%d-5.%d.%d)\n", t->minor, t->patch_lo, t->minor,
			       t->patch_hi);
	}
}

/* Runs the finder on a copy of s placed at the very end of a page followed by an inaccessible
 * one, so any read past the buffer faults. */
static int detect_guarded(const char *s, size_t n, int *a, int *b, int *c)
{
	long pg = sysconf(_SC_PAGESIZE);
	if (n > (size_t)pg)
		return -1;
	char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m + pg, (size_t)pg, PROT_NONE))
		return -1;
	char *buf = m + pg - n;
	memcpy(buf, s, n);
	int r = puc_version_from_bytes(buf, n, a, b, c);
	munmap(m, 2 * (size_t)pg);
	return r;
}

#define DETECT(lit, a, b, c) detect_guarded(lit, sizeof(lit) - 1, a, b, c)

static void test_version_real_strings(void)
{
	int a = -1, b = -1, c = -1;
	/* lua_ident as Debian's lua5.2-5.4 builds carry it. */
	CHECK_INT(DETECT("\0x$LuaVersion: Lua 5.4.4  Copyright (C) 1994-2022 Lua.org, PUC-Rio "
			 "$$LuaAuthors: R. Ierusalimschy, L. H. de Figueiredo, W. Celes $\0", &a, &b, &c),
		  LUA_VSRC_IDENT);
	CHECK(a == 5 && b == 4 && c == 4);
	CHECK_INT(DETECT("$LuaVersion: Lua 5.2.4  Copyright (C) 1994-2015 Lua.org, PUC-Rio $", &a,
			 &b, &c), LUA_VSRC_IDENT);
	CHECK(a == 5 && b == 2 && c == 4);
	/* 5.5.1 built from Debian unstable's source package, as its binary carries it */
	CHECK_INT(DETECT("Lua 5.5.1  Copyright (C) 1994-2026 Lua.org, PUC-Rio\0$LuaVersion: Lua 5.5.1  "
			 "Copyright (C) 1994-2026 Lua.org, PUC-Rio $$LuaAuthors: R. Ierusalimschy, L. H. de "
			 "Figueiredo, W. Celes $", &a, &b, &c), LUA_VSRC_IDENT);
	CHECK(a == 5 && b == 5 && c == 1);
	/* 5.1's lua_ident (lua5.1, redis-server). */
	CHECK_INT(DETECT("junk\0$Lua: Lua 5.1.5 Copyright (C) 1994-2012 Lua.org, PUC-Rio $\n"
			 "$Authors: R. Ierusalimschy, L. H. de Figueiredo & W. Celes $\n", &a, &b, &c),
		  LUA_VSRC_IDENT);
	CHECK(a == 5 && b == 1 && c == 5);
	/* 5.1.0 had no patch number. */
	CHECK_INT(DETECT("$Lua: Lua 5.1 Copyright (C) 1994-2006 Lua.org, PUC-Rio $", &a, &b, &c),
		  LUA_VSRC_IDENT);
	CHECK(a == 5 && b == 1 && c == 0);
	/* Interpreter banner only. */
	CHECK_INT(DETECT("usage...\0Lua 5.3.6  Copyright (C) 1994-2020 Lua.org, PUC-Rio\0", &a, &b,
			 &c), LUA_VSRC_RELEASE);
	CHECK(a == 5 && b == 3 && c == 6);
	/* The ident wins over an earlier banner. */
	CHECK_INT(DETECT("Lua 5.3.5  Copyright (C) x\0$LuaVersion: Lua 5.3.6  Copyright", &a, &b,
			 &c), LUA_VSRC_IDENT);
	CHECK(c == 6);
}

static void test_version_not_puc(void)
{
	int a = 7, b = 7, c = 7;
	CHECK_INT(DETECT("LuaJIT 2.1.0-beta3 -- Copyright (C) 2005-2022 Mike Pall\0Lua 5.1\0", &a, &b,
			 &c), LUA_VSRC_NONE);
	CHECK_INT(DETECT("Built with Lua version : Lua 5.3.6\0", &a, &b, &c), LUA_VSRC_NONE);
	CHECK_INT(DETECT("$LuaAuthors: R. Ierusalimschy $", &a, &b, &c), LUA_VSRC_NONE);
	CHECK(a == 7 && b == 7 && c == 7);  /* untouched on failure */
	CHECK_INT(puc_version_from_bytes(NULL, 100, &a, &b, &c), LUA_VSRC_NONE);
	CHECK_INT(puc_version_from_bytes("", 0, &a, &b, &c), LUA_VSRC_NONE);
}

static void test_version_hostile(void)
{
	int a = 7, b = 7, c = 7;
	/* Truncated at the buffer's end, in every position. */
	static const char full[] = "$LuaVersion: Lua 5.4.4 ";
	for (size_t n = 1; n < sizeof full - 1; n++)
		CHECK_INT(detect_guarded(full, n, &a, &b, &c), LUA_VSRC_NONE);
	CHECK_INT(detect_guarded(full, sizeof full - 1, &a, &b, &c), LUA_VSRC_IDENT);
	a = b = c = 7;
	static const char banner[] = "Lua 5.3.6  Copyright (C) ";
	for (size_t n = 1; n < sizeof banner - 1; n++)
		CHECK_INT(detect_guarded(banner, n, &a, &b, &c), LUA_VSRC_NONE);
	CHECK_INT(DETECT("$LuaVersion: Lua 99999999999999999999.4.4 ", &a, &b, &c), LUA_VSRC_NONE);
	CHECK_INT(DETECT("$LuaVersion: Lua 5.4.44444 ", &a, &b, &c), LUA_VSRC_NONE);
	CHECK_INT(DETECT("$LuaVersion: Lua 5..4 ", &a, &b, &c), LUA_VSRC_NONE);
	CHECK_INT(DETECT("$LuaVersion: Lua .5.4 ", &a, &b, &c), LUA_VSRC_NONE);
	CHECK_INT(DETECT("$LuaVersion: Lua 5 ", &a, &b, &c), LUA_VSRC_NONE);
	CHECK_INT(DETECT("$LuaVersion: Lua 5.4.", &a, &b, &c), LUA_VSRC_NONE);
	CHECK_INT(DETECT("$LuaVersion: Lua 5.4.4\n", &a, &b, &c), LUA_VSRC_NONE);
	CHECK_INT(DETECT("Lua 5.4.4   Copyright (C) ", &a, &b, &c), LUA_VSRC_NONE);
	CHECK(a == 7 && b == 7 && c == 7);
	/* A bad candidate does not hide a good one after it. */
	CHECK_INT(DETECT("$LuaVersion: Lua 5.x $LuaVersion: Lua 5.3.2 $", &a, &b, &c), LUA_VSRC_IDENT);
	CHECK(a == 5 && b == 3 && c == 2);
	/* Many near-misses: the scan stays linear and finds the one at the end. */
	size_t n = 4u << 20;
	char *big = malloc(n);
	CHECK(big != NULL);
	if (!big)
		return;
	static const char miss[] = "$Lua: Lua 5.";
	for (size_t i = 0; i + sizeof miss - 1 <= n; i += sizeof miss - 1)
		memcpy(big + i, miss, sizeof miss - 1);
	memcpy(big + n - 16, "$Lua: Lua 5.1.4 ", 16);
	CHECK_INT(puc_version_from_bytes(big, n, &a, &b, &c), LUA_VSRC_IDENT);
	CHECK(a == 5 && b == 1 && c == 4);
	free(big);
}

/* --detect FILE...: version per file, read whole with plain reads (capped). */
static int detect_files(int argc, char **argv)
{
	int rc = 0;
	for (int i = 0; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		char *buf = f ? malloc(MAX_FILE) : NULL;
		size_t n = buf ? fread(buf, 1, MAX_FILE, f) : 0;
		if (f)
			fclose(f);
		if (!buf) {
			printf("%s error\n", argv[i]);
			rc = 1;
			continue;
		}
		int a = 0, b = 0, c = 0;
		int r = puc_version_from_bytes(buf, n, &a, &b, &c);
		const struct puc_layout *t = r ? puc_layout_for(a, b, c) : NULL;
		if (r && t)
			printf("%s %d.%d.%d %s 5.%d.%d-5.%d.%d\n", argv[i], a, b, c,
			       r == LUA_VSRC_IDENT ? "ident" : "release", t->minor, t->patch_lo, t->minor,
			       t->patch_hi);
		else if (r)
			printf("%s %d.%d.%d %s no-layout\n", argv[i], a, b, c,
			       r == LUA_VSRC_IDENT ? "ident" : "release");
		else
			printf("%s none\n", argv[i]);
		free(buf);
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--detect"))
		return detect_files(argc - 2, argv + 2);
	RUN(test_lookup_covers_each_patch);
	RUN(test_lookup_unknown);
	RUN(test_ranges_disjoint);
	RUN(test_version_semantics);
	RUN(test_version_55);
	RUN(test_sanity_every_table);
	RUN(test_version_real_strings);
	RUN(test_version_not_puc);
	RUN(test_version_hostile);
	CHECK_EXIT();
}
