/* Connects the Lua runtimes of target processes to a recording: detection at attach,
 * the BPF program's view of each VM, and rescans for VMs created later. */
#include <stdlib.h>

#include "lua_attach.h"
#include "lua_runtime.h"
#include "util.h"

static void push_lua(struct sampler *smp, struct unwind_tables *ut, const struct lua_runtime *rt)
{
	struct lf_lua_cfg cfg;
	lua_runtime_cfg(rt, ut_file_index(ut, rt->core_dev, rt->core_inode), &cfg);
	sampler_set_lua(smp, rt->pid, &cfg);
}

/* Finds the Lua runtime of a target and its VMs, and tells the BPF program. */
void lua_attach(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut, pid_t pid)
{
	struct stack_target *t = stacks_target(sc, pid);
	struct lua_runtime *rt = xcalloc(1, sizeof(*rt));
	if (!t || lua_runtime_detect(pid, rt)) {
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
	for (size_t i = 0; i < sc->ntargets; i++) {
		struct lua_runtime *rt = sc->targets[i].lua;
		if (!rt || (rt->ngs && slow))
			continue;
		int before = rt->ngs;
		if (lua_runtime_scan_states(rt) != before)
			push_lua(smp, ut, rt);
	}
}

