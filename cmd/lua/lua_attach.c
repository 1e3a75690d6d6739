/* Connects the Lua runtimes of target processes to a recording: detection at attach,
 * the BPF program's view of each VM, and rescans for VMs created later. */
#include <stdlib.h>

#include "lua_attach.h"
#include "puc_runtime.h"
#include "luajit_runtime.h"
#include "util.h"

/* The BPF side finds the running VM by the frames of the file that holds it: a file mapped
 * after the process's tables were built (a plugin, or a slow start) gets its tables first. */
static uint32_t core_file(struct unwind_tables *ut, pid_t pid, uint64_t dev, uint64_t inode)
{
	uint32_t f = ut_file_index(ut, dev, inode);
	if (f == LF_FILE_NONE) {
		ut_add_pid(ut, pid);
		ut_sync(ut);
		f = ut_file_index(ut, dev, inode);
	}
	return f;
}

static void push_lua(struct sampler *smp, struct unwind_tables *ut, const struct lua_runtime *rt)
{
	struct lf_lua_cfg cfg;
	lua_runtime_cfg(rt, core_file(ut, rt->pid, rt->core_dev, rt->core_inode), &cfg);
	sampler_set_lua(smp, rt->pid, &cfg);
}

static void push_luajit(struct sampler *smp, struct unwind_tables *ut, const struct luajit_runtime *rt)
{
	struct lf_lj_cfg cfg;
	luajit_runtime_cfg(rt, core_file(ut, rt->pid, rt->core_dev, rt->core_inode), &cfg);
	sampler_set_luajit(smp, rt->pid, &cfg);
}

/* LuaJIT: its VM is found by the GG_State block; without one, native stacks until one
 * appears (the caller looks again). Returns -1 without LuaJIT, else a lua_attach_result. */
static int attach_luajit(struct stack_target *t, struct sampler *smp, struct unwind_tables *ut, pid_t pid)
{
	struct luajit_runtime *rt = xcalloc(1, sizeof(*rt));
	if (luajit_runtime_detect(pid, rt)) {
		free(rt);
		return -1;
	}
	if (!luajit_runtime_scan(rt)) {
		warnx_lf("PID %d: %s (%s) in %s, but no VM state in its memory yet; native stacks until one "
			 "appears (lua-flame keeps looking while it records)", (int)pid,
			 rt->facts.version[0] ? rt->facts.version : "LuaJIT", luajit_fork_name(rt->facts.fork),
			 rt->core_path);
		free(rt);
		return LUA_ATTACH_NO_VM;
	}
	info_lf("PID %d: %s (%s) in %s, %d VM%s found", (int)pid, rt->facts.version[0] ? rt->facts.version : "LuaJIT",
		rt->lay->name, rt->core_path, rt->ngs, rt->ngs == 1 ? "" : "s");
	if (rt->ngs > 1)
		warnx_lf("PID %d: %d LuaJIT VMs; Lua frames come from the first one only", (int)pid, rt->ngs);
	t->lj = rt;
	push_luajit(smp, ut, rt);
	return LUA_ATTACHED;
}

/* Finds the Lua runtime of a target and its VMs, and tells the BPF program. */
enum lua_attach_result lua_attach(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut, pid_t pid)
{
	struct stack_target *t = stacks_target(sc, pid);
	struct lua_runtime *rt = xcalloc(1, sizeof(*rt));
	if (!t || lua_runtime_detect(pid, rt)) {
		int lj = t && !rt->major ? attach_luajit(t, smp, ut, pid) : -1;
		if (lj >= 0) {
			free(rt);
			return (enum lua_attach_result)lj;
		}
		if (rt->major)
			warnx_lf("PID %d: Lua %d.%d.%d in %s has a layout this build does not know; "
				 "profiling native stacks only", (int)pid, rt->major, rt->minor, rt->patch,
				 rt->core_path);
		else
			info_lf("PID %d: no Lua runtime found; profiling native stacks only", (int)pid);
		free(rt);
		return LUA_ATTACH_NONE;
	}
	lua_runtime_scan_states(rt);
	if (rt->ngs)
		info_lf("PID %d: Lua %d.%d.%d in %s, %d VM%s found", (int)pid, rt->major, rt->minor, rt->patch,
			rt->core_path, rt->ngs, rt->ngs == 1 ? "" : "s");
	else
		warnx_lf("PID %d: Lua %d.%d.%d in %s, but no VM state in its memory yet; native stacks until "
			 "one appears (lua-flame keeps looking while it records)", (int)pid, rt->major, rt->minor,
			 rt->patch, rt->core_path);
	t->lua = rt;
	push_lua(smp, ut, rt);
	return rt->ngs ? LUA_ATTACHED : LUA_ATTACH_NO_VM;
}

/* VMs created after attach: rescan twice a second while a runtime has none, rarely after. */
void lua_refresh(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut, double now)
{
	static double last;
	int none = 0;
	for (size_t i = 0; i < sc->ntargets && !none; i++)
		none = sc->targets[i].lua && !sc->targets[i].lua->ngs;
	if (now - last < (none ? 0.5 : 2.0))
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

