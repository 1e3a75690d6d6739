/* The dispatcher between the native unwinder and the Lua runtime families: each hook below
 * passes to the family the process runs (u->runtime), one line per family, and knows nothing
 * of what the family does; the bodies are in each family's file (puc.bpf.h, luajit.bpf.h).
 * The per-frame hooks are global functions: the verifier checks each once, not on every path
 * through the unwinder's step, and they find the sample themselves. A new family adds its
 * LF_RT_ value, one line to each hook and one member to struct lf_ustate (ustate.bpf.h); the
 * walk memo (walk_memo.bpf.h) meets the families through the hooks here too. */
#ifndef LF_RUNTIME_BPF_H
#define LF_RUNTIME_BPF_H
#include "ustate.bpf.h"
#include "puc.bpf.h"
#include "luajit_trace.bpf.h"
#include "luajit.bpf.h"
#include "memo_frame.bpf.h"

enum { LF_RT_NONE, LF_RT_PUC, LF_RT_LUAJIT };

/* Each time the walker's program runs (again for each tail call of a long walk, always
 * without bpf_loop): which runtime pid runs and the file holding its VM; first, once at the
 * start of a sample's walk, also empties what the walk learns as it goes (a host's call the
 * next frame makes, each family's state), which stays across the tail calls of a long walk. */
static __always_inline void rt_begin(struct lf_ustate *u, __u32 pid, int first)
{
	const struct lf_puc_cfg *puc = puc_cfg_of(pid);
	if (first) {
		u->entry_next = 0;
		u->memo_key = 0; /* an address seen before may hold another function now */
		puc_begin(u, puc);
		lj_begin(u);
	}
	u->runtime = puc_hook_begin(u, puc) ? LF_RT_PUC : lj_hook_begin(u, pid) ? LF_RT_LUAJIT : LF_RT_NONE;
	if (u->runtime == LF_RT_NONE)
		u->core_file = LF_FILE_NONE;
}

/* A frame in the VM's file at pc, before the unwinder steps out of it. Returns a step's
 * result, or -1 to let the unwinder step. */
__noinline int lf_rt_core_frame(__u32 pc)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return -1;
	if (u->runtime == LF_RT_PUC)
		return puc_hook_core_frame(u, s, pc);
	if (u->runtime == LF_RT_LUAJIT)
		return lj_hook_core_frame(u, s, pc);
	return -1;
}

/* A frame of the VM's file at pc, before its unwind rule is followed. Returns a step's
 * result, or -1 to follow the rule. */
__noinline int lf_rt_core_rule(__u32 pc)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return -1;
	if (u->runtime == LF_RT_LUAJIT)
		return lj_hook_core_rule(u, s, pc);
	return -1;
}

/* After a step out of a frame of the VM's file. */
__noinline int lf_rt_core_stepped(void)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return 0;
	if (u->runtime == LF_RT_LUAJIT)
		lj_hook_core_stepped(u, s);
	return 0;
}

/* A frame in anonymous executable memory (JIT code). Returns a step's result, or -1 to let
 * the unwinder follow frame pointers. */
__noinline int lf_rt_jit_frame(void)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return -1;
	if (u->runtime == LF_RT_LUAJIT)
		return lj_hook_jit_frame(u, s);
	return -1;
}

/* A frame at a pc no known mapping covers. Returns a step's result, or -1 to report the
 * unmapped pc. */
__noinline int lf_rt_unmapped_frame(void)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return -1;
	if (u->runtime == LF_RT_LUAJIT)
		return lj_hook_unmapped_frame(u, s);
	return -1;
}

/* When the native walk ends, before its frames are renumbered. A sample in a VM not found yet,
 * or one whose family says it met a state user space may not know of, asks for the process's
 * data (maps) to be read again. */
static __always_inline void rt_walk_end(struct lf_ustate *u, __u32 pid)
{
	int ask = u->vm_unknown;
	if (u->runtime == LF_RT_PUC)
		ask |= puc_hook_walk_end(u);
	if (ask)
		lf_ask_data(pid);
}

/* After the native walk: the Lua part of the record. */
static __always_inline void rt_append(struct lf_stack *s, struct lf_ustate *u)
{
	if (u->runtime == LF_RT_PUC)
		puc_append(s, u);
	else if (u->runtime == LF_RT_LUAJIT)
		lj_append(s, u);
}

/* Whether words of the record's native part name functions the family labels (LuaJIT's
 * traces), which the hash of what a stack names then takes in. */
static __always_inline int rt_native_names(const struct lf_ustate *u)
{
	return u->runtime == LF_RT_LUAJIT;
}

/* The walk memo's hooks (walk_memo.bpf.h). A plain frame of the core at pc, its hook done,
 * before the step out of it: what the family keeps of it in the memo (zeroed before: nothing). */
static __always_inline void rt_memo_core_note(struct lf_ustate *u, struct lf_stack *s, __u32 pc,
					      struct lf_core_note *n)
{
	if (u->runtime == LF_RT_PUC)
		puc_memo_note(u, s, pc, n);
}

/* Once a walk whose rest was replayed is done, before the replayed frames' hooks. */
static __always_inline void rt_replay_begin(struct lf_ustate *u)
{
	if (u->runtime == LF_RT_PUC)
		puc_replay_begin(u);
}

/* Frame at of the memo's frames mf, replayed as the walk's frame-th (first: the frame the
 * replay began at; last: the root), in the walk's order: the family's hooks run again. Returns
 * 1 to end the pass, else 0. */
static __always_inline int rt_replay_frame(struct lf_ustate *u, struct lf_stack *s, const struct lf_memo_frame *mf,
					   __u32 at, __u32 frame, int first, int last)
{
	if (u->runtime == LF_RT_PUC)
		return puc_hook_replay_frame(u, s, mf, at, frame, first);
	if (u->runtime == LF_RT_LUAJIT)
		return lj_hook_replay_frame(u, s, mf, at, frame, last);
	return 0;
}

#endif
