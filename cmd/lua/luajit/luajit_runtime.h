/* Finding LuaJIT in a target process: the mapped file holding it and its variant (fork,
 * GC64 or not, from exported symbols and read-only data), and its VM's global_State (a
 * scan of writable memory for the GG_State block). */
#ifndef LF_LUAJIT_RUNTIME_H
#define LF_LUAJIT_RUNTIME_H
#include <stdint.h>
#include <sys/types.h>
#include "lua.h"
#include "luajit_layouts.h"

struct luajit_runtime {
	pid_t pid;
	const struct luajit_layout *lay; /* a table entry, or own once a VM was checked */
	struct luajit_layout own;        /* the layout as the live VM was found to fit it */
	enum luajit_variant checked;     /* the variant own was checked for */
	int undecided;                   /* own's list of built-ins is the default until its libraries are open */
	int refused;                     /* a VM of a build no layout fits: native stacks only */
	struct luajit_file_facts facts;
	int gc64_known;
	char core_path[256];
	uint64_t core_dev, core_inode;
	uint64_t gs[LF_MAX_GS];
	int ngs;
	uint32_t vm_lo, vm_hi; /* the VM's own code (its FDE), as pcs of the core file; 0, 0: not known yet */
};

/* 0 when pid maps a LuaJIT core (rt->facts says which); -1 otherwise. */
int luajit_runtime_detect(pid_t pid, struct luajit_runtime *rt);
/* Finds global states with each layout of the file's fork in turn (both GC modes when the
 * file did not tell): the first VM found is checked against the layout (luajit_vmcheck.h), and
 * the first layout it fits is taken. When VMs were found but fit none, the process is refused,
 * with a message, and none is counted. Returns the number found. */
int luajit_runtime_scan(struct luajit_runtime *rt, int first_look);
/* A VM taken before its libraries were open: checked again, its built-ins' list decided;
 * 1 when it is refused now (rt->refused set). */
int luajit_runtime_recheck(struct luajit_runtime *rt);
/* Once a VM is known: where the VM's own code lies in the core file, from the FDE holding
 * the first handler of its dispatch table. */
void luajit_runtime_vm_code(struct luajit_runtime *rt);
void luajit_runtime_cfg(const struct luajit_runtime *rt, uint32_t core_file, struct lf_lj_cfg *out);
/* Where the VM's C frame keeps the callee-saved registers of arch.h, on the architecture built
 * for (luajit_arch.c); also the caller's return address and frame pointer where they are not
 * the frame's top words (arm64's C frame before LuaJIT's 2021 reorder, Tarantool's 2.6 tree). */
void luajit_cframe_saved(struct lf_lj_cfg *c);
struct sampler;
/* Writes where the traces of rt's VMs lie to the BPF side's table (luajit_traces.c), for
 * architectures where the BPF side tells traces by address (LF_LJ_TRACES_BY_ADDRESS). */
void luajit_traces_push(const struct luajit_runtime *rt, struct sampler *smp);
#endif
