/* What the BPF program needs to walk a PUC Lua VM of one process: the global states
 * user space found, the file holding the Lua core, and the struct offsets of its
 * version. Also the tags of the Lua words it appends to a stack record. */
#ifndef LF_LUA_H
#define LF_LUA_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define LF_MAX_GS        8   /* global states (VMs) per process */
#define LF_MAX_LTHREADS  4   /* lua_States (coroutines) walked per sample */
#define LF_MAX_LPOS      16  /* native frames where a running lua_State was seen */
#define LF_MAX_LUA       128 /* Lua frames per lua_State */

/* Word tags (see profile.h) of the Lua part of a stack record, which follows the native
 * frames: per lua_State an LTHREAD word, then its frames innermost first, two words each;
 * then LPOS words saying at which native frame (leaf = 0) which lua_State was running. */
#define LF_TAG_LTHREAD 0x10 /* low bits: lua_State address */
#define LF_TAG_LFUNC   0x11 /* Lua function: Proto address; next word savedpc | LF_LFLAG_* */
#define LF_TAG_LCFUNC  0x12 /* C function: lua_CFunction address; next word LF_LFLAG_* */
#define LF_TAG_LPOS    0x13 /* bits 16..23 thread index, bits 0..15 native frame index */

#define LF_LFLAG_FRESH (1ULL << 63) /* the call started a new VM activation */
#define LF_LFLAG_TAIL  (1ULL << 62) /* reached by a tail call */
/* An LFUNC word with Proto 0 marks where a walk stopped at LF_MAX_LUA frames. */

/* Which function a Lua frame ran: the Proto's address alone cannot say, as a freed Proto's
 * memory may hold another one by the time user space reads it. So the walker also reads, at
 * sample time, a fingerprint of the Proto (its address, code, chunk name string and the
 * string's hash and length, first line), LF_FP_BITS bits that are never 0 (0: none taken).
 * Its high bits ride in the function word above the address, its low bits in the pc word
 * between the pc and the flags; user space names a frame only from a Proto whose current
 * fingerprint is the sampled one. */
#define LF_ADDR_BITS   47
#define LF_ADDR_MASK   ((1ULL << LF_ADDR_BITS) - 1)
#define LF_FP_BITS     23
#define LF_FP_LO_BITS  14 /* bits 47..60 of the pc word; the rest in bits 47..55 of the function word */
#define LF_FP_BUF      128 /* bytes of a Proto (span holding the fingerprinted fields) read at once */

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
	__u8 str_tag_long, pad;       /* tag of a long string (0: none) */
};

/* Unaligned loads at a masked offset, so that the verifier sees them inside the buffer. */
static inline __u64 lf_ld64(const __u8 *b, __u16 off)
{
	__u64 v;
	__builtin_memcpy(&v, b + (off & (LF_FP_BUF - 1)), 8);
	return v;
}

static inline __u64 lf_fp_step(__u64 h, __u64 v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 31);
}

/* The fingerprint of the Proto at proto, from its span (p, LF_FP_BUF + 8 bytes) and the first
 * 32 bytes of its chunk name string (s, same size). The same code runs in BPF and user space. */
static inline __u32 lf_fingerprint(const struct lf_fp_cfg *c, __u64 proto, const __u8 *p, const __u8 *s)
{
	__u64 src = lf_ld64(p, c->source), h = lf_fp_step(0, proto);
	if (c->source_ref == 4)
		src &= 0xffffffffULL;
	h = lf_fp_step(h, src);
	h = lf_fp_step(h, lf_ld64(p, c->line) & 0xffffffffULL);
	if (c->code != 0xffff)
		h = lf_fp_step(h, lf_ld64(p, c->code));
	if (c->size != 0xffff)
		h = lf_fp_step(h, lf_ld64(p, c->size) & 0xffffffffULL);
	__u8 tag = s[c->str_tt & (LF_FP_BUF - 1)];
	__u64 len = lf_ld64(s, c->str_len);
	if (c->str_tag_long && tag == c->str_tag_long && c->str_lnglen != 0xffff) {
		len = lf_ld64(s, c->str_lnglen);
	} else {
		if (c->str_len_size == 1)
			len &= 0xff;
		else if (c->str_len_size == 4)
			len &= 0xffffffffULL;
		h = lf_fp_step(h, lf_ld64(s, c->str_hash) & 0xffffffffULL);
	}
	h = lf_fp_step(h, len);
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

/* Layout flags (subset of cmd/lua_layouts.h's). */
#define LF_LUA_CI_ARRAY  0x1 /* 5.1: CallInfo array, caller is ci - 1 */
#define LF_LUA_L_SAVEDPC 0x2 /* 5.1: innermost Lua frame's pc is L->savedpc */
#define LF_LUA_CL_ISC    0x4 /* 5.1: Closure.isC distinguishes C from Lua */

struct lf_lua_cfg {
	__u32 core_file;  /* unwind-table file index of the Lua core */
	__u32 ngs;
	__u64 gs[LF_MAX_GS];
	__u32 flags;
	__u16 l_l_G, l_ci, l_base_ci, l_savedpc;
	__u16 ci_func, ci_savedpc, ci_previous, ci_callstatus, ci_callstatus_size, ci_sizeof;
	__u16 tv_value, tv_tt, lcl_p, ccl_f, cl_isC;
	__u16 tvtag_lcl, tvtag_ccl, tvtag_lcf, tvtag_func51;
	__u16 cist_fresh, cist_tail, cist_c;
	__u16 ci_tailcalls; /* 5.1: tail calls count in CallInfo, 0xffff if none */
	__u8 l_reg_hint;    /* register (rbx, r12-r15, rbp = 5) that held lua_State most, 0xff unknown */
	__u8 pad2[7];
	struct lf_fp_cfg fp;
};

/* LuaJIT: one word per frame with the GCfunc address, then its pc (bytecode pointer, 0 if
 * unknown) | LF_LFLAG_*. A frame entered from C (FRAME_C/FRAME_CP) carries LF_LFLAG_CENTRY.
 * A Lua function with a fingerprint carries its GCproto's address instead of the GCfunc's:
 * the kind of function is then known from the sample, not from memory read later. */
#define LF_TAG_LJFUNC  0x14
#define LF_TAG_LJTRACE 0x15 /* replaces a native frame in trace code: low bits the trace number */
#define LF_TAG_LJSTATE 0x16 /* VM state word (after LTHREAD): low bits ~vmstate for states < 0 */
#define LF_LFLAG_CENTRY (1ULL << 61)

/* What the BPF program needs to walk one LuaJIT VM of a process. */
struct lf_lj_cfg {
	__u64 g;           /* global_State */
	__u32 core_file;   /* unwind-table file index of the LuaJIT core */
	__u8 gc64, fr2, pad[2];
	__u16 g_cur_L, g_jit_base, g_vmstate, L_base, L_stack, L_cframe;
	__u16 cframe_size, vmst_interp, vmst_c;
	__u16 frame_typep, frame_lua, frame_c, frame_cp, frame_varg;
	__u64 cframe_rawmask;
	__s16 saved_rbp, saved_rbx, saved_r15, saved_r14; /* VM C frame slots, from its CFA */
	__u16 cframe_ofs_prev, cframe_ofs_l; /* C frame chain: previous C frame, its lua_State */
	__u16 L_glref;
	/* GCfunc: a Lua function's proto is fn->pc - pt_size (GCfuncL's pc points past it) */
	__u16 fn_gct, fn_ffid, fn_pc, pt_size;
	__u8 gct_func, ff_lua, pad3[2];
	struct lf_fp_cfg fp;
};

#endif
