/* Tests for cmd/lua/luajit/luajit_frames.c and cmd/lua/luajit/luajit_names.c on a fake target: GCfuncs, GCprotos,
 * GCstrs and bytecode laid out with the real layout tables (GC64 and non-GC64) in a buffer the
 * reader serves. Covers function kinds, chunk names, lines, names from synthetic bytecode, the
 * cache, and hostile memory (failing reads, garbage, huge sizes, unterminated debug info). The
 * real-VM comparison is tests/integ/luajit_frames.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "luajit_frames.h"

#define BASE 0x100000ULL
#define SIZE (1u << 20)

/* ---- Fake target ---- */

struct fake {
	uint8_t *mem;
	uint64_t next;      /* bump allocator */
	long reads;         /* calls of the reader */
	long fail_after;    /* reads allowed before every read fails (-1: never) */
};

static struct fake F;
static const struct luajit_mem M = { NULL, &F };

static long fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake *f = &F;  /* ctx only tells address spaces apart for the cache */
	(void)ctx;
	f->reads++;
	if (f->fail_after >= 0 && f->reads > f->fail_after)
		return -1;
	if (addr < BASE || addr - BASE > SIZE || len > SIZE - (addr - BASE))
		return -1;
	memcpy(buf, f->mem + (addr - BASE), len);
	return (long)len;
}

static struct luajit_mem mem(void)
{
	struct luajit_mem m = M;
	m.read = fake_read;
	return m;
}

static void fake_init(void)
{
	if (!F.mem)
		F.mem = malloc(SIZE);
	memset(F.mem, 0, SIZE);
	F.next = BASE + 64;
	F.reads = 0;
	F.fail_after = -1;
	luajit_frames_cache_clear();
}

static uint64_t fake_alloc(size_t n)
{
	uint64_t a = F.next;
	F.next += (n + 15) & ~(size_t)15;
	if (F.next > BASE + SIZE) {
		printf("fake target full\n");
		exit(1);
	}
	return a;
}

static void w(uint64_t at, const void *v, size_t n) { memcpy(F.mem + (at - BASE), v, n); }
static void w8(uint64_t at, uint8_t v) { w(at, &v, 1); }
static void w32(uint64_t at, uint32_t v) { w(at, &v, 4); }
static void wref(uint64_t at, int size, uint64_t v) { w(at, &v, (size_t)size); }

/* ---- Objects ---- */

static uint64_t mk_str(const struct luajit_layout *l, const char *s, size_t len)
{
	uint64_t a = fake_alloc((size_t)l->str_size + len + 1);
	w8(a + l->str_gct, (uint8_t)l->gct_str);
	w32(a + l->str_len, (uint32_t)len);
	w(a + l->str_size, s, len);
	w8(a + l->str_size + len, 0); /* LuaJIT ends every string with a NUL */
	return a;
}

static uint32_t ins_ad(int op, unsigned a, unsigned d) { return (uint32_t)op | a << 8 | d << 16; }
static uint32_t ins_abc(int op, unsigned a, unsigned b, unsigned c)
{
	return (uint32_t)op | a << 8 | c << 16 | b << 24;
}

/* What a synthetic proto is made of. */
struct spec {
	const char *chunk;
	size_t chunk_len;
	int32_t firstline, numline;
	const uint32_t *bc;
	uint32_t sizebc;
	const char *const *kgc;  /* string constants, index 0 = ~0 */
	uint32_t sizekgc;
	const uint8_t *uvinfo, *varinfo;
	size_t uvinfo_len, varinfo_len;
	uint32_t sizeuv;
	int no_lineinfo;
};

/* Lays a proto out as LuaJIT does: header, bytecode, GCRefs of string constants, k, upvalue map,
 * line info (line of instruction i = firstline + i), upvalue names, variable info. */
static uint64_t mk_proto(const struct luajit_layout *l, const struct spec *s)
{
	uint64_t name = mk_str(l, s->chunk, s->chunk_len ? s->chunk_len : strlen(s->chunk));
	uint64_t kstr[16];
	for (uint32_t i = 0; i < s->sizekgc && i < 16; i++)
		kstr[i] = mk_str(l, s->kgc[i], strlen(s->kgc[i]));
	unsigned esz = LUAJIT_LINEINFO_SIZE(s->numline);
	size_t ofs_k = (size_t)l->pt_size + 4 * s->sizebc + (size_t)l->gcref_size * s->sizekgc;
	ofs_k = (ofs_k + 7) & ~(size_t)7;
	size_t ofs_uv = ofs_k, ofs_li = ofs_uv + ((s->sizeuv + 1) & ~1u) * 2;
	size_t ofs_ui = ofs_li + (s->no_lineinfo ? 0 : esz * (s->sizebc - 1));
	size_t ofs_vi = ofs_ui + s->uvinfo_len, sizept = ofs_vi + s->varinfo_len;
	uint64_t pt = fake_alloc(sizept);
	w8(pt + l->pt_gct, (uint8_t)l->gct_proto);
	w32(pt + l->pt_sizebc, s->sizebc);
	w32(pt + l->pt_sizekgc, s->sizekgc);
	w32(pt + l->pt_sizept, (uint32_t)sizept);
	w8(pt + l->pt_sizeuv, (uint8_t)s->sizeuv);
	w32(pt + l->pt_firstline, (uint32_t)s->firstline);
	w32(pt + l->pt_numline, (uint32_t)s->numline);
	wref(pt + l->pt_k, l->mref_size, pt + ofs_k);
	wref(pt + l->pt_chunkname, l->gcref_size, name);
	wref(pt + l->pt_lineinfo, l->mref_size, s->no_lineinfo ? 0 : pt + ofs_li);
	wref(pt + l->pt_uvinfo, l->mref_size, s->uvinfo ? pt + ofs_ui : 0);
	wref(pt + l->pt_varinfo, l->mref_size, s->varinfo ? pt + ofs_vi : 0);
	w(pt + l->pt_size, s->bc, 4 * s->sizebc);
	for (uint32_t i = 0; i < s->sizekgc && i < 16; i++)
		wref(pt + ofs_k - (uint64_t)(i + 1) * l->gcref_size, l->gcref_size, kstr[i]);
	for (uint32_t i = 1; !s->no_lineinfo && i < s->sizebc; i++) {
		uint32_t v = i;
		w(pt + ofs_li + (i - 1) * esz, &v, esz);
	}
	if (s->uvinfo)
		w(pt + ofs_ui, s->uvinfo, s->uvinfo_len);
	if (s->varinfo)
		w(pt + ofs_vi, s->varinfo, s->varinfo_len);
	return pt;
}

static uint64_t mk_func(const struct luajit_layout *l, int ffid, uint64_t pt_or_cf)
{
	uint64_t fn = fake_alloc(64);
	w8(fn + l->fn_gct, (uint8_t)l->gct_func);
	w8(fn + l->fn_ffid, (uint8_t)ffid);
	if (ffid == l->ff_lua)
		wref(fn + l->fn_pc, l->mref_size, pt_or_cf + l->pt_size);
	else
		wref(fn + l->fn_c_f, 8, pt_or_cf);
	return fn;
}

/* pc just past instruction pos of proto pt */
static uint64_t pc_after(const struct luajit_layout *l, uint64_t pt, uint32_t pos)
{
	return pt + l->pt_size + 4 * (uint64_t)(pos + 1);
}

/* ---- A proto with one call of each kind ---- */

enum { P_GLOBAL = 2, P_UPVAL = 4, P_MOV = 7, P_FIELD = 8, P_LOCAL = 9, P_ITER = 10,
       P_INDEX = 11, P_KNIL = 13, P_METHOD = 16, P_NOUV = 18, P_SIZEBC = 19 };

static uint32_t prog[P_SIZEBC];
static const char *const kgc[] = { "gfun", "field;name", "meth" };
/* uvinfo: two names; varinfo: "myloc" live at [9, 10) in slot 0, then the built-in
 * "(for generator)" at [10, 13) in slot 0, then the end marker. */
static const uint8_t uvinfo[] = "first\0upname";
static const uint8_t varinfo[] = { 'm', 'y', 'l', 'o', 'c', 0, 9, 1, 4, 1, 3, 0 };

static void mk_prog(const struct luajit_layout *l)
{
	prog[0] = ins_ad(l->bc_funcf, 10, 0);
	prog[1] = ins_ad(l->bc_gget, 0, 0);            /* slot 0 = gfun */
	prog[P_GLOBAL] = ins_abc(l->bc_call, 0, 1, 1);
	prog[3] = ins_ad(l->bc_uget, 1, 1);            /* slot 1 = upvalue 1 */
	prog[P_UPVAL] = ins_abc(l->bc_call, 1, 1, 1);
	prog[5] = ins_abc(l->bc_tgets, 2, 0, 1);       /* slot 2 = slot0["field;name"] */
	prog[6] = ins_ad(l->bc_mov, 3, 2);             /* slot 3 = slot 2 */
	prog[P_MOV] = ins_abc(l->bc_call, 3, 1, 1);    /* a call clobbers slots from its A up */
	prog[P_FIELD] = ins_abc(l->bc_call, 2, 1, 1);
	prog[P_LOCAL] = ins_abc(l->bc_call, 0, 1, 1);  /* slot 0 is the local myloc here */
	prog[P_ITER] = ins_abc(l->bc_iterc, 3, 1, 3);  /* calls slot 0: (for generator) */
	prog[P_INDEX] = ins_abc(l->bc_tgetv, 9, 0, 1); /* __index metamethod */
	prog[12] = ins_ad(l->bc_knil, 4, 6);           /* clobbers slots 4..6 */
	prog[P_KNIL] = ins_abc(l->bc_call, 5, 1, 1);
	prog[14] = ins_ad(l->bc_mov, 6 + l->fr2, 0);   /* self */
	prog[15] = ins_abc(l->bc_tgets, 5, 0, 2);      /* slot 5 = slot0.meth */
	prog[P_METHOD] = ins_abc(l->bc_call, 5, 1, 2);
	prog[17] = ins_ad(l->bc_uget, 7, 5);           /* upvalue 5 does not exist */
	prog[P_NOUV] = ins_abc(l->bc_call, 7, 1, 1);
}

static struct spec prog_spec(void)
{
	struct spec s = { "@app/main.lua", 0, 40, 300, prog, P_SIZEBC, kgc, 3,
			  uvinfo, varinfo, sizeof uvinfo, sizeof varinfo, 2, 0 };
	return s;
}

static const struct luajit_layout *layouts[2];

static void names_for(const struct luajit_layout *l)
{
	struct luajit_mem m = mem();
	char out[LJ_IDENT_MAX];
	fake_init();
	mk_prog(l);
	struct spec s = prog_spec();
	uint64_t pt = mk_proto(l, &s);
	static const struct { uint32_t pos; const char *want; } cases[] = {
		{ P_GLOBAL, "gfun" }, { P_UPVAL, "upname" }, { P_FIELD, "field\\x3bname" },
		{ P_MOV, "field\\x3bname" }, { P_LOCAL, "myloc" }, { P_ITER, "(for generator)" },
		{ P_INDEX, "__index" }, { P_METHOD, "meth" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = luajit_call_name(l, &m, pt, 0, pc_after(l, pt, cases[i].pos), out, sizeof out);
		CHECK_INT(rc, 0);
		CHECK_STR(out, cases[i].want);
	}
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_KNIL), out, sizeof out), -1);
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_NOUV), out, sizeof out), -1);
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, 0), out, sizeof out), -1);  /* header */
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_SIZEBC), out, sizeof out), -1);
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL) + 2, out, sizeof out), -1);
	CHECK_INT(luajit_call_name(l, &m, pt, 0, 0, out, sizeof out), -1);
	/* cut to the buffer */
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_ITER), out, 5), 0);
	CHECK_STR(out, "(for");
}

static void test_names_gc64(void) { names_for(layouts[0]); }
static void test_names_nogc64(void) { names_for(layouts[1]); }

static void lines_for(const struct luajit_layout *l, int32_t numline)
{
	struct luajit_mem m = mem();
	fake_init();
	mk_prog(l);
	struct spec s = prog_spec();
	s.numline = numline;
	uint64_t pt = mk_proto(l, &s), bc = pt + l->pt_size;
	for (uint32_t pos = 1; pos < P_SIZEBC; pos++)
		CHECK_INT(luajit_proto_line(l, &m, pt, 0, pc_after(l, pt, pos)), 40 + pos);
	CHECK_INT(luajit_proto_line(l, &m, pt, 0, pc_after(l, pt, 0)), 40);
	CHECK_INT(luajit_proto_line(l, &m, pt, 0, bc), 40);
	CHECK_INT(luajit_proto_line(l, &m, pt, 0, pc_after(l, pt, P_SIZEBC)), -1);
	CHECK_INT(luajit_proto_line(l, &m, pt, 0, bc - 4), -1);
	CHECK_INT(luajit_proto_line(l, &m, pt, 0, bc + 6), -1);
	CHECK_INT(luajit_proto_line(l, &m, pt, 0, 0), -1);
	s.no_lineinfo = 1;
	uint64_t stripped = mk_proto(l, &s);
	CHECK_INT(luajit_proto_line(l, &m, stripped, 0, pc_after(l, stripped, 3)), -1);
}

static void test_lines(void)
{
	lines_for(layouts[0], 200);    /* 1-byte line info */
	lines_for(layouts[0], 300);    /* 2-byte */
	lines_for(layouts[1], 70000);  /* 4-byte */
}

static void chunk_is(const struct luajit_layout *l, const char *src, size_t len, int32_t first,
		     const char *want)
{
	struct luajit_mem m = mem();
	char out[LJ_CHUNK_MAX];
	int line = -5;
	mk_prog(l);
	struct spec s = prog_spec();
	s.chunk = src;
	s.chunk_len = len;
	s.firstline = first;
	uint64_t pt = mk_proto(l, &s);
	CHECK_INT(luajit_proto_info(l, &m, pt, 0, out, sizeof out, &line), 0);
	CHECK_STR(out, want);
	CHECK_INT(line, first);
}

static void test_chunk_names(void)
{
	const struct luajit_layout *l = layouts[0];
	char path[600], want[LJ_CHUNK_MAX];
	fake_init();
	chunk_is(l, "@app/main.lua", 0, 0, "app/main.lua");
	chunk_is(l, "=stdin", 0, 3, "stdin");
	chunk_is(l, "probe('x')", 0, 0, "[string \"probe('x')\"]");
	chunk_is(l, "first\nsecond", 0, 0, "[string \"first...\"]");
	chunk_is(l, "a;b", 0, 0, "[string \"a\\x3bb\"]");
	chunk_is(l, "@we;ird\tname", 0, 0, "we\\x3bird\\x09name");
	chunk_is(l, "", 0, 0, "[string \"\"]");
	chunk_is(l, "lib", 0, -1, "[builtin:lib]");
	/* 48 characters stay whole, 49 are cut to 45 and "..." (LUA_IDSIZE 60) */
	memset(path, 'x', 49);
	path[48] = '\0';
	snprintf(want, sizeof want, "[string \"%.48s\"]", path);
	chunk_is(l, path, 0, 0, want);
	path[48] = 'y';
	path[49] = '\0';
	snprintf(want, sizeof want, "[string \"%.45s...\"]", path);
	chunk_is(l, path, 0, 0, want);
	/* a long path keeps its end */
	path[0] = '@';
	for (int i = 1; i < 599; i++)
		path[i] = (char)('a' + i % 26);
	path[599] = '\0';
	snprintf(want, sizeof want, "...%s", path + 599 - (LJ_CHUNK_MAX - 4));
	chunk_is(l, path, 0, 0, want);
	/* an embedded NUL ends a file name */
	chunk_is(l, "@ab\0cd", 6, 0, "ab");
	/* a small buffer still gets a terminated prefix */
	struct luajit_mem m = mem();
	char small[6];
	struct spec s = prog_spec();
	uint64_t pt = mk_proto(l, &s);
	CHECK_INT(luajit_proto_info(l, &m, pt, 0, small, sizeof small, NULL), 0);
	CHECK_STR(small, "app/m");
}

/* Built-ins LuaJIT writes in Lua (firstline -1, the bare name as chunk) are named as Lua
 * knows them; any other proto is none. */
static void builtin_is(const struct luajit_layout *l, const char *chunk, int32_t first, const char *want)
{
	struct luajit_mem m = mem();
	char out[LJ_IDENT_MAX];
	mk_prog(l);
	struct spec s = prog_spec();
	s.chunk = chunk;
	s.firstline = first;
	uint64_t pt = mk_proto(l, &s);
	if (want) {
		CHECK_INT(luajit_proto_builtin_name(l, &m, pt, out, sizeof out), 0);
		CHECK_STR(out, want);
	} else {
		CHECK_INT(luajit_proto_builtin_name(l, &m, pt, out, sizeof out), -1);
	}
}

static void test_lua_builtins(void)
{
	for (int i = 0; i < 2; i++) {
		const struct luajit_layout *l = layouts[i];
		fake_init();
		builtin_is(l, "remove", -1, "table.remove");
		builtin_is(l, "move", -1, "table.move");
		builtin_is(l, "foreachi", -1, "table.foreachi");
		builtin_is(l, "deg", -1, "math.deg");
		builtin_is(l, "len", -1, "string.len");
		builtin_is(l, "newfn", -1, "newfn");      /* a fork's own: the name it is registered by */
		builtin_is(l, "remove", 0, NULL);          /* a main chunk called "remove" */
		builtin_is(l, "@remove", 12, NULL);
	}
	char buf[8];
	CHECK(luajit_lua_builtin_name("remove", buf, sizeof buf) == NULL);  /* does not fit */
	CHECK(luajit_lua_builtin_name("table_remove", buf, sizeof buf) == NULL);
}

static void test_func_info(void)
{
	struct luajit_mem m = mem();
	for (int k = 0; k < 2; k++) {
		const struct luajit_layout *l = layouts[k];
		uint64_t p = 1;
		int ffid = 0;
		char buf[64];
		fake_init();
		uint64_t lua = mk_func(l, l->ff_lua, 0x2000000);
		uint64_t c = mk_func(l, l->ff_c, 0x401234);
		uint64_t ff = mk_func(l, 5, 0x405678);
		CHECK_INT(luajit_func_info(l, &m, lua, &p, &ffid), LJ_FN_LUA);
		CHECK_INT(p, 0x2000000);
		CHECK_INT(ffid, 0);
		CHECK_INT(luajit_func_info(l, &m, c, &p, &ffid), LJ_FN_C);
		CHECK_INT(p, 0x401234);
		CHECK_INT(luajit_func_info(l, &m, ff, &p, &ffid), LJ_FN_FAST);
		CHECK_INT(ffid, 5);
		CHECK_STR(luajit_fast_name(l, ffid, buf, sizeof buf), "pairs");
		CHECK_INT(luajit_func_info(l, &m, ff, NULL, NULL), LJ_FN_FAST);
		/* not a function, an impossible built-in, unreadable, a Lua function without pc */
		w8(ff + l->fn_gct, (uint8_t)l->gct_str);
		CHECK_INT(luajit_func_info(l, &m, ff, &p, &ffid), LJ_FN_BAD);
		CHECK_INT(p, 0);
		w8(ff + l->fn_gct, (uint8_t)l->gct_func);
		w8(ff + l->fn_ffid, 255);
		CHECK_INT(luajit_func_info(l, &m, ff, &p, &ffid), LJ_FN_BAD);
		CHECK_INT(luajit_func_info(l, &m, BASE + SIZE - 4, &p, &ffid), LJ_FN_BAD);
		CHECK_INT(luajit_func_info(l, &m, 0, &p, &ffid), LJ_FN_BAD);
		wref(lua + l->fn_pc, l->mref_size, 0);
		CHECK_INT(luajit_func_info(l, &m, lua, &p, &ffid), LJ_FN_BAD);
		CHECK(luajit_fast_name(l, 1, buf, sizeof buf) == NULL);
		CHECK(luajit_fast_name(l, 9999, buf, sizeof buf) == NULL);
	}
}

/* Each header field made absurd in turn: every call refuses (or, for fields a call does not
 * use, still answers right), and nothing crashes. */
static void test_huge_sizes(void)
{
	const struct luajit_layout *l = layouts[0];
	struct luajit_mem m = mem();
	char out[LJ_CHUNK_MAX];
	const int32_t fields[] = { l->pt_sizebc, l->pt_sizept, l->pt_sizekgc, l->pt_k,
				   l->pt_lineinfo, l->pt_uvinfo, l->pt_varinfo, l->pt_chunkname,
				   l->pt_numline };
	const uint64_t vals[] = { 0xffffffffu, 0x7fffffffu, 0x80000000u, 0, 1, BASE };
	for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
		for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
			fake_init();
			mk_prog(l);
			struct spec s = prog_spec();
			uint64_t pt = mk_proto(l, &s);
			int size = fields[f] == l->pt_sizebc || fields[f] == l->pt_sizept ||
				   fields[f] == l->pt_sizekgc || fields[f] == l->pt_numline ? 4 : 8;
			wref(pt + fields[f], size, vals[v]);
			int rc = luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out);
			CHECK(rc == -1 || (rc == 0 && !strcmp(out, "gfun")));
			int line = luajit_proto_line(l, &m, pt, 0, pc_after(l, pt, 3));
			/* another numline changes the line info's element size: wrong but bounded */
			CHECK(line == -1 || line == 43 || fields[f] == l->pt_numline);
			rc = luajit_proto_info(l, &m, pt, 0, out, sizeof out, NULL);
			CHECK(rc == -1 || (rc == 0 && !strcmp(out, "app/main.lua")));
		}
	}
	/* a string constant that claims 4 GiB */
	fake_init();
	mk_prog(l);
	struct spec s = prog_spec();
	uint64_t pt = mk_proto(l, &s);
	uint64_t ofs_k = ((uint64_t)l->pt_size + 4 * P_SIZEBC + 8 * 3 + 7) & ~7ull;
	char q[600];
	memset(q, 'q', sizeof q);
	memcpy(q, "gfun", 4);
	uint64_t kref = mk_str(l, q, sizeof q);
	wref(pt + ofs_k - 8, 8, kref);
	w32(kref + l->str_len, 0xffffffffu);
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
	CHECK_INT(strlen(out), LJ_IDENT_MAX - 1);  /* cut to a name's size */
	CHECK(!strncmp(out, "gfunqqq", 7));
	w32(kref + l->str_len, 4);
	w8(kref + l->str_gct, 0);
	luajit_frames_cache_clear();
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), -1);
}

/* A string header read with the wrong layout (2.1.0-beta3's is 4 bytes shorter than later
 * 2.1's): the length it gives has no NUL after it, and nothing is read. */
static void test_string_end(void)
{
	const struct luajit_layout *l = layouts[0];
	struct luajit_mem m = mem();
	char out[LJ_IDENT_MAX];
	fake_init();
	uint64_t s = mk_str(l, "outer", 5);
	CHECK_INT(luajit_gcstr(l, &m, s, out, sizeof out, NULL), 5);
	CHECK_STR(out, "outer");
	w8(s + l->str_size + 5, 'x');
	CHECK_INT(luajit_gcstr(l, &m, s, out, sizeof out, NULL), -1);
	CHECK_INT(luajit_gcstr(l, &m, s, out, 4, NULL), 3); /* cut short: no end to check */
	CHECK_STR(out, "out");
}

/* Debug info that runs off the end of the proto: no name, no read outside it. */
static void test_unterminated(void)
{
	const struct luajit_layout *l = layouts[0];
	struct luajit_mem m = mem();
	char out[LJ_IDENT_MAX];
	static const uint8_t long_var[] = { 'a', 'b', 'c' };               /* no NUL */
	static const uint8_t bad_uleb[] = { 'v', 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80 };
	static const uint8_t no_end[] = { 'v', 0, 1, 1 };                  /* no 0 marker */
	const uint8_t *vis[] = { long_var, bad_uleb, no_end };
	size_t lens[] = { sizeof long_var, sizeof bad_uleb, sizeof no_end };
	for (int i = 0; i < 3; i++) {
		fake_init();
		mk_prog(l);
		struct spec s = prog_spec();
		s.varinfo = vis[i];
		s.varinfo_len = lens[i];
		s.uvinfo = (const uint8_t *)"abc";  /* unterminated too */
		s.uvinfo_len = 3;
		memset(F.mem, 'z', SIZE);            /* whatever follows is not NUL either */
		F.next = BASE + 64;
		uint64_t pt = mk_proto(l, &s);
		CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_LOCAL), out, sizeof out), -1);
		CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_UPVAL), out, sizeof out), -1);
		CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
		CHECK_STR(out, "gfun");
	}
}

/* Reads failing from the n-th on, for every n: a call answers right or says -1; a failed
 * name lookup is not cached, so the next call with a working reader gets the name. */
static void test_failing_reads(void)
{
	const struct luajit_layout *l = layouts[1];
	struct luajit_mem m = mem();
	char out[LJ_CHUNK_MAX];
	fake_init();
	mk_prog(l);
	struct spec s = prog_spec();
	uint64_t pt = mk_proto(l, &s);
	for (long n = 0; n < 8; n++) {
		luajit_frames_cache_clear();
		F.reads = 0;
		F.fail_after = n;
		int rc = luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_MOV), out, sizeof out);
		CHECK(rc == -1 || (rc == 0 && !strcmp(out, "field\\x3bname")));
		rc = luajit_proto_info(l, &m, pt, 0, out, sizeof out, NULL);
		CHECK(rc == -1 || (rc == 0 && !strcmp(out, "app/main.lua")));
		int line = luajit_proto_line(l, &m, pt, 0, pc_after(l, pt, 5));
		CHECK(line == -1 || line == 45);
		F.fail_after = -1;
		CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_MOV), out, sizeof out), 0);
		CHECK_STR(out, "field\\x3bname");
	}
}

static uint64_t rnd_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Random bytes everywhere, then random bytes over a valid proto: no crash, sane answers. */
static void test_garbage(void)
{
	char out[LJ_CHUNK_MAX];
	struct luajit_mem m = mem();
	for (int k = 0; k < 2; k++) {
		const struct luajit_layout *l = layouts[k];
		for (int round = 0; round < 300; round++) {
			fake_init();
			mk_prog(l);
			struct spec s = prog_spec();
			uint64_t pt = mk_proto(l, &s);
			size_t from = round < 100 ? 0 : (size_t)(pt - BASE) + rnd() % 200;
			size_t n = round < 100 ? 4096 : 1 + rnd() % 64;
			for (size_t i = from; i < from + n && i < SIZE; i++)
				F.mem[i] = (uint8_t)rnd();
			uint64_t at = round < 100 ? BASE + rnd() % 4096 : pt;
			if (round < 100 && at + l->pt_size < BASE + 4096)
				w8(at + l->pt_gct, (uint8_t)l->gct_proto);  /* get past the tag */
			for (uint32_t pos = 0; pos <= P_SIZEBC; pos++) {
				int rc = luajit_call_name(l, &m, at, 0, pc_after(l, at, pos), out, sizeof out);
				CHECK(rc == -1 || (rc == 0 && strlen(out) < sizeof out));
				int line = luajit_proto_line(l, &m, at, 0, pc_after(l, at, pos));
				CHECK(line >= -1);
			}
			if (luajit_proto_info(l, &m, at, 0, out, sizeof out, NULL) == 0)
				for (const char *c = out; *c; c++)
					CHECK(*c != ';' && (unsigned char)*c >= 0x20);
			uint64_t p;
			int ffid;
			(void)luajit_func_info(l, &m, at, &p, &ffid);
		}
	}
}

/* A cached label stays right while the proto is the same and is refreshed when the address
 * holds another proto; the cache is per ctx. */
static void test_cache(void)
{
	const struct luajit_layout *l = layouts[0];
	struct luajit_mem m = mem();
	char out[LJ_CHUNK_MAX];
	fake_init();
	mk_prog(l);
	struct spec s = prog_spec();
	uint64_t pt = mk_proto(l, &s);
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
	long before = F.reads;
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
	CHECK_STR(out, "gfun");
	CHECK_INT(F.reads - before, 3);  /* the proto and its fingerprint only */
	uint32_t fp = luajit_proto_fp(l, &m, pt);
	before = F.reads;
	CHECK_INT(luajit_call_name(l, &m, pt, fp, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
	CHECK_STR(out, "gfun");
	CHECK_INT(F.reads - before, 0);  /* by the sample's fingerprint: no read at all */
	/* same fingerprint, other contents: only a clear (or another ctx) sees it */
	w32(pt + l->pt_size + 4 * 1, ins_ad(l->bc_gget, 0, 1));
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
	CHECK_STR(out, "gfun");
	struct luajit_mem m2 = m;
	m2.ctx = (char *)m.ctx + 1;
	CHECK_INT(luajit_call_name(l, &m2, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
	CHECK_STR(out, "field\\x3bname");
	luajit_frames_cache_clear();
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
	CHECK_STR(out, "field\\x3bname");
	/* another proto at the same address (new chunk name): every label is refreshed */
	CHECK_INT(luajit_proto_info(l, &m, pt, 0, out, sizeof out, NULL), 0);
	CHECK_STR(out, "app/main.lua");
	w32(pt + l->pt_size + 4 * 1, ins_ad(l->bc_gget, 0, 0));
	uint64_t other = mk_str(l, "@other.lua", 10);
	wref(pt + l->pt_chunkname, l->gcref_size, other);
	CHECK_INT(luajit_proto_info(l, &m, pt, 0, out, sizeof out, NULL), 0);
	CHECK_STR(out, "other.lua");
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
	CHECK_STR(out, "gfun");
	luajit_frames_cache_free();
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
}

static void test_bad_args(void)
{
	const struct luajit_layout *l = layouts[0];
	struct luajit_mem m = mem(), none = { NULL, NULL };
	char out[16];
	fake_init();
	mk_prog(l);
	struct spec s = prog_spec();
	uint64_t pt = mk_proto(l, &s);
	CHECK_INT(luajit_call_name(NULL, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), -1);
	CHECK_INT(luajit_call_name(l, &none, pt, 0, pc_after(l, pt, P_GLOBAL), out, sizeof out), -1);
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), NULL, 4), -1);
	CHECK_INT(luajit_call_name(l, &m, pt, 0, pc_after(l, pt, P_GLOBAL), out, 0), -1);
	CHECK_INT(luajit_proto_info(l, &m, pt, 0, NULL, 4, NULL), -1);
	CHECK_INT(luajit_proto_line(NULL, &m, pt, 0, pc_after(l, pt, 1)), -1);
	CHECK_INT(luajit_func_info(NULL, &m, pt, NULL, NULL), LJ_FN_BAD);
	CHECK(luajit_fast_name(NULL, 5, out, sizeof out) == NULL);
	/* a proto read as a GCfunc and the reverse */
	uint64_t fn = mk_func(l, l->ff_lua, pt);
	CHECK_INT(luajit_func_info(l, &m, pt, NULL, NULL), LJ_FN_BAD);
	CHECK_INT(luajit_proto_info(l, &m, fn, 0, out, sizeof out, NULL), -1);
}

/* Labels by the fingerprint of a sample, in both layouts: what was read while the proto lived
 * answers for its fingerprint after its memory got another chunk name (another string hash),
 * without a read; a fingerprint the memory no longer has is never named from it. */
static void test_fingerprints(void)
{
	char out[LJ_CHUNK_MAX];
	int line = -1;
	for (int i = 0; i < 2; i++) {
		const struct luajit_layout *l = layouts[i];
		struct luajit_mem m = mem();
		fake_init();
		mk_prog(l);
		struct spec s = prog_spec();
		uint64_t pt = mk_proto(l, &s), name = 0;
		if (luajit_rd_ref(&m, pt + (uint64_t)l->pt_chunkname, l->gcref_size, &name) < 0 || !name) {
			CHECK(0);
			continue;
		}
		w32(name + (uint64_t)l->str_len - 4, 0x1111);  /* GCstr.hash */
		uint32_t fp1 = luajit_proto_fp(l, &m, pt);
		CHECK(fp1 != 0 && fp1 < (1u << LF_FP_BITS));
		CHECK_INT(luajit_proto_info(l, &m, pt, fp1, out, sizeof out, &line), 0);
		CHECK_STR(out, "app/main.lua");
		CHECK_INT(luajit_call_name(l, &m, pt, fp1, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
		CHECK_STR(out, "gfun");
		w(name + (uint64_t)l->str_size, "@app/next.lua", 13);
		w32(name + (uint64_t)l->str_len - 4, 0x2222);
		uint32_t fp2 = luajit_proto_fp(l, &m, pt);
		CHECK(fp2 != 0 && fp2 != fp1);
		long before = F.reads;
		CHECK_INT(luajit_proto_info(l, &m, pt, fp1, out, sizeof out, &line), 0);
		CHECK_STR(out, "app/main.lua");
		CHECK_INT(luajit_call_name(l, &m, pt, fp1, pc_after(l, pt, P_GLOBAL), out, sizeof out), 0);
		CHECK_STR(out, "gfun");
		CHECK_INT(F.reads - before, 0);
		CHECK_INT(luajit_proto_info(l, &m, pt, fp2, out, sizeof out, &line), 0);
		CHECK_STR(out, "app/next.lua");
		CHECK_INT(luajit_proto_info(l, &m, pt, (fp1 ^ fp2 ^ 4) | 1, out, sizeof out, &line), -2);
	}
}

int main(void)
{
	layouts[0] = luajit_layout_get(LUAJIT_OPENRESTY_GC64);
	layouts[1] = luajit_layout_get(LUAJIT_UPSTREAM_NOGC64);
	if (!layouts[0] || !layouts[1]) {
		printf("FAIL: layouts: missing\n");
		return 1;
	}
	RUN(test_names_gc64);
	RUN(test_names_nogc64);
	RUN(test_lines);
	RUN(test_chunk_names);
	RUN(test_lua_builtins);
	RUN(test_func_info);
	RUN(test_huge_sizes);
	RUN(test_string_end);
	RUN(test_unterminated);
	RUN(test_failing_reads);
	RUN(test_garbage);
	RUN(test_cache);
	RUN(test_bad_args);
	RUN(test_fingerprints);
	free(F.mem);
	luajit_frames_cache_free();
	CHECK_EXIT();
}
