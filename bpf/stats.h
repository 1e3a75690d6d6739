/* The per-CPU statistics the sampling program keeps and user space sums: samples, losses,
 * how stacks ended. */
#ifndef LF_STATS_H
#define LF_STATS_H
#include "stack_record.h"

/* Indices into the per-CPU statistics array. */
enum lf_stat {
	LF_STAT_SAMPLES,      /* samples of target processes */
	LF_STAT_LOST_MAPFULL, /* stack map full: sample dropped */
	LF_STAT_KSTACK_ERR,   /* kernel stack unreadable */
	LF_STAT_USTACK_ERR,   /* user stack unreadable */
	LF_STAT_COMPLETE,     /* user stack reached a thread root */
	LF_STAT_FRESH_LOST,   /* new stack not announced (ring buffer full): named at the drain */
	LF_STAT_MARK_BASE,    /* + lf_mark: samples whose stack ended with that marker */
	LF_STAT_LUA_ELIDED = LF_STAT_MARK_BASE + LF_MARK_COUNT, /* Lua frames left out mid-stack */
	LF_STAT_LUA_DEPTH,    /* Lua stack deeper than LF_LUA_WALK: root side lost */
	LF_STAT_LUA_NO_LOOP,  /* Lua stacks walked without bpf_loop: LF_LUA_NOLOOP frames at most */
	LF_STAT_VM_UNKNOWN,   /* in a VM user space has not found yet (a state made while recording) */
	LF_STAT_OFFCPU,       /* wall mode: samples' worth of time threads spent off the CPU */
	LF_STAT_OFF_LOST,     /* wall mode: a thread's time off the CPU lost (its stack not kept) */
	LF_STAT_ENTRIES,      /* entries made in the stack map (each generation's distinct stacks) */
	LF_STAT_REPLAYED,     /* samples whose walk took its outer frames from the last walk (walk_memo.bpf.h) */
	LF_STAT_MAX
};

#endif
