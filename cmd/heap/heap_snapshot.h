/* `lua-flame heap`: a snapshot of every Lua VM in the target processes, as a profile whose
 * counts are the bytes each path from the VM's roots holds. */
#ifndef LF_HEAP_SNAPSHOT_H
#define LF_HEAP_SNAPSHOT_H
#include <sys/types.h>

#include "aggregate.h"

struct heap_opts {
	double max_pause;      /* seconds a target may be held */
	int pid_roots;         /* root frame "name-PID" */
};

/* Adds pid's VMs to p. Returns 0; 2 when pid has no Lua this build can snapshot, or cannot be
 * held; 1 when the snapshot failed. Each failure has been told. */
int heap_snapshot(pid_t pid, const struct heap_opts *o, struct profile *p);
/* The command: exit status 0, 1 or 2. */
int heap_main(int argc, char **argv);
#endif
