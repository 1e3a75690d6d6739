/* Lua frame labels from a target's memory: reading Protos and TStrings through an untrusted
 * reader, chunk names, current lines (lineinfo; 5.4 abslineinfo), and a small cache of labels
 * keyed by (address space, proto, pc) and checked against the proto's current contents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "label_cache.h"
#include "proto_labels.h"
#include "safe_name.h"
#include "puc_frames.h"

#define MAX_COUNT (1 << 26)     /* no real Proto has an array this long (5.4 MAXARG_Ax) */
#define MAX_LINE_WALK 65536     /* 5.4: lineinfo deltas summed for one line (normally <= 128) */
#define MAX_ABS_STEPS 40        /* binary search steps over abslineinfo */
#define STRING_LINE_MAX 43      /* string chunks: first line kept up to this (as Lua's LUA_IDSIZE) */

int puc_rd(const struct puc_mem *m, uint64_t addr, void *buf, size_t len)
{
	if (!m || !m->read || addr == 0 || addr + len < addr)
		return -1;
	return m->read(m->ctx, addr, buf, len) == (long)len ? 0 : -1;
}

uint64_t puc_u64_at(const uint8_t *b, unsigned off)
{
	uint64_t v;
	memcpy(&v, b + off, sizeof v);
	return v;
}

uint32_t puc_tag_at(const uint8_t *b, unsigned off, unsigned size)
{
	uint32_t v = 0;
	memcpy(&v, b + off, size < 4 ? size : 4);
	return v;
}

static int32_t get_i32(const uint8_t *b, unsigned off)
{
	int32_t v;
	memcpy(&v, b + off, sizeof v);
	return v;
}

/* A count field must be a sane non-negative int; a missing field reads as 0. */
static int get_count(const uint8_t *b, uint16_t off, int32_t *out)
{
	*out = off == LUA_OFF_NONE ? 0 : get_i32(b, off);
	return *out >= 0 && *out <= MAX_COUNT ? 0 : -1;
}

static uint64_t get_ptr(const uint8_t *b, uint16_t off)
{
	return off == LUA_OFF_NONE ? 0 : puc_u64_at(b, off);
}

int puc_proto_read(const struct puc_layout *l, const struct puc_mem *m, uint64_t addr,
		   struct puc_proto *p)
{
	uint8_t b[512];
	if (!l || l->p_sizeof > sizeof b || puc_rd(m, addr, b, l->p_sizeof) < 0)
		return -1;
	if (b[l->gch_tt] != l->gctag_proto)
		return -1;
	memset(p, 0, sizeof *p);
	p->addr = addr;
	p->source = get_ptr(b, l->p_source);
	p->code = get_ptr(b, l->p_code);
	p->lineinfo = get_ptr(b, l->p_lineinfo);
	p->abslineinfo = get_ptr(b, l->p_abslineinfo);
	p->k = get_ptr(b, l->p_k);
	p->upvalues = get_ptr(b, l->p_upvalues);
	p->locvars = get_ptr(b, l->p_locvars);
	p->p = get_ptr(b, l->p_p);
	p->linedefined = get_i32(b, l->p_linedefined);
	/* 5.1's Proto has lu_byte nups right before numparams (lobject.h); no other field says how
	 * many pseudo-instructions follow an OP_CLOSURE there. */
	if (l->minor == 1 && l->p_numparams > 0 && l->p_numparams != LUA_OFF_NONE)
		p->nups = b[l->p_numparams - 1];
	if (get_count(b, l->p_sizecode, &p->sizecode) || get_count(b, l->p_sizelineinfo, &p->sizelineinfo) ||
	    get_count(b, l->p_sizeabslineinfo, &p->sizeabslineinfo) || get_count(b, l->p_sizek, &p->sizek) ||
	    get_count(b, l->p_sizeupvalues, &p->sizeupvalues) ||
	    get_count(b, l->p_sizelocvars, &p->sizelocvars) || get_count(b, l->p_sizep, &p->sizep))
		return -1;
	if (p->code == 0 || p->sizecode == 0 || p->linedefined < 0)
		return -1;
	return 0;
}

/* Where the bytes of the TString at ts start and how long it says it is. */
/* The header of the TString at ts (already read into b when not NULL): where its bytes are
 * and its length. 0 or -1. */
static int tstring_hdr(const struct puc_layout *l, const struct puc_mem *m, uint64_t ts, const uint8_t *b,
		       uint64_t *contents, uint64_t *len)
{
	uint8_t hdr[64];
	if (!b && (l->ts_contents > sizeof hdr || puc_rd(m, ts, hdr, l->ts_contents) < 0))
		return -1;
	b = b ? b : hdr;
	uint8_t tag = b[l->gch_tt];
	if (l->flags & LUA_LF_STR_SHRLEN) {
		if (tag == l->gctag_shrstr && l->ts_shrlen != LUA_OFF_NONE)
			*len = b[l->ts_shrlen];
		else if (tag == l->gctag_lngstr && l->ts_lnglen != LUA_OFF_NONE)
			*len = puc_u64_at(b, l->ts_lnglen);
		else
			return -1;
	} else {
		if (tag != l->gctag_shrstr && tag != l->gctag_lngstr)
			return -1;
		*len = puc_u64_at(b, l->ts_len);
	}
	*contents = ts + l->ts_contents;
	/* 5.5: a long string's bytes are wherever its contents pointer says */
	if ((l->flags & LUA_LF_STR_LNGPTR) && tag == l->gctag_lngstr &&
	    (puc_rd(m, ts + l->ts_contents, contents, 8) < 0 || *contents == 0))
		return -1;
	return 0;
}

/* Bytes read with a string's header, in the same read: most names fit. */
#define TS_AHEAD 64

long puc_tstring(const struct puc_layout *l, const struct puc_mem *m, uint64_t ts, char *out,
		 size_t out_size, uint64_t *full_len)
{
	uint8_t b[64 + TS_AHEAD];
	uint64_t at, len;
	if (!out || out_size == 0)
		return -1;
	out[0] = '\0';
	size_t ahead = out_size - 1 < TS_AHEAD ? out_size - 1 : TS_AHEAD;
	/* a read past the end of the mapping fails: then the header alone */
	int one = l->ts_contents <= 64 && puc_rd(m, ts, b, l->ts_contents + ahead) == 0;
	if (tstring_hdr(l, m, ts, one ? b : NULL, &at, &len) < 0)
		return -1;
	size_t n = len < out_size - 1 ? (size_t)len : out_size - 1;
	if (one && at == ts + l->ts_contents && n <= ahead)
		memcpy(out, b + l->ts_contents, n);
	else if (n > 0 && puc_rd(m, at, out, n) < 0)
		return -1;
	out[n] = '\0';
	if (full_len)
		*full_len = len;
	return (long)strlen(out);
}

/* "@path": the path, or "..." and its tail when it does not fit (the end names the file). */
static int chunk_file(const struct puc_mem *m, uint64_t at, uint64_t len, char *out, size_t size)
{
	if (len <= size - 1) {
		if (len && puc_rd(m, at, out, (size_t)len) < 0)
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
	if (puc_rd(m, at + len - keep, out + 3, keep) < 0)
		return -1;
	out[size - 1] = '\0';
	return 0;
}

/* A chunk loaded from a string: [string "its first line..."], as Lua's luaO_chunkid. */
static void chunk_string(const char *src, uint64_t len, char *out, size_t size)
{
	size_t line = strcspn(src, "\r\n");
	int cut = line < strlen(src) || len > strlen(src) || line > STRING_LINE_MAX;
	if (line > STRING_LINE_MAX)
		line = STRING_LINE_MAX;
	char buf[STRING_LINE_MAX + 1];
	memcpy(buf, src, line);
	buf[line] = '\0';
	snprintf(out, size, "[string \"%s%s\"]", buf, cut ? "..." : "");
}

static int chunk_name(const struct puc_layout *l, const struct puc_mem *m, uint64_t source,
		      char *out, size_t size)
{
	uint64_t at, len;
	char head[LUA_CHUNK_MAX];
	if (source == 0) {  /* stripped: Lua says "=?" */
		snprintf(out, size, "?");
		return 0;
	}
	if (tstring_hdr(l, m, source, NULL, &at, &len) < 0 || len == 0)
		return -1;
	if (puc_rd(m, at, head, 1) < 0)
		return -1;
	if (head[0] == '@' || head[0] == '=') {
		if (head[0] == '=' && len - 1 > size - 1)
			len = size;  /* '=' names are cut at the end, like Lua does */
		if (chunk_file(m, at + 1, len - 1, out, size) < 0)
			return -1;
	} else {
		size_t n = len < sizeof head - 1 ? (size_t)len : sizeof head - 1;
		if (puc_rd(m, at, head, n) < 0)
			return -1;
		head[n] = '\0';
		chunk_string(head, len, out, size);
	}
	out[strnlen(out, size - 1)] = '\0';
	safe_name_fix(out, size, SAFE_FOLDED);
	return 0;
}

int puc_pc_of(const struct puc_proto *p, uint64_t savedpc)
{
	if (savedpc < p->code || (savedpc - p->code) % 4 != 0)
		return -2;
	uint64_t n = (savedpc - p->code) / 4;
	if (n > (uint64_t)p->sizecode)
		return -2;
	return (int)n - 1;
}

/* 5.4: the last abslineinfo entry at or before pc (binary search), as base pc and line. */
static int abs_base(const struct puc_layout *l, const struct puc_mem *m, const struct puc_proto *p,
		    int pc, int *basepc, int *baseline)
{
	int lo = 0, hi = p->sizeabslineinfo - 1, found = -1, steps = 0;
	int32_t e[2];
	*basepc = -1;
	*baseline = p->linedefined;
	while (lo <= hi && steps++ < MAX_ABS_STEPS) {
		int mid = lo + (hi - lo) / 2;
		if (puc_rd(m, p->abslineinfo + (uint64_t)mid * l->ali_sizeof, e, sizeof e) < 0)
			return -1;
		if (e[l->ali_pc / 4] <= pc) {
			found = mid;
			*basepc = e[l->ali_pc / 4];
			*baseline = e[l->ali_line / 4];
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (found >= 0 && (*basepc < 0 || *basepc >= p->sizelineinfo))
		return -1;
	return 0;
}

static int line_54(const struct puc_layout *l, const struct puc_mem *m, const struct puc_proto *p,
		   int pc)
{
	int basepc, base;
	if (p->abslineinfo && p->sizeabslineinfo > 0 && l->ali_sizeof == 8) {
		if (abs_base(l, m, p, pc, &basepc, &base) < 0)
			return -1;
	} else {
		basepc = -1;
		base = p->linedefined;
	}
	long line = base;
	int n = pc - basepc;
	if (n > MAX_LINE_WALK)
		return -1;
	int8_t *d = malloc(n > 0 ? (size_t)n : 1);
	if (!d)
		return -1;
	if (n > 0 && puc_rd(m, p->lineinfo + (uint64_t)(basepc + 1), d, (size_t)n) < 0)
		line = -1;
	/* -0x80 marks an abslineinfo entry, which cannot lie after the base we found */
	for (int i = 0; i < n && line >= 0 && line <= 0x7fffffff; i++)
		line = d[i] == -0x80 ? -1 : line + d[i];
	free(d);
	return line >= 0 && line <= 0x7fffffff ? (int)line : -1;
}

static int proto_line(const struct puc_layout *l, const struct puc_mem *m, const struct puc_proto *p,
		      int pc)
{
	if (!p->lineinfo || pc < -1 || pc >= p->sizelineinfo)
		return -1;
	if (pc == -1)  /* not started yet: Lua 5.4 says linedefined, so do we everywhere */
		return p->linedefined;
	if (l->flags & LUA_LF_ABSLINEINFO)
		return l->p_lineinfo_size == 1 ? line_54(l, m, p, pc) : -1;
	int32_t line;
	if (l->p_lineinfo_size != 4 || puc_rd(m, p->lineinfo + 4 * (uint64_t)pc, &line, 4) < 0)
		return -1;
	return line >= 0 ? line : -1;
}

/* ---- Fingerprints ---- */

void puc_fp_cfg(const struct puc_layout *l, struct lf_fp_cfg *f)
{
	/* A content fingerprint: a host that makes a state per request (Apache's mod_lua) loads
	 * the same functions into each, and closes it right after their work. */
	const uint16_t more[LF_FP_MORE] = { l->p_lastlinedefined, l->p_sizek, l->p_sizep, l->p_sizelocvars,
					    l->p_sizelineinfo };
	memset(f, 0, sizeof *f);
	lf_fp_span(f, 0xffff, l->p_source, l->p_linedefined, l->p_sizecode, more);
	f->flags = LF_FP_CONTENT;
	f->source_ref = 8;
	f->str_tt = l->gch_tt;
	f->str_hash = 12;  /* unsigned int hash after CommonHeader and its bytes, in every version */
	if (l->ts_shrlen != LUA_OFF_NONE) {
		f->str_len = l->ts_shrlen;
		f->str_len_size = 1;
	} else {
		f->str_len = l->ts_len;
		f->str_len_size = 8;
	}
	f->str_lnglen = l->ts_lnglen != LUA_OFF_NONE ? l->ts_lnglen : l->ts_len;
	f->str_tag_long = l->gctag_lngstr != l->gctag_shrstr ? (uint8_t)l->gctag_lngstr : 0;
	f->str_bytes = l->ts_contents < LF_FP_STR_CONTENT ? l->ts_contents : 0xffff;
	if (f->str_len + 8 > 32 || f->str_lnglen + 8 > 32 || f->str_tt >= 32)
		f->span_len = 0;  /* the header read is 32 bytes */
}

static int rd_lua(const void *m, uint64_t a, void *b, size_t n)
{
	return puc_rd(m, a, b, n);
}

uint32_t puc_proto_fp(const struct puc_layout *l, const struct puc_mem *m, uint64_t proto)
{
	struct lf_fp_cfg f;
	puc_fp_cfg(l, &f);
	return lf_fp_read(&f, proto, rd_lua, m);
}

/* ---- Cache ---- */

static struct label_cache cache;

void puc_frames_cache_clear(void)
{
	label_cache_clear(&cache);
}

void puc_frames_cache_free(void)
{
	label_cache_free(&cache);
}

/* The proto reader of the shared label lookups (proto_labels.h), over layout l and memory m. */
struct reader { const struct puc_layout *l; const struct puc_mem *m; struct puc_proto p; };

static int rd_proto(void *ctx, uint64_t proto, uint32_t *fp)
{
	struct reader *r = ctx;
	if (puc_proto_read(r->l, r->m, proto, &r->p) < 0)
		return -1;
	*fp = puc_proto_fp(r->l, r->m, proto);
	return 0;
}

static int rd_chunk(void *ctx, char *out, size_t size, int *line)
{
	struct reader *r = ctx;
	*line = r->p.linedefined;
	return chunk_name(r->l, r->m, r->p.source, out, size < LUA_CHUNK_MAX ? size : LUA_CHUNK_MAX);
}

static int rd_line(void *ctx, uint64_t savedpc)
{
	struct reader *r = ctx;
	int pc = puc_pc_of(&r->p, savedpc);
	return pc < -1 ? -1 : proto_line(r->l, r->m, &r->p, pc);
}

static int rd_call_name(void *ctx, uint64_t savedpc, char *out, size_t size)
{
	struct reader *r = ctx;
	int pc = puc_pc_of(&r->p, savedpc);
	if (pc < 0)
		return -1;
	return puc_name_from_code(r->l, r->m, &r->p, pc, out, size < LUA_IDENT_MAX ? size : LUA_IDENT_MAX);
}

static int rd_global_name(void *ctx, uint64_t L, char *out, size_t size)
{
	struct reader *r = ctx;
	return puc_global_name(r->l, r->m, r->p.addr, L, out, size);
}

static struct proto_reader reader(struct reader *ctx)
{
	return (struct proto_reader){ &cache, (uint64_t)(uintptr_t)ctx->m->ctx, ctx,    rd_proto,
				      rd_chunk, rd_line,     rd_call_name, rd_global_name, 1 };
}

/* ---- API ---- */

int puc_proto_info(const struct puc_layout *l, const struct puc_mem *m, uint64_t proto, uint32_t fp,
		   char *chunk, size_t chunk_size, int *linedefined)
{
	struct reader ctx = { l, m, { 0 } };
	struct proto_reader rd = reader(&ctx);
	return proto_label_info(&rd, proto, fp, chunk, chunk_size, linedefined);
}

int puc_proto_line(const struct puc_layout *l, const struct puc_mem *m, uint64_t proto, uint32_t fp,
		   uint64_t savedpc)
{
	struct reader ctx = { l, m, { 0 } };
	struct proto_reader rd = reader(&ctx);
	return proto_label_line(&rd, proto, fp, savedpc);
}

int puc_call_name(const struct puc_layout *l, const struct puc_mem *m, uint64_t caller_proto,
		  uint32_t caller_fp, uint64_t caller_savedpc, uint32_t callee_fp, char *out, size_t out_size)
{
	struct reader ctx = { l, m, { 0 } };
	struct proto_reader rd = reader(&ctx);
	return proto_label_call_name(&rd, caller_proto, caller_fp, caller_savedpc, callee_fp, out, out_size);
}

int puc_global_call_name(const struct puc_layout *l, const struct puc_mem *m, uint64_t proto, uint32_t fp,
			 uint64_t L, char *out, size_t out_size)
{
	struct reader ctx = { l, m, { 0 } };
	struct proto_reader rd = reader(&ctx);
	return proto_label_global_name(&rd, proto, fp, L, out, out_size);
}
