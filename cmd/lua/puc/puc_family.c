/* PUC Lua 5.1-5.5 as a runtime family (runtime.h): its detection, VM scan and BPF
 * configuration from puc_runtime.c, its labels from puc_label.c. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>

#include "puc_label.h"
#include "puc_runtime.h"
#include "runtime.h"
#include "sampler.h"
#include "unwind.h"
#include "util.h"

static int detect(pid_t pid, struct runtime *rt)
{
	struct puc_runtime *vm = xcalloc(1, sizeof(*vm));
	rt->vm = vm;
	int rc = puc_runtime_detect(pid, vm);
	if (vm->major) {
		snprintf(rt->name, sizeof(rt->name), "Lua %d.%d.%d", vm->major, vm->minor, vm->patch);
		snprintf(rt->core_path, sizeof(rt->core_path), "%s", vm->core_path);
		rt->core_dev = vm->core_dev;
		rt->core_inode = vm->core_inode;
		rt->keep_without_vm = 1;
	}
	if (rc && vm->major && !vm->explained)
		warnx_lf("PID %d: %s in %s has a layout this build does not know; profiling native stacks only",
			 (int)pid, rt->name, vm->core_path);
	return rc && vm->major ? -2 : rc;
}

static int scan(struct runtime *rt)
{
	struct puc_runtime *vm = rt->vm;
	return rt->nvms = puc_runtime_scan_states(vm, 1);
}

static size_t bpf_cfg(const struct runtime *rt, uint32_t core_file, void *out, size_t max)
{
	if (max < sizeof(struct lf_puc_cfg))
		return 0;
	puc_runtime_cfg(rt->vm, core_file, out);
	return sizeof(struct lf_puc_cfg);
}

/* The register (i for the i-th callee-saved one of arch.h, LF_NSAVED for the frame pointer)
 * where the BPF side found lua_State most often over the recording (at least 20 times), or
 * 0xff. */
static int reg_hint(struct sampler *smp)
{
	int fd = sampler_map_fd(smp, "lua_reg_hits"), ncpu = libbpf_num_possible_cpus(), best = 0xff;
	__u64 *v = xcalloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(*v)), best_n = 20;
	for (__u32 i = 0; fd >= 0 && i <= LF_NSAVED; i++) {
		__u64 n = 0;
		if (bpf_map_lookup_elem(fd, &i, v))
			continue;
		for (int c = 0; c < ncpu; c++)
			n += v[c];
		if (n > best_n) {
			best_n = n;
			best = (int)i;
		}
	}
	free(v);
	return best;
}

/* VMs made after attach; a VM already found is rescanned only on a full refresh. */
static int refresh(struct runtime *rt, struct sampler *smp, int full)
{
	struct puc_runtime *vm = rt->vm;
	int hint = reg_hint(smp), before = vm->ngs, changed = hint != vm->reg_hint;
	vm->reg_hint = hint;
	if (!vm->ngs || full)
		changed |= (rt->nvms = puc_runtime_scan_states(vm, 0)) != before;
	return changed;
}

/* frealloc opens global_State from 5.2 on; 5.1 has its string table (a pointer and two
 * ints) first. */
static size_t allocators(const struct runtime *rt, uint64_t *fn, size_t max)
{
	const struct puc_runtime *vm = rt->vm;
	return runtime_read_pointers(rt->pid, vm->gs, vm->ngs, vm->major == 5 && vm->minor == 1 ? 16 : 0, fn, max);
}

const struct runtime_ops puc_runtime_ops = {
	.family = "PUC Lua",
	.cfg_map = "puc_cfgs",
	.detect = detect,
	.scan = scan,
	.bpf_cfg = bpf_cfg,
	.refresh = refresh,
	.function_label = puc_function_label,
	.frame_label = puc_frame_label,
	.allocators = allocators,
	.free = free,
};
