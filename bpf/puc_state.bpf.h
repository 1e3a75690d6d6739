/* PUC Lua's part of the walk's per-CPU state (struct lf_ustate's member puc, ustate.bpf.h):
 * what its walker (puc.bpf.h) keeps between the hooks of one sample, and its read-ahead
 * windows. */
#ifndef LF_PUC_STATE_BPF_H
#define LF_PUC_STATE_BPF_H
#include "arch.h"
#include "lua.h"

#define LF_SEEN 4 /* register values remembered per sample by the check for a lua_State */
#define LF_CI_BUF 128 /* bytes of a CallInfo read at once (every version's is smaller) */
#define LF_LWIN 1024  /* bytes of each of its read-ahead windows (a power of two) */
#define LF_CAND_SPAN 64 /* bytes of a possible lua_State read at once: its tag and l_G */

/* Cleared by puc_begin at each sample: the fields before l_reg_hint (the lua_State
 * puc_note_state found last, the last frame that held it and the frame of its position,
 * whether it has answered), the values lf_lua_is_state judged, the last closure whose Proto
 * was read, and the windows' lengths. Set by it: where the host enters the VM (the API
 * functions, as pcs of the core file) and the register that holds L most often. The
 * registers puc_note_state last judged (LF_NSAVED: bp), read only once it has; those the
 * memo's replay carries. Whether the lua_State being walked emitted a frame (in the map value
 * for the reason walk_flushing is), the record's words before its ring's frames. CallInfos,
 * the stack slots of their functions and the headers of what may be a lua_State are read
 * through windows (lf_lwin_at): what each holds, and where the CallInfo walked is. */
struct lf_puc_ustate {
	__u64 cand;
	__u32 cand_frame, cand_noted;
	__u32 checked, l_reg_hint;
	__u32 walk_emitted, ring_from;
	__u32 entry_lo[LF_LUA_ENTRIES], entry_hi[LF_LUA_ENTRIES];
	__u64 last_regs[LF_NSAVED + 1];
	__u64 replay_regs[LF_NSAVED + 1];
	__u64 seen_v[LF_SEEN];
	__u8 seen_r[LF_SEEN];
	__u32 seen_next;
	__u64 cl_key, cl_proto;
	__u64 lw_ci_lo, lw_tv_lo, lw_cand_lo;
	__u32 lw_ci_len, lw_tv_len, lw_cand_len, lw_ci_at;
	__u8 lw_ci[LF_LWIN + 8];
	__u8 lw_tv[LF_LWIN + 8];
	__u8 lw_cand[LF_CAND_SPAN + 8];
};

#endif
