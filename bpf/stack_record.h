/* The stack record: what the sampling program stores for one distinct stack and user space
 * decodes. Every word of it is defined here, with the one encoder (lf_word, lf_lpos_word)
 * the BPF side uses and the decoders user space uses. */
#ifndef LF_STACK_RECORD_H
#define LF_STACK_RECORD_H

#ifndef __bpf__
#include <linux/types.h>
#endif
#include "fingerprint.h"

#define LF_MAX_KSTACK 64   /* kernel frames kept per sample */
#define LF_MAX_USTACK 512  /* user words per sample: native frames and runtime frames */
#define LF_MAX_NATIVE 192  /* native words per sample: frames, and an elision marker */
/* A stack deeper than LF_MAX_NATIVE keeps its innermost and outermost frames, with one
 * LF_TAG_ELIDED word between them saying how many were left out; flame graphs aggregate
 * from the root, so the root side must survive. */
#define LF_NATIVE_OUTER 64 /* outermost frames kept (a power of two: a ring while walking) */
#define LF_NATIVE_INNER (LF_MAX_NATIVE - LF_NATIVE_OUTER - 1) /* innermost frames kept */
#define LF_MAX_WALK 2048   /* native frames walked per sample (with bpf_loop) */

/* The user words of a record, leaf first: the native part, then the Lua part.
 *
 *   tag   word                      low 56 bits
 *   ----  native part  ------------------------------------------------------------------
 *   0x00  return address            address (the call is at address - 1)
 *   0x01  exact pc                  address: the leaf, or the frame a signal interrupted
 *   0x02  frame-pointer return      address, found by frame pointer in code without tables
 *   0x03  native frames elided      how many were left out between the innermost and
 *                                   outermost frames kept
 *   0x04  LuaJIT trace              trace number (0xffffff: not known), in place of a frame
 *   0xfe  end mark                  an lf_mark: why the native part ends here
 *   Bit 55 of a native word's value (LF_NAT_ENTRY) marks the frame where a host's call entered
 *   a Lua VM: one of PUC Lua's API calls into it (lua_pcall, lua_call, lua_resume...), or the
 *   caller of one of LuaJIT's C frames.
 *   ----  Lua part  ---------------------------------------------------------------------
 *   0x10  lua_State                 its address; its frames follow, innermost first
 *   0x11  PUC Lua function          Proto address + fingerprint high bits; a pc word follows
 *   0x12  C function                lua_CFunction (0: a LuaJIT built-in); a pc word follows
 *   0x13  position                  thread index (bits 16..23) and native frame (bits 0..15,
 *                                   leaf = 0) where that lua_State was running
 *   0x14  LuaJIT function           GCfunc, or GCproto + fingerprint bits; a pc word follows
 *   0x15  LuaJIT C function         its C function (GCfuncC's f; a built-in's ffid in the pc
 *                                   word's bits 52..59): the closure itself may be freed
 *                                   before user space names it (string.gmatch makes one
 *                                   per call); a pc word follows
 *   0x16  LuaJIT VM state           trace number, or ~state for states < 0 (after its lua_State)
 *
 *   Addresses take the low LF_ADDR_BITS bits (fingerprint.h: 47 on x86-64, 48 on arm64), a
 *   fingerprint's high bits the rest of a function word's value.
 *   pc word (untagged): the pc (0: not known) in its low LF_ADDR_BITS, the fingerprint's low
 *   bits above it up to bit 60, 61 entered from C (LuaJIT), 62 reached by a tail call, 63
 *   started a new VM activation.
 *   A function word with address 0 is a marker: its pc word is the number of frames left
 *   out there (0: the walk stopped and the root side is lost). */
#define LF_TAG_SHIFT   56
#define LF_WORD_VALUE  ((1ULL << LF_TAG_SHIFT) - 1)
#define LF_TAG_NATIVE  0x00
#define LF_TAG_EXACT   0x01
#define LF_TAG_FP      0x02
#define LF_TAG_ELIDED  0x03
#define LF_TAG_LJTRACE 0x04
#define LF_TAG_MARK    0xfe
#define LF_TAG_LTHREAD 0x10
#define LF_TAG_LFUNC   0x11
#define LF_TAG_LCFUNC  0x12
#define LF_TAG_LPOS    0x13
#define LF_TAG_LJFUNC  0x14
#define LF_TAG_LJCFUNC 0x15
#define LF_TAG_LJSTATE 0x16
#define LF_TAG_LUA_FIRST LF_TAG_LTHREAD /* tags of the Lua part: LF_TAG_LUA_FIRST and above */
#define LF_TAG_LUA_LAST  LF_TAG_LJSTATE

#define LF_NAT_ENTRY    (1ULL << 55)
#define LF_PC_MASK      LF_ADDR_MASK
#define LF_LFLAG_CENTRY (1ULL << 61)
#define LF_LJ_FFID_SHIFT 52           /* a LuaJIT C function's ffid in its pc word */
#define LF_LJ_FFID_BITS (0xffULL << LF_LJ_FFID_SHIFT)
#define LF_LFLAG_TAIL   (1ULL << 62)
#define LF_LFLAG_FRESH  (1ULL << 63)
#define LF_TRACE_UNKNOWN 0xffffff    /* machine code whose trace is not known */
#define LF_TRACE_UNNUMBERED 0xfffffe /* a trace whose number the VM does not keep (arm64's) */

static inline __u64 lf_word(__u64 tag, __u64 value)
{
	return (tag << LF_TAG_SHIFT) | (value & LF_WORD_VALUE);
}

static inline __u64 lf_lpos_word(__u32 thread, __u32 frame)
{
	return lf_word(LF_TAG_LPOS, ((__u64)(thread & 0xff) << 16) | (frame & 0xffff));
}

static inline __u32 lf_word_tag(__u64 w) { return (__u32)(w >> LF_TAG_SHIFT); }
static inline __u64 lf_word_value(__u64 w) { return w & LF_WORD_VALUE; }
/* A native word's address (or count, or trace number), without the entry flag. */
static inline __u64 lf_native_value(__u64 w) { return w & LF_WORD_VALUE & ~LF_NAT_ENTRY; }
static inline int lf_native_entry(__u64 w) { return (w & LF_NAT_ENTRY) != 0; }
static inline int lf_is_lua_tag(__u32 t) { return t >= LF_TAG_LUA_FIRST && t <= LF_TAG_LUA_LAST; }
/* A Lua frame's function word, which a pc word follows. */
static inline int lf_is_lua_func_tag(__u32 t)
{
	return t == LF_TAG_LFUNC || t == LF_TAG_LCFUNC || t == LF_TAG_LJFUNC || t == LF_TAG_LJCFUNC;
}
static inline __u32 lf_lpos_thread(__u64 w) { return (__u32)(w >> 16) & 0xff; }
static inline __u32 lf_lpos_frame(__u64 w) { return (__u32)w & 0xffff; }

enum lf_mark {
	LF_MARK_TRUNCATED = 1, /* more frames than LF_MAX_USTACK */
	LF_MARK_NO_USTACK,     /* user registers could not be read */
	LF_MARK_NO_TABLE,      /* pc in a file without unwind information */
	LF_MARK_INVALID,       /* unwind rule the unwinder cannot follow */
	LF_MARK_BAD_READ,      /* stack memory unreadable */
	LF_MARK_NO_MAPPING,    /* pc outside every known executable mapping */
	LF_MARK_FP_FAILED,     /* frame-pointer chain in JIT code broken */
	LF_MARK_NO_PROC,       /* process not registered yet */
	LF_MARK_ZERO_RA,       /* a return address of 0 where the rules said a caller follows */
	LF_MARK_EXITING,       /* the process is exiting: its stack is unmapped under the walk */
	LF_MARK_COUNT
};

#define LF_FLAG_COMPLETE 0x1 /* the user stack reached a thread root */
#define LF_FLAG_OFFCPU   0x2 /* wall mode: where the thread left the CPU; its count is time off it */
#define LF_FLAG_RUNNABLE 0x4 /* ... preempted, still runnable: waiting for a CPU, not an event */

/* Identifies a distinct stack of one generation. gen lets user space drain one
 * generation while BPF fills the next, so no count is lost between read and delete. */
struct lf_stack_key {
	__u64 hash;
	__u32 pid;
	__u32 tid;  /* 0 unless per-thread stacks were asked for */
	__u32 gen;
	__u32 pad;
};

/* Wall mode: a thread off the CPU, by its TID as the kernel numbers it. */
struct lf_parked {
	__u64 since;    /* when it left the CPU (bpf_ktime_get_ns), 0: it runs */
	__u64 carry;    /* time not counted yet, in samples / 1e9 */
	struct lf_stack_key key; /* the stack it left with (gen unused) */
};

/* The user words come first: a record without kernel frames and with at most
 * LF_SMALL_USTACK user words is stored as the start of this struct alone (lf_stack_small). */
struct lf_stack {
	__u64 count;
	__u32 pid;
	__u32 tid;
	__u16 nkern;
	__u16 nuser;
	__u32 flags;
	__u64 user[LF_MAX_USTACK];
	__u64 kern[LF_MAX_KSTACK];
};

/* Alloc mode: a stack's count holds the bytes its allocations grew blocks by in its low
 * LF_ALLOC_OBJ_SHIFT bits and how many allocations above them, so one atomic add counts both. */
#define LF_ALLOC_OBJ_SHIFT 40
#define LF_ALLOC_BYTES_MASK ((1ULL << LF_ALLOC_OBJ_SHIFT) - 1)

/* Most stacks a CPU profile sees: in user code, up to this many words. A new entry copies its
 * whole value, and a workload makes its distinct stacks anew in every generation: a small
 * value is 1 KiB, a full record 4.6 KiB. */
#define LF_SMALL_USTACK 128

struct lf_stack_small {
	__u64 count;
	__u32 pid;
	__u32 tid;
	__u16 nkern; /* always 0 */
	__u16 nuser;
	__u32 flags;
	__u64 user[LF_SMALL_USTACK];
};

_Static_assert(__builtin_offsetof(struct lf_stack_small, user) == __builtin_offsetof(struct lf_stack, user),
	       "a small record is the start of a full one");

/* Whether a record is kept as a small one. */
static inline int lf_stack_is_small(__u16 nkern, __u16 nuser, __u32 flags)
{
	return !nkern && nuser <= LF_SMALL_USTACK && !(flags & LF_FLAG_OFFCPU);
}

#endif
