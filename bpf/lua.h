/* What the BPF program needs to walk a PUC Lua VM of one process: the global states
 * user space found, the file holding the Lua core, and the struct offsets of its
 * version; and the same for LuaJIT. The words the walkers append are defined in stack_record.h. */
#ifndef LF_LUA_H
#define LF_LUA_H

#ifndef __bpf__
#include <linux/types.h>
#endif
#include "stack_record.h"

#define LF_MAX_GS        8   /* global states (VMs) per process */
#define LF_MAX_LTHREADS  4   /* lua_States (coroutines) walked per sample */
#define LF_MAX_LPOS      16  /* native frames where a running lua_State was seen */
/* Lua frames kept per lua_State: the outermost LF_LUA_OUTER and the innermost LF_LUA_INNER,
 * with one marker for those between. The root side gets the larger share: flame graphs
 * aggregate from it. With the native frames (at most LF_MAX_NATIVE + 1 words) and the
 * positions (LF_MAX_LPOS), one thread's share still fits LF_MAX_USTACK words whenever the
 * native stack is under about 100 frames; beyond that, both ends shrink in proportion. */
#define LF_LUA_OUTER     128
#define LF_LUA_INNER     64
#define LF_MAX_LUA       (LF_LUA_OUTER + LF_LUA_INNER)
#define LF_LUA_WALK      4096 /* frames walked per lua_State to reach the outermost ones */
#define LF_LUA_SHARE     32   /* frames set aside for each further lua_State of a sample */
/* Without bpf_loop (kernels before 5.17) the walk is a loop the verifier unrolls: it keeps
 * at most this many frames and walks no further. Each frame more costs the verifier's check
 * of the Lua walk's program more of its million instructions on 5.10. */
#define LF_LUA_NOLOOP    24

#define LF_LUA_ENTRIES   6    /* PUC Lua API functions through which a host enters the VM */

/* Layout flags (subset of cmd/lua/puc/puc_layouts.h's). */
#define LF_LUA_CI_ARRAY  0x1 /* 5.1: CallInfo array, caller is ci - 1 */
#define LF_LUA_L_SAVEDPC 0x2 /* 5.1: innermost Lua frame's pc is L->savedpc */
#define LF_LUA_CL_ISC    0x4 /* 5.1: Closure.isC distinguishes C from Lua */

struct lf_puc_cfg {
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
	__u8 l_reg_hint;    /* register (i: the i-th saved one of arch.h, LF_NSAVED: the frame pointer)
			     * that held lua_State most, 0xff unknown */
	__u8 gctag_thread;  /* a lua_State's header tag, at gch_tt */
	__u16 gch_tt, g_mainthread; /* g_mainthread 0xffff: the global state has no such pointer */
	__u8 pad2[2];
	/* The API functions a host enters the VM by, as pcs of the core file [lo, hi); hi 0:
	 * none (a stripped static host: its entries are found from where L was held). */
	__u32 entry_lo[LF_LUA_ENTRIES], entry_hi[LF_LUA_ENTRIES];
	struct lf_fp_cfg fp;
};

/* What the BPF program needs to walk the LuaJIT VMs of a process (one per thread, in some
 * hosts). */
struct lf_lj_cfg {
	__u64 gs[LF_MAX_GS]; /* global_States */
	__u32 ngs;
	__u32 core_file;   /* unwind-table file index of the LuaJIT core */
	__u8 gc64, fr2, pad[2];
	__u16 g_cur_L, g_jit_base, g_vmstate, L_base, L_stack, L_cframe;
	__u16 cframe_size, vmst_interp, vmst_c;
	__u16 frame_typep, frame_lua, frame_c, frame_cp, frame_varg;
	__u64 cframe_rawmask;
	/* The VM's C frame as slots from its CFA (cframe + cframe_size): the caller's return
	 * address and frame pointer, and the callee-saved registers of arch.h the VM saved
	 * (0: not saved); luajit_runtime_cfg, luajit_arch.c. */
	__s16 cf_ra, cf_fp, cf_saved[LF_NSAVED];
	__u16 cframe_ofs_prev, cframe_ofs_l; /* C frame chain: previous C frame, its lua_State */
	__u16 L_glref;
	/* GCfunc: a Lua function's proto is fn->pc - pt_size (GCfuncL's pc points past it);
	 * a C function's or built-in's C function is at fn_c_f (GCfuncC's f) */
	__u16 fn_gct, fn_ffid, fn_pc, pt_size;
	__u8 gct_func, ff_lua;
	__u16 fn_c_f;
	__u32 vm_lo, vm_hi;  /* the VM's own code (lj_vm), as pcs of the core file; 0, 0: unknown */
	struct lf_fp_cfg fp;
};

/* Where a process's LuaJIT traces' machine code lies, sorted by address, for architectures
 * whose VM keeps no trace number in its state (arm64): user space refreshes it while
 * recording (luajit_traces.c), the newest LF_LJ_TRACES traces of its VMs. */
#define LF_LJ_TRACES 256
struct lf_lj_trace_range {
	__u64 lo;
	__u32 len, traceno;
};
struct lf_lj_trace_ranges {
	__u32 n, pad;
	struct lf_lj_trace_range t[LF_LJ_TRACES];
};

#endif
