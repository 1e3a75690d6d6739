/* DWARF call frame information (.eh_frame, .debug_frame) turned into per-PC unwind rows for
 * the in-kernel unwinder. Works on raw section bytes (no libelf) so it can be fuzzed;
 * every length and offset in the input is treated as hostile. */
#ifndef LF_CFI_H
#define LF_CFI_H
#include <stddef.h>
#include <stdint.h>
#include "cfi_arch.h"

/* What the unwinder does for a PC in [row.pc, next row.pc).
 * NORMAL: CFA = (cfa_reg) + cfa_off; return address at CFA + ra_off (x86-64: always CFA-8;
 *         arm64: 0 while it is still in x30); caller's sp = CFA; the frame pointer (rbp, x29)
 *         per fp_rule (one declared undefined counts as unchanged: there is nothing to
 *         restore). cfa_reg is sp, the frame pointer, or a callee-saved register the unwinder
 *         recovers in every frame: ld.so's lazy-binding trampolines on x86-64 realign the stack
 *         and keep the CFA in rbx.
 * PLT1..PLT4: a GNU ld .plt stub, described by the CFA expression
 *           CFA = rsp + 8 + ((rip & 15) >= plt_at ? 8 : 0)
 *         i.e. one more word on the stack once the entry's `push $index` has run. The kinds
 *         differ only in plt_at, fixed by the PLT layout:
 *           PLT1: 11  lazy PLT (jmp *GOT; push; jmp PLT0), the classic one (Debian's libc)
 *           PLT2: 10  IBT PLT with BND prefix (endbr64; push; bnd jmp), older ld
 *           PLT3:  5  MPX PLT, -z bndplt (push; bnd jmp)
 *           PLT4:  9  IBT PLT (endbr64; push; jmp), current ld with -z ibtplt / CET builds
 *         cfa_reg is RSP, cfa_off 8, rbp unchanged, the return address at CFA-8.
 * END:    no unwind information from pc on (gap between functions, or past the last one).
 * STOP:   the return address is undefined: outermost frame of a thread (_start, clone).
 * INVALID: the rules use something the unwinder cannot follow; .reason says what.
 * A row with .signal set belongs to a signal trampoline (CIE augmentation 'S'): rip, rsp and
 * rbp of the interrupted frame come from the ucontext that rsp points to, not from the CFA
 * fields; such rows are NORMAL, with the CFA fields filled only if the rules were simple. */
enum cfi_kind {
	CFI_ROW_NORMAL, CFI_ROW_PLT1, CFI_ROW_PLT2, CFI_ROW_END, CFI_ROW_STOP, CFI_ROW_INVALID,
	CFI_ROW_PLT3, CFI_ROW_PLT4,
};

/* cfa_reg: the stack pointer, the frame pointer (rbp, x29), or CFI_REG_SAVED + i for the i-th
 * callee-saved register rows record (CFI_SAVED_* in cfi_arch.h). */
enum { CFI_REG_SP, CFI_REG_FP, CFI_REG_SAVED };
enum { CFI_FP_SAME, CFI_FP_OFFSET };       /* fp_rule: unchanged, or saved at CFA + fp_off */

/* Why a row is INVALID (row reasons) or why an entry was skipped (entry reasons).
 * counts_by_reason counts rows for the first group and entries (CIE/FDE) for the second. */
enum cfi_reason {
	CFI_R_NONE,
	/* row reasons */
	CFI_R_CFA_REG,        /* CFA based on a register other than rsp, rbp, rbx, r12..r15 */
	CFI_R_CFA_EXPR,       /* DW_CFA_def_cfa_expression other than the PLT ones */
	CFI_R_RA_RULE,        /* return address not at CFA-8 */
	CFI_R_FP_RULE,       /* rbp in a register, or given by an expression / val_* rule */
	CFI_R_RANGE,          /* offset does not fit the row */
	/* entry reasons */
	CFI_R_TRUNCATED,      /* entry or instruction runs past its end */
	CFI_R_BAD_CIE,        /* FDE's CIE pointer does not lead to a valid CIE */
	CFI_R_CIE_VERSION,    /* CIE version or address size not supported */
	CFI_R_AUGMENTATION,   /* augmentation string not understood */
	CFI_R_ENCODING,       /* pointer encoding not supported (datarel, textrel, funcrel...) */
	CFI_R_OPCODE,         /* unknown DW_CFA_* opcode */
	CFI_R_STATE_STACK,    /* remember_state too deep, or restore_state without remember */
	CFI_R_LOCATION,       /* DW_CFA_set_loc going backwards, or advance overflow */
	CFI_R_PC_RANGE,       /* FDE address range over 4 GiB, or wrapping around */
	CFI_R_OVERLAP,        /* FDE overlaps an earlier one (dropped in cfi_finish) */
	CFI_R_TOO_MANY,       /* a cap was reached: rows, FDEs, or CIE instruction bytes */
	CFI_R_COUNT
};

/* Callee-saved registers besides the frame pointer whose save slots rows also record, so
 * that a value a caller keeps in one of them (a Lua VM's lua_State pointer) can be recovered in
 * any frame: CFI_SAVED_* in cfi_arch.h. saved[i] is the slot's offset from the CFA in 8-byte
 * units (negative), 0 when the register is unchanged or its rule is anything else. */

/* 24 bytes on x86-64. pc is a link-time virtual address (the section's sh_addr space). */
struct cfi_row {
	uint64_t pc;
	int32_t cfa_off;
	union {
		int16_t fp_off;  /* fp_rule OFFSET: rbp saved at CFA + fp_off (negative) */
		int16_t plt_at;   /* kinds PLT1..PLT4: see above */
	};
	uint8_t kind : 3, fp_rule : 1, signal : 1;
	uint8_t reason;       /* enum cfi_reason, for INVALID rows */
	uint8_t cfa_reg;
	int8_t saved[CFI_NSAVED];
	int16_t ra_off;       /* return address at CFA + ra_off; 0: still in the link register (arm64) */
};

/* Address range of one FDE and its rows in cfi_table.rows, while parsing. */
struct cfi_fde {
	uint64_t start, end;
	size_t first, n;
	uint32_t seq;         /* input order, so that the earlier one wins an overlap */
};

struct cfi_table {
	struct cfi_row *rows;
	size_t n, cap;
	struct cfi_fde *fdes;          /* freed by cfi_finish */
	size_t nfde, fde_cap;
	size_t n_cie, n_fde;           /* entries seen, for statistics */
	size_t counts_by_reason[CFI_R_COUNT];
};

#define CFI_MAX_ROWS      (1u << 22)  /* 64 MiB of rows: far above any real library */
#define CFI_MAX_FDES      (1u << 21)
#define CFI_STATE_DEPTH   16          /* remember_state nesting; GCC uses 1 or 2 */

/* Appends the rows of every FDE in one section. sec_vaddr is the section's address, needed for
 * pc-relative pointers. Returns 0, or -1 when the table could not grow (out of memory / cap);
 * malformed input is never an error: bad entries are skipped and counted. May be called for
 * several sections (e.g. .eh_frame then .debug_frame), then cfi_finish once; parsing into a
 * finished table is not supported. An FDE for the same start address as one parsed earlier,
 * or overlapping one that starts before it, is dropped (counted as CFI_R_OVERLAP). */
int cfi_parse(struct cfi_table *t, const uint8_t *sec, size_t len, uint64_t sec_vaddr,
	      int is_debug_frame);

/* The address range [*start, *end) of the FDE at section offset fde_off of an .eh_frame
 * section (as the .eh_frame_hdr search table points to one), read as cfi_parse reads it.
 * Returns 0, or -1 when no usable FDE (CIE, encodings, a non-empty range) is there. */
int cfi_fde_range(const uint8_t *sec, size_t len, uint64_t sec_vaddr, uint64_t fde_off,
		  uint64_t *start, uint64_t *end);

/* Every FDE's address range [start, end) in an .eh_frame section, sorted by start, in a
 * malloc'd array (*out, freed by the caller): function starts for files without an
 * .eh_frame_hdr search table (static executables). Returns the count. */
struct cfi_span { uint64_t start, end; };
size_t cfi_fde_spans(const uint8_t *sec, size_t len, uint64_t sec_vaddr, struct cfi_span **out);

/* Orders rows by pc, drops overlapping FDEs and rows repeating their predecessor, and puts END
 * rows at the end of every covered range. Afterwards rows are strictly increasing in pc and the
 * last row, if any, is END. Returns 0, or -1 on allocation failure (table unchanged). */
int cfi_finish(struct cfi_table *t);

/* Marks a program's entry point as the outermost frame when no FDE covers it: the dynamic
 * loader's _start is hand-written assembly without CFI, and a thread stopped in it (or in
 * _dl_start, _dl_init called from it) has no caller. The STOP rows run from entry to the next
 * described code, at most CFI_ENTRY_SPAN bytes. Returns 0, or -1 on allocation failure. */
#define CFI_ENTRY_SPAN 256
int cfi_mark_entry(struct cfi_table *t, uint64_t entry);

/* Puts n rows (pcs increasing from rows[0].pc) into a finished table, the range
 * [rows[0].pc, end) with them, when no FDE describes any of that range. Returns 0 when done,
 * 1 when the range is (partly) described already, -1 on allocation failure. */
int cfi_fill_gap(struct cfi_table *t, const struct cfi_row *rows, size_t n, uint64_t end);

/* Describes a .init or .fini section at addr (its code bytes: code, n) when it is glibc's
 * crti/crtn frame, which has no CFI: `[endbr64] sub $8,%rsp` ... `add $8,%rsp; ret`. The
 * loader runs each library's _init as the first code of its file, so a sample in the page
 * fault that brings that code in is common. Returns as cfi_fill_gap, 1 also for other code. */
int cfi_describe_crt(struct cfi_table *t, uint64_t addr, const uint8_t *code, size_t n);

/* Gives alignment padding between two FDEs the rules of the function after it when the
 * padding is nothing but NOPs: hand-written assembly falls through it (glibc's
 * __memcpy_chk_* checks the size, then runs on through the padding into memmove), so a
 * thread can stop in it with the next function's entry state. read(ctx, addr, buf, n) gives
 * the n bytes of code at addr, returning 0 when it cannot (only the gaps are read, never all
 * of the code). Returns how many gaps were filled. */
#define CFI_MAX_PADDING 64
size_t cfi_fill_padding(struct cfi_table *t, int (*read)(void *ctx, uint64_t addr, uint8_t *buf, size_t n),
			void *ctx);

/* Row covering pc in a finished table, or NULL before the first row. */
const struct cfi_row *cfi_lookup(const struct cfi_table *t, uint64_t pc);

void cfi_free(struct cfi_table *t);
const char *cfi_reason_name(int reason);
const char *cfi_kind_name(int kind);

#endif
