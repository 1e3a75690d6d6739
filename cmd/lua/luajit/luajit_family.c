/* LuaJIT 2.1 (upstream, OpenResty's and Tarantool's forks, GC64 or not) as a runtime family
 * (runtime.h): detection and VM scan from luajit_runtime.c, labels from luajit_label.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "lua_merge.h"
#include "luajit_label.h"
#include "luajit_runtime.h"
#include "runtime.h"
#include "util.h"

static int detect(pid_t pid, struct runtime *rt)
{
	struct luajit_runtime *vm = xcalloc(1, sizeof(*vm));
	rt->vm = vm;
	int rc = luajit_runtime_detect(pid, vm);
	if (rc)
		return rc;
	snprintf(rt->name, sizeof(rt->name), "%s", vm->facts.version[0] ? vm->facts.version : "LuaJIT");
	snprintf(rt->variant, sizeof(rt->variant), "%s", luajit_fork_name(vm->facts.fork));
	snprintf(rt->core_path, sizeof(rt->core_path), "%s", vm->core_path);
	rt->core_dev = vm->core_dev;
	rt->core_inode = vm->core_inode;
	rt->keep_without_vm = vm->lay != NULL; /* the file said GC64 or not: the layout is known */
	if (vm->lay)
		snprintf(rt->variant, sizeof(rt->variant), "%s", vm->lay->name);
	return 0;
}

/* The layout is known for sure once a GG_State is found with it. */
static int scan(struct runtime *rt)
{
	struct luajit_runtime *vm = rt->vm;
	rt->nvms = luajit_runtime_scan(vm, 1);
	rt->refused = vm->refused;
	if (rt->nvms)
		snprintf(rt->variant, sizeof(rt->variant), "%s", vm->lay->name);
	luajit_runtime_vm_code(vm);
	return rt->nvms;
}

/* States made while recording (a host with one per thread or per request): found on a full
 * refresh, or on each while none is known; a scan that finds none keeps the VMs known. Where
 * the BPF side tells traces by address, their table is written anew on each. */
static int refresh(struct runtime *rt, struct sampler *smp, int full)
{
	struct luajit_runtime *vm = rt->vm;
	if (LF_LJ_TRACES_BY_ADDRESS && smp && vm->ngs)
		luajit_traces_push(vm, smp); /* traces come and go while the VM runs */
	if (vm->undecided && luajit_runtime_recheck(vm))
		return (rt->refused = 1);
	if (!full && vm->ngs)
		return 0;
	uint64_t before[LF_MAX_GS];
	int n = vm->ngs;
	memcpy(before, vm->gs, sizeof(before));
	if (!luajit_runtime_scan(vm, 0)) {
		if ((rt->refused = vm->refused))
			return 1;
		vm->ngs = n;
		memcpy(vm->gs, before, sizeof(before));
		return 0;
	}
	rt->nvms = vm->ngs;
	int had_code = vm->vm_hi != 0;
	luajit_runtime_vm_code(vm);
	return n != vm->ngs || memcmp(before, vm->gs, sizeof(before)) != 0 || had_code != (vm->vm_hi != 0);
}

/* The traces there are already, where the BPF side tells them by address. */
static void pushed(const struct runtime *rt, struct sampler *smp)
{
	const struct luajit_runtime *vm = rt->vm;
	if (LF_LJ_TRACES_BY_ADDRESS && vm->ngs)
		luajit_traces_push(vm, smp);
}

static size_t bpf_cfg(const struct runtime *rt, uint32_t core_file, void *out, size_t max)
{
	if (max < sizeof(struct lf_lj_cfg))
		return 0;
	luajit_runtime_cfg(rt->vm, core_file, out);
	return sizeof(struct lf_lj_cfg);
}

/* allocf and allocd come just before the GC state (whose first member is its count) in
 * every fork and variant; 2.1.0-beta3's string table comes before them. */
static size_t allocators(const struct runtime *rt, uint64_t *fn, size_t max)
{
	const struct luajit_runtime *vm = rt->vm;
	if (!vm->lay || vm->refused || vm->lay->g_gc_total < 16)
		return 0;
	return runtime_read_pointers(rt->pid, vm->gs, vm->ngs, (unsigned)vm->lay->g_gc_total - 16, fn, max);
}

/* The VM chains the C frames that entered it (L->cframe), which the BPF side marks, and its
 * interpreter is one assembly function that runs the built-ins (pcall, table.sort) itself. */
static const struct lm_rules merge_rules = { .marked_entries = 1, .one_function_vm = 1 };

const struct runtime_ops luajit_runtime_ops = {
	.family = "LuaJIT",
	.cfg_map = "lj_cfgs",
	.detect = detect,
	.scan = scan,
	.bpf_cfg = bpf_cfg,
	.refresh = refresh,
	.pushed = pushed,
	.merge = &merge_rules,
	.resolve = luajit_resolve,
	.function_label = luajit_function_label,
	.frame_label = luajit_frame_label,
	.thread_label = luajit_state_label,
	.allocators = allocators,
	.free = free,
};
