/* Tests for cmd/lua/puc/puc_frames.c and cmd/lua/puc/puc_names.c on a fake target: Protos, strings and bytecode
 * laid out with the real layout tables in a buffer that the reader serves. Covers chunk names,
 * 5.4 line decoding against an encoder written here, names from synthetic bytecode, the cache,
 * and hostile memory (failing reads, garbage, huge sizes, jump loops, deep chains). The real-VM
 * comparison is tests/integ/puc_frames.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "puc_frames.h"

#define BASE 0x100000ULL
#define SIZE (4u << 20)

/* ---- Fake target ---- */

struct fake {
	uint8_t *mem;
	uint64_t next;      /* bump allocator */
	long reads;         /* calls of the reader */
	long fail_after;    /* reads allowed before every read fails (-1: never) */
};

static long fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake *f = ctx;
	f->reads++;
	if (f->fail_after >= 0 && f->reads > f->fail_after)
		return -1;
	if (addr < BASE || addr - BASE > SIZE || len > SIZE - (addr - BASE))
		return -1;
	memcpy(buf, f->mem + (addr - BASE), len);
	return (long)len;
}

static void fake_init(struct fake *f)
{
	if (!f->mem)
		f->mem = malloc(SIZE);
	memset(f->mem, 0, SIZE);
	f->next = BASE + 64;
	f->reads = 0;
	f->fail_after = -1;
	puc_frames_cache_clear();
}

static uint64_t fake_alloc(struct fake *f, size_t n)
{
	uint64_t a = f->next;
	f->next += (n + 15) & ~(size_t)15;
	if (f->next > BASE + SIZE) {
		printf("fake target full\n");
		exit(1);
	}
	return a;
}

static void w(struct fake *f, uint64_t at, const void *v, size_t n) { memcpy(f->mem + (at - BASE), v, n); }
static void w8(struct fake *f, uint64_t at, uint8_t v) { w(f, at, &v, 1); }
static void w32(struct fake *f, uint64_t at, int32_t v) { w(f, at, &v, 4); }
static void w64(struct fake *f, uint64_t at, uint64_t v) { w(f, at, &v, 8); }
static void wtag(struct fake *f, uint64_t at, unsigned size, uint32_t v) { w(f, at, &v, size); }

/* A TString holding s (len bytes); long strings as the version stores them (5.5: the bytes
 * elsewhere, behind a pointer, and a negative shrlen). */
static uint64_t put_str(struct fake *f, const struct puc_layout *l, const char *s, size_t len)
{
	uint64_t at = fake_alloc(f, l->ts_contents + len + 1);
	int lng = (l->flags & LUA_LF_STR_SHRLEN) && len > 40;
	w8(f, at + l->gch_tt, (uint8_t)(lng ? l->gctag_lngstr : l->gctag_shrstr));
	if (!(l->flags & LUA_LF_STR_SHRLEN))
		w64(f, at + l->ts_len, len);
	else if (lng)
		w64(f, at + l->ts_lnglen, len);
	else
		w8(f, at + l->ts_shrlen, (uint8_t)len);
	if (lng && (l->flags & LUA_LF_STR_LNGPTR)) {
		uint64_t bytes = fake_alloc(f, 64 + len + 1) + 64;
		w8(f, at + l->ts_shrlen, 0xff);  /* LSTRREG, -1 */
		w64(f, at + l->ts_contents, bytes);
		w(f, bytes, s, len);
	} else {
		w(f, at + l->ts_contents, s, len);
	}
	return at;
}
static uint64_t put_cstr(struct fake *f, const struct puc_layout *l, const char *s)
{
	return put_str(f, l, s, strlen(s));
}

struct pspec {
	uint64_t source, code, lineinfo, abslineinfo, k, upvalues, locvars, p;
	int sizecode, sizelineinfo, sizeabs, sizek, sizeup, sizelocvars, sizep, linedefined;
};

static void wfield32(struct fake *f, uint64_t at, uint16_t off, int32_t v) { if (off != LUA_OFF_NONE) w32(f, at + off, v); }
static void wfield64(struct fake *f, uint64_t at, uint16_t off, uint64_t v) { if (off != LUA_OFF_NONE) w64(f, at + off, v); }

static uint64_t put_proto(struct fake *f, const struct puc_layout *l, const struct pspec *s)
{
	uint64_t at = fake_alloc(f, l->p_sizeof);
	w8(f, at + l->gch_tt, (uint8_t)l->gctag_proto);
	wfield64(f, at, l->p_source, s->source);
	wfield64(f, at, l->p_code, s->code);
	wfield64(f, at, l->p_lineinfo, s->lineinfo);
	wfield64(f, at, l->p_abslineinfo, s->abslineinfo);
	wfield64(f, at, l->p_k, s->k);
	wfield64(f, at, l->p_upvalues, s->upvalues);
	wfield64(f, at, l->p_locvars, s->locvars);
	wfield64(f, at, l->p_p, s->p);
	wfield32(f, at, l->p_sizecode, s->sizecode);
	wfield32(f, at, l->p_sizelineinfo, s->sizelineinfo);
	wfield32(f, at, l->p_sizeabslineinfo, s->sizeabs);
	wfield32(f, at, l->p_sizek, s->sizek);
	wfield32(f, at, l->p_sizeupvalues, s->sizeup);
	wfield32(f, at, l->p_sizelocvars, s->sizelocvars);
	wfield32(f, at, l->p_sizep, s->sizep);
	wfield32(f, at, l->p_linedefined, s->linedefined);
	return at;
}

/* Code array of n instructions. */
static uint64_t put_code(struct fake *f, const uint32_t *code, int n)
{
	uint64_t at = fake_alloc(f, (size_t)n * 4);
	w(f, at, code, (size_t)n * 4);
	return at;
}

/* Constants: strings (others left nil). */
static uint64_t put_kstrings(struct fake *f, const struct puc_layout *l, const char *const *ks, int n)
{
	uint64_t at = fake_alloc(f, (size_t)n * l->tv_sizeof);
	for (int i = 0; i < n; i++) {
		if (!ks[i])
			continue;
		uint64_t s = put_cstr(f, l, ks[i]);
		int lng = (l->flags & LUA_LF_STR_SHRLEN) && strlen(ks[i]) > 40;
		w64(f, at + (uint64_t)i * l->tv_sizeof + l->tv_value, s);
		wtag(f, at + (uint64_t)i * l->tv_sizeof + l->tv_tt, l->tv_tt_size,
		     lng ? l->tvtag_lngstr : l->tvtag_shrstr);
	}
	return at;
}

static uint64_t put_upvals(struct fake *f, const struct puc_layout *l, const char *const *names, int n)
{
	uint64_t at = fake_alloc(f, (size_t)n * l->uv_sizeof);
	for (int i = 0; i < n; i++)
		w64(f, at + (uint64_t)i * l->uv_sizeof + l->uv_name, put_cstr(f, l, names[i]));
	return at;
}

/* ---- Instruction encoding (from the layout's field positions) ---- */

static uint32_t I_abc(const struct puc_layout *l, enum puc_op op, unsigned a, unsigned b, unsigned c, unsigned k)
{
	uint32_t i = (uint32_t)l->op[op] << l->pos_op | a << l->pos_a | b << l->pos_b | c << l->pos_c;
	if (l->pos_k != LUA_OFF_NONE)
		i |= k << l->pos_k;
	return i;
}
static uint32_t I_abx(const struct puc_layout *l, enum puc_op op, unsigned a, unsigned bx)
{
	return (uint32_t)l->op[op] << l->pos_op | a << l->pos_a | bx << l->pos_bx;
}
static uint32_t I_jmp(const struct puc_layout *l, int off)
{
	if (l->pos_sj != LUA_OFF_NONE)
		return (uint32_t)l->op[LOP_JMP] << l->pos_op | (uint32_t)(off + (int)l->offset_sj) << l->pos_sj;
	return I_abx(l, LOP_JMP, 0, (unsigned)(off + (int)l->offset_sbx));
}

static const struct puc_layout *L51, *L53, *L54, *L55;

static struct fake F;
static struct puc_mem M = { fake_read, &F };

static uint64_t after(uint64_t code, int pc) { return code + 4 * (uint64_t)(pc + 1); }

/* ---- Chunk names ---- */

static uint64_t proto_with_source(const struct puc_layout *l, uint64_t source, int linedefined)
{
	uint32_t code[1] = { 0 };
	struct pspec s = { .source = source, .code = put_code(&F, code, 1), .sizecode = 1,
			   .linedefined = linedefined };
	return put_proto(&F, l, &s);
}

static void test_chunk_names(void)
{
	const struct puc_layout *ls[] = { L51, L53, L54, L55 };
	for (size_t v = 0; v < 4; v++) {
		const struct puc_layout *l = ls[v];
		char chunk[LUA_CHUNK_MAX];
		int ld = -1;
		fake_init(&F);
		CHECK_INT(puc_proto_info(l, &M, proto_with_source(l, put_cstr(&F, l, "@app.lua"), 42), 0, chunk,
					 sizeof chunk, &ld), 0);
		CHECK_STR(chunk, "app.lua");
		CHECK_INT(ld, 42);
		puc_proto_info(l, &M, proto_with_source(l, put_cstr(&F, l, "=stdin"), 0), 0, chunk, sizeof chunk, &ld);
		CHECK_STR(chunk, "stdin");
		CHECK_INT(ld, 0);
		puc_proto_info(l, &M, proto_with_source(l, put_cstr(&F, l, "return f(1)"), 0), 0, chunk, sizeof chunk, &ld);
		CHECK_STR(chunk, "[string \"return f(1)\"]");
		puc_proto_info(l, &M, proto_with_source(l, put_cstr(&F, l, "local x = 1\nreturn x"), 0), 0, chunk,
			       sizeof chunk, &ld);
		CHECK_STR(chunk, "[string \"local x = 1...\"]");
		puc_proto_info(l, &M, proto_with_source(l, 0, 7), 0, chunk, sizeof chunk, &ld);
		CHECK_STR(chunk, "?");
		/* separators of the folded format never get through */
		puc_proto_info(l, &M, proto_with_source(l, put_cstr(&F, l, "@a;b\nc\td.lua"), 1), 0, chunk,
			       sizeof chunk, &ld);
		CHECK_STR(chunk, "a\\x3bb\\x0ac\\x09d.lua");
		/* a small output buffer is filled, not overrun */
		char small[5];
		puc_proto_info(l, &M, proto_with_source(l, put_cstr(&F, l, "@abcdefgh"), 1), 0, small, sizeof small, &ld);
		CHECK_STR(small, "abcd");
	}
}

static void test_long_chunk_names(void)
{
	char path[1001], chunk[LUA_CHUNK_MAX];
	int ld;
	fake_init(&F);
	path[0] = '@';
	for (int i = 1; i < 1000; i++)
		path[i] = (char)('a' + i % 26);
	path[1000] = '\0';
	/* '@': the tail names the file, so it is kept behind "..." */
	CHECK_INT(puc_proto_info(L54, &M, proto_with_source(L54, put_cstr(&F, L54, path), 1), 0, chunk,
				 sizeof chunk, &ld), 0);
	CHECK_INT(strlen(chunk), LUA_CHUNK_MAX - 1);
	CHECK(strncmp(chunk, "...", 3) == 0);
	CHECK(strcmp(chunk + 3, path + 1000 - (LUA_CHUNK_MAX - 4)) == 0);
	/* '=': cut at the end */
	path[0] = '=';
	puc_proto_info(L54, &M, proto_with_source(L54, put_cstr(&F, L54, path), 1), 0, chunk, sizeof chunk, &ld);
	CHECK_INT(strlen(chunk), LUA_CHUNK_MAX - 1);
	CHECK(strncmp(chunk, path + 1, LUA_CHUNK_MAX - 1) == 0);
	/* string chunk: first 43 bytes of its first line */
	path[0] = 'x';
	puc_proto_info(L54, &M, proto_with_source(L54, put_cstr(&F, L54, path), 1), 0, chunk, sizeof chunk, &ld);
	CHECK_INT(strlen(chunk), strlen("[string \"...\"]") + 43);
	/* a length far beyond the mapped memory fails cleanly */
	uint64_t s = put_cstr(&F, L54, "@x.lua");
	w8(&F, s + L54->gch_tt, (uint8_t)L54->gctag_lngstr);
	w64(&F, s + L54->ts_lnglen, 1ULL << 40);
	CHECK_INT(puc_proto_info(L54, &M, proto_with_source(L54, s, 1), 0, chunk, sizeof chunk, &ld), -1);
	CHECK_STR(chunk, "");
}

/* 5.5: a long string's bytes are where its contents pointer says, never at the pointer itself. */
static void test_strings_55(void)
{
	const struct puc_layout *l = L55;
	char chunk[LUA_CHUNK_MAX], out[64];
	const char *name = "@a/fairly/long/path/to/a/lua/module/named/app.lua";
	int ld = -1;
	fake_init(&F);
	uint64_t s = put_cstr(&F, l, name);
	CHECK_INT(F.mem[s - BASE + l->gch_tt], l->gctag_lngstr);
	CHECK_INT(puc_proto_info(l, &M, proto_with_source(l, s, 3), 0, chunk, sizeof chunk, &ld), 0);
	CHECK_STR(chunk, name + 1);
	CHECK_INT(ld, 3);
	CHECK_INT(puc_tstring(l, &M, s, out, sizeof out, NULL), (long)strlen(name));
	CHECK_STR(out, name);
	/* short strings keep their bytes in place */
	uint64_t t = put_cstr(&F, l, "@short.lua");
	CHECK_INT(puc_tstring(l, &M, t, out, sizeof out, NULL), 10);
	CHECK_STR(out, "@short.lua");
	/* a null or unmapped pointer fails cleanly */
	w64(&F, s + l->ts_contents, 0);
	CHECK_INT(puc_tstring(l, &M, s, out, sizeof out, NULL), -1);
	w64(&F, s + l->ts_contents, 0x10);
	CHECK_INT(puc_tstring(l, &M, s, out, sizeof out, NULL), -1);
	CHECK_STR(out, "");
	/* older versions read a long string's bytes in place */
	uint64_t u = put_cstr(&F, L54, name);
	CHECK_INT(puc_tstring(L54, &M, u, out, sizeof out, NULL), (long)strlen(name));
	CHECK_STR(out, name);
}

/* ---- Lines ---- */

static void test_lines_int_array(void)
{
	const struct puc_layout *ls[] = { L51, L53 };
	for (size_t v = 0; v < 2; v++) {
		const struct puc_layout *l = ls[v];
		uint32_t code[4] = { 0 };
		int32_t lines[4] = { 10, 11, 11, 15 };
		fake_init(&F);
		uint64_t li = fake_alloc(&F, sizeof lines);
		w(&F, li, lines, sizeof lines);
		struct pspec s = { .code = put_code(&F, code, 4), .sizecode = 4, .lineinfo = li,
				   .sizelineinfo = 4, .linedefined = 9 };
		uint64_t p = put_proto(&F, l, &s);
		for (int pc = 0; pc < 4; pc++)
			CHECK_INT(puc_proto_line(l, &M, p, 0, after(s.code, pc)), lines[pc]);
		CHECK_INT(puc_proto_line(l, &M, p, 0, s.code), 9);             /* not started */
		CHECK_INT(puc_proto_line(l, &M, p, 0, after(s.code, 4)), -1);  /* past the end */
		CHECK_INT(puc_proto_line(l, &M, p, 0, s.code - 4), -1);
		CHECK_INT(puc_proto_line(l, &M, p, 0, s.code + 6), -1);        /* misaligned */
		CHECK_INT(puc_proto_line(l, &M, p + 8, 0, after(s.code, 1)), -1);  /* not a proto */
	}
}

/* Encodes lines as Lua 5.4's savelineinfo does: byte deltas, with an absolute entry when a delta
 * does not fit in a byte or 128 instructions passed since the last one. */
static uint64_t put_lines_54(struct fake *f, const int *lines, int n, int linedefined,
			     int *nabs, uint64_t *abs_at)
{
	int8_t *d = calloc((size_t)n, 1);
	int32_t *abs = calloc((size_t)n * 2, 4);
	int prev = linedefined, since = 0;
	*nabs = 0;
	for (int pc = 0; pc < n; pc++) {
		int delta = lines[pc] - prev;
		if (delta < -127 || delta > 127 || since++ >= 128) {
			abs[2 * *nabs] = pc;
			abs[2 * *nabs + 1] = lines[pc];
			(*nabs)++;
			d[pc] = -0x80;
			since = 1;
		} else {
			d[pc] = (int8_t)delta;
		}
		prev = lines[pc];
	}
	uint64_t at = fake_alloc(f, (size_t)n);
	w(f, at, d, (size_t)n);
	*abs_at = fake_alloc(f, (size_t)*nabs * 8 + 8);
	w(f, *abs_at, abs, (size_t)*nabs * 8);
	free(d);
	free(abs);
	return at;
}

static void test_lines_54(void)
{
	enum { N = 1000 };
	static int lines[N];
	static uint32_t code[N];
	int nabs;
	uint64_t abs;
	fake_init(&F);
	unsigned r = 12345;
	lines[0] = 5, lines[1] = 6, lines[2] = 7;  /* no absolute entry before pc 3 */
	for (int pc = 3; pc < N; pc++) {  /* mostly small steps, some big jumps back and forth */
		r = r * 1103515245 + 12345;
		int step = (r >> 16) % 10 == 0 ? (int)((r >> 8) % 600) - 200 : (int)((r >> 8) % 3);
		lines[pc] = lines[pc - 1] + step > 0 ? lines[pc - 1] + step : 1;
	}
	uint64_t li = put_lines_54(&F, lines, N, 3, &nabs, &abs);
	CHECK(nabs > 10);
	struct pspec s = { .code = put_code(&F, code, N), .sizecode = N, .lineinfo = li,
			   .sizelineinfo = N, .abslineinfo = abs, .sizeabs = nabs, .linedefined = 3 };
	uint64_t p = put_proto(&F, L54, &s);
	int bad = 0;
	for (int pc = 0; pc < N; pc++)
		bad += puc_proto_line(L54, &M, p, 0, after(s.code, pc)) != lines[pc];
	CHECK_INT(bad, 0);
	/* cached answers are the same */
	for (int pc = 0; pc < N; pc += 7)
		bad += puc_proto_line(L54, &M, p, 0, after(s.code, pc)) != lines[pc];
	CHECK_INT(bad, 0);
	/* a marker where no absolute entry is: -1 */
	puc_frames_cache_clear();
	w8(&F, li + 1, (uint8_t)0x80);
	CHECK_INT(puc_proto_line(L54, &M, p, 0, after(s.code, 2)), -1);
	/* absolute entries out of order or past lineinfo: an answer or -1, and no crash */
	w32(&F, abs, N + 5);
	w32(&F, abs + 8, -7);
	puc_frames_cache_clear();
	for (int pc = 0; pc < N; pc += 13)
		CHECK(puc_proto_line(L54, &M, p, 0, after(s.code, pc)) >= -1);
}

/* ---- Names from bytecode ---- */

/* A 5.4 proto: code, constants, upvalue names; no locals. */
static uint64_t proto54(const uint32_t *code, int n, const char *const *ks, int nk,
			const char *const *ups, int nup, uint64_t *code_at)
{
	struct pspec s = { .code = put_code(&F, code, n), .sizecode = n, .linedefined = 1 };
	if (nk) {
		s.k = put_kstrings(&F, L54, ks, nk);
		s.sizek = nk;
	}
	if (nup) {
		s.upvalues = put_upvals(&F, L54, ups, nup);
		s.sizeup = nup;
	}
	*code_at = s.code;
	return put_proto(&F, L54, &s);
}

static void test_names_54(void)
{
	const struct puc_layout *l = L54;
	const char *ks[] = { "f", "obj", "m;x\n", "tbl" };
	const char *ups[] = { "_ENV", "up" };
	char out[LUA_IDENT_MAX];
	uint64_t code_at;
	fake_init(&F);
	uint32_t code[] = {
		I_abc(l, LOP_GETTABUP, 0, 0, 0, 0),   /* 0: R0 = _ENV.f */
		I_abc(l, LOP_CALL, 0, 1, 1, 0),       /* 1: global 'f' */
		I_abc(l, LOP_GETUPVAL, 0, 1, 0, 0),   /* 2: R0 = up */
		I_abc(l, LOP_CALL, 0, 1, 1, 0),       /* 3: upvalue 'up' */
		I_abc(l, LOP_GETTABUP, 1, 0, 1, 0),   /* 4: R1 = _ENV.obj */
		I_abc(l, LOP_SELF, 0, 1, 2, 1),       /* 5: R0 = R1["m;x\n"] (k) */
		I_abc(l, LOP_CALL, 0, 2, 1, 0),       /* 6: method */
		I_abc(l, LOP_MMBIN, 0, 1, l->tm[LTM_ADD], 0),  /* 7: __add */
		I_abc(l, LOP_TFORCALL, 0, 0, 1, 0),   /* 8: for iterator */
		I_abc(l, LOP_GETTABUP, 1, 0, 3, 0),   /* 9: R1 = _ENV.tbl */
		I_abc(l, LOP_GETFIELD, 0, 1, 0, 0),   /* 10: R0 = R1.f */
		I_abc(l, LOP_CALL, 0, 1, 1, 0),       /* 11: field 'f' */
		I_abc(l, LOP_GETI, 0, 1, 3, 0),       /* 12: R0 = R1[3] */
		I_abc(l, LOP_CALL, 0, 1, 1, 0),       /* 13: integer index */
		I_abc(l, LOP_LOADNIL, 0, 0, 0, 0),    /* 14: R0 = nil */
		I_abc(l, LOP_CALL, 0, 1, 1, 0),       /* 15: no name */
		I_abc(l, LOP_GETTABUP, 0, 0, 0, 0),   /* 16: R0 = _ENV.f */
		I_jmp(l, 1),                          /* 17: jump over 18 */
		I_abc(l, LOP_GETUPVAL, 0, 1, 0, 0),   /* 18: conditional */
		I_abc(l, LOP_CALL, 0, 1, 1, 0),       /* 19: no name: set in skipped code */
		I_abc(l, LOP_RETURN0, 0, 0, 0, 0),
	};
	int n = (int)(sizeof code / sizeof code[0]);
	uint64_t p = proto54(code, n, ks, 4, ups, 2, &code_at);
	struct { int pc; int rc; const char *name; } want[] = {
		{ 1, 0, "f" }, { 3, 0, "up" }, { 6, 0, "m\\x3bx\\x0a" }, { 7, 0, "__add" }, { 8, 0, "for iterator" },
		{ 11, 0, "f" }, { 13, 0, "integer index" }, { 15, -1, "" }, { 19, -1, "" },
		{ 20, -1, "" }, { 0, 0, "__index" }, { 10, 0, "__index" }, { 2, -1, "" },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int rc = puc_call_name(l, &M, p, 0, after(code_at, want[i].pc), 0, out, sizeof out);
		if (rc != want[i].rc || strcmp(out, want[i].name) != 0)
			printf("  pc %d: rc %d name '%s'\n", want[i].pc, rc, out);
		CHECK_INT(rc, want[i].rc);
		CHECK_STR(out, want[i].name);
	}
	/* savedpc == code (nothing called yet) and outside the code: no name */
	CHECK_INT(puc_call_name(l, &M, p, 0, code_at, 0, out, sizeof out), -1);
	CHECK_INT(puc_call_name(l, &M, p, 0, code_at + 4 * (uint64_t)(n + 3), 0, out, sizeof out), -1);
	/* a tiny buffer */
	char tiny[2];
	CHECK_INT(puc_call_name(l, &M, p, 0, after(code_at, 7), 0, tiny, sizeof tiny), 0);
	CHECK_STR(tiny, "_");
}

/* 5.5's namer changes: OP_SELF's key is always a constant (its k bit says nothing about it),
 * OP_GETVARG indexes a named vararg parameter like OP_GETTABLE, and the opcode and mode numbers
 * moved (ivABC). */
static void test_names_55(void)
{
	const struct puc_layout *l = L55;
	const char *ks[] = { "obj", "meth", "fn" };
	const char *ups[] = { "_ENV" };
	char out[LUA_IDENT_MAX];
	fake_init(&F);
	uint32_t code[] = {
		I_abc(l, LOP_GETTABUP, 1, 0, 0, 0),   /* 0: R1 = _ENV.obj */
		I_abc(l, LOP_SELF, 0, 1, 1, 0),       /* 1: R0 = R1[K[1]] ("meth"), k bit clear */
		I_abc(l, LOP_CALL, 0, 2, 1, 0),       /* 2: method 'meth' */
		I_abx(l, LOP_LOADK, 2, 2),            /* 3: R2 = "fn" */
		I_abc(l, LOP_GETVARG, 0, 1, 2, 0),    /* 4: R0 = R1[R2] (R1 the vararg parameter) */
		I_abc(l, LOP_CALL, 0, 1, 1, 0),       /* 5: field 'fn' */
		I_abc(l, LOP_RETURN0, 0, 0, 0, 0),
	};
	int n = (int)(sizeof code / sizeof code[0]);
	struct pspec sp = { .code = put_code(&F, code, n), .sizecode = n, .linedefined = 1,
			    .k = put_kstrings(&F, l, ks, 3), .sizek = 3, .upvalues = put_upvals(&F, l, ups, 1),
			    .sizeup = 1 };
	uint64_t p = put_proto(&F, l, &sp);
	CHECK_INT(puc_call_name(l, &M, p, 0, after(sp.code, 2), 0, out, sizeof out), 0);
	CHECK_STR(out, "meth");
	CHECK_INT(puc_call_name(l, &M, p, 0, after(sp.code, 5), 0, out, sizeof out), 0);
	CHECK_STR(out, "fn");
	CHECK(l->op[LOP_GETVARG] != LUA_OP_NONE && L54->op[LOP_GETVARG] == LUA_OP_NONE);
}

static void test_names_51_locals(void)
{
	const struct puc_layout *l = L51;
	char out[LUA_IDENT_MAX];
	fake_init(&F);
	const char *ks[] = { "g" };
	uint32_t code[] = {
		I_abx(l, LOP_GETGLOBAL, 0, 0),       /* 0: local x = g */
		I_abc(l, LOP_MOVE, 1, 0, 0, 0),      /* 1: R1 = x */
		I_abc(l, LOP_CALL, 1, 1, 1, 0),      /* 2: local 'x' via MOVE */
		I_abx(l, LOP_GETGLOBAL, 1, 0),       /* 3: R1 = g */
		I_abc(l, LOP_CALL, 1, 1, 1, 0),      /* 4: global 'g' */
		I_abc(l, LOP_CALL, 0, 1, 1, 0),      /* 5: local 'x' */
		I_abc(l, LOP_ADD, 1, 0, 0, 0),       /* 6: 5.1 names no metamethod */
		I_abc(l, LOP_RETURN, 0, 1, 0, 0),
	};
	/* locvars: x in R0 from pc 1 */
	uint64_t lv = fake_alloc(&F, l->lv_sizeof);
	w64(&F, lv + l->lv_varname, put_cstr(&F, l, "x"));
	w32(&F, lv + l->lv_startpc, 1);
	w32(&F, lv + l->lv_endpc, 8);
	struct pspec s = { .code = put_code(&F, code, 8), .sizecode = 8, .k = put_kstrings(&F, l, ks, 1),
			   .sizek = 1, .locvars = lv, .sizelocvars = 1, .linedefined = 1 };
	uint64_t p = put_proto(&F, l, &s);
	CHECK_INT(puc_call_name(l, &M, p, 0, after(s.code, 2), 0, out, sizeof out), 0);
	CHECK_STR(out, "x");
	CHECK_INT(puc_call_name(l, &M, p, 0, after(s.code, 4), 0, out, sizeof out), 0);
	CHECK_STR(out, "g");
	CHECK_INT(puc_call_name(l, &M, p, 0, after(s.code, 5), 0, out, sizeof out), 0);
	CHECK_STR(out, "x");
	CHECK_INT(puc_call_name(l, &M, p, 0, after(s.code, 6), 0, out, sizeof out), -1);
}

/* ---- Cache ---- */

static void test_cache(void)
{
	char out[LUA_IDENT_MAX], chunk[LUA_CHUNK_MAX];
	uint64_t code_at;
	int ld;
	fake_init(&F);
	const char *ks[] = { "f" };
	const char *ups[] = { "_ENV" };
	uint32_t code[] = { I_abc(L54, LOP_GETTABUP, 0, 0, 0, 0), I_abc(L54, LOP_CALL, 0, 1, 1, 0) };
	uint64_t p = proto54(code, 2, ks, 1, ups, 1, &code_at);
	uint64_t src = put_cstr(&F, L54, "@one.lua");
	w64(&F, p + L54->p_source, src);
	CHECK_INT(puc_call_name(L54, &M, p, 0, after(code_at, 1), 0, out, sizeof out), 0);
	long first = F.reads;
	F.reads = 0;
	CHECK_INT(puc_call_name(L54, &M, p, 0, after(code_at, 1), 0, out, sizeof out), 0);
	CHECK_STR(out, "f");
	CHECK_INT(F.reads, 3);  /* the proto and its fingerprint only, to check it is the same proto */
	CHECK(first > 3);
	uint32_t fp = puc_proto_fp(L54, &M, p);
	F.reads = 0;
	CHECK_INT(puc_call_name(L54, &M, p, fp, after(code_at, 1), 0, out, sizeof out), 0);
	CHECK_STR(out, "f");
	CHECK_INT(F.reads, 0);  /* by the sample's fingerprint: no read at all */
	puc_proto_info(L54, &M, p, 0, chunk, sizeof chunk, &ld);
	CHECK_STR(chunk, "one.lua");
	/* another proto at the same address: fresh labels */
	w64(&F, p + L54->p_source, put_cstr(&F, L54, "@two.lua"));
	puc_proto_info(L54, &M, p, 0, chunk, sizeof chunk, &ld);
	CHECK_STR(chunk, "two.lua");
	/* another address space (ctx) with other contents at the same addresses */
	struct fake g = { 0 };
	fake_init(&g);
	memcpy(g.mem, F.mem, SIZE);
	w64(&g, p + L54->p_source, put_cstr(&g, L54, "@three.lua"));
	struct puc_mem m2 = { fake_read, &g };
	puc_proto_info(L54, &m2, p, 0, chunk, sizeof chunk, &ld);
	CHECK_STR(chunk, "three.lua");
	puc_proto_info(L54, &M, p, 0, chunk, sizeof chunk, &ld);
	CHECK_STR(chunk, "two.lua");
	free(g.mem);
	puc_frames_cache_free();
	puc_proto_info(L54, &M, p, 0, chunk, sizeof chunk, &ld);  /* re-created after free */
	CHECK_STR(chunk, "two.lua");
}

/* ---- Hostile memory ---- */

static void test_reads_fail(void)
{
	char out[LUA_IDENT_MAX], chunk[LUA_CHUNK_MAX];
	uint64_t code_at;
	int ld = 99;
	fake_init(&F);
	const char *ks[] = { "f" };
	const char *ups[] = { "_ENV" };
	uint32_t code[] = { I_abc(L54, LOP_GETTABUP, 0, 0, 0, 0), I_abc(L54, LOP_CALL, 0, 1, 1, 0) };
	uint64_t p = proto54(code, 2, ks, 1, ups, 1, &code_at);
	w64(&F, p + L54->p_source, put_cstr(&F, L54, "@x.lua"));
	/* every read failing at each possible point: -1 or -2 (unknown: the name's reads failed),
	 * or a complete answer, never a crash */
	for (long k = 0; k < 40; k++) {
		puc_frames_cache_clear();
		F.reads = 0;
		F.fail_after = k;
		int rc = puc_call_name(L54, &M, p, 0, after(code_at, 1), 0, out, sizeof out);
		CHECK(rc == -1 || rc == -2 || (rc == 0 && strcmp(out, "f") == 0));
		if (rc < 0)
			CHECK_STR(out, "");
		F.reads = 0;
		rc = puc_proto_info(L54, &M, p, 0, chunk, sizeof chunk, &ld);
		CHECK(rc == -1 || (rc == 0 && strcmp(chunk, "x.lua") == 0));
		F.reads = 0;
		CHECK(puc_proto_line(L54, &M, p, 0, after(code_at, 1)) == -1);  /* no lineinfo at all */
	}
	/* a failed read is not cached: the name comes once reads work again */
	F.fail_after = 3;
	F.reads = 0;
	puc_frames_cache_clear();
	CHECK_INT(puc_call_name(L54, &M, p, 0, after(code_at, 1), 0, out, sizeof out), -2);
	F.fail_after = -1;
	CHECK_INT(puc_call_name(L54, &M, p, 0, after(code_at, 1), 0, out, sizeof out), 0);
	CHECK_STR(out, "f");
	/* NULL reader, NULL proto */
	struct puc_mem none = { NULL, NULL };
	CHECK_INT(puc_proto_info(L54, &none, p, 0, chunk, sizeof chunk, &ld), -1);
	CHECK_INT(puc_proto_info(L54, &M, 0, 0, chunk, sizeof chunk, &ld), -1);
	CHECK_INT(puc_call_name(L54, &M, 0, 0, 4, 0, out, sizeof out), -2);
	CHECK_INT(puc_proto_line(L54, &M, ~0ULL - 2, 0, 4), -1);
}

static void test_huge_sizes(void)
{
	char out[LUA_IDENT_MAX];
	fake_init(&F);
	/* sizes past any real Proto: rejected */
	uint32_t code[2] = { 0 };
	struct pspec s = { .code = put_code(&F, code, 2), .sizecode = 0x7fffffff, .linedefined = 1 };
	uint64_t p = put_proto(&F, L54, &s);
	CHECK_INT(puc_call_name(L54, &M, p, 0, after(s.code, 1), 0, out, sizeof out), -2);
	s.sizecode = -5;
	p = put_proto(&F, L54, &s);
	CHECK_INT(puc_proto_line(L54, &M, p, 0, after(s.code, 1)), -1);
	/* a large sizecode that passes the limit but whose code is not all mapped */
	s.sizecode = 1 << 25;
	s.code = BASE + SIZE - 64;
	p = put_proto(&F, L54, &s);
	CHECK_INT(puc_call_name(L54, &M, p, 0, s.code + 4 * 100000, 0, out, sizeof out), -2);
	/* a huge locvars count, every entry live: the scan is bounded */
	const struct puc_layout *l = L53;
	uint64_t lv = fake_alloc(&F, (size_t)l->lv_sizeof * 70000);  /* all zero: startpc 0, endpc 0 */
	uint32_t c2[] = { I_abc(l, LOP_CALL, 0, 1, 1, 0) };
	struct pspec s2 = { .code = put_code(&F, c2, 1), .sizecode = 1, .locvars = lv,
			    .sizelocvars = 1 << 24, .linedefined = 1 };
	p = put_proto(&F, l, &s2);
	CHECK_INT(puc_call_name(l, &M, p, 0, after(s2.code, 0), 0, out, sizeof out), -1);
	/* upvalue and constant indexes beyond their arrays */
	uint32_t c3[] = { I_abc(l, LOP_GETUPVAL, 0, 200, 0, 0), I_abc(l, LOP_CALL, 0, 1, 1, 0),
			  I_abx(l, LOP_LOADK, 0, 9999), I_abc(l, LOP_CALL, 0, 1, 1, 0) };
	struct pspec s3 = { .code = put_code(&F, c3, 4), .sizecode = 4, .sizeup = 3,
			    .upvalues = BASE + 8, .linedefined = 1 };
	p = put_proto(&F, l, &s3);
	CHECK_INT(puc_call_name(l, &M, p, 0, after(s3.code, 1), 0, out, sizeof out), 0);
	CHECK_STR(out, "?");
	CHECK_INT(puc_call_name(l, &M, p, 0, after(s3.code, 3), 0, out, sizeof out), -1);
}

/* Backward jumps, jumps to themselves and long MOVE chains terminate, bounded. */
static void test_loops_and_chains(void)
{
	const struct puc_layout *ls[] = { L51, L53, L54 };
	char out[LUA_IDENT_MAX];
	for (size_t v = 0; v < 3; v++) {
		const struct puc_layout *l = ls[v];
		enum { N = 3000 };
		static uint32_t code[N];
		fake_init(&F);
		for (int i = 0; i < N - 1; i++)
			code[i] = i % 3 == 0 ? I_jmp(l, -1) : i % 3 == 1 ? I_jmp(l, 0) : I_jmp(l, -(i + 1));
		code[N - 1] = I_abc(l, LOP_CALL, 0, 1, 1, 0);
		struct pspec s = { .code = put_code(&F, code, N), .sizecode = N, .linedefined = 1 };
		uint64_t p = put_proto(&F, l, &s);
		CHECK_INT(puc_call_name(l, &M, p, 0, after(s.code, N - 1), 0, out, sizeof out), -1);
		/* R(k) = R(k-1) for k = 1..250, then call R250: a MOVE chain deeper than the bound */
		for (int k = 1; k <= 250; k++)
			code[k - 1] = I_abc(l, LOP_MOVE, (unsigned)k, (unsigned)k - 1, 0, 0);
		code[250] = I_abc(l, LOP_CALL, 250, 1, 1, 0);
		s.code = put_code(&F, code, 251);
		s.sizecode = 251;
		p = put_proto(&F, l, &s);
		CHECK_INT(puc_call_name(l, &M, p, 0, after(s.code, 250), 0, out, sizeof out), -1);
	}
}

/* Random bytes everywhere, with many values that look like pointers into the fake target. */
static void test_garbage(void)
{
	uint64_t x = 88172645463325252ULL;
	char out[LUA_IDENT_MAX], chunk[LUA_CHUNK_MAX];
	int ld, ok = 1;
	for (size_t t = 0; t < puc_layout_count(); t++) {
		const struct puc_layout *l = puc_layout_at(t);
		fake_init(&F);
		for (size_t i = 0; i < SIZE; i += 8) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			uint64_t v = x % 4 == 0 ? BASE + (x >> 8) % SIZE : x % 4 == 1 ? (x >> 20) % 300 : x;
			memcpy(F.mem + i, &v, 8);
		}
		for (int i = 0; i < 3000; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			uint64_t p = BASE + (x % (SIZE - 1024) & ~7ULL), pc = BASE + ((x >> 24) % SIZE & ~3ULL);
			w8(&F, p + l->gch_tt, (uint8_t)l->gctag_proto);  /* get past the first check */
			int rc = puc_call_name(l, &M, p, 0, pc, 0, out, sizeof out);
			ok &= (rc < 0 && rc >= -2 && out[0] == '\0') || (rc == 0 && strlen(out) < sizeof out);
			ok &= strchr(out, ';') == NULL;
			rc = puc_proto_info(l, &M, p, 0, chunk, sizeof chunk, &ld);
			ok &= strlen(chunk) < sizeof chunk && strchr(chunk, ';') == NULL && strchr(chunk, '\n') == NULL;
			int line = puc_proto_line(l, &M, p, 0, pc);
			ok &= line >= -1;
		}
	}
	CHECK(ok);
}

/* ---- Labels by the fingerprint of a sample ---- */

/* A label read while a proto lived stays known under its fingerprint after another proto took
 * its memory, with no read of the target; a fingerprint that the memory no longer has is never
 * named from it (-2); a proto whose chunk name string was freed and reallocated in place with
 * other contents (another hash) has another fingerprint. */
static void test_fingerprints(void)
{
	char out[LUA_IDENT_MAX], chunk[LUA_CHUNK_MAX];
	uint64_t code_at;
	int ld = -1;
	fake_init(&F);
	const char *ks[] = { "f" };
	const char *ups[] = { "_ENV" };
	uint32_t code[] = { I_abc(L54, LOP_GETTABUP, 0, 0, 0, 0), I_abc(L54, LOP_CALL, 0, 1, 1, 0) };
	uint64_t p = proto54(code, 2, ks, 1, ups, 1, &code_at);
	uint64_t one = put_cstr(&F, L54, "=chunk1");
	w32(&F, one + 12, 0x1111);  /* TString.hash */
	w64(&F, p + L54->p_source, one);
	uint32_t fp1 = puc_proto_fp(L54, &M, p);
	CHECK(fp1 != 0 && fp1 < (1u << LF_FP_BITS));
	CHECK_INT(puc_proto_info(L54, &M, p, fp1, chunk, sizeof chunk, &ld), 0);
	CHECK_STR(chunk, "chunk1");
	CHECK_INT(puc_call_name(L54, &M, p, fp1, after(code_at, 1), 0, out, sizeof out), 0);
	CHECK_STR(out, "f");
	/* the next chunk: same proto and string addresses, the string of another name */
	w(&F, one + L54->ts_contents, "=chunk2", 7);
	w32(&F, one + 12, 0x2222);
	uint32_t fp2 = puc_proto_fp(L54, &M, p);
	CHECK(fp2 != 0 && fp2 != fp1);
	long before = F.reads;
	CHECK_INT(puc_proto_info(L54, &M, p, fp1, chunk, sizeof chunk, &ld), 0);
	CHECK_STR(chunk, "chunk1");
	CHECK_INT(ld, 1);
	CHECK_INT(puc_call_name(L54, &M, p, fp1, after(code_at, 1), 0, out, sizeof out), 0);
	CHECK_INT(F.reads - before, 0);  /* all from the cache */
	CHECK_INT(puc_proto_info(L54, &M, p, fp2, chunk, sizeof chunk, &ld), 0);
	CHECK_STR(chunk, "chunk2");
	/* a sample of a function that was gone before it was named */
	uint32_t other = fp1 ^ fp2 ^ 4;
	CHECK_INT(puc_proto_info(L54, &M, p, other | 1, chunk, sizeof chunk, &ld), -2);
	CHECK_INT(puc_call_name(L54, &M, p, other | 1, after(code_at, 1), 0, out, sizeof out), -2);
	/* no fingerprint taken: whatever the memory holds now */
	CHECK_INT(puc_proto_info(L54, &M, p, 0, chunk, sizeof chunk, &ld), 0);
	CHECK_STR(chunk, "chunk2");
	/* the target is gone: known fingerprints still answer, others cannot */
	F.fail_after = F.reads;
	CHECK_INT(puc_proto_info(L54, &M, p, fp1, chunk, sizeof chunk, &ld), 0);
	CHECK_STR(chunk, "chunk1");
	CHECK_INT(puc_proto_line(L54, &M, p, fp2, after(code_at, 1)), -1);
	CHECK_INT(puc_proto_info(L54, &M, p + 16, fp1, chunk, sizeof chunk, &ld), -1); /* one read: no twin yet */
	F.fail_after = -1;
}

/* A state per request: the same function loaded in other states at other addresses has the
 * same content fingerprint, and once two states read alike, a third closed before it was read
 * is named as they were, its call names too; reads that disagree leave it unnamed. */
static void test_twins(void)
{
	char out[LUA_IDENT_MAX], chunk[LUA_CHUNK_MAX];
	uint64_t code[4];
	uint64_t p[4];
	int ld = -1;
	fake_init(&F);
	puc_frames_cache_clear();
	const char *ks[] = { "f" }, *ks3[] = { "g" };
	const char *ups[] = { "_ENV" };
	uint32_t ins[] = { I_abc(L54, LOP_GETTABUP, 0, 0, 0, 0), I_abc(L54, LOP_CALL, 0, 1, 1, 0) };
	for (int i = 0; i < 4; i++) {
		p[i] = proto54(ins, 2, i == 3 ? ks3 : ks, 1, ups, 1, &code[i]);
		w64(&F, p[i] + L54->p_source, put_cstr(&F, L54, "@req.lua"));
	}
	uint32_t fp = puc_proto_fp(L54, &M, p[0]), callee = 0x1235;
	CHECK(fp != 0 && puc_proto_fp(L54, &M, p[1]) == fp && puc_proto_fp(L54, &M, p[2]) == fp);
	/* chunk names that differ in their last byte: not twins */
	uint64_t n10 = put_cstr(&F, L54, "=chunk10"), n11 = put_cstr(&F, L54, "=chunk11");
	w64(&F, p[1] + L54->p_source, n10);
	uint32_t fp10 = puc_proto_fp(L54, &M, p[1]);
	w64(&F, p[1] + L54->p_source, n11);
	CHECK(fp10 != puc_proto_fp(L54, &M, p[1]));
	w64(&F, p[1] + L54->p_source, put_cstr(&F, L54, "@req.lua"));
	/* the third state closed before its function was read: its memory holds something else */
	w64(&F, p[2] + L54->p_source, put_cstr(&F, L54, "@other.lua"));
	CHECK(puc_proto_fp(L54, &M, p[2]) != fp);
	CHECK_INT(puc_proto_info(L54, &M, p[0], fp, chunk, sizeof chunk, &ld), 0);
	CHECK_INT(puc_call_name(L54, &M, p[0], fp, after(code[0], 1), callee, out, sizeof out), 0);
	CHECK_INT(puc_proto_info(L54, &M, p[2], fp, chunk, sizeof chunk, &ld), -2); /* one read: not yet */
	CHECK_INT(puc_proto_info(L54, &M, p[1], fp, chunk, sizeof chunk, &ld), 0);
	CHECK_INT(puc_call_name(L54, &M, p[1], fp, after(code[1], 1), callee, out, sizeof out), 0);
	long before = F.reads;
	CHECK_INT(puc_proto_info(L54, &M, p[2], fp, chunk, sizeof chunk, &ld), 0);
	CHECK_STR(chunk, "req.lua");
	CHECK_INT(puc_call_name(L54, &M, p[2], fp, after(code[2], 1), callee, out, sizeof out), 0);
	CHECK_STR(out, "f");
	CHECK_INT(F.reads - before, 0); /* a twin's labels need no read */
	CHECK_INT(puc_call_name(L54, &M, p[2], fp, after(code[2], 1), callee ^ 2, out, sizeof out), -2);
	/* a fourth function of that fingerprint whose call reads otherwise: the name is in doubt */
	CHECK(puc_proto_fp(L54, &M, p[3]) == fp);
	CHECK_INT(puc_call_name(L54, &M, p[3], fp, after(code[3], 1), callee, out, sizeof out), 0);
	CHECK_STR(out, "f"); /* its twins' name, not read: the twins of a fingerprint are one function */
}

int main(void)
{
	L51 = puc_layout_for(5, 1, 5);
	L53 = puc_layout_for(5, 3, 6);
	L54 = puc_layout_for(5, 4, 4);
	L55 = puc_layout_for(5, 5, 1);
	if (!L51 || !L53 || !L54 || !L55) {
		printf("FAIL: layouts: missing\n");
		return 1;
	}
	RUN(test_chunk_names);
	RUN(test_long_chunk_names);
	RUN(test_strings_55);
	RUN(test_lines_int_array);
	RUN(test_lines_54);
	RUN(test_names_54);
	RUN(test_names_55);
	RUN(test_names_51_locals);
	RUN(test_cache);
	RUN(test_reads_fail);
	RUN(test_huge_sizes);
	RUN(test_loops_and_chains);
	RUN(test_garbage);
	RUN(test_fingerprints);
	RUN(test_twins);
	free(F.mem);
	puc_frames_cache_free();
	CHECK_EXIT();
}
