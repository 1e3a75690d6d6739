/* Merges a sample's native frames with the Lua frames of the lua_States that were
 * running, in true call order: host C frames, then Lua frames, then the C functions they
 * call and so on, with the VM's internal frames between them left out. */
#ifndef LF_LUA_MERGE_H
#define LF_LUA_MERGE_H
#include <stdint.h>
#include "lua.h"
#include "profile.h"

struct lm_native { uint64_t addr; int tag; };      /* tag: LF_TAG_NATIVE, _EXACT, _FP */
struct lm_lua { int c; uint64_t ptr, aux; };        /* c: a C function (ptr = lua_CFunction) */
struct lm_thread { uint64_t L; struct lm_lua f[LF_MAX_LUA + 1]; int n; };  /* f innermost first, + marker */
struct lm_pos { int thread, frame; };               /* frame: native index from the leaf */

struct lm_stack {
	struct lm_native nat[LF_MAX_NATIVE];
	int nnat;
	uint32_t mark;             /* lf_mark ending the native part, 0 if none */
	struct lm_thread th[LF_MAX_LTHREADS];
	int nth;
	struct lm_pos pos[LF_MAX_LPOS];
	int npos;
};

/* Splits a stack record's user words into native frames, Lua threads and positions. */
void lm_decode(const __u64 *w, int n, struct lm_stack *out);

/* One frame of merged output, root first. */
struct lm_out {
	int kind;        /* LM_NATIVE (nat index), LM_LUA (thread, frame index) */
	int a, b;
};
enum { LM_NATIVE, LM_LUA };

/* Merged order of st's frames, root first; returns the count (at most max). */
int lm_merge(const struct lm_stack *st, struct lm_out *out, int max,
	     int (*same_function)(void *ctx, uint64_t frame_addr, uint64_t func), void *ctx,
	     int (*is_api_entry)(void *ctx, uint64_t frame_addr));
#endif
