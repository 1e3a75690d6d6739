/* Unwind tables shared by user space (which builds them from .eh_frame/.debug_frame) and
 * the BPF unwinder: deduplicated rules, per-file sorted rows, and each target process's
 * executable mappings with the file and load bias they resolve to, and where it keeps data. */
#ifndef LF_UNWIND_H
#define LF_UNWIND_H

#ifndef __bpf__
#include <linux/types.h>
#endif
#include "arch.h"

#define LF_MAX_PROC_MAPS 256     /* executable mappings per process */
#define LF_MAX_DATA      128     /* ranges where a process keeps data (a power of two) */
#define LF_MAX_STACKS    128     /* threads' stack mappings per process (a power of two) */
#define LF_MAX_RULES     65536

enum lf_rule_kind {
	LF_RULE_NORMAL,  /* CFA = (sp|fp|saved reg) + cfa_off; RA at CFA + ra_off (x86-64: -8; arm64: 0 =
			  * in x30); the frame pointer (rbp, x29) unchanged or at CFA + fp_off */
	LF_RULE_PLT,     /* PLT stub: CFA = rsp + 8 + ((rip & 15) >= cfa_off ? 8 : 0) */
	LF_RULE_END,     /* no unwind information for this pc */
	LF_RULE_STOP,    /* outermost frame of a thread */
	LF_RULE_INVALID, /* rule the unwinder cannot follow */
};

#define LF_RULE_CFA_FP   0x1  /* CFA based on the frame pointer instead of sp */
#define LF_RULE_FP_SAVED 0x2  /* caller's frame pointer saved at CFA + fp_off */
#define LF_RULE_SIGNAL   0x4  /* signal trampoline: registers from the ucontext */

/* User space deduplicates rules by their bytes: the struct has no padding (LF_SAVED_ROOM is
 * LF_NSAVED rounded up to fill it). */
struct lf_rule {
	__s32 cfa_off;
	__s16 fp_off;
	__s16 ra_off;
	__u8 kind;
	__u8 flags;
	__u8 cfa_saved;        /* 1 + i: CFA based on saved register i (arch.h), 0: sp/fp */
	__s8 saved[LF_SAVED_ROOM]; /* register i at CFA + 8 * saved[i], 0 = unchanged */
};

/* One row: rule for [pc, next row's pc) of a file, pc as an ELF virtual address. rule holds
 * the rule's index (LF_ROW_RULE) and, above it, the row's place in its label run. */
struct lf_row {
	__u32 pc;
	__u32 rule;
};

#define LF_ROW_RULE 0xffffu /* the rule's index (LF_MAX_RULES is 65536) */
/* rule >> LF_ROW_RUN_SHIFT: 0, or 1 + how many rows back the row's label run starts. A run
 * is rows of one FDE over which every pc past the run's first byte gets one frame label, in
 * every use user space makes of a leaf's pc (its symbol, its function's start, the function
 * of pc - 1): samples whose leaf lies in one run are counted as one stack, not one for each
 * instruction. */
#define LF_ROW_RUN_SHIFT 16
#define LF_ROW_RUN_MAX   0xffffu

struct lf_file {
	__u32 row_start; /* index into the global row array */
	__u32 row_count;
};

#define LF_FILE_NONE 0xffffffffu /* mapped file without usable tables */
#define LF_FILE_JIT  0xfffffffeu /* anonymous executable memory: frame pointers */

struct lf_map_ent {
	__u64 start, end;
	__u64 bias;      /* ELF vaddr = address - bias */
	__u32 file;      /* index into the file array, or LF_FILE_* */
	__u32 pad;
};

/* Addresses [lo, hi) that may hold the process's data: its writable and reserved anonymous
 * mappings, merged and widened (see data_ranges.c). */
struct lf_range {
	__u64 lo, hi;
};

struct lf_proc {
	__u32 n;
	__u32 ndata;   /* 0: not known, every address may hold data */
	__u32 nstacks; /* 0: none known, every stack is read frame by frame */
	__u32 gen;     /* another number each time user space writes the entry (any process's) */
	struct lf_map_ent m[LF_MAX_PROC_MAPS];
	struct lf_range data[LF_MAX_DATA];
	struct lf_range stacks[LF_MAX_STACKS]; /* exact mappings of threads' stacks (stack_ranges) */
};

/* Why the BPF side asks for a process's maps again (the value in the rescan map). */
#define LF_RESCAN_CODE 1 /* a pc outside every known mapping */
#define LF_RESCAN_DATA 2 /* the VM's state was not found where data is known to be */

#endif
