/* Merges a sample's native frames with the Lua frames of the lua_States that were
 * running, in true call order: host C frames, then Lua frames, then the C functions they
 * call and so on, with the VM's internal frames between them left out. */
#ifndef LF_LUA_MERGE_H
#define LF_LUA_MERGE_H
#include <stdint.h>
#include "lua.h"
#include "stack_record.h"

#include "frame_label.h"

struct lm_native {
	uint64_t addr;
	int tag;          /* LF_TAG_NATIVE, _EXACT, _FP, _ELIDED, _LJTRACE */
	int entry;        /* a host's call entered a VM here (LF_NAT_ENTRY) */
	/* Start of the function holding the frame (looked up at addr - 1: a return address's
	 * call is before it), 0 when not known. lm_decode leaves it 0; whoever knows the
	 * process's symbols fills it before lm_merge, which only compares starts. */
	uint64_t func;
};
struct lm_lua {
	int c;            /* a C function: ptr = lua_CFunction (0 for a LuaJIT built-in) */
	int lj;           /* LuaJIT frame: ptr = GCfunc until resolved, then proto or C function */
	int ffid;         /* LuaJIT built-in number */
	int marker;       /* not a frame: aux frames left out here, or (aux 0) the root side lost */
	uint64_t ptr, aux;
};
/* A Lua function frame's words also carry the fingerprint of its Proto at sample time
 * (fingerprint.h): the Proto's address without it, and the fingerprint (0: none taken). */
static inline uint64_t lm_addr(const struct lm_lua *f)
{
	return f->ptr & LF_ADDR_MASK;
}

static inline uint32_t lm_fp(const struct lm_lua *f)
{
	return f->c ? 0 : lf_fp_of(f->ptr, f->aux);
}

struct lm_thread {
	uint64_t L;
	struct lm_lua f[LF_MAX_LUA + 1];  /* innermost first, + a marker */
	int n;
	int lj;             /* LuaJIT thread: vmstate is valid (the merge's rules are the family's) */
	int32_t vmstate;    /* LuaJIT: trace number (>= 0) or ~state */
};
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

/* How a family's VM runs Lua code, where the merge must follow it: data the family sets
 * (runtime_ops.merge), so that the merge names no family. All 0 (or NULL) is PUC Lua's way:
 * a C function Lua calls has a native frame of its own, and the host enters the VM through
 * API functions, which a stripped static host may not name. */
struct lm_rules {
	/* The VM marks the frames it entered from C (LF_LFLAG_CENTRY; the native caller has
	 * LF_NAT_ENTRY): only those start an activation, because a C function Lua calls (pcall)
	 * may run Lua inside the same interpreter call; and an activation without a marked entry
	 * has none (the VM resumed a coroutine itself), not one a stripped host hides. */
	int marked_entries;
	/* The interpreter is one function: its frames after the host's call stand for the Lua
	 * code shown, and a built-in without a native frame of its own runs inside it. */
	int one_function_vm;
};

/* Merged order of st's frames, root first, by the rules of its runtime's family (NULL: all
 * 0); returns the count (at most max). A pure function of its input: the native frames'
 * function starts come in st->nat[].func. */
int lm_merge(const struct lm_stack *st, const struct lm_rules *rules, struct lm_out *out, int max);
#endif
