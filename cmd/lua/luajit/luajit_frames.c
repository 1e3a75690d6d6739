/* LuaJIT frame labels from a target's memory: reading GCfuncs, GCprotos and GCstrs through an
 * untrusted reader, chunk names as LuaJIT prints them, current lines from lineinfo, and a small
 * cache of labels keyed by (address space, proto, pc) and checked against the proto's header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "label_cache.h"
#include "proto_labels.h"
#include "safe_name.h"
#include "luajit_frames.h"

#define MAX_PROTO (64u << 20)   /* no real proto allocation is this big */
#define HDR_MAX 256             /* GCproto/GCfunc/GCstr headers are smaller (checked) */
#define STRING_CHUNK_SCAN 48    /* LuaJIT: string chunk names keep up to LUA_IDSIZE - 12 bytes */
#define STRING_CHUNK_CUT 45     /* ...and LUA_IDSIZE - 15 before "..." when cut */

int luajit_rd(const struct luajit_mem *m, uint64_t addr, void *buf, size_t len)
{
	if (!m || !m->read || addr == 0 || addr + len < addr)
		return -1;
	return m->read(m->ctx, addr, buf, len) == (long)len ? 0 : -1;
}

uint64_t luajit_load_ref(const uint8_t *b, int32_t size)
{
	uint64_t v = 0;
	memcpy(&v, b, size == 4 ? 4 : 8);
	return v;
}

int luajit_rd_ref(const struct luajit_mem *m, uint64_t addr, int32_t size, uint64_t *out)
{
	uint8_t b[8];
	if ((size != 4 && size != 8) || luajit_rd(m, addr, b, (size_t)size) < 0)
		return -1;
	*out = luajit_load_ref(b, size);
	return 0;
}

static uint32_t get_u32(const uint8_t *b, int32_t off)
{
	uint32_t v;
	memcpy(&v, b + off, sizeof v);
	return v;
}

/* Offsets must lie inside the header read (a broken layout must not make us read past it). */
static int fits(int32_t off, int32_t len, int32_t size)
{
	return off >= 0 && len >= 0 && off + len <= size;
}

/* An array of len bytes at a, if not NULL, must lie inside the proto's allocation. */
static int inside(const struct luajit_proto *p, uint64_t a, uint64_t len)
{
	uint64_t end = p->addr + p->sizept;
	return a == 0 || (a >= p->addr && a <= end && len <= end - a);
}

static int proto_fields_ok(const struct luajit_layout *l)
{
	int32_t s = l->pt_size, r = l->mref_size, g = l->gcref_size;
	return s > 0 && s <= HDR_MAX && (r == 4 || r == 8) && (g == 4 || g == 8) &&
	       fits(l->pt_gct, 1, s) && fits(l->pt_sizebc, 4, s) && fits(l->pt_k, r, s) &&
	       fits(l->pt_sizekgc, 4, s) && fits(l->pt_sizept, 4, s) && fits(l->pt_sizeuv, 1, s) &&
	       fits(l->pt_chunkname, g, s) && fits(l->pt_firstline, 4, s) &&
	       fits(l->pt_numline, 4, s) && fits(l->pt_lineinfo, r, s) && fits(l->pt_uvinfo, r, s) &&
	       fits(l->pt_varinfo, r, s);
}

/* Where LuaJIT puts things (lj_parse.c fs_finish, lj_bcread.c): header, bytecode, string
 * constants (GCRefs below k), numbers from k on, upvalue map, then line/upvalue/variable info. */
static int proto_check(const struct luajit_layout *l, struct luajit_proto *p)
{
	uint64_t bc_end = p->bc + 4 * (uint64_t)p->sizebc;
	uint64_t kgc = (uint64_t)p->sizekgc * (uint32_t)l->gcref_size;
	if (p->sizept > MAX_PROTO || p->sizebc == 0 || p->chunkname == 0 || p->numline < 0 ||
	    p->firstline < -1)
		return -1;
	if (!inside(p, p->bc, 4 * (uint64_t)p->sizebc) || p->k < bc_end || p->k - bc_end < kgc ||
	    !inside(p, p->k, 0))
		return -1;
	uint64_t li = (uint64_t)(p->sizebc - 1) * LUAJIT_LINEINFO_SIZE(p->numline);
	if (!inside(p, p->lineinfo, li) || !inside(p, p->uvinfo, 0) || !inside(p, p->varinfo, 0))
		return -1;
	return 0;
}

int luajit_proto_read(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t addr,
		  struct luajit_proto *p)
{
	uint8_t b[HDR_MAX];
	if (!l || !proto_fields_ok(l) || luajit_rd(m, addr, b, (size_t)l->pt_size) < 0)
		return -1;
	if (b[l->pt_gct] != (uint8_t)l->gct_proto)
		return -1;
	memset(p, 0, sizeof *p);
	p->addr = addr;
	p->bc = addr + (uint64_t)l->pt_size;
	p->sizebc = get_u32(b, l->pt_sizebc);
	p->sizekgc = get_u32(b, l->pt_sizekgc);
	p->sizept = get_u32(b, l->pt_sizept);
	p->sizeuv = b[l->pt_sizeuv];
	p->firstline = (int32_t)get_u32(b, l->pt_firstline);
	p->numline = (int32_t)get_u32(b, l->pt_numline);
	p->k = luajit_load_ref(b + l->pt_k, l->mref_size);
	p->chunkname = luajit_load_ref(b + l->pt_chunkname, l->gcref_size);
	p->lineinfo = luajit_load_ref(b + l->pt_lineinfo, l->mref_size);
	p->uvinfo = luajit_load_ref(b + l->pt_uvinfo, l->mref_size);
	p->varinfo = luajit_load_ref(b + l->pt_varinfo, l->mref_size);
	return proto_check(l, p);
}

#define STR_AHEAD 64   /* bytes read with a string's header */

long luajit_gcstr(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t s, char *out,
	      size_t out_size, uint32_t *full_len)
{
	uint8_t b[HDR_MAX + STR_AHEAD];
	if (!out || out_size == 0)
		return -1;
	out[0] = '\0';
	if (!l || l->str_size <= 0 || l->str_size > HDR_MAX || !fits(l->str_gct, 1, l->str_size) ||
	    !fits(l->str_len, 4, l->str_size))
		return -1;
	/* most names fit in one read with the header; a read past the mapping's end fails */
	size_t ahead = out_size - 1 < STR_AHEAD ? out_size - 1 : STR_AHEAD;
	int one = luajit_rd(m, s, b, (size_t)l->str_size + ahead) == 0;
	if ((!one && luajit_rd(m, s, b, (size_t)l->str_size) < 0) || b[l->str_gct] != (uint8_t)l->gct_str)
		return -1;
	uint32_t len = get_u32(b, l->str_len);
	size_t n = len < out_size - 1 ? len : out_size - 1;
	/* LuaJIT ends every string with a NUL after its len bytes: a header read with the wrong
	 * layout (2.1.0-beta3's is 4 bytes shorter than later 2.1's) rarely has one there. */
	uint8_t end = 1;
	if (one && n < ahead) {
		memcpy(out, b + l->str_size, n);
		end = b[(size_t)l->str_size + n];
	} else if (n > 0 && luajit_rd(m, s + (uint64_t)l->str_size, out, n) < 0) {
		return -1;
	} else if (n == len && luajit_rd(m, s + (uint64_t)l->str_size + n, &end, 1) < 0) {
		return -1;
	}
	if (n == len && end != 0)
		return -1;
	out[n] = '\0';
	if (full_len)
		*full_len = len;
	return (long)strlen(out);
}

/* ---- GCfunc ---- */

/* The bytes every GCfunc has: header, ffid and fn->l.pc (the shortest GCfuncL may end right
 * after it, so a C function's f is read apart). */
static int func_fields_ok(const struct luajit_layout *l, int32_t *need)
{
	int32_t n = l->fn_pc + l->mref_size;
	*need = n;
	return n <= HDR_MAX && l->fn_gct >= 0 && l->fn_gct < n && l->fn_ffid >= 0 &&
	       l->fn_ffid < n && l->fn_pc >= 0 && l->fn_c_f >= 0 &&
	       (l->mref_size == 4 || l->mref_size == 8);
}

enum luajit_fn_kind luajit_cfunc_kind(const struct luajit_layout *l, int ffid)
{
	if (ffid == l->ff_c)
		return LJ_FN_C;
	/* past the built-ins' names: no VM of this layout has such a built-in */
	return ffid >= 0 && ffid < l->ff_names_count ? LJ_FN_FAST : LJ_FN_BAD;
}

enum luajit_fn_kind luajit_func_info(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t fn,
			     uint64_t *proto_or_cfunc, int *ffid)
{
	uint8_t b[HDR_MAX];
	int32_t need;
	if (proto_or_cfunc)
		*proto_or_cfunc = 0;
	if (ffid)
		*ffid = -1;
	if (!l || !func_fields_ok(l, &need) || luajit_rd(m, fn, b, (size_t)need) < 0 ||
	    b[l->fn_gct] != (uint8_t)l->gct_func)
		return LJ_FN_BAD;
	int id = b[l->fn_ffid];
	uint64_t v;
	enum luajit_fn_kind kind;
	if (id == l->ff_lua) {
		/* fn->l.pc points at the first instruction, right after the GCproto header; a pc
		 * in the first pages cannot be one */
		v = luajit_load_ref(b + l->fn_pc, l->mref_size);
		if (v < (uint64_t)l->pt_size + 4096)
			return LJ_FN_BAD;
		v -= (uint64_t)l->pt_size;
		kind = LJ_FN_LUA;
	} else {
		kind = luajit_cfunc_kind(l, id);
		if (kind == LJ_FN_BAD || luajit_rd(m, fn + (uint64_t)l->fn_c_f, &v, sizeof v) < 0)
			return LJ_FN_BAD;
	}
	if (proto_or_cfunc)
		*proto_or_cfunc = v;
	if (ffid)
		*ffid = id;
	return kind;
}

const char *luajit_fast_name(const struct luajit_layout *l, int ffid, char *buf, size_t n)
{
	const char *s = luajit_ff_name(l, ffid, buf, n);
	if (s)
		safe_name_fix(buf, n, SAFE_FOLDED);
	return s;
}

int luajit_proto_builtin_name(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto,
			char *out, size_t size)
{
	struct luajit_proto p;
	char chunk[LJ_IDENT_MAX];
	if (!out || size == 0 || luajit_proto_read(l, m, proto, &p) < 0 || p.firstline != -1 ||
	    luajit_gcstr(l, m, p.chunkname, chunk, sizeof chunk, NULL) <= 0)
		return -1;
	/* one this table does not know keeps the bare name its library registered it under */
	if (!luajit_lua_builtin_name(chunk, out, size))
		snprintf(out, size, "%s", chunk);
	safe_name_fix(out, size, SAFE_FOLDED);
	return 0;
}

/* ---- Chunk names ---- */

/* "@path": the path, or "..." and its tail when it does not fit (the end names the file). */
static int chunk_file(const struct luajit_mem *m, uint64_t at, uint32_t len, char *out, size_t size)
{
	if (len <= size - 1) {
		if (len && luajit_rd(m, at, out, len) < 0)
			return -1;
		out[len] = '\0';
		return 0;
	}
	if (size < 8) {
		out[0] = '\0';
		return 0;
	}
	size_t keep = size - 1 - 3;
	memcpy(out, "...", 3);
	if (luajit_rd(m, at + len - keep, out + 3, keep) < 0)
		return -1;
	out[size - 1] = '\0';
	return 0;
}

/* A chunk loaded from a string: [string "text"], cut at the first control byte or after
 * STRING_CHUNK_SCAN bytes with "..." (lj_debug_shortname); built-in ones [builtin:text]. */
static void chunk_string(const char *src, int builtin, char *out, size_t size)
{
	size_t len = 0;
	while (len < STRING_CHUNK_SCAN && (unsigned char)src[len] >= ' ')
		len++;
	int cut = src[len] != '\0';
	if (cut && len > STRING_CHUNK_CUT)
		len = STRING_CHUNK_CUT;
	snprintf(out, size, "%s%.*s%s%s", builtin ? "[builtin:" : "[string \"", (int)len, src,
		 cut ? "..." : "", builtin ? "]" : "\"]");
}

static int chunk_name(const struct luajit_layout *l, const struct luajit_mem *m,
		      const struct luajit_proto *p, char *out, size_t size)
{
	char head[STRING_CHUNK_SCAN + 2];
	uint32_t len;
	if (luajit_gcstr(l, m, p->chunkname, head, sizeof head, &len) < 0)
		return -1;
	uint64_t at = p->chunkname + (uint64_t)l->str_size;
	if (head[0] == '@' || head[0] == '=') {
		if (head[0] == '=' && len - 1 > size - 1)
			len = (uint32_t)size;  /* '=' names are cut at the end, as LuaJIT does */
		if (chunk_file(m, at + 1, len - 1, out, size) < 0)
			return -1;
		out[strnlen(out, size - 1)] = '\0';  /* an embedded NUL ends the name */
	} else {
		chunk_string(head, p->firstline == -1, out, size);
	}
	safe_name_fix(out, size, SAFE_FOLDED);
	return 0;
}

/* ---- Lines ---- */

/* Index of the instruction before pc, or -2 when pc is not inside p's bytecode (pc == bc gives
 * -1: nothing ran yet). Index 0 is the function header (FUNCF...). */
static int64_t pos_of(const struct luajit_proto *p, uint64_t pc)
{
	if (pc < p->bc || (pc - p->bc) % 4 != 0 || (pc - p->bc) / 4 > p->sizebc)  /* past RET */
		return -2;
	return (int64_t)((pc - p->bc) / 4) - 1;
}

/* lj_debug_line: lineinfo holds firstline-relative lines of instructions 1 .. sizebc-1; the
 * header (0) is on firstline. */
static int proto_line(const struct luajit_mem *m, const struct luajit_proto *p, int64_t pos)
{
	if (!p->lineinfo || pos < -1 || pos >= p->sizebc)
		return -1;
	int64_t line;
	if (pos <= 0) {
		line = p->firstline;
	} else {
		unsigned sz = LUAJIT_LINEINFO_SIZE(p->numline);
		uint32_t v = 0;
		if (luajit_rd(m, p->lineinfo + (uint64_t)(pos - 1) * sz, &v, sz) < 0)
			return -1;
		line = (int64_t)p->firstline + v;
	}
	return line >= 0 && line <= 0x7fffffff ? (int)line : -1;
}

/* ---- Cache ---- */

static struct label_cache cache;

void luajit_frames_cache_clear(void)
{
	label_cache_clear(&cache);
}

void luajit_frames_cache_free(void)
{
	label_cache_free(&cache);
}

void luajit_fp_cfg(const struct luajit_layout *l, struct lf_fp_cfg *f)
{
	memset(f, 0, sizeof *f);
	/* the bytecode follows the GCproto header: its address is covered by the proto's */
	lf_fp_span(f, 0xffff, (uint16_t)l->pt_chunkname, (uint16_t)l->pt_firstline, (uint16_t)l->pt_sizebc, NULL);
	f->source_ref = (uint8_t)l->gcref_size;
	f->str_tt = (uint16_t)l->str_gct;
	f->str_hash = (uint16_t)(l->str_len - 4);  /* every variant: MSize/StrHash hash; MSize len */
	f->str_len = (uint16_t)l->str_len;
	f->str_len_size = 4;
	f->str_lnglen = 0xffff;
	f->str_tag_long = 0;  /* LuaJIT hashes every string when it creates it */
	if (l->str_len < 4 || l->str_len + 8 > 32 || l->str_gct >= 32)
		f->span_len = 0;
}

static int rd_lj(const void *m, uint64_t a, void *b, size_t n)
{
	return luajit_rd(m, a, b, n);
}

uint32_t luajit_proto_fp(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto)
{
	struct lf_fp_cfg f;
	luajit_fp_cfg(l, &f);
	return lf_fp_read(&f, proto, rd_lj, m);
}

/* The proto reader of the shared label lookups (proto_labels.h), over layout l and memory m. */
struct reader { const struct luajit_layout *l; const struct luajit_mem *m; struct luajit_proto p; };

static int rd_proto(void *ctx, uint64_t proto, uint32_t *fp)
{
	struct reader *r = ctx;
	if (luajit_proto_read(r->l, r->m, proto, &r->p) < 0)
		return -1;
	*fp = luajit_proto_fp(r->l, r->m, proto);
	return 0;
}

static int rd_chunk(void *ctx, char *out, size_t size, int *line)
{
	struct reader *r = ctx;
	*line = r->p.firstline;
	return chunk_name(r->l, r->m, &r->p, out, size < LJ_CHUNK_MAX ? size : LJ_CHUNK_MAX);
}

static int rd_line(void *ctx, uint64_t pc)
{
	struct reader *r = ctx;
	int64_t pos = pos_of(&r->p, pc);
	return pos < -1 ? -1 : proto_line(r->m, &r->p, pos);
}

static int rd_call_name(void *ctx, uint64_t pc, char *out, size_t size)
{
	struct reader *r = ctx;
	int64_t pos = pos_of(&r->p, pc);
	if (pos < 1 || pos >= r->p.sizebc)  /* a call is neither the header nor past the end */
		return -1;
	int rc = luajit_name_from_code(r->l, r->m, &r->p, (uint32_t)pos, out,
				       size < LJ_IDENT_MAX ? size : LJ_IDENT_MAX);
	return rc == 0 && out[0] == '\0' ? -1 : rc; /* stripped upvalue names: "", a label wants "?" */
}

static int rd_global_name(void *ctx, uint64_t L, char *out, size_t size)
{
	struct reader *r = ctx;
	return luajit_global_name(r->l, r->m, r->p.addr, L, out, size);
}

static struct proto_reader reader(struct reader *ctx)
{
	return (struct proto_reader){ &cache, (uint64_t)(uintptr_t)ctx->m->ctx, ctx,
				      rd_proto, rd_chunk, rd_line, rd_call_name, rd_global_name, 0 };
}

/* ---- API ---- */

int luajit_proto_info(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto, uint32_t fp,
		      char *chunk, size_t chunk_size, int *firstline)
{
	struct reader ctx = { l, m, { 0 } };
	struct proto_reader rd = reader(&ctx);
	return proto_label_info(&rd, proto, fp, chunk, chunk_size, firstline);
}

int luajit_proto_line(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto, uint32_t fp,
		      uint64_t pc)
{
	struct reader ctx = { l, m, { 0 } };
	struct proto_reader rd = reader(&ctx);
	return proto_label_line(&rd, proto, fp, pc);
}

int luajit_call_name(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t caller_proto,
		     uint32_t caller_fp, uint64_t caller_pc, char *out, size_t out_size)
{
	struct reader ctx = { l, m, { 0 } };
	struct proto_reader rd = reader(&ctx);
	int rc = proto_label_call_name(&rd, caller_proto, caller_fp, caller_pc, 0, out, out_size);
	return rc < -1 ? -1 : rc; /* no twins here: unknown is no name */
}

int luajit_global_call_name(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto, uint32_t fp,
			    uint64_t L, char *out, size_t out_size)
{
	struct reader ctx = { l, m, { 0 } };
	struct proto_reader rd = reader(&ctx);
	int rc = proto_label_global_name(&rd, proto, fp, L, out, out_size);
	return rc < -1 ? -1 : rc;
}
