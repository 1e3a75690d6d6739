/* Connects the Lua runtimes of target processes to a recording: detection at attach,
 * the BPF program's view of each VM, and rescans for VMs created later. */
#ifndef LF_LUA_ATTACH_H
#define LF_LUA_ATTACH_H
#include <sys/types.h>
#include "sampler.h"
#include "stacks.h"
#include "unwind_tables.h"

/* Finds the Lua runtime of pid and its VMs, says what was found, and tells the BPF program. */
void lua_attach(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut, pid_t pid);
/* Rescans for VMs: every 2 s while a target has none, every 10 s otherwise. */
void lua_refresh(struct stack_ctx *sc, struct sampler *smp, struct unwind_tables *ut, double now);
#endif
