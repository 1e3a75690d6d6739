/* Labels of LuaJIT frames in a merged stack: what each GCfunc is (Lua function, C function
 * or built-in), `NAME (CHUNK:LINE)` for Lua functions with `_[j]` when a trace runs them,
 * and the VM state ([GC], [JIT compiler], ...) at the leaf of the Lua frames. */
#ifndef LF_LUAJIT_LABEL_H
#define LF_LUAJIT_LABEL_H
#include "lua_merge.h"
#include "luajit_runtime.h"
#include "runtime.h"
#include "symbolize.h"
#include "util.h"

/* Turns each LuaJIT frame's GCfunc into a proto (Lua) or C function pointer (c = 1). */
void luajit_resolve(const struct runtime *r, struct lm_stack *st);
int luajit_frame_label(const struct runtime *r, struct symbolizer *sym, const struct lm_thread *th,
			int j, int lines, struct sbuf *out);
/* Appends the label of Lua function frame j of th, reading the target where the label caches
 * do not have it yet: call it while the function still exists. */
int luajit_function_label(const struct runtime *r, const struct lm_thread *th, int j, int lines,
			   struct sbuf *out);
/* Appends ";[GC]" and the like when the VM was not simply running Lua code or C. */
enum rt_state luajit_state_label(const struct lm_thread *th, struct sbuf *out);
#endif
