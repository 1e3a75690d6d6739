/* Connects the Lua runtimes of target processes to a recording: detection at attach,
 * the BPF program's view of each VM, and rescans for VMs created later. */
#ifndef LF_LUA_ATTACH_H
#define LF_LUA_ATTACH_H
#include <sys/types.h>
#include "sampler.h"
#include "stacks.h"
#include "unwind_tables.h"

/* Finds the Lua runtime of pid and its VMs, says what was found, and tells the BPF program. */
enum lua_attach_result {
	LUA_ATTACH_NONE,  /* no Lua runtime in the process */
	LUA_ATTACHED,     /* a runtime and at least one VM */
	LUA_ATTACH_NO_VM, /* a runtime without a VM yet: worth looking again */
};
enum lua_attach_result lua_attach(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut, pid_t pid);
/* Rescans the PUC Lua runtimes for VMs: twice a second while one has none, else rarely. */
void lua_refresh(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut, double now);
#endif
