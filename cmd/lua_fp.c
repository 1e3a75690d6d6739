/* Fingerprints of Lua functions (lua.h): where the fingerprinted fields are in each PUC Lua and
 * LuaJIT layout, for the BPF walker's configuration, and the same fingerprint taken from user
 * space, to tell whether a Proto still is the function a sample ran. */
#include <string.h>
#include "lua_fp.h"

/* Offsets of the fingerprinted Proto fields, as a span read in one go (0xffff: fields left out); span_len 0 when they lie too far apart. */
void lf_fp_span(struct lf_fp_cfg *f, uint16_t code, uint16_t source, uint16_t line, uint16_t size)
{
	uint16_t offs[4] = { code, source, line, size }, lo = 0xffff, hi = 0;
	for (int i = 0; i < 4; i++)
		if (offs[i] != 0xffff) {
			lo = offs[i] < lo ? offs[i] : lo;
			hi = offs[i] + 8 > hi ? (uint16_t)(offs[i] + 8) : hi;
		}
	f->span_lo = lo;
	f->span_len = hi > lo && hi - lo <= LF_FP_BUF ? (uint16_t)(hi - lo) : 0;
	f->code = code == 0xffff ? 0xffff : (uint16_t)(code - lo);
	f->source = (uint16_t)(source - lo);
	f->line = (uint16_t)(line - lo);
	f->size = size == 0xffff ? 0xffff : (uint16_t)(size - lo);
}

void lua_fp_cfg(const struct lua_layout *l, struct lf_fp_cfg *f)
{
	memset(f, 0, sizeof *f);
	lf_fp_span(f, l->p_code, l->p_source, l->p_linedefined, l->p_sizecode);
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
	if (f->str_len + 8 > 32 || f->str_lnglen + 8 > 32 || f->str_tt >= 32)
		f->span_len = 0;  /* the header read is 32 bytes */
}

uint32_t lf_fp_read(const struct lf_fp_cfg *f, uint64_t proto, lf_fp_rd rd, const void *m)
{
	uint8_t pb[LF_FP_BUF + 8] = { 0 }, sb[LF_FP_BUF + 8] = { 0 };
	if (!f->span_len || !proto || rd(m, proto + f->span_lo, pb, f->span_len) < 0)
		return 0;
	uint64_t src = lf_ld64(pb, f->source);
	if (f->source_ref == 4)
		src &= 0xffffffffULL;
	if (src && rd(m, src, sb, 32) < 0)
		return 0;
	return lf_fingerprint(f, proto, pb, sb);
}

void lj_fp_cfg(const struct luajit_layout *l, struct lf_fp_cfg *f)
{
	memset(f, 0, sizeof *f);
	/* the bytecode follows the GCproto header: its address is covered by the proto's */
	lf_fp_span(f, 0xffff, (uint16_t)l->pt_chunkname, (uint16_t)l->pt_firstline, (uint16_t)l->pt_sizebc);
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
