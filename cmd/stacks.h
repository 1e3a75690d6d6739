/* Turns a stack record drained from BPF into a folded line (process name first, then
 * user frames outermost first, then kernel frames) and adds it to the profile. */
#ifndef LF_STACKS_H
#define LF_STACKS_H
#include <sys/types.h>
#include "aggregate.h"
#include "frame_label.h"
#include "symbolize.h"
#include "stack_record.h"

struct runtime;
struct stack_target { pid_t pid; char comm[64]; struct runtime *rt; /* its Lua runtime, or NULL */ };

struct stack_ctx {
	struct profile *prof;
	struct symbolizer *sym;
	struct stack_target *targets;
	size_t ntargets;
	struct sbuf line;
	int lines;  /* Lua frames show the executing line */
	int kernel; /* kernel frames are shown (off-CPU stacks always carry them, to name the wait) */
	uint64_t gone;  /* samples with a Lua function that could not be named */
	uint64_t jit_code; /* samples with a [jit code] frame not running the GC */
	uint64_t fiber_roots; /* samples whose stack starts on a user-level context: complete */
	uint64_t lua_partial; /* of the complete ones, those with a Lua part gone or unknown */
	uint64_t unnamed;     /* samples with a native frame in no mapping known (LF_LABEL_UNKNOWN) */
	int at_fiber;         /* the stack being folded does */
	int at_unknown;       /* the stack being folded has an LF_LABEL_UNKNOWN frame */
	int at_gone, at_jit;  /* ... an LF_LABEL_GONE frame; an LF_LABEL_JIT one the GC does not follow */
	int jit_open;         /* its last label written was LF_LABEL_JIT */
};


void stacks_add_target(struct stack_ctx *c, pid_t pid);
struct stack_target *stacks_target(struct stack_ctx *c, pid_t pid);
/* sampler_cb of sampler_on_fresh: names the Lua functions of a stack new in its generation
 * right away, while they exist, into the label caches the drain's fold then reads. */
void stacks_fresh(const struct lf_stack_key *k, const struct lf_stack *st, void *ctx);
/* Frees pid's Lua runtime (after exec), out of the naming thread's way. */
void stacks_forget_runtime(struct stack_ctx *c, pid_t pid);
/* sampler_cb of the drain: folds one record into c->prof. */
void stacks_collect(const struct lf_stack_key *k, const struct lf_stack *st, void *ctx);
void stacks_free(struct stack_ctx *c);
/* Why an unwind stopped (an lf_mark), as the `[unwind: ...]` markers and statistics say it. */
const char *stacks_mark_name(unsigned reason);
#endif
