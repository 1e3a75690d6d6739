/* Tests of the CFI parser (cmd/unwind/cfi.c): hand-built .eh_frame/.debug_frame bytes for every
 * instruction and failure mode, and a row-by-row comparison with `readelf
 * --debug-dump=frames-interp` on real binaries. `test_cfi --compare FILE...` runs only the
 * comparison, on the given files (used by tests/integ/cfi_readelf.sh). Built for arm64, only
 * the cases about parsing itself run: the others are about x86-64's registers, code and files
 * (test_cfi_arm64.c has arm64's). */
#include <elf.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cfi.h"
#include "check.h"
#include "text_image.h"

/* ------------------------------------------------------------------ byte builder */

struct buf {
	uint8_t b[8192];
	size_t n;
};

static void b8(struct buf *b, uint8_t v) { if (b->n < sizeof(b->b)) b->b[b->n++] = v; }
static void bn(struct buf *b, uint64_t v, int n) { for (int i = 0; i < n; i++) b8(b, (uint8_t)(v >> (8 * i))); }
static void bbytes(struct buf *b, const uint8_t *p, size_t n) { for (size_t i = 0; i < n; i++) b8(b, p[i]); }

static void buleb(struct buf *b, uint64_t v)
{
	do {
		uint8_t x = v & 0x7f;
		v >>= 7;
		b8(b, x | (v ? 0x80 : 0));
	} while (v);
}

static void bsleb(struct buf *b, int64_t v)
{
	for (;;) {
		uint8_t x = v & 0x7f;
		v >>= 7;
		if ((v == 0 && !(x & 0x40)) || (v == -1 && (x & 0x40))) {
			b8(b, x);
			return;
		}
		b8(b, x | 0x80);
	}
}

static void patch32(struct buf *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->b[at + i] = (uint8_t)(v >> (8 * i));
}

/* Closes an entry opened at `at` (32-bit length) by writing its length. */
static void close32(struct buf *b, size_t at) { patch32(b, at, (uint32_t)(b->n - at - 4)); }

/* Standard x86-64 initial instructions: CFA = rsp+8, RA at CFA-8. Built for arm64, the same
 * with sp's number, so that the cases about parsing alone run there too: the RA column is
 * whatever the CIE says, 16 here. */
static const uint8_t init_insns[] = { 0x0c, DW_SP, 8, 0x90, 1 };

/* .eh_frame CIE with augmentation aug ("zR" style; `augdata` is the data after 'z'). */
static size_t eh_cie(struct buf *b, const char *aug, const uint8_t *augdata, size_t nad,
		     const uint8_t *insns, size_t ni)
{
	size_t at = b->n;
	bn(b, 0, 4);
	bn(b, 0, 4);                  /* CIE id */
	b8(b, 1);                     /* version */
	bbytes(b, (const uint8_t *)aug, strlen(aug) + 1);
	buleb(b, 1);                  /* code alignment */
	bsleb(b, -8);                 /* data alignment */
	b8(b, 16);                    /* RA column */
	if (aug[0] == 'z') {
		buleb(b, nad);
		bbytes(b, augdata, nad);
	}
	bbytes(b, insns, ni);
	close32(b, at);
	return at;
}

static const uint8_t enc_udata4[] = { 0x03 };

static size_t std_cie(struct buf *b) { return eh_cie(b, "zR", enc_udata4, 1, init_insns, sizeof(init_insns)); }

/* .eh_frame FDE with udata4 pc_begin/range and empty augmentation data. */
static size_t eh_fde(struct buf *b, size_t cie, uint32_t start, uint32_t range,
		     const uint8_t *insns, size_t ni)
{
	size_t at = b->n;
	bn(b, 0, 4);
	bn(b, b->n - cie, 4);         /* CIE pointer: distance back from this field */
	bn(b, start, 4);
	bn(b, range, 4);
	buleb(b, 0);
	bbytes(b, insns, ni);
	close32(b, at);
	return at;
}

static struct cfi_table parse(const struct buf *b, uint64_t vaddr, int debug)
{
	struct cfi_table t = { 0 };
	CHECK_INT(cfi_parse(&t, b->b, b->n, vaddr, debug), 0);
	CHECK_INT(cfi_finish(&t), 0);
	return t;
}

/* Checks the row covering pc. kind, cfa reg/off, rbp rule/off. */
static void expect_row(const struct cfi_table *t, uint64_t pc, int kind, int reg, int off,
		       int fp_rule, int fp_off, int line)
{
	const struct cfi_row *r = cfi_lookup(t, pc);
	if (!r) {
		printf("  line %d: no row at 0x%" PRIx64 "\n", line, pc);
		check_failed++;
		return;
	}
	if (r->kind != kind || (kind == CFI_ROW_NORMAL &&
	    (r->cfa_reg != reg || r->cfa_off != off || r->fp_rule != fp_rule ||
	     (fp_rule == CFI_FP_OFFSET && r->fp_off != fp_off)))) {
		printf("  line %d: at 0x%" PRIx64 ": got %s reg=%d off=%d rbp=%d/%d, want %s reg=%d "
		       "off=%d rbp=%d/%d\n", line, pc, cfi_kind_name(r->kind), r->cfa_reg, r->cfa_off,
		       r->fp_rule, r->fp_off, cfi_kind_name(kind), reg, off, fp_rule, fp_off);
		check_failed++;
	}
}
#define ROW(t, pc, kind, reg, off, rr, ro) expect_row(t, pc, kind, reg, off, rr, ro, __LINE__)
#define NORMAL(t, pc, reg, off) ROW(t, pc, CFI_ROW_NORMAL, reg, off, CFI_FP_SAME, 0)
#define RSP CFI_REG_SP
#define RBP CFI_REG_FP

static void expect_kind(const struct cfi_table *t, uint64_t pc, int kind, int reason, int line)
{
	const struct cfi_row *r = cfi_lookup(t, pc);
	if (!r || r->kind != kind || (reason >= 0 && r->reason != reason)) {
		printf("  line %d: at 0x%" PRIx64 ": got %s/%s, want %s/%s\n", line, pc,
		       r ? cfi_kind_name(r->kind) : "none", r ? cfi_reason_name(r->reason) : "-",
		       cfi_kind_name(kind), reason >= 0 ? cfi_reason_name(reason) : "any");
		check_failed++;
	}
}
#define KIND(t, pc, kind, reason) expect_kind(t, pc, kind, reason, __LINE__)

#ifndef LF_ARCH_ARM64
static int is_plt(const struct cfi_row *r)
{
	return r && (r->kind == CFI_ROW_PLT1 || r->kind == CFI_ROW_PLT2 || r->kind == CFI_ROW_PLT3 ||
		     r->kind == CFI_ROW_PLT4);
}
#endif

/* A finished table must be strictly increasing and end with END. */
static int well_formed(const struct cfi_table *t)
{
	for (size_t i = 1; i < t->n; i++)
		if (t->rows[i - 1].pc >= t->rows[i].pc)
			return 0;
	return t->n == 0 || t->rows[t->n - 1].kind == CFI_ROW_END;
}

/* ------------------------------------------------------------------ hand-built cases */

#ifndef LF_ARCH_ARM64
/* push %rbp; mov %rsp,%rbp; ...; leave; ret */
static void test_prologue(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t in[] = {
		0x41, 0x0e, 16, 0x86, 2,      /* +1: cfa rsp+16, rbp at cfa-16 */
		0x43, 0x0d, 6,                /* +4: cfa rbp+16 */
		0x60, 0x0c, 7, 8,             /* +0x24: cfa rsp+8 */
		0xc6,                         /* restore rbp at the same location */
	};
	eh_fde(&b, cie, 0x1000, 0x30, in, sizeof(in));
	struct cfi_table t = parse(&b, 0, 0);
	CHECK(well_formed(&t));
	NORMAL(&t, 0x1000, RSP, 8);
	ROW(&t, 0x1001, CFI_ROW_NORMAL, RSP, 16, CFI_FP_OFFSET, -16);
	ROW(&t, 0x1003, CFI_ROW_NORMAL, RSP, 16, CFI_FP_OFFSET, -16);
	ROW(&t, 0x1004, CFI_ROW_NORMAL, RBP, 16, CFI_FP_OFFSET, -16);
	ROW(&t, 0x1023, CFI_ROW_NORMAL, RBP, 16, CFI_FP_OFFSET, -16);
	NORMAL(&t, 0x1024, RSP, 8);
	NORMAL(&t, 0x102f, RSP, 8);
	KIND(&t, 0x1030, CFI_ROW_END, -1);
	CHECK(cfi_lookup(&t, 0xfff) == NULL);
	CHECK_INT(t.n, 5);
	CHECK_INT(t.n_fde, 1);
	CHECK_INT(t.n_cie, 1);
	cfi_free(&t);
}

/* push %r15; push %rbx; ...; the save slots of rbx and r15 are recorded, restored on pop */
static void test_callee_saved(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t in[] = {
		0x42, 0x0e, 16, 0x8f, 2,      /* +2: cfa rsp+16, r15 at cfa-16 */
		0x41, 0x0e, 24, 0x83, 3,      /* +1: cfa rsp+24, rbx at cfa-24 */
		0x4a, 0x0e, 16, 0xc3,         /* +10: cfa rsp+16, rbx restored */
		0x41, 0x0e, 8, 0xcf,          /* +1: cfa rsp+8, r15 restored */
		0x41, 0x8c, 0x81, 0x01,       /* +1: r12 at cfa-1032: beyond int8 slots, not recorded */
	};
	eh_fde(&b, cie, 0x2000, 0x20, in, sizeof(in));
	struct cfi_table t = parse(&b, 0, 0);
	CHECK(well_formed(&t));
	const struct cfi_row *r = cfi_lookup(&t, 0x2001);
	CHECK(r && r->saved[CFI_SAVED_R15] == 0 && r->saved[CFI_SAVED_RBX] == 0);
	r = cfi_lookup(&t, 0x2002);
	CHECK(r && r->saved[CFI_SAVED_R15] == -2 && r->saved[CFI_SAVED_RBX] == 0);
	r = cfi_lookup(&t, 0x2003);
	CHECK(r && r->saved[CFI_SAVED_R15] == -2 && r->saved[CFI_SAVED_RBX] == -3 && r->cfa_off == 24);
	r = cfi_lookup(&t, 0x200d);
	CHECK(r && r->saved[CFI_SAVED_R15] == -2 && r->saved[CFI_SAVED_RBX] == 0);
	r = cfi_lookup(&t, 0x200e);
	CHECK(r && r->saved[CFI_SAVED_R15] == 0 && r->kind == CFI_ROW_NORMAL);
	r = cfi_lookup(&t, 0x200f);
	CHECK(r && r->saved[CFI_SAVED_R12] == 0 && r->kind == CFI_ROW_NORMAL);
	cfi_free(&t);
}

static void test_remember_restore(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t in[] = {
		0x41, 0x0e, 16, 0x86, 2,      /* +1 rsp+16, rbp saved */
		0x41, 0x0e, 32,               /* +2 rsp+32 */
		0x44, 0x0a,                   /* +6 remember */
		0x0e, 8, 0xc6,                /*    early return: rsp+8, rbp restored */
		0x41, 0x0b,                   /* +7 back to rsp+32 */
		0x0a, 0x0a, 0x0b, 0x0b,       /*    nested remember/restore */
	};
	eh_fde(&b, cie, 0x2000, 0x10, in, sizeof(in));
	struct cfi_table t = parse(&b, 0, 0);
	ROW(&t, 0x2002, CFI_ROW_NORMAL, RSP, 32, CFI_FP_OFFSET, -16);
	NORMAL(&t, 0x2006, RSP, 8);
	ROW(&t, 0x2007, CFI_ROW_NORMAL, RSP, 32, CFI_FP_OFFSET, -16);
	ROW(&t, 0x200f, CFI_ROW_NORMAL, RSP, 32, CFI_FP_OFFSET, -16);
	KIND(&t, 0x2010, CFI_ROW_END, -1);
	CHECK_INT(t.counts_by_reason[CFI_R_STATE_STACK], 0);
	cfi_free(&t);
}
#endif

static void test_state_stack_limits(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	uint8_t deep[CFI_STATE_DEPTH + 3];
	deep[0] = 0x42;                             /* +2, then too many remembers */
	memset(deep + 1, 0x0a, sizeof(deep) - 1);
	eh_fde(&b, cie, 0x1000, 0x10, deep, sizeof(deep));
	const uint8_t under[] = { 0x43, 0x0e, 16, 0x0b };   /* restore without remember at +3 */
	eh_fde(&b, cie, 0x2000, 0x10, under, sizeof(under));
	struct cfi_table t = parse(&b, 0, 0);
	CHECK_INT(t.counts_by_reason[CFI_R_STATE_STACK], 2);
	/* rows before the failing location stay, coverage stops there */
	NORMAL(&t, 0x1001, RSP, 8);
	KIND(&t, 0x1002, CFI_ROW_END, -1);
	NORMAL(&t, 0x2002, RSP, 8);
	KIND(&t, 0x2003, CFI_ROW_END, -1);
	CHECK(well_formed(&t));
	cfi_free(&t);
}

#ifndef LF_ARCH_ARM64
static void test_ra_rules(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t undef[] = { 0x07, 16 };                         /* _start: RA undefined */
	eh_fde(&b, cie, 0x1000, 0x10, undef, sizeof(undef));
	const uint8_t moved[] = { 0x41, 0x90, 2 };                    /* RA at CFA-16 */
	eh_fde(&b, cie, 0x2000, 0x10, moved, sizeof(moved));
	const uint8_t inreg[] = { 0x41, 0x09, 16, 3 };                /* RA in rbx */
	eh_fde(&b, cie, 0x3000, 0x10, inreg, sizeof(inreg));
	const uint8_t valoff[] = { 0x41, 0x14, 16, 1, 0x41, 0xd0 };   /* val_offset, then restore */
	eh_fde(&b, cie, 0x4000, 0x10, valoff, sizeof(valoff));
	const uint8_t same[] = { 0x41, 0x08, 16 };                    /* RA same_value: not followable */
	eh_fde(&b, cie, 0x5000, 0x10, same, sizeof(same));
	struct cfi_table t = parse(&b, 0, 0);
	KIND(&t, 0x1000, CFI_ROW_STOP, -1);
	KIND(&t, 0x100f, CFI_ROW_STOP, -1);
	NORMAL(&t, 0x2000, RSP, 8);
	KIND(&t, 0x2001, CFI_ROW_INVALID, CFI_R_RA_RULE);
	KIND(&t, 0x3001, CFI_ROW_INVALID, CFI_R_RA_RULE);
	KIND(&t, 0x4001, CFI_ROW_INVALID, CFI_R_RA_RULE);
	NORMAL(&t, 0x4002, RSP, 8);
	KIND(&t, 0x5001, CFI_ROW_INVALID, CFI_R_RA_RULE);
	CHECK_INT(t.counts_by_reason[CFI_R_RA_RULE], 4);
	cfi_free(&t);
}

static void test_rbp_rules(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t in[] = {
		0x41, 0x10, 3, 2, 0x77, 0,          /* +1 expression on rbx: ignored */
		0x41, 0x10, 6, 2, 0x77, 0,          /* +2 expression on rbp: invalid */
		0x41, 0x08, 6,                      /* +3 same_value rbp */
		0x41, 0x09, 6, 12,                  /* +4 rbp in r12: invalid */
		0x41, 0x07, 6,                      /* +5 rbp undefined: nothing to restore */
		0x41, 0x16, 6, 1, 0x9c,             /* +6 val_expression on rbp: invalid */
		0x41, 0x15, 6, 0x7e,                /* +7 val_offset_sf rbp: invalid */
		0x41, 0x05, 6, 3,                   /* +8 offset_extended rbp at cfa-24 */
		0x41, 0x11, 6, 0x7d,                /* +9 offset_extended_sf: cfa+(-3*-8)=cfa+24 */
		0x41, 0x2f, 6, 2,                   /* +10 GNU_negative_offset_extended: cfa+16 */
		0x41, 0x09, 6, 6,                   /* +11 register rbp in rbp: same value */
		0x41, 0x16, 3, 1, 0x9c,             /* +12 val_expression on rbx: ignored */
	};
	eh_fde(&b, cie, 0x1000, 0x20, in, sizeof(in));
	struct cfi_table t = parse(&b, 0, 0);
	NORMAL(&t, 0x1001, RSP, 8);
	KIND(&t, 0x1002, CFI_ROW_INVALID, CFI_R_FP_RULE);
	NORMAL(&t, 0x1003, RSP, 8);
	KIND(&t, 0x1004, CFI_ROW_INVALID, CFI_R_FP_RULE);
	NORMAL(&t, 0x1005, RSP, 8);
	KIND(&t, 0x1006, CFI_ROW_INVALID, CFI_R_FP_RULE);
	KIND(&t, 0x1007, CFI_ROW_INVALID, CFI_R_FP_RULE);
	ROW(&t, 0x1008, CFI_ROW_NORMAL, RSP, 8, CFI_FP_OFFSET, -24);
	ROW(&t, 0x1009, CFI_ROW_NORMAL, RSP, 8, CFI_FP_OFFSET, 24);
	ROW(&t, 0x100a, CFI_ROW_NORMAL, RSP, 8, CFI_FP_OFFSET, 16);
	NORMAL(&t, 0x100b, RSP, 8);
	NORMAL(&t, 0x100c, RSP, 8);
	CHECK(well_formed(&t));
	cfi_free(&t);
}

static void test_cfa_rules(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t in[] = {
		0x41, 0x0c, 10, 0,                  /* +1 cfa r10+0 (stack realignment) */
		0x41, 0x0d, 7,                      /* +2 back to rsp, offset kept (0) */
		0x41, 0x0e, 24,                     /* +3 rsp+24 */
		0x41, 0x12, 6, 0x7e,                /* +4 def_cfa_sf rbp, -2*-8 = 16 */
		0x41, 0x13, 0x7c,                   /* +5 def_cfa_offset_sf 32 */
		0x41, 0x0f, 3, 0x76, 0x78, 0x06,    /* +6 cfa = *(rbp-8): DRAP, unsupported */
		0x41, 0x0c, 7, 8,                   /* +7 rsp+8 */
		0x41, 0x0e, 0x80, 0x80, 0x80, 0x80, 0x10, /* +8 offset 2^32: out of range */
		0x41, 0x0e, 0x10,                   /* +9 fine again */
		0x41, 0x2e, 0x20,                   /* +10 GNU_args_size: ignored */
	};
	eh_fde(&b, cie, 0x1000, 0x20, in, sizeof(in));
	struct cfi_table t = parse(&b, 0, 0);
	KIND(&t, 0x1001, CFI_ROW_INVALID, CFI_R_CFA_REG);
	NORMAL(&t, 0x1002, RSP, 0);
	NORMAL(&t, 0x1003, RSP, 24);
	NORMAL(&t, 0x1004, RBP, 16);
	NORMAL(&t, 0x1005, RBP, 32);
	KIND(&t, 0x1006, CFI_ROW_INVALID, CFI_R_CFA_EXPR);
	NORMAL(&t, 0x1007, RSP, 8);
	KIND(&t, 0x1008, CFI_ROW_INVALID, CFI_R_RANGE);
	NORMAL(&t, 0x1009, RSP, 16);
	NORMAL(&t, 0x100a, RSP, 16);
	CHECK_INT(t.counts_by_reason[CFI_R_CFA_REG], 1);
	CHECK_INT(t.counts_by_reason[CFI_R_CFA_EXPR], 1);
	cfi_free(&t);
}

/* ld.so's lazy-binding trampoline (_dl_runtime_resolve_xsavec): push rbx, keep the CFA in
 * rbx while rsp is realigned for xsavec, then back to rsp. r12..r15 work the same way;
 * other registers (r10, DRAP in gcc's stack realignment) stay unsupported. */
static void test_cfa_in_callee_saved(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t in[] = {
		0x41, 0x0e, 16,                     /* +1 push %rbx: rsp+16 */
		0x83, 2,                            /* rbx at cfa-16 */
		0x43, 0x0d, 3,                      /* +4 mov %rsp,%rbx: cfa rbx+16 */
		0x48, 0x0c, 12, 24,                 /* +12 r12+24 */
		0x41, 0x0c, 15, 8,                  /* +13 r15+8 */
		0x41, 0x0c, 10, 8,                  /* +14 r10+8: unsupported */
		0x41, 0x0c, 7, 16,                  /* +15 back to rsp+16 */
	};
	eh_fde(&b, cie, 0x1000, 0x20, in, sizeof(in));
	struct cfi_table t = parse(&b, 0, 0);
	NORMAL(&t, 0x1001, RSP, 16);
	NORMAL(&t, 0x1004, CFI_REG_SAVED + CFI_SAVED_RBX, 16);
	CHECK_INT(cfi_lookup(&t, 0x1004)->saved[CFI_SAVED_RBX], -2);
	NORMAL(&t, 0x100c, CFI_REG_SAVED + CFI_SAVED_R12, 24);
	NORMAL(&t, 0x100d, CFI_REG_SAVED + CFI_SAVED_R15, 8);
	KIND(&t, 0x100e, CFI_ROW_INVALID, CFI_R_CFA_REG);
	NORMAL(&t, 0x100f, RSP, 16);
	CHECK(well_formed(&t));
	cfi_free(&t);
}
#endif

/* The loader's entry point without an FDE becomes a STOP range up to the next FDE; an entry
 * an FDE covers keeps its rows. */
static void test_mark_entry(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t in[] = { 0x41, 0x0e, 16 };
	eh_fde(&b, cie, 0x1000, 0x10, in, sizeof(in));
	eh_fde(&b, cie, 0x1040, 0x10, in, sizeof(in));
	eh_fde(&b, cie, 0x1400, 0x10, in, sizeof(in));
	struct cfi_table t = parse(&b, 0, 0);
	size_t n = t.n;
	CHECK_INT(cfi_mark_entry(&t, 0x1001), 0);          /* covered: nothing changes */
	CHECK_INT(t.n, n);
	CHECK_INT(cfi_mark_entry(&t, 0x1010), 0);          /* right where an FDE ends */
	KIND(&t, 0x1010, CFI_ROW_STOP, -1);
	KIND(&t, 0x103f, CFI_ROW_STOP, -1);
	NORMAL(&t, 0x1041, RSP, 16);
	CHECK_INT(cfi_mark_entry(&t, 0x1060), 0);          /* in a long gap: at most the span */
	KIND(&t, 0x1060, CFI_ROW_STOP, -1);
	KIND(&t, 0x1060 + CFI_ENTRY_SPAN - 1, CFI_ROW_STOP, -1);
	KIND(&t, 0x1060 + CFI_ENTRY_SPAN, CFI_ROW_END, -1);
	NORMAL(&t, 0x1401, RSP, 16);
	CHECK_INT(cfi_mark_entry(&t, 0xf00), 0);           /* before every FDE */
	KIND(&t, 0xf00, CFI_ROW_STOP, -1);
	KIND(&t, 0xfff, CFI_ROW_STOP, -1);
	NORMAL(&t, 0x1000, RSP, 8);
	CHECK(well_formed(&t));
	cfi_free(&t);
}

#ifndef LF_ARCH_ARM64
/* NOP padding between two FDEs takes the next function's entry rules (glibc's __memcpy_chk
 * falls through it into memmove); int3 padding, or anything else, stays a gap. */

static void test_fill_padding(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t in[] = { 0x41, 0x0e, 16 };
	eh_fde(&b, cie, 0x1000, 0x9, in, sizeof(in));
	eh_fde(&b, cie, 0x1010, 0x10, in, sizeof(in));
	eh_fde(&b, cie, 0x1030, 0x10, in, sizeof(in));
	eh_fde(&b, cie, 0x1050, 0x10, in, sizeof(in));
	struct cfi_table t = parse(&b, 0, 0);
	uint8_t text[0x60];
	memset(text, 0xcc, sizeof(text));
	/* 0x1009..0x1010: nopl 0x0(%rax); 0x1020..0x1030: data16 cs nopw 0x0(%rax,%rax,1),
	 * xchg %ax,%ax, nopl (%rax); 0x1040..0x1050: int3 */
	const uint8_t nop7[] = { 0x0f, 0x1f, 0x80, 0, 0, 0, 0 };
	memcpy(text + 0x9, nop7, sizeof(nop7));
	const uint8_t mix[] = { 0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0, 0x66, 0x90,
				0x0f, 0x1f, 0x00 };
	memcpy(text + 0x20, mix, sizeof(mix));
	struct text_image img = { text, sizeof(text), 0x1000 };
	CHECK_INT(cfi_fill_padding(&t, read_text, &img), 2);
	NORMAL(&t, 0x1009, RSP, 8);
	NORMAL(&t, 0x100f, RSP, 8);
	NORMAL(&t, 0x1011, RSP, 16);
	NORMAL(&t, 0x1020, RSP, 8);
	NORMAL(&t, 0x102f, RSP, 8);
	KIND(&t, 0x1040, CFI_ROW_END, -1);
	KIND(&t, 0x1060, CFI_ROW_END, -1);
	cfi_free(&t);
}
#endif

/* glibc's crti/crtn frame in .init (libreadline.so.8.2's, byte for byte) and .fini (with
 * endbr64): one word pushed after the prologue, popped before the ret. Other code, or a
 * range an FDE covers even in part, is left alone. */
static void test_crt_frames(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t in[] = { 0x41, 0x0e, 16 };
	eh_fde(&b, cie, 0x1020, 0x10, in, sizeof(in));
	eh_fde(&b, cie, 0x1100, 0x10, in, sizeof(in));
	struct cfi_table t = parse(&b, 0, 0);
	const uint8_t init[] = { 0x48, 0x83, 0xec, 0x08, 0x48, 0x8b, 0x05, 0xed, 0x8a, 0x03, 0x00,
				 0x48, 0x85, 0xc0, 0x74, 0x02, 0xff, 0xd0, 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	const uint8_t fini[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x83, 0xec, 0x08,
				 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	const uint8_t other[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	CHECK_INT(cfi_describe_crt(&t, 0x1000, init, sizeof(init)), 0);
	CHECK_INT(cfi_describe_crt(&t, 0x1030, fini, sizeof(fini)), 0); /* right where an FDE ends */
	CHECK_INT(cfi_describe_crt(&t, 0x1060, other, sizeof(other)), 1);
	CHECK_INT(cfi_describe_crt(&t, 0x10f8, fini, sizeof(fini)), 1);  /* runs into an FDE */
	CHECK_INT(cfi_describe_crt(&t, 0x1105, fini, sizeof(fini)), 1);  /* inside one */
	NORMAL(&t, 0x1000, RSP, 8);
	NORMAL(&t, 0x1003, RSP, 8);
	NORMAL(&t, 0x1004, RSP, 16);
	NORMAL(&t, 0x1012, RSP, 16);
	NORMAL(&t, 0x1016, RSP, 8);
	KIND(&t, 0x1017, CFI_ROW_END, -1);
	NORMAL(&t, 0x1021, RSP, 16);
	NORMAL(&t, 0x1030, RSP, 8);
	NORMAL(&t, 0x1038, RSP, 16);
	NORMAL(&t, 0x103c, RSP, 8);
	KIND(&t, 0x103d, CFI_ROW_END, -1);
	KIND(&t, 0x1060, CFI_ROW_END, -1);
	KIND(&t, 0x10f8, CFI_ROW_END, -1);
	NORMAL(&t, 0x1105, RSP, 16);
	CHECK(well_formed(&t));
	cfi_free(&t);
}

#ifndef LF_ARCH_ARM64
/* GNU ld's .plt expressions with each threshold ld uses, a different base offset, and near
 * misses that must not be taken for them. */
static void test_plt_expressions(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t lits[] = { 11, 10, 9, 5 };
	const int kinds[] = { CFI_ROW_PLT1, CFI_ROW_PLT2, CFI_ROW_PLT4, CFI_ROW_PLT3 };
	for (int i = 0; i < 4; i++) {
		const uint8_t in[] = { 0x0e, 16, 0x46, 0x0e, 24, 0x4a, 0x0f, 11, 0x77, 8, 0x80, 0,
				       0x3f, 0x1a, (uint8_t)(0x30 + lits[i]), 0x2a, 0x33, 0x24, 0x22 };
		eh_fde(&b, cie, 0x1000 + 0x100 * i, 0x40, in, sizeof(in));
	}
	/* misses: one byte short, mask lit14, rbp-based, rip offset 1, base 16, threshold 12 */
	const uint8_t miss[6][13] = {
		{ 0x0f, 10, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24 },
		{ 0x0f, 11, 0x77, 8, 0x80, 0, 0x3e, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 },
		{ 0x0f, 11, 0x76, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 },
		{ 0x0f, 11, 0x77, 8, 0x80, 1, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 },
		{ 0x0f, 11, 0x77, 16, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 },
		{ 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3c, 0x2a, 0x33, 0x24, 0x22 },
	};
	for (int i = 0; i < 6; i++)
		eh_fde(&b, cie, 0x2000 + 0x100 * i, 0x10, miss[i], i == 0 ? 12 : 13);
	/* a PLT row cannot also restore rbp */
	const uint8_t saved[] = { 0x86, 2, 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33,
				  0x24, 0x22 };
	eh_fde(&b, cie, 0x3000, 0x10, saved, sizeof(saved));
	struct cfi_table t = parse(&b, 0, 0);
	for (int i = 0; i < 4; i++) {
		uint64_t base = 0x1000 + 0x100 * i;
		NORMAL(&t, base, RSP, 16);
		NORMAL(&t, base + 6, RSP, 24);
		KIND(&t, base + 16, kinds[i], CFI_R_NONE);
		const struct cfi_row *r = cfi_lookup(&t, base + 0x3f);
		CHECK(r && r->kind == kinds[i] && r->plt_at == lits[i] && r->cfa_off == 8 &&
		      r->cfa_reg == CFI_REG_SP && r->fp_rule == CFI_FP_SAME);
	}
	for (int i = 0; i < 6; i++)
		KIND(&t, 0x2000 + 0x100 * i, CFI_ROW_INVALID, CFI_R_CFA_EXPR);
	KIND(&t, 0x3000, CFI_ROW_INVALID, CFI_R_FP_RULE);
	cfi_free(&t);
}
#endif

static void test_advance_forms(void)
{
	struct buf b = { .n = 0 };
	/* code alignment 4 scales every advance except set_loc */
	size_t cie = b.n;
	bn(&b, 0, 4); bn(&b, 0, 4); b8(&b, 3);
	bbytes(&b, (const uint8_t *)"zR", 3);
	buleb(&b, 4); bsleb(&b, -8); buleb(&b, 16);   /* version 3: RA column is a uleb */
	buleb(&b, 1); b8(&b, 0x03);
	bbytes(&b, init_insns, sizeof(init_insns));
	close32(&b, cie);
	const uint8_t in[] = {
		0x02, 1, 0x0e, 16,                        /* +4 */
		0x03, 2, 0, 0x0e, 24,                     /* +12 */
		0x04, 4, 0, 0, 0, 0x0e, 32,               /* +28 */
		0x1d, 1, 0, 0, 0, 0, 0, 0, 0, 0x0e, 40,   /* +32 */
		0x01, 0x40, 0x10, 0, 0, 0x0e, 48,         /* set_loc 0x1040 */
		0x01, 0x30, 0x10, 0, 0,                   /* set_loc backwards: stop */
	};
	eh_fde(&b, cie, 0x1000, 0x100, in, sizeof(in));
	struct cfi_table t = parse(&b, 0, 0);
	NORMAL(&t, 0x1003, RSP, 8);
	NORMAL(&t, 0x1004, RSP, 16);
	NORMAL(&t, 0x100c, RSP, 24);
	NORMAL(&t, 0x101c, RSP, 32);
	NORMAL(&t, 0x1020, RSP, 40);
	NORMAL(&t, 0x103f, RSP, 40);
	/* the row at 0x1040 is not final when set_loc fails, so coverage ends there */
	KIND(&t, 0x1040, CFI_ROW_END, -1);
	CHECK_INT(t.counts_by_reason[CFI_R_LOCATION], 1);
	cfi_free(&t);
}

/* Instructions past the FDE's range are ignored; the range's end is END. */
static void test_advance_past_end(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t in[] = { 0x41, 0x0e, 16, 0x7f, 0x0e, 99, 0x04, 0xff, 0xff, 0xff, 0xff, 0x3f };
	eh_fde(&b, cie, 0x1000, 0x10, in, sizeof(in));
	const uint8_t wrap[] = { 0x1d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	eh_fde(&b, cie, 0x2000, 0x10, wrap, sizeof(wrap));
	struct cfi_table t = parse(&b, 0, 0);
	NORMAL(&t, 0x100f, RSP, 16);
	KIND(&t, 0x1010, CFI_ROW_END, -1);
	CHECK_INT(t.counts_by_reason[CFI_R_OPCODE], 0);
	KIND(&t, 0x2000, CFI_ROW_END, -1);              /* overflow at the first location */
	CHECK_INT(t.counts_by_reason[CFI_R_LOCATION], 1);
	cfi_free(&t);
}

static void test_signal_frame(void)
{
	struct buf b = { .n = 0 };
	size_t cie = eh_cie(&b, "zRS", enc_udata4, 1, init_insns, sizeof(init_insns));
	/* glibc's __restore_rt: CFA = *(rsp+160), registers from the ucontext */
	const uint8_t in[] = { 0x0f, 4, 0x77, 0xa0, 0x01, 0x06, 0x10, 16, 2, 0x77, 0x28 };
	eh_fde(&b, cie, 0x1000, 0x10, in, sizeof(in));
	size_t cie2 = eh_cie(&b, "zRS", enc_udata4, 1, init_insns, sizeof(init_insns));
	eh_fde(&b, cie2, 0x2000, 0x10, NULL, 0);
	struct cfi_table t = parse(&b, 0, 0);
	const struct cfi_row *r = cfi_lookup(&t, 0x1000);
	CHECK(r && r->kind == CFI_ROW_NORMAL && r->signal && r->reason == 0);
	r = cfi_lookup(&t, 0x2005);
	CHECK(r && r->kind == CFI_ROW_NORMAL && r->signal && r->cfa_off == 8);
	CHECK_INT(t.counts_by_reason[CFI_R_CFA_EXPR], 0);
	cfi_free(&t);
}

/* "zPLR" with a pc-relative personality, LSDA pointer in the FDE, pc-relative FDE pointers. */
static void test_augmentation_and_pcrel(void)
{
	struct buf b = { .n = 0 };
	const uint8_t ad[] = { 0x9b, 0x10, 0, 0, 0, 0x1b, 0x1b };   /* P: indirect pcrel sdata4 */
	size_t cie = eh_cie(&b, "zPLR", ad, sizeof(ad), init_insns, sizeof(init_insns));
	uint64_t vaddr = 0x400000;
	size_t at = b.n;
	bn(&b, 0, 4);
	bn(&b, b.n - cie, 4);
	uint64_t field = vaddr + b.n;
	bn(&b, (uint32_t)(int32_t)(0x401000 - (int64_t)field), 4);  /* pc_begin, pcrel */
	bn(&b, 0x20, 4);                                             /* range */
	buleb(&b, 4); bn(&b, 0x1234, 4);                             /* LSDA */
	b8(&b, 0x44); b8(&b, 0x0e); b8(&b, 16);
	close32(&b, at);
	/* "zR" with datarel: the FDE cannot be placed, so it is skipped and counted */
	const uint8_t dr[] = { 0x33 };
	size_t cie2 = eh_cie(&b, "zR", dr, 1, init_insns, sizeof(init_insns));
	eh_fde(&b, cie2, 0x5000, 0x10, NULL, 0);
	/* an augmentation without 'z' cannot be skipped */
	size_t cie3 = eh_cie(&b, "eh", NULL, 0, init_insns, sizeof(init_insns));
	eh_fde(&b, cie3, 0x6000, 0x10, NULL, 0);
	struct cfi_table t = parse(&b, vaddr, 0);
	NORMAL(&t, 0x401000, RSP, 8);
	NORMAL(&t, 0x401004, RSP, 16);
	KIND(&t, 0x401020, CFI_ROW_END, -1);
	CHECK_INT(t.counts_by_reason[CFI_R_ENCODING], 1);
	CHECK_INT(t.counts_by_reason[CFI_R_AUGMENTATION], 1);
	CHECK_INT(t.counts_by_reason[CFI_R_BAD_CIE], 1);
	CHECK(cfi_lookup(&t, 0x5000) == NULL || cfi_lookup(&t, 0x5000)->kind == CFI_ROW_END);
	cfi_free(&t);
}

static void test_pointer_encodings(void)
{
	/* value formats: udata2, sdata2, uleb, sleb, udata8, absptr, sdata8 and aligned */
	const uint8_t encs[] = { 0x02, 0x0a, 0x01, 0x09, 0x04, 0x00, 0x0c, 0x50 };
	for (size_t i = 0; i < sizeof(encs); i++) {
		struct buf b = { .n = 0 };
		size_t cie = eh_cie(&b, "zR", &encs[i], 1, init_insns, sizeof(init_insns));
		size_t at = b.n;
		bn(&b, 0, 4);
		bn(&b, b.n - cie, 4);
		switch (encs[i] & 0x0f) {
		case 0x02: case 0x0a: bn(&b, 0x3000, 2); bn(&b, 0x10, 2); break;
		case 0x01: buleb(&b, 0x3000); buleb(&b, 0x10); break;
		case 0x09: bsleb(&b, 0x3000); bsleb(&b, 0x10); break;
		default:
			if (encs[i] == 0x50)
				while ((b.n + 0x100) % 8)
					b8(&b, 0xee);
			bn(&b, 0x3000, 8); bn(&b, 0x10, 8);
		}
		buleb(&b, 0);
		close32(&b, at);
		struct cfi_table t = parse(&b, 0x100, 0);
		NORMAL(&t, 0x3000, RSP, 8);
		KIND(&t, 0x3010, CFI_ROW_END, -1);
		if (check_failed)
			printf("  encoding 0x%02x\n", encs[i]);
		cfi_free(&t);
	}
}

/* .debug_frame: CIE id all-ones, absolute CIE offsets, versions 1/3/4, 64-bit entries. */
static void test_debug_frame(void)
{
	struct buf b = { .n = 0 };
	size_t cie = b.n;                               /* 32-bit, version 1 */
	bn(&b, 0, 4); bn(&b, 0xffffffff, 4); b8(&b, 1); b8(&b, 0);
	buleb(&b, 1); bsleb(&b, -8); b8(&b, 16);
	bbytes(&b, init_insns, sizeof(init_insns));
	close32(&b, cie);
	size_t cie4 = b.n;                              /* 32-bit, version 4 */
	bn(&b, 0, 4); bn(&b, 0xffffffff, 4); b8(&b, 4); b8(&b, 0); b8(&b, 8); b8(&b, 0);
	buleb(&b, 1); bsleb(&b, -8); buleb(&b, 16);
	bbytes(&b, init_insns, sizeof(init_insns));
	close32(&b, cie4);
	size_t f = b.n;
	bn(&b, 0, 4); bn(&b, cie, 4); bn(&b, 0x10000, 8); bn(&b, 0x40, 8);
	b8(&b, 0x44); b8(&b, 0x0e); b8(&b, 16);
	close32(&b, f);
	f = b.n;
	bn(&b, 0, 4); bn(&b, cie4, 4); bn(&b, 0x10040, 8); bn(&b, 0x40, 8);
	b8(&b, 0x48); b8(&b, 0x0e); b8(&b, 32);
	close32(&b, f);
	bn(&b, 0, 4);                                   /* a zero word is skipped, not an end */
	size_t cie64 = b.n;                             /* 64-bit CIE, version 3 */
	bn(&b, 0xffffffff, 4); size_t l64 = b.n; bn(&b, 0, 8);
	bn(&b, ~0ull, 8); b8(&b, 3); b8(&b, 0);
	buleb(&b, 1); bsleb(&b, -8); buleb(&b, 16);
	bbytes(&b, init_insns, sizeof(init_insns));
	patch32(&b, l64, (uint32_t)(b.n - l64 - 8));
	size_t f64 = b.n;
	bn(&b, 0xffffffff, 4); l64 = b.n; bn(&b, 0, 8);
	bn(&b, cie64, 8); bn(&b, 0x20000, 8); bn(&b, 0x10, 8);
	b8(&b, 0x42); b8(&b, 0x0e); b8(&b, 48);
	patch32(&b, l64, (uint32_t)(b.n - l64 - 8));
	(void)f64;
	struct cfi_table t = parse(&b, 0, 1);
	NORMAL(&t, 0x10000, RSP, 8);
	NORMAL(&t, 0x10004, RSP, 16);
	NORMAL(&t, 0x10040, RSP, 8);
	NORMAL(&t, 0x10048, RSP, 32);
	KIND(&t, 0x10080, CFI_ROW_END, -1);
	NORMAL(&t, 0x20001, RSP, 8);
	NORMAL(&t, 0x20002, RSP, 48);
	KIND(&t, 0x20010, CFI_ROW_END, -1);
	CHECK_INT(t.n_cie, 3);
	CHECK_INT(t.n_fde, 3);
	/* the same bytes read as .eh_frame make no sense: no rows, no crash */
	struct cfi_table e = parse(&b, 0, 0);
	CHECK(well_formed(&e));
	cfi_free(&e);
	cfi_free(&t);
}

/* .eh_frame with a 64-bit length (CIE pointer stays 4 bytes), and the zero terminator. */
static void test_eh64_and_terminator(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	size_t at = b.n;
	bn(&b, 0xffffffff, 4); size_t l = b.n; bn(&b, 0, 8);
	bn(&b, b.n - cie, 4); bn(&b, 0x1000, 4); bn(&b, 0x10, 4); buleb(&b, 0);
	b8(&b, 0x41); b8(&b, 0x0e); b8(&b, 16);
	patch32(&b, l, (uint32_t)(b.n - l - 8));
	(void)at;
	bn(&b, 0, 4);                                   /* terminator */
	eh_fde(&b, cie, 0x2000, 0x10, NULL, 0);         /* never reached */
	struct cfi_table t = parse(&b, 0, 0);
	NORMAL(&t, 0x1001, RSP, 16);
	KIND(&t, 0x1010, CFI_ROW_END, -1);
	KIND(&t, 0x2000, CFI_ROW_END, -1);
	CHECK_INT(t.n_fde, 1);
	cfi_free(&t);
}

static void test_gaps_overlaps_merges(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	const uint8_t grow[] = { 0x41, 0x0e, 16 };
	eh_fde(&b, cie, 0x3000, 0x10, grow, sizeof(grow));    /* out of order on purpose */
	eh_fde(&b, cie, 0x1000, 0x10, NULL, 0);
	eh_fde(&b, cie, 0x1010, 0x10, NULL, 0);               /* adjacent, same rules: merged */
	eh_fde(&b, cie, 0x1018, 0x10, grow, sizeof(grow));    /* overlaps: dropped */
	eh_fde(&b, cie, 0x2000, 0, NULL, 0);                  /* empty: ignored */
	eh_fde(&b, cie, 0x3010, 0x10, NULL, 0);               /* adjacent, different: kept */
	struct cfi_table t = parse(&b, 0, 0);
	CHECK(well_formed(&t));
	NORMAL(&t, 0x1000, RSP, 8);
	NORMAL(&t, 0x101f, RSP, 8);
	KIND(&t, 0x1020, CFI_ROW_END, -1);
	NORMAL(&t, 0x3001, RSP, 16);
	NORMAL(&t, 0x3010, RSP, 8);
	KIND(&t, 0x3020, CFI_ROW_END, -1);
	CHECK_INT(t.counts_by_reason[CFI_R_OVERLAP], 1);
	/* rows: 0x1000, END 0x1020, 0x3000, 0x3001, 0x3010, END 0x3020 */
	CHECK_INT(t.n, 6);
	cfi_free(&t);
}

/* .eh_frame then .debug_frame for the same functions: the first section's FDE wins. */
static void test_two_sections(void)
{
	struct buf eh = { .n = 0 }, dbg = { .n = 0 };
	size_t cie = std_cie(&eh);
	const uint8_t grow[] = { 0x41, 0x0e, 16 };
	eh_fde(&eh, cie, 0x1000, 0x10, grow, sizeof(grow));
	size_t dc = dbg.n;
	bn(&dbg, 0, 4); bn(&dbg, 0xffffffff, 4); b8(&dbg, 1); b8(&dbg, 0);
	buleb(&dbg, 1); bsleb(&dbg, -8); b8(&dbg, 16);
	bbytes(&dbg, init_insns, sizeof(init_insns));
	close32(&dbg, dc);
	for (uint64_t start = 0x1000; start <= 0x2000; start += 0x1000) {
		size_t f = dbg.n;
		bn(&dbg, 0, 4); bn(&dbg, dc, 4); bn(&dbg, start, 8); bn(&dbg, 0x10, 8);
		b8(&dbg, 0x42); b8(&dbg, 0x0e); b8(&dbg, 32);
		close32(&dbg, f);
	}
	struct cfi_table t = { 0 };
	CHECK_INT(cfi_parse(&t, eh.b, eh.n, 0, 0), 0);
	CHECK_INT(cfi_parse(&t, dbg.b, dbg.n, 0, 1), 0);
	CHECK_INT(cfi_finish(&t), 0);
	NORMAL(&t, 0x1001, RSP, 16);            /* from .eh_frame */
	NORMAL(&t, 0x2002, RSP, 32);            /* only in .debug_frame */
	CHECK_INT(t.counts_by_reason[CFI_R_OVERLAP], 1);
	CHECK(well_formed(&t));
	cfi_free(&t);
}

/* A CIE with an absurd amount of initial instructions is refused. */
static void test_cie_cap(void)
{
	struct buf b = { .n = 0 };
	uint8_t nops[300] = { 0x0c, DW_SP, 8, 0x90, 1 };
	size_t cie = eh_cie(&b, "zR", enc_udata4, 1, nops, sizeof(nops));
	eh_fde(&b, cie, 0x1000, 0x10, NULL, 0);
	size_t ok = eh_cie(&b, "zR", enc_udata4, 1, nops, 200);
	eh_fde(&b, ok, 0x2000, 0x10, NULL, 0);
	struct cfi_table t = parse(&b, 0, 0);
	CHECK_INT(t.counts_by_reason[CFI_R_TOO_MANY], 1);
	CHECK_INT(t.counts_by_reason[CFI_R_BAD_CIE], 1);
	CHECK(cfi_lookup(&t, 0x1000) == NULL);
	NORMAL(&t, 0x2000, RSP, 8);
	cfi_free(&t);
}

/* An FDE with more rows than CFI_MAX_ROWS: parsing stops with -1, TOO_MANY is counted, and
 * what was parsed before stays usable. */
static void test_row_cap(void)
{
	size_t per = 4, n = (size_t)CFI_MAX_ROWS + 16;
	size_t size = 64 + n * per;
	uint8_t *sec = malloc(size);
	CHECK(sec != NULL);
	if (!sec)
		return;
	struct buf head = { .n = 0 };
	size_t cie = std_cie(&head);
	eh_fde(&head, cie, 0x1000, 0x10, NULL, 0);
	size_t at = head.n;                     /* the huge FDE, written by hand after head */
	bn(&head, 0, 4); bn(&head, head.n - cie, 4); bn(&head, 0x100000, 4); bn(&head, 0x7fffffff, 4);
	buleb(&head, 0);
	memcpy(sec, head.b, head.n);
	size_t len = head.n;
	for (size_t i = 0; i < n; i++) {        /* advance 1; def_cfa_offset 16 or 24; nop */
		sec[len++] = 0x41; sec[len++] = 0x0e; sec[len++] = (i & 1) ? 16 : 24; sec[len++] = 0;
	}
	uint32_t flen = (uint32_t)(len - at - 4);
	memcpy(sec + at, &flen, 4);
	struct cfi_table t = { 0 };
	CHECK_INT(cfi_parse(&t, sec, len, 0, 0), -1);
	CHECK_INT(t.counts_by_reason[CFI_R_TOO_MANY], 1);
	CHECK_INT(cfi_finish(&t), 0);
	NORMAL(&t, 0x1000, RSP, 8);
	KIND(&t, 0x1010, CFI_ROW_END, -1);
	CHECK(cfi_lookup(&t, 0x100000) == NULL || cfi_lookup(&t, 0x100000)->kind == CFI_ROW_END);
	cfi_free(&t);
	free(sec);
}

static void test_bogus_entries(void)
{
	struct buf b = { .n = 0 };
	size_t cie = std_cie(&b);
	/* CIE pointer before the section, to itself, and into the middle of an FDE */
	size_t at = b.n;
	bn(&b, 0, 4); bn(&b, 0x7fffffff, 4); bn(&b, 0x1000, 4); bn(&b, 0x10, 4); b8(&b, 0);
	close32(&b, at);
	at = b.n;
	bn(&b, 0, 4); bn(&b, 4, 4); bn(&b, 0x2000, 4); bn(&b, 0x10, 4); b8(&b, 0);
	close32(&b, at);
	at = b.n;
	bn(&b, 0, 4); bn(&b, b.n - at - 2, 4); bn(&b, 0x3000, 4); bn(&b, 0x10, 4); b8(&b, 0);
	close32(&b, at);
	/* CIE with bad version, one with a huge code alignment, one whose 'z' length overruns */
	size_t v9 = b.n;
	bn(&b, 0, 4); bn(&b, 0, 4); b8(&b, 9); b8(&b, 0); buleb(&b, 1); bsleb(&b, -8); b8(&b, 16);
	close32(&b, v9);
	eh_fde(&b, v9, 0x4000, 0x10, NULL, 0);
	size_t ca = b.n;
	bn(&b, 0, 4); bn(&b, 0, 4); b8(&b, 1); b8(&b, 0); buleb(&b, 1u << 20); bsleb(&b, -8); b8(&b, 16);
	close32(&b, ca);
	eh_fde(&b, ca, 0x5000, 0x10, NULL, 0);
	size_t zl = b.n;
	bn(&b, 0, 4); bn(&b, 0, 4); b8(&b, 1); bbytes(&b, (const uint8_t *)"zR", 3);
	buleb(&b, 1); bsleb(&b, -8); b8(&b, 16); buleb(&b, 200); b8(&b, 3);
	close32(&b, zl);
	eh_fde(&b, zl, 0x6000, 0x10, NULL, 0);
	/* LEB128 that never ends, unknown opcode, wrapping pc range, FDE aug length overrun */
	const uint8_t leb[] = { 0x41, 0x0e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
	eh_fde(&b, cie, 0x7000, 0x10, leb, sizeof(leb));
	const uint8_t unk[] = { 0x41, 0x0e, 16, 0x42, 0x3c, 0x0e, 24 };
	eh_fde(&b, cie, 0x8000, 0x10, unk, sizeof(unk));
	eh_fde(&b, cie, 0xfffffff0, 0xffffffff, NULL, 0);
	at = b.n;
	bn(&b, 0, 4); bn(&b, b.n - cie, 4); bn(&b, 0x9000, 4); bn(&b, 0x10, 4); buleb(&b, 100);
	close32(&b, at);
	/* finally an entry whose length runs past the section */
	bn(&b, 0x7ffffff0, 4); bn(&b, 0, 4);
	struct cfi_table t = parse(&b, 0, 0);
	CHECK(well_formed(&t));
	CHECK_INT(t.counts_by_reason[CFI_R_BAD_CIE], 6);
	CHECK_INT(t.counts_by_reason[CFI_R_CIE_VERSION], 2);
	CHECK_INT(t.counts_by_reason[CFI_R_TRUNCATED], 4);
	CHECK_INT(t.counts_by_reason[CFI_R_OPCODE], 1);
	NORMAL(&t, 0x7000, RSP, 8);
	KIND(&t, 0x7001, CFI_ROW_END, -1);
	NORMAL(&t, 0x8001, RSP, 16);
	KIND(&t, 0x8003, CFI_ROW_END, -1);
	for (uint64_t pc = 0x1000; pc <= 0x6000; pc += 0x1000)
		CHECK(cfi_lookup(&t, pc) == NULL || cfi_lookup(&t, pc)->kind == CFI_ROW_END);
	cfi_free(&t);
}

/* A small but complete section: three CIE kinds and FDEs using most opcodes. */
static void build_sample(struct buf *b)
{
	size_t cie = std_cie(b);
	const uint8_t a[] = { 0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x60, 0x0c, 7, 8, 0xc6 };
	eh_fde(b, cie, 0x1000, 0x30, a, sizeof(a));
	const uint8_t c[] = { 0x41, 0x0e, 16, 0x44, 0x0a, 0x0e, 8, 0x41, 0x0b, 0x10, 3, 2, 0x77, 0 };
	eh_fde(b, cie, 0x1040, 0x30, c, sizeof(c));
	const uint8_t plt[] = { 0x0e, 16, 0x46, 0x0e, 24, 0x4a, 0x0f, 11, 0x77, 8, 0x80, 0,
				0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 };
	eh_fde(b, cie, 0x900, 0x40, plt, sizeof(plt));
	size_t sig = eh_cie(b, "zRS", enc_udata4, 1, init_insns, sizeof(init_insns));
	eh_fde(b, sig, 0x2000, 0x8, NULL, 0);
	const uint8_t ad[] = { 0x9b, 0x10, 0, 0, 0, 0x1b, 0x1b };
	size_t p = eh_cie(b, "zPLR", ad, sizeof(ad), init_insns, sizeof(init_insns));
	size_t at = b->n;
	bn(b, 0, 4); bn(b, b->n - p, 4); bn(b, (uint32_t)(0x3000 - b->n), 4); bn(b, 0x20, 4);
	buleb(b, 4); bn(b, 0, 4); b8(b, 0x41); b8(b, 0x07); b8(b, 16);
	close32(b, at);
	bn(b, 0, 4);
}

/* Every prefix of a valid section, and every single-byte corruption of it, parses without
 * harm into a well-formed table. (The fuzzer runs the same under ASan.) */
static void test_truncation_and_corruption(void)
{
	struct buf full = { .n = 0 };
	build_sample(&full);
	struct cfi_table ref = parse(&full, 0, 0);
	CHECK(ref.n > 8);
	KIND(&ref, 0x910, CFI_ROW_PLT1, -1);
	KIND(&ref, 0x3001, CFI_ROW_STOP, -1);
	CHECK(cfi_lookup(&ref, 0x2000) && cfi_lookup(&ref, 0x2000)->signal);
	size_t bad = 0;
	for (size_t len = 0; len <= full.n; len++) {
		uint8_t *copy = malloc(len ? len : 1);   /* exact size: overreads hit the heap end */
		memcpy(copy, full.b, len);
		struct cfi_table t = { 0 };
		if (cfi_parse(&t, copy, len, 0, 0) || cfi_finish(&t) || !well_formed(&t))
			bad++;
		cfi_free(&t);
		free(copy);
	}
	for (size_t i = 0; i < full.n; i++) {
		for (int v = 0; v < 3; v++) {
			struct buf m = full;
			m.b[i] = v == 0 ? 0xff : v == 1 ? 0x00 : (uint8_t)(m.b[i] ^ 0x41);
			struct cfi_table t = { 0 };
			if (cfi_parse(&t, m.b, m.n, 0, v == 2) || cfi_finish(&t) || !well_formed(&t))
				bad++;
			cfi_free(&t);
		}
	}
	CHECK_INT(bad, 0);
	cfi_free(&ref);
}

static void test_names(void)
{
	for (int r = 0; r < CFI_R_COUNT; r++)
		CHECK(strcmp(cfi_reason_name(r), "unknown") != 0);
	for (int k = CFI_ROW_NORMAL; k <= CFI_ROW_PLT4; k++)
		CHECK(strcmp(cfi_kind_name(k), "unknown") != 0);
	CHECK_STR(cfi_reason_name(CFI_R_COUNT), "unknown");
	CHECK_STR(cfi_reason_name(-1), "unknown");
	CHECK_STR(cfi_kind_name(CFI_ROW_PLT4), "plt4");
	CHECK_STR(cfi_kind_name(CFI_ROW_PLT1), "plt1");
	CHECK_STR(cfi_kind_name(CFI_ROW_INVALID), "invalid");
	CHECK_STR(cfi_kind_name(99), "unknown");
#ifdef LF_ARCH_ARM64
	CHECK_INT(sizeof(struct cfi_row), 32);      /* ten save slots, x19..x28 */
#else
	CHECK_INT(sizeof(struct cfi_row), 24);
#endif
}

#ifndef LF_ARCH_ARM64
/* ------------------------------------------------------------------ real files vs readelf */

struct elf_file {
	uint8_t *data;
	size_t size;
};

static int load_file(const char *path, struct elf_file *f)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return -1;
	f->data = NULL;
	f->size = 0;
	size_t cap = 0;
	for (;;) {
		if (f->size == cap) {
			if (cap >= (1u << 30))
				break;
			cap = cap ? cap * 2 : 1 << 20;
			uint8_t *d = realloc(f->data, cap);
			if (!d)
				break;
			f->data = d;
		}
		size_t got = fread(f->data + f->size, 1, cap - f->size, fp);
		if (!got)
			break;
		f->size += got;
	}
	fclose(fp);
	return f->data ? 0 : -1;
}

/* Finds section `name` in an ELF64 file: returns its bytes and address, or NULL. */
static const uint8_t *elf_section(const struct elf_file *f, const char *name, size_t *len,
				  uint64_t *addr)
{
	Elf64_Ehdr eh;
	if (f->size < sizeof(eh))
		return NULL;
	memcpy(&eh, f->data, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > f->size ||
	    (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > f->size - eh.e_shoff ||
	    eh.e_shstrndx >= eh.e_shnum)
		return NULL;
	Elf64_Shdr strs, sh;
	memcpy(&strs, f->data + eh.e_shoff + eh.e_shstrndx * sizeof(sh), sizeof(sh));
	if (strs.sh_offset > f->size || strs.sh_size > f->size - strs.sh_offset)
		return NULL;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		memcpy(&sh, f->data + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_name >= strs.sh_size || sh.sh_type == SHT_NOBITS)
			continue;
		const char *n = (const char *)f->data + strs.sh_offset + sh.sh_name;
		size_t room = strs.sh_size - sh.sh_name;
		if (strnlen(n, room) == room || strcmp(n, name))
			continue;
		if (sh.sh_offset > f->size || sh.sh_size > f->size - sh.sh_offset)
			return NULL;
		*len = sh.sh_size;
		*addr = sh.sh_addr;
		return f->data + sh.sh_offset;
	}
	return NULL;
}

/* What readelf says about one row, reduced to what the unwinder can use. */
struct want {
	int kind;            /* CFI_ROW_NORMAL, STOP, INVALID, or -1 for "a PLT or cfa-expression" */
	int reg, off, fp_rule, fp_off, reason, signal;
};

static int parse_reg_off(const char *s, int *reg, int *off)
{
	static const char *const names[] = { "rsp", "rbp", "rbx", "r12", "r13", "r14", "r15" };
	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
		if (strncmp(s, names[i], 3) || (s[3] != '+' && s[3] != '-'))
			continue;
		*reg = CFI_REG_SP + i; /* same order as the CFI_REG_* values */
		*off = (int)strtol(s + 3, NULL, 10);
		return 1;
	}
	return 0;
}

/* Mirrors the row semantics of cfi.h from readelf's CFA / rbp / ra cells. */
static struct want want_from(const char *cfa, const char *rbp, const char *ra, int signal)
{
	struct want w = { .kind = CFI_ROW_NORMAL, .signal = signal };
	if (signal)
		return w;
	if (ra && !strcmp(ra, "u")) {
		w.kind = CFI_ROW_STOP;
		return w;
	}
	if (!strcmp(cfa, "exp")) {
		w.kind = -1;
		w.reason = CFI_R_CFA_EXPR;
		return w;
	}
	if (!parse_reg_off(cfa, &w.reg, &w.off)) {
		w.kind = CFI_ROW_INVALID;
		w.reason = CFI_R_CFA_REG;
		return w;
	}
	if (!ra || strcmp(ra, "c-8")) {
		w.kind = CFI_ROW_INVALID;
		w.reason = CFI_R_RA_RULE;
		return w;
	}
	if (rbp && rbp[0] == 'c' && (rbp[1] == '-' || rbp[1] == '+')) {
		w.fp_rule = CFI_FP_OFFSET;
		w.fp_off = (int)strtol(rbp + 1, NULL, 10);
	} else if (rbp && strcmp(rbp, "u") && strcmp(rbp, "s")) {
		w.kind = CFI_ROW_INVALID;
		w.reason = CFI_R_FP_RULE;
	}
	return w;
}

static int row_matches(const struct cfi_row *r, const struct want *w)
{
	if (!r)
		return 0;
	if (w->signal)
		return r->signal && r->kind == CFI_ROW_NORMAL;
	if (r->signal)
		return 0;
	if (w->kind == -1)
		return is_plt(r) ||
		       (r->kind == CFI_ROW_INVALID && r->reason == CFI_R_CFA_EXPR);
	if (r->kind != w->kind)
		return 0;
	if (w->kind == CFI_ROW_INVALID)
		return r->reason == w->reason;
	if (w->kind != CFI_ROW_NORMAL)
		return 1;
	return r->cfa_reg == w->reg && r->cfa_off == w->off && r->fp_rule == w->fp_rule &&
	       (w->fp_rule == CFI_FP_SAME || r->fp_off == w->fp_off);
}

#define MAX_CIES 256
#define MAX_COLS 40

struct cmp {
	const struct cfi_table *t;
	const char *what;
	size_t checked, mismatches, fdes, plt_rows;
	/* CIEs seen in the current section: offset, signal flag, initial row */
	uint64_t cie_off[MAX_CIES];
	int cie_signal[MAX_CIES];
	struct want cie_row[MAX_CIES];
	size_t ncie;
	/* the FDE being read */
	int in_fde, cur_cie, rows_in_fde, cur_signal, ncols;
	uint64_t lo, hi, prev_loc;
	struct want prev;
	char cols[MAX_COLS][8];
};

static void report(struct cmp *c, uint64_t pc, const struct want *w, const struct cfi_row *r)
{
	c->mismatches++;
	if (c->mismatches > 10)
		return;
	printf("  %s: 0x%" PRIx64 ": readelf kind=%d reg=%d off=%d rbp=%d/%d sig=%d; "
	       "we have %s/%s reg=%d off=%d rbp=%d/%d sig=%d\n", c->what, pc, w->kind, w->reg,
	       w->off, w->fp_rule, w->fp_off, w->signal, r ? cfi_kind_name(r->kind) : "none",
	       r ? cfi_reason_name(r->reason) : "-", r ? r->cfa_reg : 0, r ? r->cfa_off : 0,
	       r ? r->fp_rule : 0, r ? r->fp_off : 0, r ? r->signal : 0);
}

static void check_pc(struct cmp *c, uint64_t pc, const struct want *w)
{
	const struct cfi_row *r = cfi_lookup(c->t, pc);
	c->checked++;
	if (!row_matches(r, w))
		report(c, pc, w, r);
	else if (is_plt(r))
		c->plt_rows++;
}

/* The rule of the previous row holds up to the byte before the next row (or the FDE end). */
static void close_span(struct cmp *c, uint64_t next)
{
	if (c->rows_in_fde && next > c->prev_loc)
		check_pc(c, next - 1, &c->prev);
}

static void end_fde(struct cmp *c)
{
	if (!c->in_fde)
		return;
	if (c->rows_in_fde == 0 && c->cur_cie >= 0 && c->lo < c->hi) {
		/* no instructions: readelf prints nothing, the CIE's row applies throughout */
		check_pc(c, c->lo, &c->cie_row[c->cur_cie]);
		check_pc(c, c->hi - 1, &c->cie_row[c->cur_cie]);
	} else {
		close_span(c, c->hi);
	}
	c->in_fde = 0;
}

static void on_header(struct cmp *c, char *line)
{
	c->ncols = 0;
	for (char *tok = strtok(line, " \n"); tok && c->ncols < MAX_COLS; tok = strtok(NULL, " \n")) {
		snprintf(c->cols[c->ncols], sizeof(c->cols[0]), "%s", tok);
		c->ncols++;
	}
}

static void on_row(struct cmp *c, char *line, int in_cie)
{
	char *tok[MAX_COLS];
	int n = 0;
	for (char *s = strtok(line, " \n"); s && n < MAX_COLS; s = strtok(NULL, " \n")) {
		if (s[0] == '(' && n > 0)
			continue;           /* "r9 (r9)": register rule, name in parentheses */
		tok[n++] = s;
	}
	if (n < 2 || n != c->ncols)
		return;
	const char *rbp = NULL, *ra = NULL;
	for (int i = 2; i < n; i++) {
		if (!strcmp(c->cols[i], "rbp"))
			rbp = tok[i];
		if (!strcmp(c->cols[i], "ra"))
			ra = tok[i];
	}
	uint64_t loc = strtoull(tok[0], NULL, 16);
	struct want w = want_from(tok[1], rbp, ra, in_cie ? c->cie_signal[c->ncie - 1] : c->cur_signal);
	if (in_cie) {
		c->cie_row[c->ncie - 1] = w;
		return;
	}
	if (!c->in_fde || loc < c->lo || loc >= c->hi)
		return;
	close_span(c, loc);
	check_pc(c, loc, &w);
	c->prev = w;
	c->prev_loc = loc;
	c->rows_in_fde++;
}

static void on_entry(struct cmp *c, const char *line, int *in_cie)
{
	const char *p;
	end_fde(c);
	*in_cie = 0;
	if (strstr(line, " CIE") && c->ncie < MAX_CIES) {
		c->cie_off[c->ncie] = strtoull(line, NULL, 16);
		p = strchr(line, '"');
		const char *q = p ? strchr(p + 1, '"') : NULL;
		c->cie_signal[c->ncie] = p && q && memchr(p, 'S', (size_t)(q - p)) != NULL;
		struct want none = { .kind = CFI_ROW_INVALID, .reason = CFI_R_CFA_REG };
		c->cie_row[c->ncie] = none;
		c->ncie++;
		*in_cie = 1;
		return;
	}
	if (!(p = strstr(line, " FDE cie=")))
		return;
	uint64_t cie = strtoull(p + 9, NULL, 16);
	const char *pc = strstr(line, "pc=");
	if (!pc || !strstr(pc, ".."))
		return;
	c->lo = strtoull(pc + 3, NULL, 16);
	c->hi = strtoull(strstr(pc, "..") + 2, NULL, 16);
	c->cur_cie = -1;
	for (size_t i = 0; i < c->ncie; i++)
		if (c->cie_off[i] == cie)
			c->cur_cie = (int)i;
	c->cur_signal = c->cur_cie >= 0 && c->cie_signal[c->cur_cie];
	c->in_fde = 1;
	c->rows_in_fde = 0;
	c->fdes++;
}

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr("0123456789abcdef", s[i]))
			return 0;
	return 1;
}

/* Reads readelf's frames-interp for section `sec` of `path` and checks every row. */
static void compare_readelf(const char *path, const char *sec, struct cmp *c)
{
	char cmd[600], line[2048], want_hdr[64];
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	snprintf(want_hdr, sizeof(want_hdr), "Contents of the %s section", sec);
	FILE *p = popen(cmd, "r");
	if (!p) {
		printf("  cannot run readelf\n");
		check_failed++;
		return;
	}
	int active = 0, in_cie = 0;
	while (fgets(line, sizeof(line), p)) {
		if (!strncmp(line, "Contents of the ", 16)) {
			end_fde(c);
			active = strstr(line, want_hdr) != NULL;
			c->ncie = 0;
			continue;
		}
		if (!active)
			continue;
		if (strstr(line, "   LOC ")) {
			on_header(c, line);
		} else if (is_hex(line, 8) && line[8] == ' ' && !is_hex(line, 16)) {
			on_entry(c, line, &in_cie);
		} else if (is_hex(line, 16) && line[16] == ' ') {
			on_row(c, line, in_cie);
		}
	}
	end_fde(c);
	pclose(p);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Parses section `sec` of `path` and compares it with readelf. Returns PLT rows seen. */
static size_t compare_file(const char *path, const char *sec, int must_exist)
{
	struct elf_file f;
	size_t len, plt = 0;
	uint64_t addr;
	if (load_file(path, &f)) {
		if (must_exist) {
			printf("  cannot read %s\n", path);
			check_failed++;
		}
		return 0;
	}
	const uint8_t *bytes = elf_section(&f, sec, &len, &addr);
	if (!bytes) {
		if (must_exist) {
			printf("  %s has no %s\n", path, sec);
			check_failed++;
		}
		free(f.data);
		return 0;
	}
	struct cfi_table t = { 0 };
	double t0 = now_ms();
	CHECK_INT(cfi_parse(&t, bytes, len, addr, !strcmp(sec, ".debug_frame")), 0);
	CHECK_INT(cfi_finish(&t), 0);
	double ms = now_ms() - t0;
	CHECK(well_formed(&t));
	struct cmp c = { .t = &t, .what = path };
	compare_readelf(path, sec, &c);
	size_t skipped = 0;
	for (int r = CFI_R_TRUNCATED; r < CFI_R_COUNT; r++)
		skipped += t.counts_by_reason[r];
	printf("  %s %s: %zu bytes, %zu FDEs, %zu rows (%zu bytes) in %.2f ms; %zu readelf FDEs, "
	       "%zu points checked, %zu PLT rows, %zu mismatches, %zu entries skipped\n",
	       path, sec, len, t.n_fde, t.n, t.n * sizeof(struct cfi_row), ms, c.fdes, c.checked,
	       c.plt_rows, c.mismatches, skipped);
	CHECK(c.fdes > 0 && c.checked >= c.fdes);
	CHECK_INT(c.mismatches, 0);
	CHECK_INT(skipped, 0);
	plt = c.plt_rows;
	cfi_free(&t);
	free(f.data);
	return plt;
}

/* Reports the row of .plt+16 (the first PLT entry, past PLT0): "plt_at=N cfa_off=M", and
 * checks PLT0's two rows. Returns plt_at, or -1 when the file has no described .plt. */
static int plt_row(const char *path)
{
	struct elf_file f;
	size_t len, plen;
	uint64_t addr, plt;
	int at = -1;
	if (load_file(path, &f))
		return -1;
	const uint8_t *bytes = elf_section(&f, ".eh_frame", &len, &addr);
	if (bytes && elf_section(&f, ".plt", &plen, &plt) && plen >= 32) {
		struct cfi_table t = { 0 };
		CHECK_INT(cfi_parse(&t, bytes, len, addr, 0), 0);
		CHECK_INT(cfi_finish(&t), 0);
		const struct cfi_row *r = cfi_lookup(&t, plt + 16);
		if (is_plt(r)) {
			NORMAL(&t, plt, RSP, 16);       /* PLT0: push GOT[1]; jmp *GOT[2] */
			NORMAL(&t, plt + 6, RSP, 24);
			CHECK(cfi_lookup(&t, plt + plen - 1) == r);
			printf("  %s: .plt+16: plt_at=%d cfa_off=%d\n", path, r->plt_at, r->cfa_off);
			at = r->plt_at;
		}
		cfi_free(&t);
	}
	free(f.data);
	return at;
}

static void test_libc_vs_readelf(void)
{
	CHECK(compare_file("/usr/lib/x86_64-linux-gnu/libc.so.6", ".eh_frame", 1) > 0);
	/* Debian's libc is linked with the classic lazy PLT */
	CHECK_INT(plt_row("/usr/lib/x86_64-linux-gnu/libc.so.6"), 11);
}

static void test_lua54_vs_readelf(void)
{
	CHECK(compare_file("/usr/bin/lua5.4", ".eh_frame", 1) > 0);
}

/* Other system files when installed: the dynamic loader (stack realignment, odd CFA
 * registers), luajit's hand-written VM frames, nginx, libstdc++ (zPLR). */
static void test_more_files_vs_readelf(void)
{
	static const char *const files[] = {
		"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "/usr/bin/luajit",
		"/usr/sbin/nginx", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libz.so.1",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		compare_file(files[i], ".eh_frame", 0);
}

static int compare_main(int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		check_failed = 0;
		compare_file(argv[i], ".eh_frame", 0);
		compare_file(argv[i], ".debug_frame", 0);
		plt_row(argv[i]);
		if (check_failed) {
			printf("FAIL: compare %s\n", argv[i]);
			check_total_failed++;
		} else {
			printf("PASS: compare %s\n", argv[i]);
		}
	}
	CHECK_EXIT();
}
#endif

int main(int argc, char **argv)
{
#ifndef LF_ARCH_ARM64
	if (argc > 2 && !strcmp(argv[1], "--compare"))
		return compare_main(argc, argv);
	RUN(test_prologue);
	RUN(test_callee_saved);
	RUN(test_remember_restore);
	RUN(test_ra_rules);
	RUN(test_rbp_rules);
	RUN(test_cfa_rules);
	RUN(test_cfa_in_callee_saved);
	RUN(test_fill_padding);
	RUN(test_plt_expressions);
#else
	(void)argc;
	(void)argv;
#endif
	RUN(test_state_stack_limits);
	RUN(test_mark_entry);
	RUN(test_crt_frames);
	RUN(test_advance_forms);
	RUN(test_advance_past_end);
	RUN(test_signal_frame);
	RUN(test_augmentation_and_pcrel);
	RUN(test_pointer_encodings);
	RUN(test_debug_frame);
	RUN(test_eh64_and_terminator);
	RUN(test_gaps_overlaps_merges);
	RUN(test_two_sections);
	RUN(test_cie_cap);
	RUN(test_row_cap);
	RUN(test_bogus_entries);
	RUN(test_truncation_and_corruption);
	RUN(test_names);
#ifndef LF_ARCH_ARM64
	RUN(test_libc_vs_readelf);
	RUN(test_lua54_vs_readelf);
	RUN(test_more_files_vs_readelf);
#endif
	CHECK_EXIT();
}
