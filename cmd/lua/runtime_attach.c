/* Connects the Lua runtimes of target processes to a recording, whatever their family:
 * detection at attach, the BPF program's view of each VM, and rescans for VMs made later. */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "proc.h"
#include "runtime.h"
#include "runtime_attach.h"
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

static void push(struct sampler *smp, struct unwind_tables *ut, const struct runtime *rt)
{
	_Alignas(8) unsigned char cfg[1024];
	size_t n = rt->ops->bpf_cfg(rt, core_file(ut, rt->pid, rt->core_dev, rt->core_inode), cfg, sizeof(cfg));
	__u32 key = (__u32)rt->pid;
	int fd = sampler_map_fd(smp, rt->ops->cfg_map);
	if (n && fd >= 0 && bpf_map_update_elem(fd, &key, cfg, BPF_ANY)) {
		warnx_lf("PID %d: cannot hand the %s VM to the BPF program (%s); native stacks only",
			 (int)rt->pid, rt->ops->family, strerror(errno));
		return;
	}
	if (rt->ops->pushed)
		rt->ops->pushed(rt, smp);
}

/* "Lua 5.4.6" or "LuaJIT 2.1.0-beta3 (upstream GC64)" */
static const char *describe(const struct runtime *rt, char *buf, size_t size)
{
	snprintf(buf, size, rt->variant[0] ? "%s (%s)" : "%s", rt->name, rt->variant);
	return buf;
}

static void say_found(const struct runtime *rt)
{
	char what[160];
	info_lf("PID %d: %s in %s, %d VM%s found", (int)rt->pid, describe(rt, what, sizeof(what)), rt->core_path,
		rt->nvms, rt->nvms == 1 ? "" : "s");
}

static enum runtime_attach_result attach_found(struct stack_target *t, struct sampler *smp,
					       struct unwind_tables *ut, struct runtime *rt, int quiet)
{
	char what[160];
	int pid = (int)rt->pid;
	int found = rt->ops->scan(rt);
	if (rt->refused) { /* the family said why; the process is profiled as one without Lua */
		runtime_free(rt);
		return RUNTIME_NONE;
	}
	if (!found && !(quiet && rt->keep_without_vm)) {
		warnx_lf("PID %d: %s in %s, but no VM state in its memory yet; native stacks until one appears "
			 "(lua-flame keeps looking while it records)", pid, describe(rt, what, sizeof(what)),
			 rt->core_path);
		if (!rt->keep_without_vm) {
			runtime_free(rt);
			return RUNTIME_NO_VM;
		}
	} else if (rt->nvms) {
		say_found(rt);
		if (rt->nvms >= LF_MAX_GS)
			warnx_lf("PID %d: %d %s VMs or more; any beyond them are recognised on the stack of the thread "
				 "running them (--stats counts those samples as 'in a Lua VM not found yet')",
				 pid, rt->nvms, rt->ops->family);
	}
	t->rt = rt;
	push(smp, ut, rt);
	return rt->nvms ? RUNTIME_ATTACHED : RUNTIME_NO_VM;
}

enum runtime_attach_result runtime_attach(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut,
					  pid_t pid, int quiet)
{
	struct stack_target *t = stacks_target(sc, pid);
	int seen = 0;
	struct runtime *rt = t ? runtime_detect(pid, &seen) : NULL;
	if (rt)
		return attach_found(t, smp, ut, rt, quiet);
	if (seen) /* the family said which runtime and why it cannot be read */
		info_lf("PID %d: profiling native stacks only", (int)pid);
	else
		info_lf("PID %d: no Lua runtime found; profiling native stacks only", (int)pid);
	return RUNTIME_NONE;
}

void runtime_refresh(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut, double now,
		     uint64_t vm_misses)
{
	/* idle_every doubles after each fruitless regular rescan: from 1, the first one after the
	 * rescan at start-up comes 2 s later */
	static double last, last_full = -1e9, full_every = 2.0, idle_every = 1.0, full_cost, burst = 0.5;
	static uint64_t misses;
	static int fruitless; /* rescans for missed VMs in a row that found none */
	int none = 0, missed = vm_misses > misses;
	for (size_t i = 0; i < sc->ntargets && !none; i++)
		none = sc->targets[i].rt && !sc->targets[i].rt->nvms;
	/* Samples already run in the first VM of a runtime that has none yet (a command that
	 * has just started): it is looked for at once, for half a second of scanning at most. */
	int hurry = none && missed && burst > 0;
	if (!hurry && now - last < (none || missed ? 0.5 : 2.0))
		return;
	/* A full rescan finds VMs made while recording; it reads the target's memory. Samples
	 * in a VM not found yet call for one, as often as keeps its cost near 2% of a CPU (a
	 * host that makes a state per request runs in VMs not found yet all the time), unless
	 * the last such rescan found nothing (a VM the scan cannot see): then they wait for the
	 * next regular one. Regular ones, a net under those, come every 2 s, and half as often
	 * after each that finds nothing, down to every 32 s (and never above that budget). */
	int due = now - last_full >= full_every;
	int affordable = now - last_full >= full_cost * 50;
	int full = due || (missed && (hurry || (!fruitless && affordable)));
	last = now;
	misses = vm_misses;
	if (full)
		last_full = now;
	int found = 0;
	for (size_t i = 0; i < sc->ntargets; i++) {
		struct runtime *rt = sc->targets[i].rt;
		int had = rt ? rt->nvms : 0;
		if (!rt || !rt->ops->refresh || !rt->ops->refresh(rt, smp, full))
			continue;
		if (rt->refused) {
			runtime_forget(sc, smp, rt->pid);
			continue;
		}
		push(smp, ut, rt);
		found |= rt->nvms > had;
		if (!had && rt->nvms)
			say_found(rt);
	}
	if (full) {
		double cost = now_sec() - now;
		full_cost = cost;
		idle_every = found ? 2.0 : idle_every * 2 < 32.0 ? idle_every * 2 : 32.0;
		full_every = cost * 50 > idle_every ? cost * 50 : idle_every;
		if (hurry)
			burst -= cost;
		fruitless = found ? 0 : missed ? fruitless + 1 : fruitless;
	}
}

void runtime_forget(struct stack_ctx *sc, struct sampler *smp, pid_t pid)
{
	stacks_forget_runtime(sc, pid);
	__u32 key = (__u32)pid;
	for (int i = 0; runtime_families[i]; i++) {
		int fd = sampler_map_fd(smp, runtime_families[i]->cfg_map);
		if (fd >= 0)
			bpf_map_delete_elem(fd, &key);
	}
}

size_t runtime_read_pointers(pid_t pid, const uint64_t *gs, int n, unsigned off, uint64_t *out, size_t max)
{
	size_t k = 0;
	for (int i = 0; i < n && k < max; i++) {
		uint64_t v;
		if (proc_read_mem(pid, gs[i] + off, &v, sizeof(v)) == (ssize_t)sizeof(v) && v)
			out[k++] = v;
	}
	return k;
}
