/* A recording session: attach the sampler to the target processes, drain stacks while
 * they run, then symbolize, aggregate and write every requested output. */
#ifndef LF_RECORD_H
#define LF_RECORD_H
#include <sys/types.h>
#include "output.h"

#define MAX_TARGETS 256
#define MAX_OUTPUTS 16

struct record_opts {
	pid_t pids[MAX_TARGETS];
	int npids;
	double duration;   /* seconds; 0 = until Ctrl-C or target exit */
	int hz;
	struct output outs[MAX_OUTPUTS];
	int nouts;
	int threads, kernel, stats, lines;
	unsigned max_stacks;
};

/* Returns the process exit status: 0 ok, 1 profiling failed, 2 unusable target. */
int record_run(struct record_opts *o);
#endif
