/* LuaJIT's part of the walk's per-CPU state (struct lf_ustate's member lj, ustate.bpf.h): what
 * its walker (luajit.bpf.h, luajit_trace.bpf.h) keeps between the hooks of one sample, its
 * read-ahead windows, and the VMs it found that user space has not. */
#ifndef LF_LUAJIT_STATE_BPF_H
#define LF_LUAJIT_STATE_BPF_H
#include "lua.h"

#define LF_LJ_SEEN 4   /* VMs not found by user space that a CPU remembers (a power of two) */
#define LF_OBJ_SPAN 256 /* bytes of a VM's object read at once: the fields a sample reads */

/* Cleared by lj_begin at each sample: the global_State of the VM the thread was seen running
 * (0: none), the last lua_State lj_note_cframe judged, the next C frame on the chain of one
 * seen (whose caller entered the VM), and the windows' lengths. The fields of a global_State
 * (0) and of a lua_State (1) are read through windows (lf_lj_field). Kept from sample to
 * sample: VMs user space has not found that were lately found on this CPU's stacks
 * (lf_lj_probe_g), their processes, and the next slot to take. */
struct lf_lj_ustate {
	__u64 g, last_L, chain;
	__u64 obj_lo[2];
	__u32 obj_len[2];
	__u8 obj[2][LF_OBJ_SPAN + 8];
	__u64 seen_g[LF_LJ_SEEN];
	__u32 seen_pid[LF_LJ_SEEN];
	__u32 seen_next;
};

#endif
