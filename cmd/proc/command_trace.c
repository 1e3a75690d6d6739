/* Holds the command lua-flame starts under ptrace from its exec to its program's entry
 * point, calling back each time executable code was mapped (the program and its loader at
 * exec, each library the loader maps), so that unwind tables cover the code before it runs:
 * no sample of the command finds its process or a library unknown. Detaches at the entry. */
#include <errno.h>
#include <elf.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "children.h"
#include "proc.h"
#include "ptrace_arch.h"

#define MAX_STOPS 100000 /* a loader makes a few hundred system calls */

struct hold {
	pid_t pid;
	uint64_t entry;  /* where the breakpoint is, 0 when none */
	long word;       /* the instruction word it replaced */
};

int command_seize(struct command *c)
{
	c->traced = ptrace(PTRACE_SEIZE, c->pid, 0,
			   (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD)) == 0;
	return c->traced ? 0 : -1;
}

/* Restores the instruction under the breakpoint and lets the process run on untraced. */
static void let_go(struct hold *h, int sig)
{
	if (h->entry)
		ptrace(PTRACE_POKETEXT, h->pid, (void *)h->entry, (void *)h->word);
	h->entry = 0;
	ptrace(PTRACE_DETACH, h->pid, 0, (void *)(long)sig);
}

/* A breakpoint on the program's entry point: the loader is done once it gets there. Without a
 * loader (a static program) everything is mapped already: returns -1. */
static int break_at_entry(struct hold *h)
{
	uint64_t base = 0, entry = 0;
	if (proc_auxv(h->pid, AT_BASE, &base) || !base || proc_auxv(h->pid, AT_ENTRY, &entry) || !entry)
		return -1;
	errno = 0;
	long w = ptrace(PTRACE_PEEKTEXT, h->pid, (void *)entry, 0);
	if (errno)
		return -1;
	long patched = ptrace_arch_breakpoint(w);
	if (ptrace(PTRACE_POKETEXT, h->pid, (void *)entry, (void *)patched))
		return -1;
	h->entry = entry;
	h->word = w;
	return 0;
}

/* At a SIGTRAP: whether it is the breakpoint; then the process is put back on the entry. */
static int at_entry(struct hold *h)
{
	if (!h->entry || !ptrace_arch_at_breakpoint(h->pid, h->entry))
		return 0;
	ptrace(PTRACE_POKETEXT, h->pid, (void *)h->entry, (void *)h->word);
	h->entry = 0;
	return 1;
}

void command_follow_loader(struct command *c, void (*mapped)(void *, int), void *ctx)
{
	struct hold h = { .pid = c->pid };
	int execd = 0;
	for (int stops = 0; stops < MAX_STOPS; stops++) {
		int st;
		if (waitpid(c->pid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			c->ended = 1; /* exec failed, or the program ended in its loader */
			c->status = st;
			return;
		}
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st), event = (st >> 16) & 0xff;
		int go = execd ? PTRACE_SYSCALL : PTRACE_CONT;
		if (stops == MAX_STOPS - 1) {
			let_go(&h, 0); /* far too long for a loader: let it run untraced */
			return;
		}
		if (event == PTRACE_EVENT_EXEC) {
			execd = 1;
			if (break_at_entry(&h)) {
				mapped(ctx, 1);
				let_go(&h, 0);
				return;
			}
			mapped(ctx, 0);
			go = PTRACE_SYSCALL;
			sig = 0;
		} else if (sig == (SIGTRAP | 0x80)) {
			if (ptrace_arch_mapped_code(c->pid))
				mapped(ctx, 0);
			sig = 0;
		} else if (sig == SIGTRAP && at_entry(&h)) {
			mapped(ctx, 1);
			let_go(&h, 0);
			return;
		} else if (event == PTRACE_EVENT_STOP) {
			let_go(&h, 0); /* stopped by a signal: not ours to hold */
			return;
		}
		if (ptrace(go, c->pid, 0, (void *)(long)sig))
			return;
	}
}
