/* Turns a stack record drained from BPF into a folded line (process name first, then
 * user frames outermost first, then kernel frames) and adds it to the profile. */
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "stacks.h"
#include "util.h"

void stacks_add_target(struct stack_ctx *c, pid_t pid)
{
	c->targets = xrealloc(c->targets, (c->ntargets + 1) * sizeof(*c->targets));
	struct stack_target *t = &c->targets[c->ntargets++];
	t->pid = pid;
	proc_comm(pid, t->comm, sizeof(t->comm));
	if (!t->comm[0])
		snprintf(t->comm, sizeof(t->comm), "pid-%d", (int)pid);
	symbolizer_add_pid(c->sym, pid);
}

static const char *comm_of(struct stack_ctx *c, pid_t pid)
{
	for (size_t i = 0; i < c->ntargets; i++)
		if (c->targets[i].pid == pid)
			return c->targets[i].comm;
	return "[unknown process]";
}

static const char *mark_label(__u32 reason)
{
	switch (reason) {
	case LF_MARK_TRUNCATED: return "[unwind: depth limit]";
	case LF_MARK_NO_USTACK: return "[unwind: no user stack]";
	case LF_MARK_NO_TABLE: return "[unwind: no table]";
	case LF_MARK_INVALID: return "[unwind: unsupported rule]";
	case LF_MARK_BAD_READ: return "[unwind: unreadable stack]";
	case LF_MARK_NO_MAPPING: return "[unwind: unmapped pc]";
	case LF_MARK_FP_FAILED: return "[unwind: frame pointer chain broken]";
	case LF_MARK_NO_PROC: return "[unwind: process not ready]";
	default: return "[unwind: failed]";
	}
}

static void thread_level(pid_t pid, __u32 tid, struct sbuf *out)
{
	char path[64], name[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%u/comm", (int)pid, tid);
	if (read_file(path, name, sizeof(name)) <= 0)
		snprintf(name, sizeof(name), "thread");
	name[strcspn(name, "\n")] = 0;
	for (char *p = name; *p; p++)
		if (*p == ';' || *p == ' ' || (unsigned char)*p < 0x20)
			*p = '_';
	sb_printf(out, ";%s-%u", name, tid);
}

void stacks_fold(struct stack_ctx *c, const struct lf_stack *st, struct sbuf *out)
{
	sb_puts(out, comm_of(c, (pid_t)st->pid));
	if (st->tid)
		thread_level((pid_t)st->pid, st->tid, out);
	int nu = st->nuser < LF_MAX_USTACK ? st->nuser : LF_MAX_USTACK;
	for (int i = nu - 1; i >= 0; i--) {
		__u64 w = st->user[i], tag = w >> LF_TAG_SHIFT, addr = w & ((1ULL << LF_TAG_SHIFT) - 1);
		sb_puts(out, ";");
		if (tag == LF_TAG_MARK)
			sb_puts(out, mark_label((__u32)w));
		else
			symbolize_user(c->sym, (pid_t)st->pid, addr, tag != LF_TAG_EXACT, out);
	}
	int nk = st->nkern < LF_MAX_KSTACK ? st->nkern : LF_MAX_KSTACK;
	for (int i = nk - 1; i >= 0; i--) {
		sb_puts(out, ";");
		symbolize_kernel(c->sym, st->kern[i], out);
	}
}

void stacks_collect(const struct lf_stack *st, void *ctx)
{
	struct stack_ctx *c = ctx;
	sb_reset(&c->line);
	stacks_fold(c, st, &c->line);
	profile_add(c->prof, c->line.s, c->line.len, st->count);
}

void stacks_free(struct stack_ctx *c)
{
	symbolizer_free(c->sym);
	free(c->targets);
	sb_free(&c->line);
}
