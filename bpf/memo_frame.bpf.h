/* A frame as the walk memo (walk_memo.bpf.h) keeps it, with the note a runtime family's hook
 * leaves on a frame of its VM's core: the memo's interface to the families, which include this
 * and not the memo, so that the memo names no family and no family calls into it. */
#ifndef LF_MEMO_FRAME_BPF_H
#define LF_MEMO_FRAME_BPF_H
#include "ustate.bpf.h"

#define LF_MEMO_FRAMES 256 /* outermost frames kept (a power of two) */

/* A frame as the walk reached it: its word in the record (without the entry flag), the walk's
 * sp and bp then (its ip is the word's); for a frame of the core, its family's note (struct
 * lf_core_note, ustate.bpf.h); where the step out of it read its caller's return address and
 * frame pointer, and the lowest and highest bytes of all it read, as offsets from sp; the
 * slots it restored registers from (its rule's); its note_run answer; and LF_MF_*: whether
 * its CFA is reckoned from bp (else bp is only carried on: a frame pointer no frame saved
 * holds whatever the leaf left in it, which must not count), whether the step read bp,
 * whether it is a frame of the core, and whether the host entered the VM there. */
struct lf_memo_frame {
	__u64 word, sp, bp;
	struct lf_core_note note;
	__s32 ra_off, bp_off, lo_off, hi_off;
	__u32 nd;
	__u8 flags;
	__s8 saved[LF_NSAVED];
};

enum { LF_MF_USES_BP = 1, LF_MF_BP_SAVED = 2, LF_MF_CORE = 4, LF_MF_ENTRY = 8 };

/* A replayed frame's registers, from those of the frame before it in *regs (LF_NSAVED: bp),
 * as the step from prev to f restored them from the stack. Returns 0, or -1 when the stack no
 * longer reads. */
static __always_inline int memo_carry_regs(struct lf_ustate *u, const struct lf_memo_frame *prev,
					   const struct lf_memo_frame *f, __u64 *regs)
{
	__u64 sp = prev->sp;
	if (stack_span(u, sp + prev->lo_off, sp + prev->hi_off))
		return -1;
	for (int j = 0; j < LF_NSAVED; j++)
		if (prev->saved[j])
			regs[j] = win_at(u, f->sp + 8 * (__s64)prev->saved[j]);
	if (prev->flags & LF_MF_BP_SAVED)
		regs[LF_NSAVED] = win_at(u, sp + prev->bp_off);
	return 0;
}

#endif
