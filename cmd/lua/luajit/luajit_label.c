/* Labels of LuaJIT frames in a merged stack: what each GCfunc is (Lua function, C function
 * or built-in), `NAME (CHUNK:LINE)` for Lua functions with `_[j]` when a trace runs them,
 * and the VM state ([GC], [JIT compiler], ...) at the leaf of the Lua frames. */
#include <string.h>

#include "label_cache.h"
#include "luajit_frames.h"
#include "luajit_label.h"
#include "proc.h"

static long read_target(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return (long)proc_read_mem((pid_t)(intptr_t)ctx, addr, buf, len);
}

/* What GCfuncs without a fingerprint (C functions and built-ins, which live as long as the
 * library tables holding them) were when last read, for stacks read after the target exited. */
#define FN_SEEN 1024
static struct fn_seen { pid_t pid; uint64_t fn, p; int ffid; enum luajit_fn_kind k; } fn_seen[FN_SEEN];

static enum luajit_fn_kind func_info(const struct luajit_runtime *rt, uint64_t fn, uint64_t *p, int *ffid)
{
	struct luajit_mem m = { read_target, (void *)(intptr_t)rt->pid };
	struct fn_seen *e = &fn_seen[(fn >> 4 ^ (uint64_t)rt->pid * 0x9e3779b1u) % FN_SEEN];
	enum luajit_fn_kind k = luajit_func_info(rt->lay, &m, fn, p, ffid);
	uint8_t probe;
	if (k != LJ_FN_BAD && k != LJ_FN_LUA) {
		*e = (struct fn_seen){ rt->pid, fn, *p, *ffid, k };
	} else if (k == LJ_FN_BAD && e->fn == fn && e->pid == rt->pid &&
		   proc_read_mem(rt->pid, fn, &probe, 1) < 0) {
		*p = e->p;  /* unreadable: the process is gone */
		*ffid = e->ffid;
		k = e->k;
	}
	return k;
}

void luajit_resolve(const struct runtime *r, struct lm_stack *st)
{
	const struct luajit_runtime *rt = r->vm;
	label_cache_lock();
	for (int t = 0; t < st->nth; t++)
		for (int j = 0; j < st->th[t].n; j++) {
			struct lm_lua *f = &st->th[t].f[j];
			uint64_t p = f->ptr;
			int ffid = f->ffid;
			enum luajit_fn_kind k;
			if (f->lj && f->c)  /* the sample read its C function and ffid */
				k = luajit_cfunc_kind(rt->lay, ffid);
			else if (!f->lj || !f->ptr || lm_fp(f))
				continue;  /* with a fingerprint, the sample says it is a Lua function's proto */
			else
				k = func_info(rt, f->ptr, &p, &ffid);
			f->c = k != LJ_FN_LUA;
			f->ffid = ffid;
			f->ptr = k == LJ_FN_BAD || k == LJ_FN_FAST ? 0 : p;
			if (k == LJ_FN_BAD)
				f->ffid = -1;
		}
	label_cache_unlock();
}

/* The name the caller (frame j+1) used for frame j, as LuaJIT's traceback gives it. */
static int called_name(const struct luajit_runtime *rt, const struct lm_thread *th, int j, char *out, size_t n)
{
	struct luajit_mem m = { read_target, (void *)(intptr_t)rt->pid };
	if (j + 1 >= th->n || th->f[j + 1].c || (th->f[j].aux & LF_LFLAG_CENTRY) || !(th->f[j + 1].aux & LF_PC_MASK))
		return -1;
	const struct lm_lua *caller = &th->f[j + 1];
	return luajit_call_name(rt->lay, &m, lm_addr(caller), lm_fp(caller), caller->aux & LF_PC_MASK, out, n);
}

/* A Lua function called from C (the host, pcall, a library) has no name in its caller's
 * code; it is named by the module field that holds it, as PUC Lua's traceback does. */
static int global_name_of(const struct luajit_runtime *rt, const struct lm_thread *th, int j, char *out, size_t n)
{
	struct luajit_mem m = { read_target, (void *)(intptr_t)rt->pid };
	const struct lm_lua *f = &th->f[j];
	if (j + 1 < th->n && !th->f[j + 1].c && !(f->aux & LF_LFLAG_CENTRY))
		return -1;
	return luajit_global_call_name(rt->lay, &m, lm_addr(f), lm_fp(f), th->L, out, n);
}

int luajit_function_label(const struct runtime *r, const struct lm_thread *th, int j, int lines,
			   struct sbuf *out)
{
	const struct luajit_runtime *rt = r->vm;
	struct luajit_mem m = { read_target, (void *)(intptr_t)rt->pid };
	const struct lm_lua *f = &th->f[j];
	char chunk[256], name[128];
	int line = -1;
	if (luajit_proto_info(rt->lay, &m, lm_addr(f), lm_fp(f), chunk, sizeof(chunk), &line)) {
		sb_puts(out, LF_LABEL_GONE);
		return 1;
	}
	if (line < 0 && luajit_proto_builtin_name(rt->lay, &m, lm_addr(f), name, sizeof(name)) == 0) {
		sb_puts(out, name);  /* table.remove: named as the built-ins written in C are */
		return 0;
	}
	if (called_name(rt, th, j, name, sizeof(name)) &&
	    (line == 0 || global_name_of(rt, th, j, name, sizeof(name))))
		snprintf(name, sizeof(name), "%s", line == 0 ? "main chunk" : "?");
	if (lines && (f->aux & LF_PC_MASK)) {
		int cur = luajit_proto_line(rt->lay, &m, lm_addr(f), lm_fp(f), f->aux & LF_PC_MASK);
		if (cur >= 0)
			line = cur;
	}
	sb_printf(out, "%s (%s:%d)", name, chunk, line);
	if (j == 0 && th->vmstate >= 0)
		sb_puts(out, "_[j]"); /* the sample was taken in a compiled trace of this function */
	return 0;
}

int luajit_frame_label(const struct runtime *r, struct symbolizer *sym, const struct lm_thread *th,
			int j, int lines, struct sbuf *out)
{
	const struct luajit_runtime *rt = r->vm;
	const struct lm_lua *f = &th->f[j];
	char name[128];
	if (!f->c)
		return luajit_function_label(r, th, j, lines, out);
	const char *sname = f->ptr ? symbolize_name(sym, rt->pid, f->ptr) : NULL;
	if (sname)
		sb_add(out, sname, strcspn(sname, ";"));
	else if (f->ffid > 1 && luajit_fast_name(rt->lay, f->ffid, name, sizeof(name)))
		sb_puts(out, name);
	else if (called_name(rt, th, j, name, sizeof(name)) == 0)
		sb_puts(out, name);
	else if (f->ptr)
		symbolize_user(sym, rt->pid, f->ptr, 0, out);
	else
		sb_puts(out, "?");
	return 0;
}

enum rt_state luajit_state_label(const struct lm_thread *th, struct sbuf *out)
{
	static const char *const names[] = { NULL, NULL, LF_LABEL_GC, LF_LABEL_TRACE_EXIT, LF_LABEL_JIT_COMPILER,
					     LF_LABEL_JIT_COMPILER, LF_LABEL_JIT_COMPILER };
	if (!th->lj || th->vmstate >= 0)
		return RT_STATE_NONE;
	unsigned st = (unsigned)~th->vmstate; /* LJ_VMST_INTERP, C, GC, EXIT, RECORD, OPT, ASM */
	if (st >= sizeof(names) / sizeof(names[0]) || !names[st])
		return RT_STATE_NONE;
	sb_puts(out, ";");
	sb_puts(out, names[st]);
	return st == 2 ? RT_STATE_GC : RT_STATE_OTHER;
}
