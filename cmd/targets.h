/* The processes a recording follows: those given with -p, their children (present at
 * the start and forked later, with --children), and a command lua-flame starts. Children
 * and the command are watched: a new program after exec gets new unwind tables, a new
 * name and a new look for its Lua runtime. */
#ifndef LF_TARGETS_H
#define LF_TARGETS_H
#include <stdint.h>
#include <sys/types.h>
#include "children.h"
#include "record.h"
#include "sampler.h"
#include "stacks.h"
#include "unwind_tables.h"

/* Where a target came from. Children and the command may exec, and their Lua runtime
 * may appear after they were added, so they are watched. */
enum target_kind { TARGET_GIVEN, TARGET_CHILD, TARGET_COMMAND };

/* A process being recorded. */
struct target {
	pid_t pid;
	enum target_kind kind;
	uint64_t exe_dev, exe_ino;
	double fresh_until; /* until then, look for Lua every tenth of a second */
	double lua_next_look;
	int lua_settled;    /* Lua found, or looked for and reported */
	double lua_retry_at, lua_retry_gap; /* a LuaJIT runtime without a VM: look again then */
	double data_at;     /* when where it keeps data was last read */
	double data_every;  /* and how long until it is read again unless a sample asks */
	double data_soonest; /* how long after the last read one a sample asked for comes */
	double data_cost;   /* what the last read took */
	int data_asked;     /* a sample asked for it, and it is not read yet */
};

struct targets {
	const struct record_opts *o;
	struct sampler *smp;        /* set once loaded */
	struct unwind_tables *ut;
	struct stack_ctx *sc;
	struct target *t;
	size_t nt;
	struct child_scan cs;
};

/* Records a target; now is when it joined, 0 for those there at the start (their Lua is
 * attached with targets_attach). */
struct target *targets_new(struct targets *s, pid_t pid, enum target_kind kind, double now);
/* Adds the children of the targets present now (with --children), before sampling. */
void targets_add_children(struct targets *s);
/* Names the targets there at the start (not the command) while they surely live: before
 * sampling starts, so that one gone by then is still told by its name. */
void targets_prepare(struct targets *s);
/* Starts sampling and Lua attach for the targets there at the start (not the command),
 * once sampling is on: each is sampled once its tables and VM are known. */
void targets_attach(struct targets *s);
/* The command, held before exec: sampled from its first instruction (sample_now: from
 * now on; else from targets_command_mapped at its exec). */
void targets_add_command(struct targets *s, pid_t pid, int sample_now);
/* The command, stopped at its exec or in its loader, has mapped code: tables for it, and
 * sampling from then on; complete: its own code runs next, and its Lua runtime, when one
 * is mapped and can be attached before its first VM, is attached now. */
void targets_command_mapped(struct targets *s, pid_t pid, int complete);
/* The command has run exec: its tables, name and Lua now. */
void targets_command_running(struct targets *s, pid_t pid, double now);
/* 2 with a message when every target given with -p died during start-up, else 0. */
int targets_check_alive(struct targets *s);
/* Once a tick: new children, exec, Lua runtimes that appeared. */
void targets_follow(struct targets *s, double now);
/* Re-reads maps of processes whose samples hit unknown code (dlopen, JIT, exec). */
void targets_refresh_tables(struct targets *s, double now);
/* When a read of a target's data that a sample asked for is due (1e300: none waits). */
double targets_next_data(const struct targets *s);
/* Whether a target just joined, or a command started within the second: then ticks are
 * short, to find its Lua and its first VM soon. */
int targets_fresh(const struct targets *s, double now);
int targets_alive(const struct targets *s);
/* Root frame of pid: its name, or "name-PID" with --pids. */
void targets_name(struct targets *s, pid_t pid);
void targets_exe_identity(pid_t pid, uint64_t *dev, uint64_t *ino);
void targets_free(struct targets *s);
#endif
