/* Connects the Lua runtimes of target processes to a recording: detection at attach,
 * the BPF program's view of each VM, and rescans for VMs created later. */
#include <stdlib.h>

#include "lua_attach.h"
#include "lua_runtime.h"
#include "luajit_runtime.h"
#include "util.h"

static void push_lua(struct sampler *smp, struct unwind_tables *ut, const struct lua_runtime *rt)
{
	struct lf_lua_cfg cfg;
	lua_runtime_cfg(rt, ut_file_index(ut, rt->core_dev, rt->core_inode), &cfg);
	sampler_set_lua(smp, rt->pid, &cfg);
}

static void push_luajit(struct sampler *smp, struct unwind_tables *ut, const struct luajit_runtime *rt)
{
	struct lf_lj_cfg cfg;
	luajit_runtime_cfg(rt, ut_file_index(ut, rt->core_dev, rt->core_inode), &cfg);
	sampler_set_luajit(smp, rt->pid, &cfg);
}

/* LuaJIT: its VM is found by the GG_State block; without one, native stacks only. */
static int attach_luajit(struct stack_target *t, struct sampler *smp, struct unwind_tables *ut, pid_t pid)
{
	struct luajit_runtime *rt = xcalloc(1, sizeof(*rt));
	if (luajit_runtime_detect(pid, rt)) {
		free(rt);
		return -1;
	}
	if (!luajit_runtime_scan(rt)) {
		warnx_lf("PID %d: %s (%s) in %s, but no VM state found in its memory; profiling native "
			 "stacks only", (int)pid, rt->facts.version[0] ? rt->facts.version : "LuaJIT",
			 luajit_fork_name(rt->facts.fork), rt->core_path);
		free(rt);
		return 0;
	}
	info_lf("PID %d: %s (%s) in %s, %d VM%s found", (int)pid, rt->facts.version[0] ? rt->facts.version : "LuaJIT",
		rt->lay->name, rt->core_path, rt->ngs, rt->ngs == 1 ? "" : "s");
	if (rt->ngs > 1)
		warnx_lf("PID %d: %d LuaJIT VMs; Lua frames come from the first one only", (int)pid, rt->ngs);
	t->lj = rt;
	push_luajit(smp, ut, rt);
	return 0;
}

/* Finds the Lua runtime of a target and its VMs, and tells the BPF program. */
void lua_attach(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut, pid_t pid)
{
	struct stack_target *t = stacks_target(sc, pid);
	struct lua_runtime *rt = xcalloc(1, sizeof(*rt));
	if (!t || lua_runtime_detect(pid, rt)) {
		if (t && !rt->major && attach_luajit(t, smp, ut, pid) == 0) {
			free(rt);
			return;
		}
		if (rt->major)
			warnx_lf("PID %d: Lua %d.%d.%d in %s has a layout this build does not know; "
				 "profiling native stacks only", (int)pid, rt->major, rt->minor, rt->patch,
				 rt->core_path);
		else
			info_lf("PID %d: no Lua runtime found; profiling native stacks only", (int)pid);
		free(rt);
		return;
	}
	lua_runtime_scan_states(rt);
	info_lf("PID %d: Lua %d.%d.%d in %s, %d VM%s found", (int)pid, rt->major, rt->minor, rt->patch,
		rt->core_path, rt->ngs, rt->ngs == 1 ? "" : "s");
	t->lua = rt;
	push_lua(smp, ut, rt);
}

/* VMs created after attach: rescan often while none is known, rarely after. */
void lua_refresh(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut, double now)
{
	static double last;
	if (now - last < 2.0)
		return;
	int slow = now - last < 10.0;
	last = now;
	int hint = sampler_lua_reg_hint(smp);
	for (size_t i = 0; i < sc->ntargets; i++) {
		struct lua_runtime *rt = sc->targets[i].lua;
		if (!rt)
			continue;
		int before = rt->ngs, changed = hint != rt->reg_hint;
		rt->reg_hint = hint;
		if (!(rt->ngs && slow))
			changed |= lua_runtime_scan_states(rt) != before;
		if (changed)
			push_lua(smp, ut, rt);
	}
}

