/* The kernel side of a recording: loads the embedded BPF program, opens one cpu-clock
 * perf event per CPU, keeps the target set, and drains counted stacks generation by
 * generation so the map never fills on long runs. */
#ifndef LF_SAMPLER_H
#define LF_SAMPLER_H
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "aggregate.h"
#include "stats.h"
#include "lua.h"

struct sampler;

struct unwind_tables;

struct sampler_cfg {
	int per_thread;
	int kernel;
	unsigned max_stacks;
	size_t rows_cap, files_cap; /* unwind table capacity */
	int lines;                  /* keep the innermost Lua frame's pc (--lines) */
	const char *btf;            /* the kernel's BTF from this file (--btf); NULL: the kernel's */
	int wall_hz;                /* --mode wall at this rate; 0: CPU time only */
	int addresses;              /* --addresses: each pc shows, and is a stack of its own */
	int alloc;                  /* --mode alloc: the programs run on uprobes of the VMs' allocators */
};

/* Returns NULL with a message printed; *exit_code says 1 (failure) or 2 (environment). */
struct sampler *sampler_open(const struct sampler_cfg *cfg, int *exit_code);

int sampler_add_target(struct sampler *s, pid_t pid);
/* Alloc mode: the program that uprobes of the allocators run (alloc_windows.c attaches it). */
int sampler_alloc_prog_fd(const struct sampler *s);
/* When the first target was added (now_sec), 0 if none was. */
double sampler_first_target_at(const struct sampler *s);
/* Connects the unwind tables to the loaded maps and enables the unwinder. */
int sampler_setup_unwind(struct sampler *s, struct unwind_tables *ut);
/* The file descriptor of the program's map called name (a runtime family's own), or < 0. */
int sampler_map_fd(struct sampler *s, const char *name);
/* Wall mode, once sampling is paused: threads still off the CPU are counted up to now. */
void sampler_wall_settle(struct sampler *s);
/* PIDs whose maps the BPF side asked to read again since the last call (at most max), each
 * with why (LF_RESCAN_*: a pc outside every known mapping, a VM's state missed). */
int sampler_take_rescans(struct sampler *s, pid_t *out, int *why, int max);
/* Puts back a request for pid's data maps that is not due yet: while it waits there, the
 * BPF side's asks for it neither add another nor wake user space. */
void sampler_keep_data_rescan(struct sampler *s, pid_t pid);
/* Sleeps until t (now_sec's clock), a signal, or the BPF side asking to read a process's
 * maps again (sampler_take_rescans has something). */
void sampler_sleep_until(struct sampler *s, double t);
/* Starts sampling at hz on every online CPU; 0 or exit code with a message printed. */
int sampler_attach(struct sampler *s, int hz);
/* Stops taking samples (the recording's time is up); what was taken can still be drained. */
void sampler_pause(struct sampler *s);
typedef void (*sampler_cb)(const struct lf_stack_key *k, const struct lf_stack *st, void *ctx);
/* Calls cb for every stack counted since the last drain; returns the number drained. */
long sampler_drain(struct sampler *s, sampler_cb cb, void *ctx);
/* Starts a thread that calls cb for each stack new in its generation as soon as the kernel
 * announces it (its count is not final then: the drain gives that). cb runs on that thread. */
void sampler_on_fresh(struct sampler *s, sampler_cb cb, void *ctx);
/* Ends that thread, after handling every stack announced so far (call before the last drain). */
void sampler_stop_naming(struct sampler *s);
/* After sampler_stop_naming: whether that thread ran without its deadline reservation
 * (namer_sched.h), so names were read later than they could be. */
int sampler_namer_nice_only(struct sampler *s);
void sampler_stats(struct sampler *s, uint64_t out[LF_STAT_MAX]);
/* One of them (LF_STAT_*), read now. */
uint64_t sampler_stat(struct sampler *s, unsigned i);
void sampler_close(struct sampler *s);
#endif
