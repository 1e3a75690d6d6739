/* Start-up work done in a child process while lua-flame loads the BPF program: the unwind
 * tables' rows of the targets' files, and the runtime detection's reading of those files
 * (their scores), both sent back through a pipe. A process, not a thread: a thread shares
 * the address space, and each page the parsing frees would interrupt the loading CPU to
 * flush its TLB, which slows both the tables and the load. */
#ifndef LF_STARTUP_HELPER_H
#define LF_STARTUP_HELPER_H
#include <stddef.h>
#include <sys/types.h>
#include "unwind_tables.h"

struct startup_helper {
	pid_t pid;   /* 0: not running */
	int fd;
};

/* Starts the helper for the targets pids, whose files ut holds with their rows pending
 * (ut_defer_rows). 0, or -1 when it did not start (nothing pending, no fork). */
int startup_helper_start(struct startup_helper *h, struct unwind_tables *ut, const pid_t *pids, size_t n);
/* Takes in what the helper sent; when it did not start or failed (killed, out of memory),
 * builds the rows here. Returns the milliseconds the rows took to build. */
double startup_helper_finish(struct startup_helper *h, struct unwind_tables *ut);

#endif
