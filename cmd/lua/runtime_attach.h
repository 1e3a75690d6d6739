/* Connects the Lua runtimes of target processes to a recording, whatever their family:
 * detection at attach, the BPF program's view of each VM, and rescans for VMs made later. */
#ifndef LF_RUNTIME_ATTACH_H
#define LF_RUNTIME_ATTACH_H
#include <sys/types.h>
#include "sampler.h"
#include "stacks.h"
#include "unwind_tables.h"

/* Finds the Lua runtime of pid and its VMs, says what was found, and tells the BPF program.
 * quiet: a command just started, whose VM is on its way; it is named once a scan finds it. */
enum runtime_attach_result {
	RUNTIME_NONE,     /* no Lua runtime in the process */
	RUNTIME_ATTACHED, /* a runtime and at least one VM */
	RUNTIME_NO_VM,    /* a runtime without a VM yet: worth looking again */
};
enum runtime_attach_result runtime_attach(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut,
					  pid_t pid, int quiet);
/* Rescans the runtimes for VMs: twice a second while one has none, in full every 2 s or less
 * often as the scans cost more, and at once (twice a second at most; at every call while a
 * runtime has no VM at all, for half a second of scans in all) when vm_misses, the samples
 * the BPF side found running a VM it was not told of, grew; after such a rescan that found
 * no VM, misses wait for the next regular one. */
void runtime_refresh(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut, double now,
		     uint64_t vm_misses);
/* Forgets pid's runtime on both sides (after exec: the old program's VM means nothing). */
void runtime_forget(struct stack_ctx *sc, struct sampler *smp, pid_t pid);
#endif
