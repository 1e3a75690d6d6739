/* The hooks through which the native unwinder meets the Lua runtimes, and most of what knows
 * which family a process runs: profile.bpf.c also looks PUC Lua's configuration up for them
 * (rt_puc_cfg), walk_memo.bpf.h replays each family's look at the frames it copies, and the
 * walkers call back into lf_take_fp_of here. The unwinder calls them for frames in the VM's file
 * and in JIT code, and the sample's end calls rt_append; each family's walker lives in
 * its own file. The per-frame hooks are global functions: the verifier checks each once,
 * not on every path through the unwinder's step, and they find the sample themselves. */
#ifndef LF_RUNTIME_BPF_H
#define LF_RUNTIME_BPF_H
#include "ustate.bpf.h"
#include "lua_puc.bpf.h"
#include "luajit_trace.bpf.h"
#include "luajit.bpf.h"

enum { LF_RT_NONE, LF_RT_PUC, LF_RT_LUAJIT };

__noinline __u32 lf_take_fp_of(__u32 pid, __u32 lj, __u64 proto)
{
	__u32 zero = 0;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	const struct lf_lua_cfg *pc = lj ? 0 : bpf_map_lookup_elem(&lua_cfgs, &pid);
	const struct lf_lj_cfg *jc = lj ? bpf_map_lookup_elem(&lj_cfgs, &pid) : 0;
	if (!u)
		return 0;
	if (pc)
		return lf_take_fp(u, &pc->fp, proto);
	return jc ? lf_take_fp(u, &jc->fp, proto) : 0;
}

/* pid's PUC Lua configuration, or 0: looked up once for rt_first and rt_begin. */
static __always_inline const struct lf_lua_cfg *rt_puc_cfg(__u32 pid)
{
	return bpf_map_lookup_elem(&lua_cfgs, &pid);
}

/* Each time the walker's program runs (again for each tail call of a long walk, always
 * without bpf_loop): which runtime pid runs (lc: its PUC Lua configuration, if any), and
 * the file holding its VM. */
static __always_inline void rt_begin(struct lf_ustate *u, __u32 pid, const struct lf_lua_cfg *lc)
{
	const struct lf_lj_cfg *ljc = lc ? 0 : bpf_map_lookup_elem(&lj_cfgs, &pid);
	u->runtime = lc ? LF_RT_PUC : ljc ? LF_RT_LUAJIT : LF_RT_NONE;
	u->core_file = lc ? lc->core_file : ljc ? ljc->core_file : LF_FILE_NONE;
	u->l_reg_hint = lc ? lc->l_reg_hint : 0xff;
}

/* Once, at the start of a sample's walk: what the walk learns as it goes (the C frames of
 * LuaJIT's chain still to come, a host's call the next frame makes) starts empty, and stays
 * across the tail calls of a long walk. */
static __always_inline void rt_first(struct lf_ustate *u, const struct lf_lua_cfg *lc)
{
	u->lj_chain = 0;
	u->entry_next = 0;
	u->memo_key = 0; /* an address seen before may hold another function now */
	u->lw_obj_len[0] = u->lw_obj_len[1] = 0;
	puc_begin(u, lc);
}

/* A frame in the VM's file at pc, before the unwinder steps out of it: PUC Lua looks for
 * the running lua_State in its registers and for the host's call into the VM; LuaJIT's
 * interpreter helpers, called from the VM but described by the VM's own frame, step
 * straight to the VM's caller when sampled right below its C frame, and to the trace that
 * called them when a trace runs (arm64). Returns a step's
 * result, or -1 to let the unwinder step. */
__noinline int lf_rt_core_frame(__u32 pc)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return -1;
	__u32 pid = s->pid;
	if (u->runtime == LF_RT_PUC) {
		puc_note_entry(u, s, pc);
		puc_note_state(u, pid, pc, u->n - 1);
		return -1;
	}
	if (u->runtime != LF_RT_LUAJIT || u->n != 1)
		return -1;
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	if (!c)
		return -1;
	if (lj_leaf_in_vm(u, c, pid))
		return step_lj_cframe(u, c, pid);
	return lj_trace_helper(u, c, pid, pc) ? 0 : -1;
}

/* A frame of the VM's file at pc, before its unwind rule is followed: LuaJIT's trace-exit
 * handler, off its C frame, steps from that frame. Returns a step's result, or -1 to follow
 * the rule. */
__noinline int lf_rt_core_rule(__u32 pc)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return -1;
	__u32 pid = s->pid;
	if (u->runtime != LF_RT_LUAJIT)
		return -1;
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	__u64 cf = c ? lj_off_cframe(u, c, pid, pc) : 0;
	return cf ? step_lj_cframe_at(u, c, pid, cf) : -1;
}

/* After a step out of a frame of the VM's file: LuaJIT's C frames tell where each of its
 * lua_States ran. */
__noinline int lf_rt_core_stepped(void)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return 0;
	__u32 pid = s->pid;
	if (u->runtime != LF_RT_LUAJIT)
		return 0;
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	if (c)
		lj_note_cframe(u, c, pid, u->n - 1, u->step_sp);
	return 0;
}

/* A frame in anonymous executable memory: LuaJIT's traces step to the VM's C frame.
 * Returns a step's result, or -1 to let the unwinder follow frame pointers. */
__noinline int lf_rt_jit_frame(void)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return -1;
	__u32 pid = s->pid;
	if (u->runtime != LF_RT_LUAJIT)
		return -1;
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	return c ? step_lj_trace(u, s, c) : -1;
}

/* A frame at a pc no known mapping covers: while a LuaJIT trace runs, machine code the JIT
 * mapped since the process's tables were last synced; it steps like any trace. A trace that
 * called the GC (or other C code that sets its own VM state) is still running as long as
 * jit_base is set: the VM clears it when a trace exits. Returns a step's result, or -1 to
 * report the unmapped pc. */
__noinline int lf_rt_unmapped_frame(void)
{
	struct lf_ustate *u;
	struct lf_stack *s;
	if (lf_sample(&u, &s))
		return -1;
	__u32 pid = s->pid;
	if (u->runtime != LF_RT_LUAJIT)
		return -1;
	const struct lf_lj_cfg *c = bpf_map_lookup_elem(&lj_cfgs, &pid);
	__u64 g = c ? lj_g_here(u, pid, 1) : 0;
	__s32 vmstate = -1;
	if (c && !c->ngs)
		u->vm_unknown = 1; /* a command's first traces, before its VM is found: look now */
	if (!g || lj_vmstate(u, c, pid, g, &vmstate) ||
	    (vmstate < 0 && !lj_field_ref(u, c, pid, LF_LJ_G, g, c->g_jit_base)))
		return -1;
	u->lj_g = g;
	return step_lj_trace(u, s, c);
}

/* When the native walk ends, before its frames are renumbered: PUC Lua's last run of
 * frames holding a lua_State gets its outer end. A sample in the VM that found none of its
 * states (or a VM not found yet) may have met one where user space does not know of data
 * yet: it asks for the process's maps again. */
static __always_inline void rt_walk_end(struct lf_ustate *u, __u32 pid)
{
	if (u->runtime == LF_RT_PUC)
		puc_close_run(u);
	if (u->vm_unknown || (u->runtime == LF_RT_PUC && u->checked && !u->nthreads))
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

#endif
