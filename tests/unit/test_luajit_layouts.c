/* Tests of the LuaJIT layout table and variant detection: lookups, relations every layout
 * must satisfy, detection on synthetic and hostile buffers, and validation of fake GG_State
 * blocks. Extra modes check real binaries and live processes (tests/integ/luajit_detect.sh):
 *   test_luajit_layouts --detect SYMS_FILE RODATA_FILE   prints the detected variant
 *   test_luajit_layouts --scan PID [SCRIPT_NAME]         finds and checks g in a live VM */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "arch.h"
#include "check.h"
#include "luajit_layouts.h"

static const enum luajit_variant all_variants[] = {
	LUAJIT_UPSTREAM_GC64, LUAJIT_UPSTREAM_NOGC64, LUAJIT_BETA3_GC64, LUAJIT_BETA3_NOGC64, LUAJIT_OPENRESTY_GC64,
	LUAJIT_OPENRESTY_NOGC64, LUAJIT_OPENRESTY25_GC64, LUAJIT_OPENRESTY25_NOGC64, LUAJIT_TARANTOOL_GC64,
	LUAJIT_TARANTOOL_NOGC64,
};
#define NVARIANTS (sizeof(all_variants) / sizeof(all_variants[0]))

static void test_lookup(void)
{
	for (size_t i = 0; i < NVARIANTS; i++) {
		const struct luajit_layout *l = luajit_layout_get(all_variants[i]);
		CHECK(l != NULL);
		if (!l)
			continue;
		CHECK_INT(l->variant, all_variants[i]);
		/* a fork's first layout of a GC mode; the others are told apart in memory */
		const struct luajit_layout *first = luajit_layout_get(luajit_variant_of(l->fork, l->gc64));
		CHECK(first && first->fork == l->fork && first->gc64 == l->gc64 && first->variant <= l->variant);
		CHECK(strstr(l->name, luajit_fork_name(l->fork)) == l->name);
		CHECK(strstr(l->name, l->gc64 ? " GC64" : "non-GC64") != NULL);
	}
	CHECK(luajit_layout_get(LUAJIT_VARIANT_UNKNOWN) == NULL);
	CHECK(luajit_layout_get(LUAJIT_VARIANT_COUNT) == NULL);
	CHECK(luajit_layout_get((enum luajit_variant)-1) == NULL);
	CHECK_INT(luajit_variant_of(LUAJIT_FORK_UNKNOWN, 1), LUAJIT_VARIANT_UNKNOWN);
	CHECK_INT(luajit_variant_of(LUAJIT_FORK_OPENRESTY, -1), LUAJIT_VARIANT_UNKNOWN);
	CHECK_INT(luajit_variant_of(LUAJIT_FORK_OPENRESTY, 2), LUAJIT_VARIANT_UNKNOWN);
	CHECK_INT(luajit_variant_of(LUAJIT_FORK_TARANTOOL, 0), LUAJIT_TARANTOOL_NOGC64);
}

/* Relations LuaJIT's own headers guarantee; a wrong table breaks at least one. */
static void check_relations(const struct luajit_layout *l)
{
	int ref = l->gc64 ? 8 : 4;
	CHECK_INT(l->fr2, l->gc64);
	CHECK_INT(l->gcref_size, ref);
	CHECK_INT(l->mref_size, ref);
	CHECK_INT(l->tvalue_size, 8);
	CHECK_INT(l->gcv_bits, l->gc64 ? 47 : 32);
	/* GCHeader: nextgc, marked, gct; then the per-type bytes. */
	CHECK_INT(l->L_gct, ref + 1);
	CHECK_INT(l->fn_gct, ref + 1);
	CHECK_INT(l->pt_gct, ref + 1);
	CHECK_INT(l->str_gct, ref + 1);
	CHECK_INT(l->T_gct, ref + 1);
	CHECK_INT(l->L_dummy_ffid, l->L_gct + 1);
	CHECK_INT(l->fn_ffid, l->fn_gct + 1);
	CHECK(l->L_glref < l->L_base && l->L_base + 8 == l->L_top && l->L_cframe < l->L_size);
	CHECK_INT(l->L_glref % ref, 0);
	CHECK_INT(l->L_base % 8, 0);
	CHECK_INT(l->L_cframe % 8, 0);
	/* GG_State starts with the main thread, then g, J, the dispatch table. */
	CHECK_INT(l->gg_L, 0);
	CHECK(l->gg_g >= l->L_size);
	CHECK(l->gg_J >= l->gg_g + l->g_size);
	CHECK(l->gg_dispatch > l->gg_J && l->gg_dispatch < l->gg_size);
	CHECK_INT(l->gg_dispatch % 8, 0);
	CHECK(l->g_vmstate < l->g_size && l->g_cur_L < l->g_size && l->g_jit_base < l->g_size);
	CHECK_INT(l->g_jit_base, l->g_cur_L + ref);
	CHECK_INT(l->g_cur_L % ref, 0);
	CHECK_INT(l->g_vmstate % 4, 0);
	CHECK_INT(l->g_saved_jit_base >= 0, l->fork == LUAJIT_FORK_OPENRESTY);
	CHECK(l->J_trace + 8 <= l->gg_dispatch - l->gg_J);
	/* Bytecode follows the proto header, 4-byte aligned; string bytes follow GCstr. */
	CHECK_INT(l->pt_size % 8, 0);
	CHECK(l->pt_varinfo + ref <= l->pt_size && l->pt_firstline + 4 == l->pt_numline);
	CHECK(l->str_len + 4 <= l->str_size);
	CHECK_INT(l->fn_l_uvptr, l->fn_pc + ref);
	CHECK(l->fn_c_f >= l->fn_l_uvptr && l->fn_c_upvalue == l->fn_c_f + 8);
	CHECK(l->T_traceno > l->T_mcode && l->traceno_size == 2);
	/* Frames and C frames. */
	CHECK_INT(l->frame_typep, l->frame_type | l->frame_p);
	CHECK_INT(l->frame_c, 1);
	CHECK_INT(l->frame_cp, l->frame_c | l->frame_p);
	CHECK_INT(l->cframe_rawmask, ~(int64_t)(l->cframe_resume | l->cframe_unwind_ff));
	CHECK(l->cframe_ofs_l + 8 <= l->cframe_size && l->cframe_ofs_pc + 4 <= l->cframe_size);
	/* lj_frame.h: only x86-64 reserves 16 more bytes for traces (BC_JLOOP's r12/r13); arm64,
	 * always GC64, runs them in the interpreter's own frame. */
#ifdef LF_ARCH_ARM64
	CHECK_INT(l->cframe_size_jit, l->cframe_size + (l->gc64 ? 0 : 16));
#else
	CHECK_INT(l->cframe_size_jit, l->cframe_size + 16);
#endif
	CHECK_INT(l->vmst_interp, 0);
	CHECK_INT(l->vmst_max, 7);
	CHECK(l->ff_lua == 0 && l->ff_c == 1);
	/* Types are distinct tags. */
	CHECK(l->gct_str != l->gct_thread && l->gct_func != l->gct_proto && l->gct_trace != l->gct_func);
}

static void check_bytecode(const struct luajit_layout *l)
{
	CHECK(l->bc_max > 0 && l->bc_max <= LUAJIT_BC_CAP);
	CHECK_INT(l->bc_names_count, l->bc_max);
	CHECK_STR(luajit_name_at(l->bc_names, l->bc_names_count, l->bc_call), "CALL");
	CHECK_STR(luajit_name_at(l->bc_names, l->bc_names_count, l->bc_tgets), "TGETS");
	CHECK_STR(luajit_name_at(l->bc_names, l->bc_names_count, l->bc_uget), "UGET");
	CHECK_STR(luajit_name_at(l->bc_names, l->bc_names_count, l->bc_gget), "GGET");
	CHECK_STR(luajit_name_at(l->bc_names, l->bc_names_count, l->bc_mov), "MOV");
	CHECK_STR(luajit_name_at(l->bc_names, l->bc_names_count, l->bc_funccw), "FUNCCW");
	CHECK_STR(luajit_name_at(l->mm_names, l->mm_names_count, l->mm_call), "call");
	CHECK_STR(luajit_name_at(l->mm_names, l->mm_names_count, l->mm_index), "index");
	CHECK(luajit_name_at(l->bc_names, l->bc_names_count, l->bc_max) == NULL);
	/* Exactly the call instructions carry the call metamethod (lj_debug_funcname). */
	int calls = 0;
	for (int32_t op = 0; op < l->bc_max; op++) {
		unsigned mm = LUAJIT_BCMODE_MM(l->bcmode[op]);
		CHECK(mm <= (unsigned)l->mm_max);
		if (mm != (unsigned)l->mm_call)
			continue;
		calls++;
		CHECK(op == l->bc_callm || op == l->bc_call || op == l->bc_callmt || op == l->bc_callt
		      || op == l->bc_iterc || op == l->bc_itern);
	}
	CHECK_INT(calls, 6);
	CHECK_INT(LUAJIT_BCMODE_A(l->bcmode[l->bc_call]), l->bcm_base);
	CHECK_INT(LUAJIT_BCMODE_A(l->bcmode[l->bc_mov]), l->bcm_dst);
	CHECK_INT(LUAJIT_BCMODE_MM(l->bcmode[l->bc_tgets]), l->mm_index);
	CHECK_INT(LUAJIT_BCMODE_MM(l->bcmode[l->bc_tsets]), l->mm_newindex);
	CHECK_INT(LUAJIT_BCMODE_MM(l->bcmode[l->bc_mov]), l->mm_max);
	CHECK(l->ff_names_count > 100 && l->ff_names_count <= 256);
}

static void test_relations(void)
{
	for (size_t i = 0; i < NVARIANTS; i++) {
		const struct luajit_layout *l = luajit_layout_get(all_variants[i]);
		if (!l) {
			CHECK(l != NULL);
			continue;
		}
		check_relations(l);
		check_bytecode(l);
	}
	/* The forks differ where their sources differ. */
	const struct luajit_layout *u = luajit_layout_get(LUAJIT_UPSTREAM_GC64);
	const struct luajit_layout *o = luajit_layout_get(LUAJIT_OPENRESTY_GC64);
	const struct luajit_layout *t = luajit_layout_get(LUAJIT_TARANTOOL_GC64);
	CHECK(u && o && t);
	if (u && o && t) {
		CHECK_INT(o->L_size, u->L_size + 16); /* exdata, exdata2 */
		CHECK(t->g_vmstate != u->g_vmstate);   /* string interning state moved */
		CHECK(u->gg_dispatch - u->gg_g != o->gg_dispatch - o->gg_g);
	}
}

static void test_ff_names(void)
{
	const struct luajit_layout *l = luajit_layout_get(LUAJIT_OPENRESTY_GC64);
	char buf[64];
	int found_rep = 0, found_write = 0, found_assert = 0;
	CHECK(l != NULL);
	if (!l)
		return;
	for (int32_t id = 2; id < l->ff_names_count; id++) {
		const char *n = luajit_ff_name(l, id, buf, sizeof(buf));
		CHECK(n != NULL);
		if (!n)
			continue;
		found_rep += !strcmp(n, "string.rep");
		found_write += !strcmp(n, "file:write");
		found_assert += !strcmp(n, "assert");
		CHECK(strncmp(n, "string_", 7) != 0);
	}
	CHECK_INT(found_rep, 1);
	CHECK_INT(found_write, 1);
	CHECK_INT(found_assert, 1);
	CHECK(luajit_ff_name(l, 0, buf, sizeof(buf)) == NULL);
	CHECK(luajit_ff_name(l, 1, buf, sizeof(buf)) == NULL);
	CHECK(luajit_ff_name(l, -5, buf, sizeof(buf)) == NULL);
	CHECK(luajit_ff_name(l, l->ff_names_count, buf, sizeof(buf)) == NULL);
	CHECK(luajit_ff_name(l, 2, buf, 3) == NULL);
	CHECK(luajit_ff_name(NULL, 2, buf, sizeof(buf)) == NULL);
}

/* ---- detection from files ---- */

static char rodata[4096];
static size_t rodata_len;

static void ro_reset(void) { rodata_len = 0; memset(rodata, 0x5a, sizeof(rodata)); }
static void ro_add(const char *s, size_t n)
{
	if (rodata_len + n + 1 > sizeof(rodata))
		return;
	memcpy(rodata + rodata_len, s, n);
	rodata_len += n;
	rodata[rodata_len++] = 0;
}
#define RO(lit) ro_add(lit, sizeof(lit) - 1)

static enum luajit_variant detect(const char *const *syms, size_t n, struct luajit_file_facts *f)
{
	return luajit_detect_file(syms, n, rodata, rodata_len, f);
}

static void test_detect_markers(void)
{
	static const char *const plain[] = { "lua_pcall", "luaJIT_setmode" };
	static const char *const resty[] = { "lua_pcall", NULL, "lua_getexdata", "luaJIT_setmode" };
	static const char *const misc[] = { "luaM_metrics", "lua_call" };
	struct luajit_file_facts f;

	ro_reset(); RO("x"); RO("LuaJIT 2.1.0-beta3"); RO("\002le\004gc64");
	/* the 2017 release: no "number out of range" among its errors */
	CHECK_INT(detect(plain, 2, &f), LUAJIT_BETA3_GC64);
	RO("number out of range");
	CHECK_INT(detect(plain, 2, &f), LUAJIT_UPSTREAM_GC64);
	CHECK_STR(f.version, "LuaJIT 2.1.0-beta3");
	CHECK_INT(detect(resty, 4, &f), LUAJIT_OPENRESTY_GC64);

	ro_reset(); RO("LuaJIT 2.1.1700008891"); RO("Must use luaL_newstate() for 64 bit target");
	CHECK_INT(detect(plain, 2, &f), LUAJIT_BETA3_NOGC64);
	RO("number out of range");
	CHECK_INT(detect(plain, 2, &f), LUAJIT_UPSTREAM_NOGC64);
	CHECK_STR(f.version, "LuaJIT 2.1.1700008891");
	RO("Lua VM re-entrancy is detected while executing the trace");
	CHECK_INT(detect(NULL, 0, &f), LUAJIT_TARANTOOL_NOGC64);
	CHECK_INT(f.is_luajit, 1);

	/* Tarantool GC64 has no GC mode marker: the fork is known, the variant is not. */
	ro_reset(); RO("LuaJIT 2.1.0-beta3");
	CHECK_INT(detect(misc, 2, &f), LUAJIT_VARIANT_UNKNOWN);
	CHECK_INT(f.fork, LUAJIT_FORK_TARANTOOL);
	CHECK_INT(f.gc64, -1);

	/* OpenResty from its built-in names alone (static link, no dynamic symbols). */
	ro_reset(); RO("LuaJIT 2.1.0-beta3"); RO("thread.exdata"); RO("\002le\004gc64");
	CHECK_INT(detect(NULL, 0, &f), LUAJIT_OPENRESTY_GC64);

	/* Not LuaJIT at all. */
	ro_reset(); RO("Lua 5.4.4"); RO("\002le\004gc64");
	CHECK_INT(detect(NULL, 0, &f), LUAJIT_VARIANT_UNKNOWN);
	CHECK_INT(f.is_luajit, 0);
	CHECK_INT(f.fork, LUAJIT_FORK_UNKNOWN);
}

static void test_detect_hostile(void)
{
	static const char *const both[] = { "lua_setexdata", "luaopen_misc" };
	static const char *const nulls[] = { NULL, NULL, NULL };
	struct luajit_file_facts f;

	CHECK_INT(luajit_detect_file(NULL, 5, NULL, 100, &f), LUAJIT_VARIANT_UNKNOWN);
	CHECK_INT(f.is_luajit, 0);
	CHECK_INT(luajit_detect_file(nulls, 3, "", 0, NULL), LUAJIT_VARIANT_UNKNOWN);
	/* Contradicting markers give no answer rather than a wrong one. */
	ro_reset(); RO("LuaJIT 2.1.0-beta3"); RO("\002le\004gc64");
	RO("Must use luaL_newstate() for 64 bit target");
	CHECK_INT(detect(NULL, 0, &f), LUAJIT_VARIANT_UNKNOWN);
	CHECK_INT(f.gc64, -1);
	ro_reset(); RO("LuaJIT 2.1.0-beta3"); RO("\002le\004gc64");
	CHECK_INT(detect(both, 2, &f), LUAJIT_VARIANT_UNKNOWN);
	CHECK_INT(f.fork, LUAJIT_FORK_UNKNOWN);
	/* Version strings: unterminated at the end, embedded, overlong, unprintable. */
	static const char tail[] = "abc\0LuaJIT 2.1.0";
	CHECK_INT(luajit_detect_file(NULL, 0, tail, sizeof(tail) - 1, &f), LUAJIT_VARIANT_UNKNOWN);
	CHECK_INT(f.is_luajit, 0);
	static const char embedded[] = "xLuaJIT 2.1\0";
	luajit_detect_file(NULL, 0, embedded, sizeof(embedded) - 1, &f);
	CHECK_INT(f.is_luajit, 0);
	char longv[200];
	memset(longv, 'A', sizeof(longv));
	memcpy(longv + 1, "LuaJIT 2.", 9);
	longv[0] = 0;
	longv[sizeof(longv) - 1] = 0;
	luajit_detect_file(NULL, 0, longv, sizeof(longv), &f);
	CHECK_INT(f.is_luajit, 0);
	CHECK_INT(f.version[0], 0);
	static const char weird[] = "\0LuaJIT 2.\x01\0\0LuaJIT 2.1 ok\0\0LuaJIT 2.1.0-rc1\0";
	luajit_detect_file(NULL, 0, weird, sizeof(weird) - 1, &f);
	CHECK_STR(f.version, "LuaJIT 2.1.0-rc1");
	/* Read exactly: a prompt or banner that starts like the version is not the version. */
	static const char prompt[] = "\0LuaJIT 2.1.0-beta3> \0LuaJIT 2.1.0-beta3 -- Copyright\0";
	luajit_detect_file(NULL, 0, prompt, sizeof(prompt) - 1, &f);
	CHECK_INT(f.is_luajit, 0);
	static const char rolling[] = "\0LuaJIT 2.1.0-beta3> \0LuaJIT 2.1.1761786044\0";
	luajit_detect_file(NULL, 0, rolling, sizeof(rolling) - 1, &f);
	CHECK_STR(f.version, "LuaJIT 2.1.1761786044");
	/* Markers cut by the end of the buffer do not count. */
	static const char cut[] = "\0LuaJIT 2.1\0\002le\004gc6";
	luajit_detect_file(NULL, 0, cut, sizeof(cut) - 1, &f);
	CHECK_INT(f.gc64, -1);
	/* Random bytes: never crash, never claim LuaJIT without the version string. */
	uint32_t x = 12345;
	static unsigned char noise[8192];
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < sizeof(noise); i++) {
			x = x * 1103515245u + 12345u;
			noise[i] = (unsigned char)(x >> 24) % 8 ? (unsigned char)(x >> 16) : 0;
		}
		CHECK_INT(luajit_detect_file(NULL, 0, noise, (size_t)(x % sizeof(noise)), &f),
			  LUAJIT_VARIANT_UNKNOWN);
		CHECK_INT(f.is_luajit, 0);
	}
}

/* ---- detection from memory, on fake GG_State blocks ---- */

struct fakemem { unsigned char *buf; size_t len; uint64_t base; };

static int fake_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	struct fakemem *m = ctx;
	if (addr < m->base || addr - m->base > m->len || n > m->len - (addr - m->base))
		return -1;
	memcpy(dst, m->buf + (addr - m->base), n);
	return 0;
}

static void put_le(unsigned char *p, uint64_t v, int32_t size)
{
	for (int32_t i = 0; i < size; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Writes the fields lua_newstate sets in a GG_State of layout l at offset at of m. */
static void make_gg(struct fakemem *m, size_t at, const struct luajit_layout *l)
{
	uint64_t L = m->base + at, g = L + (uint64_t)l->gg_g;
	m->buf[at + (size_t)l->L_gct] = (unsigned char)l->gct_thread;
	m->buf[at + (size_t)l->L_dummy_ffid] = (unsigned char)l->ff_c;
	put_le(m->buf + at + l->L_glref, g, l->mref_size);
	put_le(m->buf + at + l->gg_g + l->g_mainthref, L, l->gcref_size);
}

static unsigned char membuf[3 * 8192];

static void test_memory_validation(void)
{
	for (size_t i = 0; i < NVARIANTS; i++) {
		const struct luajit_layout *l = luajit_layout_get(all_variants[i]);
		if (!l)
			continue;
		struct fakemem m = { membuf, sizeof(membuf), 0x40001000 };
		for (size_t k = 0; k < sizeof(membuf); k++)
			membuf[k] = (unsigned char)(k * 7 + 3);
		size_t at = 8192 + 64;
		make_gg(&m, at, l);
		uint64_t g = m.base + at + (uint64_t)l->gg_g, got = 0;
		uint64_t dispatch = g + (uint64_t)(l->gg_dispatch - l->gg_g);
		CHECK(luajit_validate_g(l, fake_read, &m, g));
		CHECK_INT(luajit_g_from_dispatch(l, dispatch), g);
		/* The register identifies the variant: no other layout validates, but a sibling of
		 * the same fork and GC mode, which may (OpenResty's 2023 and 2025 trees keep the same
		 * fields at the same places, their dispatch tables a word apart): then it says none. */
		int sibling = 0;
		for (size_t k = 0; luajit_layout_at(k); k++)
			sibling |= luajit_layout_at(k) != l && luajit_layout_at(k)->fork == l->fork &&
				   luajit_layout_at(k)->gc64 == l->gc64;
		enum luajit_variant v = luajit_detect_by_dispatch(LUAJIT_FORK_UNKNOWN, -1, fake_read, &m, dispatch, &got);
		CHECK(v == l->variant || (sibling && v == LUAJIT_VARIANT_UNKNOWN));
		if (v == l->variant)
			CHECK_INT(got, g);
		CHECK_INT(luajit_detect_by_dispatch(l->fork, !l->gc64, fake_read, &m, dispatch, NULL),
			  LUAJIT_VARIANT_UNKNOWN);
		uint64_t found[4];
		CHECK_INT(luajit_scan_gg(l, membuf, sizeof(membuf), m.base, found, 4), 1);
		CHECK_INT(found[0], g);
		CHECK_INT(luajit_scan_gg(l, membuf, sizeof(membuf), m.base + 4, found, 4), 0);
		CHECK_INT(luajit_scan_gg(l, membuf, at + 8, m.base, found, 4), 0);
		CHECK_INT(luajit_scan_gg(l, membuf, sizeof(membuf), m.base, found, 0), 0);
		/* Each field matters. */
		membuf[at + (size_t)l->L_dummy_ffid] = 0;
		CHECK(!luajit_validate_g(l, fake_read, &m, g));
		CHECK_INT(luajit_scan_gg(l, membuf, sizeof(membuf), m.base, found, 4), 0);
		make_gg(&m, at, l);
		put_le(membuf + at + l->L_glref, g + 8, l->mref_size);
		CHECK(!luajit_validate_g(l, fake_read, &m, g));
		make_gg(&m, at, l);
		membuf[at + (size_t)l->L_gct] ^= 1;
		CHECK(!luajit_validate_g(l, fake_read, &m, g));
		make_gg(&m, at, l);
		CHECK(!luajit_validate_g(l, fake_read, &m, g + 8));
		CHECK(!luajit_validate_g(l, fake_read, &m, 3));
		CHECK(!luajit_validate_g(l, fake_read, &m, UINT64_MAX - 7));
		/* Unreadable memory. */
		struct fakemem small = { membuf, at + 16, m.base };
		CHECK(!luajit_validate_g(l, fake_read, &small, g));
		CHECK(!luajit_validate_g(NULL, fake_read, &m, g));
		CHECK(!luajit_validate_g(l, NULL, &m, g));
	}
}

/* ---- modes for real binaries and processes ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap + 1);
	while (b) {
		size_t r = fread(b + n, 1, cap - n, f);
		n += r;
		if (n < cap)
			break;
		char *nb = cap < (1u << 30) ? realloc(b, 2 * cap + 1) : NULL;
		if (!nb) { free(b); b = NULL; break; }
		b = nb;
		cap *= 2;
	}
	fclose(f);
	if (b) { b[n] = 0; *len = n; }
	return b;
}

static int mode_detect(const char *symfile, const char *rofile)
{
	size_t slen = 0, rlen = 0, n = 0;
	char *syms = slurp(symfile, &slen), *ro = slurp(rofile, &rlen);
	if (!syms || !ro) {
		fprintf(stderr, "cannot read %s or %s\n", symfile, rofile);
		return 2;
	}
	const char **names = calloc(slen + 1, sizeof(*names));
	for (char *p = syms; names && *p; ) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		names[n++] = p;
		p = nl ? nl + 1 : p + strlen(p);
	}
	struct luajit_file_facts f;
	enum luajit_variant v = luajit_detect_file(names, n, ro, rlen, &f);
	const struct luajit_layout *l = luajit_layout_get(v);
	printf("luajit=%d fork=%s gc64=%d version=%s variant=%s\n", f.is_luajit,
	       luajit_fork_name(f.fork), f.gc64, f.version, l ? l->name : "unknown");
	free(names); free(syms); free(ro);
	return 0;
}

static int memfd = -1;

static int proc_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	(void)ctx;
	return pread(memfd, dst, n, (off_t)addr) == (ssize_t)n ? 0 : -1;
}

static uint64_t rd_ref(uint64_t addr, int32_t size)
{
	uint64_t v = 0;
	if (proc_read(NULL, addr, &v, (size_t)size))
		return 0;
	return size == 4 ? (uint32_t)v : v;
}

/* Prints "chunk:line" of each Lua function on the stack of L, walking from L->base - 1
 * with frame_prevl/frame_prevd as lj_debug does; stops at anything that is not a
 * function. Returns how many frames name a chunk containing want. */
static int walk_frames(const struct luajit_layout *l, uint64_t L, const char *want)
{
	uint64_t base = rd_ref(L + (uint64_t)l->L_base, 8);
	uint64_t stack = rd_ref(L + (uint64_t)l->L_stack, l->mref_size);
	uint64_t f = base - 8;
	int seen = 0;
	for (int depth = 0; depth < 64 && f > stack + 8u * (uint64_t)l->fr2 && f >= stack; depth++) {
		uint64_t ftsz = l->fr2 ? rd_ref(f, 8) : rd_ref(f + 4, 4);
		int64_t sftsz = l->fr2 ? (int64_t)ftsz : (int64_t)(int32_t)ftsz;
		uint64_t fn = l->fr2 ? rd_ref(f - 8, 8) & ((1ull << l->gcv_bits) - 1) : rd_ref(f, 4);
		unsigned char ffid = 0, gct = 0;
		proc_read(NULL, fn + (uint64_t)l->fn_ffid, &ffid, 1);
		proc_read(NULL, fn + (uint64_t)l->fn_gct, &gct, 1);
		if (gct != l->gct_func) {
			printf("  frame %d: not a function (stale base?)\n", depth);
			return seen;
		}
		int typep = (int)(sftsz & l->frame_typep);
		if (typep == l->frame_varg) {
			/* The vararg part of a frame; the function's own frame is below. */
		} else if (ffid == l->ff_lua) {
			uint64_t pt = rd_ref(fn + (uint64_t)l->fn_pc, l->mref_size) - (uint64_t)l->pt_size;
			uint64_t name = rd_ref(pt + (uint64_t)l->pt_chunkname, l->gcref_size);
			uint32_t line = (uint32_t)rd_ref(pt + (uint64_t)l->pt_firstline, 4);
			char chunk[80] = "";
			proc_read(NULL, name + (uint64_t)l->str_size, chunk, sizeof(chunk) - 1);
			chunk[sizeof(chunk) - 1] = 0;
			printf("  frame %d: lua %s:%u\n", depth, chunk, line);
			if (want && strstr(chunk, want))
				seen++;
		} else {
			char ffn[64];
			const char *nm = luajit_ff_name(l, ffid, ffn, sizeof(ffn));
			printf("  frame %d: %s (ffid %u), link 0x%llx type %d\n", depth,
			       nm ? nm : "C function", ffid, (unsigned long long)ftsz, typep);
		}
		if ((sftsz & l->frame_type) == l->frame_lua) {
			uint32_t ins = (uint32_t)rd_ref(ftsz - 4, 4);
			f -= 8u * (1u + (uint64_t)l->fr2 + LUAJIT_BC_A(ins));
		} else {
			f -= (uint64_t)(sftsz & ~(int64_t)l->frame_typep);
		}
	}
	return seen;
}

/* One pass over the writable mappings of pid (stopped meanwhile) under every layout. */
/* Whether the dispatch table of the GG_State holding g starts where layout l puts it: 16
 * handlers close together there (the VM's code), the word before it none of them (as
 * luajit_vmcheck.c checks against the code's mapping). Tells apart layouts that differ only
 * past global_State's fields, as OpenResty's 2023 and 2025 trees do. */
static int dispatch_fits(const struct luajit_layout *l, uint64_t g)
{
	uint64_t at = g - (uint64_t)l->gg_g + (uint64_t)l->gg_dispatch, lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < 16; i++) {
		uint64_t h = rd_ref(at + 8 * (uint64_t)i, 8);
		lo = h < lo ? h : lo;
		hi = h > hi ? h : hi;
	}
	uint64_t before = rd_ref(at - 8, 8);
	return lo && hi - lo < (1u << 20) && (before < lo - (1u << 20) || before > hi + (1u << 20));
}

static void scan_once(int pid, const char *want, int *hits, enum luajit_variant *which, int *seen)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	FILE *maps = fopen(path, "r");
	if (!maps)
		return;
	uint64_t seen_g[16];
	int nseen = 0;
	kill(pid, SIGSTOP);
	usleep(20000);
	while (fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi;
		char perm[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 || perm[1] != 'w' || hi - lo > (64u << 20))
			continue;
		unsigned char *buf = malloc(hi - lo);
		if (!buf || pread(memfd, buf, hi - lo, (off_t)lo) != (ssize_t)(hi - lo)) {
			free(buf);
			continue;
		}
		for (size_t i = 0; i < NVARIANTS; i++) {
			const struct luajit_layout *l = luajit_layout_get(all_variants[i]);
			uint64_t gs[8];
			size_t n = luajit_scan_gg(l, buf, hi - lo, lo, gs, 8);
			for (size_t k = 0; k < n; k++) {
				uint64_t g = gs[k];
				/* a later layout that fits the same VM as well is one with the same
				 * offsets where lua-flame reads (OpenResty's 2025 non-GC64 tree) */
				int again = 0;
				for (int j = 0; j < nseen; j++)
					again |= seen_g[j] == g;
				if (again || !dispatch_fits(l, g))
					continue;
				if (nseen < 16)
					seen_g[nseen++] = g;
				int32_t vmstate = (int32_t)rd_ref(g + (uint64_t)l->g_vmstate, 4);
				uint64_t cur = rd_ref(g + (uint64_t)l->g_cur_L, l->gcref_size);
				uint64_t jb = rd_ref(g + (uint64_t)l->g_jit_base, l->mref_size);
				printf("found g=0x%llx variant=%s vmstate=%d cur_L=0x%llx jit_base=0x%llx valid=%d\n",
				       (unsigned long long)g, l->name, vmstate, (unsigned long long)cur,
				       (unsigned long long)jb, luajit_validate_g(l, proc_read, NULL, g));
				/* L->base is only stored when the VM leaves the interpreter. */
				if (cur && rd_ref(cur + (uint64_t)l->L_glref, l->mref_size) == g
				    && vmstate == ~l->vmst_c)
					*seen += walk_frames(l, cur, want);
				(*hits)++;
				*which = l->variant;
			}
		}
		free(buf);
	}
	kill(pid, SIGCONT);
	fclose(maps);
}

/* Finds every g in a live VM under every layout, retrying until a sample lands in a C
 * function (where L->base is current). Exits 0 when exactly one layout finds exactly one
 * g and, if want is given, the stack shows a function of that chunk. */
static int mode_scan(int pid, const char *want)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	memfd = open(path, O_RDONLY);
	if (memfd < 0) {
		fprintf(stderr, "cannot open pid %d: %s\n", pid, strerror(errno));
		return 2;
	}
	int hits = 0, seen = 0;
	enum luajit_variant which = LUAJIT_VARIANT_UNKNOWN;
	for (int attempt = 0; attempt < 40; attempt++) {
		hits = 0;
		seen = 0;
		scan_once(pid, want, &hits, &which, &seen);
		if (hits != 1 || !want || seen > 0)
			break;
		usleep(5000);
	}
	const struct luajit_layout *l = luajit_layout_get(which);
	printf("scan: %d found, variant=%s, frames in %s: %d\n", hits, l ? l->name : "none",
	       want ? want : "-", seen);
	return hits == 1 && (!want || seen > 0) ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--detect"))
		return mode_detect(argv[2], argv[3]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--scan"))
		return mode_scan(atoi(argv[2]), argc == 4 ? argv[3] : NULL);
	RUN(test_lookup);
	RUN(test_relations);
	RUN(test_ff_names);
	RUN(test_detect_markers);
	RUN(test_detect_hostile);
	RUN(test_memory_validation);
	CHECK_EXIT();
}
