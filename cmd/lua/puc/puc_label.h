/* Labels of the Lua frames of a merged stack: `NAME (CHUNK:LINE)` for Lua functions,
 * the native symbol or Lua's name for C functions called from Lua. */
#ifndef LF_LUA_LABEL_H
#define LF_LUA_LABEL_H
#include "lua_merge.h"
#include "puc_runtime.h"
#include "runtime.h"
#include "symbolize.h"
#include "util.h"

/* Appends the label of frame j (innermost first) of thread th. lines: show the line being
 * executed instead of the line where the function is defined. The caller holds the label
 * caches' lock (label_cache_lock). */
int puc_frame_label(const struct runtime *r, struct symbolizer *sym, const struct lm_thread *th,
		     int j, int lines, struct sbuf *out);
/* Appends the label of Lua function frame j of th, reading the target where the label caches
 * do not have it yet: call it while the function still exists. */
int puc_function_label(const struct runtime *r, const struct lm_thread *th, int j, int lines,
			struct sbuf *out);
#endif
