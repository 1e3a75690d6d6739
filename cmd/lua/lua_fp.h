/* Fingerprints of Lua functions taken from user space, the way the BPF walker takes them at
 * sample time (bpf/fingerprint.h), to tell whether a Proto still is the function a sample ran;
 * and where the fingerprinted fields lie, for the walker's configuration. */
#ifndef LF_LUA_FP_H
#define LF_LUA_FP_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../bpf/fingerprint.h"

/* Reads exactly n bytes at a of the target m into b: 0 or -1. */
typedef int (*lf_fp_rd)(const void *m, uint64_t a, void *b, size_t n);

/* Offsets of the fingerprinted Proto fields, as a span read in one go (0xffff: fields left
 * out), the further u32 fields of a content fingerprint among them (more: LF_FP_MORE offsets,
 * or NULL); span_len 0 when they lie too far apart. */
static inline void lf_fp_span(struct lf_fp_cfg *f, uint16_t code, uint16_t source, uint16_t line, uint16_t size,
			      const uint16_t *more)
{
	uint16_t offs[4 + LF_FP_MORE] = { code, source, line, size }, lo = 0xffff, hi = 0;
	for (int i = 0; i < LF_FP_MORE; i++)
		offs[4 + i] = more ? more[i] : 0xffff;
	for (int i = 0; i < 4 + LF_FP_MORE; i++)
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
	for (int i = 0; i < LF_FP_MORE; i++)
		f->more[i] = offs[4 + i] == 0xffff ? 0xffff : (uint16_t)(offs[4 + i] - lo);
	f->str_bytes = 0xffff;
}

static inline uint32_t lf_fp_read(const struct lf_fp_cfg *f, uint64_t proto, lf_fp_rd rd, const void *m)
{
	uint8_t pb[LF_FP_BUF + 8] = { 0 }, sb[LF_FP_BUF + 8] = { 0 };
	if (!f->span_len || !proto || rd(m, proto + f->span_lo, pb, f->span_len) < 0)
		return 0;
	uint64_t src = lf_ld64(pb, f->source);
	if (f->source_ref == 4)
		src &= 0xffffffffULL;
	if (src && rd(m, src, sb, (f->flags & LF_FP_CONTENT) ? LF_FP_STR_CONTENT : LF_FP_STR) < 0)
		return 0;
	return lf_fingerprint(f, proto, pb, sb);
}
#endif
