/* Fingerprints of Lua functions taken at sample time (fingerprint.h): one read of the
 * Proto's span and one of its chunk name's header (LuaJIT: and one of the GCfunc). Each
 * family calls lf_take_fp from a global function of its own, with its configuration's
 * fingerprint rules: verified once, however many frames a walk unrolls (kernels before 5.17
 * unroll it, and the fingerprint is most of a frame's work). */
#ifndef LF_LUA_FP_BPF_H
#define LF_LUA_FP_BPF_H
#include "config.bpf.h"
#include "lua.h"
#include "ustate.bpf.h"

/* The fingerprint of the Proto (GCproto) at proto, or 0 when it cannot be read. */
static __always_inline __u32 lf_take_fp(struct lf_ustate *u, const struct lf_fp_cfg *c, __u64 proto)
{
	__u32 len = c->span_len;
	if (!len || len > LF_FP_BUF || !proto)
		return 0;
	if (bpf_probe_read_user(u->fp_pbuf, len, (const void *)(proto + c->span_lo)))
		return 0;
	__u64 src = lf_ld64(u->fp_pbuf, c->source);
	if (c->source_ref == 4)
		src &= 0xffffffffULL;
	if (!src)
		__builtin_memset(u->fp_sbuf, 0, LF_FP_STR_CONTENT);
	else if (bpf_probe_read_user(u->fp_sbuf, (c->flags & LF_FP_CONTENT) ? LF_FP_STR_CONTENT : LF_FP_STR,
				     (const void *)src))
		return 0;
	return lf_fingerprint(c, proto, u->fp_pbuf, u->fp_sbuf);
}

#endif
