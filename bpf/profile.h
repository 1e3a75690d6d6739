/* Structures shared by the sampling BPF program and user space: the stack record that
 * identifies and counts one distinct stack, the per-CPU statistics, and the tagging of
 * user-stack words (native return addresses, markers, and later runtime frames). */
#ifndef LF_PROFILE_H
#define LF_PROFILE_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define LF_MAX_KSTACK 64   /* kernel frames kept per sample */
#define LF_MAX_USTACK 512  /* user words per sample: native frames and runtime frames */
#define LF_MAX_NATIVE 192  /* native words per sample: frames, and an elision marker */
/* A stack deeper than LF_MAX_NATIVE keeps its innermost and outermost frames, with one
 * LF_TAG_ELIDED word between them saying how many were left out; flame graphs aggregate
 * from the root, so the root side must survive. */
#define LF_NATIVE_OUTER 64 /* outermost frames kept (a power of two: a ring while walking) */
#define LF_NATIVE_INNER (LF_MAX_NATIVE - LF_NATIVE_OUTER - 1) /* innermost frames kept */
#define LF_MAX_WALK 2048   /* native frames walked per sample (with bpf_loop) */

/* User words are leaf first. A plain word is a native address (user addresses fit in
 * 47 bits); a tagged word carries its kind in the top byte. */
#define LF_TAG_SHIFT 56
#define LF_TAG_MASK  0xffULL
#define LF_TAG_NATIVE 0x00 /* return address: the call is at addr-1 */
#define LF_TAG_EXACT  0x01 /* exact pc: leaf, or the frame a signal interrupted */
#define LF_TAG_FP     0x02 /* return address found by frame pointer in code without tables */
#define LF_TAG_ELIDED 0x03 /* low 32 bits: native frames left out between inner and outer */
#define LF_TAG_MARK   0xfe /* low 32 bits: an lf_mark reason; ends the user stack */

enum lf_mark {
	LF_MARK_TRUNCATED = 1, /* more frames than LF_MAX_USTACK */
	LF_MARK_NO_USTACK,     /* user registers could not be read */
	LF_MARK_NO_TABLE,      /* pc in a file without unwind information */
	LF_MARK_INVALID,       /* unwind rule the unwinder cannot follow */
	LF_MARK_BAD_READ,      /* stack memory unreadable */
	LF_MARK_NO_MAPPING,    /* pc outside every known executable mapping */
	LF_MARK_FP_FAILED,     /* frame-pointer chain in JIT code broken */
	LF_MARK_NO_PROC,       /* process not registered yet */
	LF_MARK_COUNT
};

#define LF_FLAG_COMPLETE 0x1 /* the user stack reached a thread root */

/* Identifies a distinct stack of one generation. gen lets user space drain one
 * generation while BPF fills the next, so no count is lost between read and delete. */
struct lf_stack_key {
	__u64 hash;
	__u32 pid;
	__u32 tid;  /* 0 unless per-thread stacks were asked for */
	__u32 gen;
	__u32 pad;
};

struct lf_stack {
	__u64 count;
	__u32 pid;
	__u32 tid;
	__u16 nkern;
	__u16 nuser;
	__u32 flags;
	__u64 kern[LF_MAX_KSTACK];
	__u64 user[LF_MAX_USTACK];
};

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
	LF_STAT_MAX
};

#endif
