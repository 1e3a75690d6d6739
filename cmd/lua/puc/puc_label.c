/* Labels of the Lua frames of a merged stack: `NAME (CHUNK:LINE)` for Lua functions,
 * the native symbol or Lua's name for C functions called from Lua. */
#include <string.h>

#include "label_cache.h"
#include "puc_frames.h"
#include "puc_label.h"
#include "proc.h"

static long read_target(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return (long)proc_read_mem((pid_t)(intptr_t)ctx, addr, buf, len);
}

/* The name the caller (frame j+1) used for frame j, as Lua's traceback gives it. */
static int called_name(const struct puc_runtime *rt, const struct lm_thread *th, int j, char *out, size_t n)
{
	struct puc_mem m = { read_target, (void *)(intptr_t)rt->pid };
	const struct lm_lua *f = &th->f[j];
	if (j + 1 >= th->n || th->f[j + 1].c || th->f[j + 1].marker || (f->aux & LF_LFLAG_TAIL))
		return -1; /* no caller's code to read: frames left out above it are no name either */
	const struct lm_lua *caller = &th->f[j + 1];
	return puc_call_name(rt->lay, &m, lm_addr(caller), lm_fp(caller), caller->aux & LF_PC_MASK, lm_fp(f), out, n);
}

/* A Lua function called from C (the host, pcall, a library) has no name in its caller's
 * code; Lua's traceback then names it by the module field that holds it. */
static int global_name_of(const struct puc_runtime *rt, const struct lm_thread *th, int j, char *out, size_t n)
{
	struct puc_mem m = { read_target, (void *)(intptr_t)rt->pid };
	const struct lm_lua *f = &th->f[j];
	if (j + 1 < th->n && !th->f[j + 1].c)
		return -1;
	return puc_global_call_name(rt->lay, &m, lm_addr(f), lm_fp(f), th->L, out, n);
}

int puc_function_label(const struct runtime *r, const struct lm_thread *th, int j, int lines,
			struct sbuf *out)
{
	const struct puc_runtime *rt = r->vm;
	struct puc_mem m = { read_target, (void *)(intptr_t)rt->pid };
	const struct lm_lua *f = &th->f[j];
	char chunk[LUA_CHUNK_MAX], name[LUA_IDENT_MAX];
	int line = -1;
	if (puc_proto_info(rt->lay, &m, lm_addr(f), lm_fp(f), chunk, sizeof(chunk), &line)) {
		sb_puts(out, LF_LABEL_GONE);
		return 1;
	}
	int rc = called_name(rt, th, j, name, sizeof(name));
	if (rc == -1 && line != 0)
		rc = global_name_of(rt, th, j, name, sizeof(name));
	if (rc == -2) {
		/* the caller, or the state, was gone before the name was read: not "?" */
		sb_puts(out, LF_LABEL_GONE);
		return 1;
	}
	if (rc)
		snprintf(name, sizeof(name), "%s", line == 0 ? "main chunk" : "?");
	if (lines) {
		int cur = puc_proto_line(rt->lay, &m, lm_addr(f), lm_fp(f), f->aux & LF_PC_MASK);
		if (cur >= 0)
			line = cur;
	}
	sb_printf(out, "%s (%s:%d)", name, chunk, line);
	return 0;
}

int puc_frame_label(const struct runtime *r, struct symbolizer *sym, const struct lm_thread *th,
		     int j, int lines, struct sbuf *out)
{
	const struct puc_runtime *rt = r->vm;
	const struct lm_lua *f = &th->f[j];
	if (!f->c)
		return puc_function_label(r, th, j, lines, out);
	const char *sname = symbolize_name(sym, rt->pid, f->ptr);
	char name[LUA_IDENT_MAX];
	if (sname)
		sb_add(out, sname, strcspn(sname, ";"));
	else if (called_name(rt, th, j, name, sizeof(name)) == 0)
		sb_puts(out, name);
	else
		symbolize_user(sym, rt->pid, f->ptr, 0, out);
	return 0;
}
