/* Fingerprints of Lua functions, shared by the BPF walkers (which take one per Lua frame at
 * sample time) and user space (which takes one again before reading a name from memory): the
 * fields they cover, how they are computed, and where their bits ride in a frame's words. */
#ifndef LF_FINGERPRINT_H
#define LF_FINGERPRINT_H

#ifndef __bpf__
#include <linux/types.h>
#endif
#include "arch.h"
#include "load.h"

/* Which function a Lua frame ran: the Proto's address alone cannot say, as a freed Proto's
 * memory may hold another one by the time user space reads it. So the walker also reads, at
 * sample time, a fingerprint of the Proto (its address, code, chunk name string and the
 * string's hash and length, first line), LF_FP_BITS bits that are never 0 (0: none taken).
 * A content fingerprint (LF_FP_CONTENT) leaves out every address and the string's hash (PUC
 * Lua 5.4 seeds it per state) for more of the Proto's sizes and lines instead: the same
 * function loaded into another lua_State has the same one, so that a function whose state was
 * closed before it was named is named as its twin in another state was.
 * Its high bits ride in the function word above the address, its low bits in the pc word
 * between the pc and the flags; user space names a frame only from a Proto whose current
 * fingerprint is the sampled one, or as a twin of the same content fingerprint. */
#define LF_ADDR_BITS   LF_USER_BITS /* 47 on x86-64, 48 on arm64 */
#define LF_ADDR_MASK   ((1ULL << LF_ADDR_BITS) - 1)
#define LF_FP_LO_BITS  (61 - LF_ADDR_BITS) /* bits LF_ADDR_BITS..60 of the pc word */
#define LF_FP_BITS     (LF_FP_LO_BITS + 56 - LF_ADDR_BITS) /* the rest up to bit 55 of the function word */
#define LF_FP_BUF      128 /* bytes of a Proto (span holding the fingerprinted fields) read at once */
#define LF_FP_MORE     5   /* further u32 fields of a content fingerprint */
#define LF_FP_CONTENT  1   /* lf_fp_cfg.flags: no address, no string hash, the string's bytes */
#define LF_FP_STR      32  /* bytes of the chunk name string read; LF_FP_STR_CONTENT for a content one */
#define LF_FP_STR_CONTENT 64

/* Where the fingerprinted fields are, for PUC Lua and LuaJIT alike: a span of the Proto
 * (GCproto) read in one go, the fields' offsets from its start, and the chunk name string's
 * hash and length. A long string's hash is computed lazily by PUC Lua, so it is left out. */
struct lf_fp_cfg {
	__u16 span_lo, span_len;      /* Proto bytes [span_lo, span_lo + span_len) */
	__u16 code, source, line;     /* offsets in the span: code (0xffff: none), chunk name, first line */
	__u16 size;                   /* offset in the span of a u32 size (0xffff: none) */
	__u8 source_ref;              /* bytes of the chunk name reference: 4 or 8 */
	__u8 str_len_size;            /* 1, 4 or 8 */
	__u16 str_hash, str_len;      /* offsets in the chunk name string header */
	__u16 str_lnglen, str_tt;     /* long string: length offset (0xffff: none), tag byte offset */
	__u8 str_tag_long;            /* tag of a long string (0: none) */
	__u8 flags;                   /* LF_FP_CONTENT */
	__u16 more[LF_FP_MORE];       /* offsets in the span of further u32 fields (0xffff: none) */
	__u16 str_bytes;              /* offset of the chunk name's bytes in its string (0xffff: none) */
};

/* Unaligned loads at a masked offset, so that the verifier sees them inside the buffer. */
static inline __u64 lf_ld64(const __u8 *b, __u16 off)
{
	return lf_load_u64(b + (off & (LF_FP_BUF - 1)));
}

static inline __u64 lf_fp_step(__u64 h, __u64 v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 31);
}

/* The fingerprint of the Proto at proto, from its span (p, LF_FP_BUF + 8 bytes) and the first
 * LF_FP_STR (content: LF_FP_STR_CONTENT) bytes of its chunk name string (s, same size). The
 * same code runs in BPF and user space. */
static inline __u32 lf_fingerprint(const struct lf_fp_cfg *c, __u64 proto, const __u8 *p, const __u8 *s)
{
	int content = c->flags & LF_FP_CONTENT;
	__u64 src = lf_ld64(p, c->source), h = lf_fp_step(0, content ? 0 : proto);
	if (c->source_ref == 4)
		src &= 0xffffffffULL;
	if (!content)
		h = lf_fp_step(h, src);
	h = lf_fp_step(h, lf_ld64(p, c->line) & 0xffffffffULL);
	if (c->code != 0xffff && !content)
		h = lf_fp_step(h, lf_ld64(p, c->code));
	if (c->size != 0xffff)
		h = lf_fp_step(h, lf_ld64(p, c->size) & 0xffffffffULL);
	for (int i = 0; i < LF_FP_MORE && content; i++)
		if (c->more[i] != 0xffff)
			h = lf_fp_step(h, lf_ld64(p, c->more[i]) & 0xffffffffULL);
	__u8 tag = s[c->str_tt & (LF_FP_BUF - 1)];
	__u64 len = lf_ld64(s, c->str_len);
	if (c->str_tag_long && tag == c->str_tag_long && c->str_lnglen != 0xffff) {
		len = lf_ld64(s, c->str_lnglen);
	} else {
		if (c->str_len_size == 1)
			len &= 0xff;
		else if (c->str_len_size == 4)
			len &= 0xffffffffULL;
		if (!content)
			h = lf_fp_step(h, lf_ld64(s, c->str_hash) & 0xffffffffULL);
	}
	h = lf_fp_step(h, len);
	/* the name's bytes read with its header, as far as the name goes: its twins' strings
	 * are other objects, with other bytes after it */
	for (__u32 k = 0; k < LF_FP_STR_CONTENT / 8 && content && c->str_bytes != 0xffff; k++) {
		__u32 at = (__u32)(c->str_bytes & (LF_FP_STR_CONTENT - 1)) + 8 * k; /* bounded for the verifier */
		if (8 * k >= len || at + 8 > LF_FP_STR_CONTENT)
			break;
		__u64 w = lf_ld64(s, (__u16)at);
		if (len - 8 * k < 8)
			w &= (1ULL << (8 * (len - 8 * k))) - 1;
		h = lf_fp_step(h, w);
	}
	/* the last value's high bits reach the low ones kept only through a final mix */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (__u32)(h & ((1u << LF_FP_BITS) - 1)) | 1;
}

/* The fingerprint's bits in a frame's two words, and back. */
static inline __u64 lf_fp_hi(__u32 fp)
{
	return (__u64)(fp >> LF_FP_LO_BITS) << LF_ADDR_BITS;
}

static inline __u64 lf_fp_lo(__u32 fp)
{
	return (__u64)(fp & ((1u << LF_FP_LO_BITS) - 1)) << LF_ADDR_BITS;
}

static inline __u32 lf_fp_of(__u64 fword, __u64 pcword)
{
	__u32 hi = (__u32)(fword >> LF_ADDR_BITS) & ((1u << (LF_FP_BITS - LF_FP_LO_BITS)) - 1);
	return hi << LF_FP_LO_BITS | ((__u32)(pcword >> LF_ADDR_BITS) & ((1u << LF_FP_LO_BITS) - 1));
}

#endif
