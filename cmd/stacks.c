/* Turns a stack record drained from BPF into a folded line (process name first, then
 * user frames outermost first, then kernel frames) and adds it to the profile. */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lua_merge.h"
#include "proc.h"
#include "runtime.h"
#include "safe_name.h"
#include "thread_names.h"
#include "stacks.h"
#include "util.h"

/* The target list and its runtimes are shared with the thread naming new stacks. */
static pthread_mutex_t targets_lock = PTHREAD_MUTEX_INITIALIZER;

void stacks_add_target(struct stack_ctx *c, pid_t pid)
{
	pthread_mutex_lock(&targets_lock);
	c->targets = xrealloc(c->targets, (c->ntargets + 1) * sizeof(*c->targets));
	struct stack_target *t = &c->targets[c->ntargets++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	pthread_mutex_unlock(&targets_lock);
	proc_comm(pid, t->comm, sizeof(t->comm));
	if (!t->comm[0])
		snprintf(t->comm, sizeof(t->comm), "pid-%d", (int)pid);
	symbolizer_add_pid(c->sym, pid);
}

struct stack_target *stacks_target(struct stack_ctx *c, pid_t pid)
{
	for (size_t i = 0; i < c->ntargets; i++)
		if (c->targets[i].pid == pid)
			return &c->targets[i];
	return NULL;
}

static const char *comm_of(struct stack_ctx *c, pid_t pid)
{
	struct stack_target *t = stacks_target(c, pid);
	return t ? t->comm : "[unknown process]";
}

const char *stacks_mark_name(unsigned reason)
{
	static const char *const names[LF_MARK_COUNT] = {
		[LF_MARK_TRUNCATED] = "depth limit", [LF_MARK_NO_USTACK] = "no user stack",
		[LF_MARK_NO_TABLE] = "no table", [LF_MARK_INVALID] = "unsupported rule",
		[LF_MARK_BAD_READ] = "unreadable stack", [LF_MARK_NO_MAPPING] = "unmapped pc",
		[LF_MARK_FP_FAILED] = "frame pointer chain broken", [LF_MARK_NO_PROC] = "process not ready",
		[LF_MARK_ZERO_RA] = "zero return address", [LF_MARK_EXITING] = "process exiting",
	};
	return reason < LF_MARK_COUNT && names[reason] ? names[reason] : "failed";
}

static void mark_label(__u32 reason, struct sbuf *out)
{
	sb_printf(out, LF_LABEL_UNWIND "%s]", stacks_mark_name(reason));
}

/* Whether the return address is in the entry of a user-level context: the code that starts
 * a fiber has no unwind information, as nothing called it. */
static int context_entry(struct stack_ctx *c, pid_t pid, uint64_t ret)
{
	static const char *const entries[] = {
		"make_fcontext", "jump_fcontext", "ontop_fcontext", /* boost.context */
		"__start_context",                                  /* glibc's makecontext */
		"coctx_swap", "acosw", "aco_funcp_protector_asm",   /* libco, libaco */
	};
	const char *n = symbolize_name(c->sym, pid, ret - 1);
	for (size_t i = 0; n && i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(n, entries[i]))
			return 1;
	return 0;
}

/* The label where the native part ends short of a thread's root: the start of a fiber
 * (then the stack is whole), or why unwinding stopped. */
static void end_label(struct stack_ctx *c, pid_t pid, __u32 mark, int has_outer, uint64_t outer, struct sbuf *out)
{
	if (c->at_fiber || (mark == LF_MARK_NO_TABLE && has_outer && context_entry(c, pid, outer))) {
		sb_puts(out, LF_LABEL_FIBER);
		c->at_fiber = 1;
		return;
	}
	mark_label(mark, out);
}

static void thread_level(pid_t pid, __u32 tid, struct sbuf *out)
{
	const char *name = thread_name(pid, tid);
	sb_puts(out, ";");
	sb_add_safe(out, name, strlen(name), SAFE_FOLDED_ROOT);
	sb_printf(out, "-%u", tid);
}

static int nuser_of(const struct lf_stack *st)
{
	return st->nuser < LF_MAX_USTACK ? st->nuser : LF_MAX_USTACK;
}

/* A record's words split into native frames and Lua threads (lm_decode), and what the record
 * holds turned into what its family's labels need: the one decode, for the announcement's
 * naming and the drain's fold alike. Returns st's runtime; a process without one (none found,
 * or forgotten at exec) keeps no Lua part, as nothing can label it. Hold targets_lock, or be
 * the thread that changes the targets. */
static const struct runtime *stack_decode(struct stack_ctx *c, const struct lf_stack *st, struct lm_stack *ls)
{
	struct stack_target *t = stacks_target(c, (pid_t)st->pid);
	const struct runtime *rt = t ? t->rt : NULL;
	lm_decode(st->user, nuser_of(st), ls);
	if (!rt)
		ls->nth = ls->npos = 0;
	else if (ls->nth && rt->ops->resolve)
		rt->ops->resolve(rt, ls);
	return rt;
}

/* The start of each native frame's function, which the merge compares to tell the VM's
 * frames and a C function's own: symbols are the fold's, the merge a function of its input. */
static void native_starts(struct symbolizer *sym, pid_t pid, struct lm_stack *ls)
{
	for (int i = 0; i < ls->nnat; i++) {
		uint64_t start;
		/* addr is a return address here: the call is in the byte before it */
		ls->nat[i].func = symbolize_func_start(sym, pid, ls->nat[i].addr - 1, &start) == 0 ? start : 0;
	}
}

/* Frames of a deep native stack left out between its innermost and outermost ones. */
static void elided_label(uint64_t count, struct sbuf *out)
{
	sb_printf(out, LF_LABEL_NATIVE_ELIDED "%llu frame%s elided]", (unsigned long long)count, count == 1 ? "" : "s");
}

/* What the labels of the stack being folded stand for, as their writers say: a frame in no
 * mapping, a Lua function gone, machine code no runtime claims ([jit code] is known for what
 * it is when the VM state that follows it says the GC ran). */
static void note_native(struct stack_ctx *c, enum sym_result r)
{
	if (c->jit_open)
		c->at_jit = 1; /* a label follows the [jit code] one, and it is no GC state */
	c->jit_open = r == SYM_JIT;
	c->at_unknown |= r == SYM_UNKNOWN;
}

static void note_state(struct stack_ctx *c, enum rt_state st)
{
	if (c->jit_open && st != RT_STATE_GC)
		c->at_jit = 1;
	c->jit_open = 0;
}

static enum sym_result native_label(struct stack_ctx *c, pid_t pid, const struct lm_native *n, struct sbuf *out)
{
	if (n->tag == LF_TAG_ELIDED) {
		elided_label(n->addr & 0xffffffffu, out);
		return SYM_NAMED;
	}
	if (n->tag == LF_TAG_LJTRACE) {
		if (n->addr == LF_TRACE_UNKNOWN)
			sb_puts(out, LF_LABEL_JIT);
		else if (n->addr == LF_TRACE_UNNUMBERED)
			sb_puts(out, LF_LABEL_TRACE "]");
		else
			sb_printf(out, LF_LABEL_TRACE " %llu]", (unsigned long long)n->addr);
		return n->addr == LF_TRACE_UNKNOWN ? SYM_JIT : SYM_NAMED;
	}
	return symbolize_user(c->sym, pid, n->addr, n->tag != LF_TAG_EXACT, out);
}

/* Where Lua frames were left out: between the innermost and the outermost ones kept, or
 * beyond the walk's reach, losing the root side. */
static void gap_label(const struct lm_lua *f, struct sbuf *out)
{
	if (f->aux)
		sb_printf(out, LF_LABEL_LUA_ELIDED "%llu frames elided]", (unsigned long long)(f->aux & LF_PC_MASK));
	else
		sb_puts(out, LF_LABEL_LUA_DEPTH);
}

/* The merge leaves out the VM's own native frames; the marker of left-out native frames
 * must stay all the same, before the first native frame of the leaf side. Returns n. */
static int keep_elided(const struct lm_stack *ls, struct lm_out *mo, int n)
{
	int x = -1, at = n;
	for (int i = 0; i < ls->nnat; i++)
		if (ls->nat[i].tag == LF_TAG_ELIDED)
			x = i;
	for (int i = 0; x >= 0 && i < n; i++) {
		if (mo[i].kind == LM_NATIVE && mo[i].a == x)
			return n;
		if (mo[i].kind == LM_NATIVE && mo[i].a < x && at == n)
			at = i;
	}
	if (x < 0)
		return n;
	memmove(mo + at + 1, mo + at, (size_t)(n - at) * sizeof(*mo));
	mo[at] = (struct lm_out){ LM_NATIVE, x, 0 };
	return n + 1;
}

/* The order of ls's frames, root first: the native frames merged with the Lua part by its
 * family's rules, or alone when there is none. Returns the count. */
static int frame_order(struct stack_ctx *c, pid_t pid, const struct runtime *rt, struct lm_stack *ls,
		       struct lm_out *mo, int max)
{
	if (ls->nth)
		native_starts(c->sym, pid, ls);
	return keep_elided(ls, mo, lm_merge(ls, rt ? rt->ops->merge : NULL, mo, max - 1));
}

/* The user frames of ls, root first: where the native part ends short of the root, then
 * native and Lua frames in call order. */
static void fold_user(struct stack_ctx *c, pid_t pid, const struct runtime *rt, const struct lm_stack *ls,
		      const struct lm_out *mo, int n, struct sbuf *out)
{
	if (ls->mark) {
		sb_puts(out, ";");
		end_label(c, pid, ls->mark, ls->nnat > 0, ls->nnat ? ls->nat[ls->nnat - 1].addr : 0, out);
	}
	/* A thread's VM state ([GC]) follows its innermost Lua frame and the trace that runs
	 * there: a trace that calls the GC is its caller. */
	const struct lm_thread *state = NULL;
	for (int i = 0; i < n; i++) {
		int trace = mo[i].kind == LM_NATIVE && ls->nat[mo[i].a].tag == LF_TAG_LJTRACE;
		if (state && !trace) {
			note_state(c, rt->ops->thread_label(state, out));
			state = NULL;
		}
		sb_puts(out, ";");
		if (mo[i].kind == LM_NATIVE) {
			note_native(c, native_label(c, pid, &ls->nat[mo[i].a], out));
		} else {
			note_native(c, SYM_NAMED);
			if (ls->th[mo[i].a].f[mo[i].b].marker)
				gap_label(&ls->th[mo[i].a].f[mo[i].b], out);
			else
				c->at_gone |= runtime_frame_label(rt, c->sym, &ls->th[mo[i].a], mo[i].b, c->lines, out);
		}
		if (mo[i].kind == LM_LUA && mo[i].b == 0 && rt->ops->thread_label)
			state = &ls->th[mo[i].a];
	}
	if (state)
		note_state(c, rt->ops->thread_label(state, out));
}

/* makecontext makes the start of the context's entry function its return address, though
 * nothing called it, and the walk reads on past it into garbage. A stack cut short whose
 * return address is exactly a function's start is cut there: its root is the fiber. */
static void cut_at_context(struct stack_ctx *c, pid_t pid, struct lm_stack *ls)
{
	int at = -1;
	for (int i = 1; i < ls->nnat && at < 0; i++) {
		uint64_t start;
		if (ls->nat[i].tag == LF_TAG_NATIVE && symbolize_func_start(c->sym, pid, ls->nat[i].addr, &start) == 0 &&
		    start == ls->nat[i].addr)
			at = i;
	}
	if (at < 0)
		return;
	ls->nnat = at + 1;
	ls->mark = LF_MARK_NO_TABLE;
	int n = 0;
	for (int k = 0; k < ls->npos; k++)
		if (ls->pos[k].frame <= at)
			ls->pos[n++] = ls->pos[k]; /* a lua_State seen beyond the cut was garbage */
	ls->npos = n;
	c->at_fiber = 1;
}

/* The scheduler's own functions, between a waiting thread's last frame and the wait. */
static int scheduler_frame(const char *name)
{
	return strstr(name, "schedule") || strstr(name, "cond_resched") || !strncmp(name, "finish_task_switch", 18) ||
	       !strncmp(name, "perf_", 5);
}

/* Wall mode: "[off-CPU: FN]" for a stack that left the CPU, FN the kernel function it waits
 * in (the first frame outside the scheduler), "preempted" for a thread that stayed runnable. */
static void offcpu_label(struct stack_ctx *c, const struct lf_stack *st, struct sbuf *out)
{
	const char *wait = NULL;
	int nk = st->nkern < LF_MAX_KSTACK ? st->nkern : LF_MAX_KSTACK;
	for (int i = 0; i < nk && !wait && !(st->flags & LF_FLAG_RUNNABLE); i++) {
		const char *name = symbolize_kernel_name(c->sym, st->kern[i]);
		if (name && !scheduler_frame(name))
			wait = name;
	}
	sb_puts(out, ";" LF_LABEL_OFFCPU);
	if (st->flags & LF_FLAG_RUNNABLE)
		sb_puts(out, ": preempted");
	else if (wait)
		sb_printf(out, ": %.80s", wait);
	sb_puts(out, "]");
}

/* Appends the folded frames of st (without the count) to out: one decode, then one loop
 * over the frames in call order, whether the stack has a Lua part or not. */
static void stacks_fold_frames(struct stack_ctx *c, const struct lf_stack *st, struct sbuf *out)
{
	static struct lm_stack ls; /* the drain's own: the naming thread decodes into another */
	static struct lm_out mo[LF_MAX_NATIVE + LF_MAX_LTHREADS * (LF_MAX_LUA + 1)];
	pid_t pid = (pid_t)st->pid;
	const struct runtime *rt = stack_decode(c, st, &ls);
	if (!(st->flags & LF_FLAG_COMPLETE))
		cut_at_context(c, pid, &ls);
	sb_puts(out, comm_of(c, pid));
	if (st->tid)
		thread_level(pid, st->tid, out);
	fold_user(c, pid, rt, &ls, mo, frame_order(c, pid, rt, &ls, mo, (int)(sizeof(mo) / sizeof(mo[0]))), out);
	if (st->flags & LF_FLAG_OFFCPU) {
		offcpu_label(c, st, out);
		if (!c->kernel)
			return;
	}
	int nk = st->nkern < LF_MAX_KSTACK ? st->nkern : LF_MAX_KSTACK;
	for (int i = nk - 1; i >= 0; i--) {
		sb_puts(out, ";");
		symbolize_kernel(c->sym, st->kern[i], out);
	}
}

/* LUA_FLAME_DEBUG=words: each stack named is printed on stderr with the words the kernel
 * recorded for it (bpf/stack_record.h), to tell which word a wrong frame was made from. */
static int debug_words(void)
{
	static int on = -1;
	if (on < 0) {
		const char *d = getenv("LUA_FLAME_DEBUG");
		on = d && !strcmp(d, "words");
	}
	return on;
}

static void print_words(const char *folded, const struct lf_stack *st)
{
	int nu = nuser_of(st);
	flockfile(stderr);
	fprintf(stderr, "lua-flame: words: %s :", folded);
	for (int i = 0; i < nu; i++)
		fprintf(stderr, " %llx", (unsigned long long)st->user[i]);
	fputc('\n', stderr);
	funlockfile(stderr);
}

/* stacks_fold_frames, and LUA_FLAME_DEBUG=words's line. */
static void stacks_fold(struct stack_ctx *c, const struct lf_stack *st, struct sbuf *out)
{
	size_t start = out->len;
	stacks_fold_frames(c, st, out);
	if (debug_words())
		print_words(out->s + start, st);
}

void stacks_fresh(const struct lf_stack_key *k, const struct lf_stack *st, void *ctx)
{
	struct stack_ctx *c = ctx;
	static struct lm_stack ls; /* the naming thread's own */
	(void)k;
	pthread_mutex_lock(&targets_lock);  /* the runtimes must not be freed meanwhile */
	const struct runtime *rt = stack_decode(c, st, &ls);
	for (int i = 0; rt && i < ls.nth; i++)
		runtime_name_frames(rt, &ls.th[i], c->lines);
	pthread_mutex_unlock(&targets_lock);
}

void stacks_forget_runtime(struct stack_ctx *c, pid_t pid)
{
	pthread_mutex_lock(&targets_lock);
	struct stack_target *t = stacks_target(c, pid);
	if (t) {
		runtime_free(t->rt);
		t->rt = NULL;
	}
	pthread_mutex_unlock(&targets_lock);
}

void stacks_collect(const struct lf_stack_key *k, const struct lf_stack *st, void *ctx)
{
	struct stack_ctx *c = ctx;
	(void)k;
	if (!st->count) /* wall mode: a thread's stack made when it left the CPU, not yet counted */
		return;
	uint64_t n = st->count, objects = 0;
	if (c->prof->alloc) { /* bytes, and allocations above them (LF_ALLOC_OBJ_SHIFT) */
		objects = n >> LF_ALLOC_OBJ_SHIFT;
		n &= LF_ALLOC_BYTES_MASK;
	}
	sb_reset(&c->line);
	c->at_fiber = c->at_unknown = c->at_gone = c->at_jit = c->jit_open = 0;
	stacks_fold(c, st, &c->line);
	note_native(c, SYM_NAMED); /* a [jit code] frame innermost has no GC state after it */
	if (c->at_fiber)
		c->fiber_roots += n;
	profile_add_objects(c->prof, c->line.s, c->line.len, n, objects);
	int gone = c->at_gone, unknown = c->at_jit;
	c->gone += gone ? n : 0;
	c->jit_code += unknown ? n : 0;
	c->unnamed += c->at_unknown ? n : 0;
	/* rooted, but not whole: "complete" must not count it */
	if ((gone || unknown || c->at_unknown) && ((st->flags & LF_FLAG_COMPLETE) || c->at_fiber))
		c->lua_partial += n;
}

void stacks_free(struct stack_ctx *c)
{
	symbolizer_free(c->sym);
	for (size_t i = 0; i < c->ntargets; i++) {
		runtime_free(c->targets[i].rt);
	}
	free(c->targets);
	sb_free(&c->line);
}
