/* A recording session: attach the sampler to the target processes (given by PID, their
 * children, or a command lua-flame starts), drain stacks while they run, then
 * symbolize, aggregate and write every requested output. */
#ifndef LF_RECORD_H
#define LF_RECORD_H
#include <stdint.h>
#include <sys/types.h>
#include "aggregate.h"
#include "alloc_windows.h"
#include "output.h"
#include "stats.h"

#define MAX_TARGETS 256
/* Alloc mode: how long each window of the allocators' probes stays open; a window can hold
 * an allocating thread for all of it. */
#define ALLOC_WINDOW_MS 200

/* What a live view (`lua-flame top`) is given while recording, about ten times a second;
 * refresh: a second has passed and prof has just been drained. */
struct live_tick {
	double elapsed;
	uint64_t samples, lost;
	const struct profile *prof;
	const char *lua;   /* the first Lua runtime found ("Lua 5.4.6"), "" when none */
	int hz, refresh;
};
/* Returns nonzero to stop recording (the user quit). */
typedef int (*live_fn)(void *ctx, const struct live_tick *tk);

struct record_opts {
	pid_t pids[MAX_TARGETS];
	int npids;
	char **command;    /* -- COMMAND ARGS...: started by lua-flame; NULL with -p */
	double duration;   /* seconds; 0 = until Ctrl-C or target exit */
	int hz;
	struct output outs[OUTPUTS_MAX];
	int nouts;
	int threads, kernel, stats, lines;
	int addresses;     /* --addresses: unsymbolized native frames keep their own address */
	int pid_roots;     /* --pids: root frame "comm-PID" instead of "comm" */
	int children;      /* --children: follow descendants of the targets */
	int wall;          /* --mode wall: every thread at the rate, on the CPU or off it */
	int alloc;         /* --mode alloc: allocations, in windows opened hz times a second */
	unsigned max_stacks;
	unsigned out_mode; /* permissions of the files written (--output-mode), 0600 by default */
	const char *btf;   /* --btf: the kernel's BTF from this file; NULL: the kernel's own */
	live_fn live;      /* `top`: shown while recording (no progress line then); NULL: none */
	void *live_ctx;
};

/* What a recording found besides the stacks, for summaries and `dump`. */
struct record_result {
	uint64_t st[LF_STAT_MAX];
	char lua[128];     /* first runtime found: "Lua 5.4.6 (/usr/lib/...)"; empty when none */
	int nprocs, nlua;  /* processes recorded, and how many had a Lua runtime */
	uint64_t gone;     /* samples with a Lua function that could not be named */
	int namer_nice_only; /* the thread naming new stacks had no deadline reservation */
	uint64_t jit_code; /* samples with a [jit code] frame not running the GC */
	uint64_t unnamed;  /* samples with a native frame in no mapping known: [unknown] */
	uint64_t fiber_roots; /* samples whose stack starts on a fiber: complete as well */
	uint64_t lua_partial; /* rooted samples with a Lua part gone or unknown: not complete */
	struct aw_result alloc; /* alloc mode: what the allocators' windows saw */
};

/* Records and writes every output; returns the process exit status: 0 ok, 1 profiling
 * failed, 2 unusable target; with a command, the command's own exit status. */
int record_run(struct record_opts *o);
/* Records into prof (initialised by the caller) and writes nothing; same statuses. */
int record_collect(struct record_opts *o, struct profile *prof, struct record_result *res);
#endif
