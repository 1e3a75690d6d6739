/* Processes beyond the -p list: descendants of the targets (--children), found by
 * reading the parent PID of every process in /proc, and the command lua-flame starts
 * itself (-- COMMAND), held before exec until sampling is on. */
#ifndef LF_CHILDREN_H
#define LF_CHILDREN_H
#include <stddef.h>
#include <sys/types.h>

/* Remembers which processes were already looked at, so a scan reads only new ones. */
struct child_scan {
	pid_t *seen;
	size_t nseen;
};

/* Puts into out (at most max) the processes not seen by an earlier scan whose parent,
 * grandparent, ... is in targets[0..n); returns how many. */
size_t children_scan(struct child_scan *cs, const pid_t *targets, size_t n, pid_t *out, size_t max);
void children_free(struct child_scan *cs);

/* A command started by lua-flame: forked and waiting for children_release before exec. */
struct command {
	pid_t pid;
	int go_fd;    /* closing it lets the child exec */
	int exec_fd;  /* reports exec failure (errno), or EOF when exec succeeded */
	int traced;   /* held under ptrace from exec to its entry point (command_trace.c) */
	int ended;    /* reaped while traced: status is its wait status */
	int status;
};

/* Forks argv[0] held before exec; 0, or -1 with a message. */
int command_start(struct command *c, char **argv);
/* Lets the command exec; 0 once it runs the new program, else -1 with a message. When it
 * is traced, mapped(ctx, complete) is called at its exec and each time its loader maps
 * code, with the process stopped; the last call, with complete 1, comes when the program's
 * own code is about to run (at its entry point, or at exec for a static program). */
int command_release(struct command *c, const char *name, void (*mapped)(void *, int), void *ctx);
/* Traces the held command (command_trace.c); 0, or -1 when ptrace is not allowed. */
int command_seize(struct command *c);
/* After the go byte: follows the traced command through exec and its loader. */
void command_follow_loader(struct command *c, void (*mapped)(void *, int), void *ctx);
/* Waits for the command and returns its exit status the way a shell reports it
 * (128 + signal number when a signal ended it). */
int command_wait(struct command *c);
#endif
