/* Tests of the CFI interpreter as built for arm64 (cfi_arch.h's arm64 facts) on .eh_frame bytes
 * of real arm64 code: Debian's arm64 glibc and tests/progs/unwind.c cross-built with pointer
 * authentication. Built for x86-64 there is nothing to test: it reports no case. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "cfi.h"
#include "check.h"
#include "text_image.h"

#ifdef LF_ARCH_ARM64

/* ------------------------------------------------------------------ the bytes
 * Copied from the files named, each entry whole. Expected rows come from
 * `aarch64-linux-gnu-objdump --dwarf=frames-interp` and `--dwarf=frames` of the same file and
 * its disassembly (`objdump -d`), quoted beside each case. */

/* The one CIE GCC and glibc's assembly give every FDE: "zR" with pc-relative sdata4
 * pointers (0x1b), code alignment 4, data alignment -8, return address column 30 (x30),
 * and only DW_CFA_def_cfa sp+0: that x30 holds the return address is left unsaid. */
static const uint8_t cie[] = {
	0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x7a, 0x52, 0x00,
	0x04, 0x78, 0x1e, 0x01, 0x1b, 0x0c, 0x1f, 0x00,
};

/* Debian bookworm's arm64 libc.so.6 (libc6 2.36-9+deb12u*, the one scripts/test-arm64.sh puts
 * in .cache/arm64/root), .eh_frame at 0x163ec0: the FDEs at 0xc834 (aio_suspend, 0x8ca54..
 * 0x8cd8c) and 0xc878 (aio_write, 0x8cd90..0x8cdb0), one after the other as in the file.
 *   8ca54 stp x29, x30, [sp, #-96]!      8cc3c ldp x29, x30, [sp], #96
 *   8ca60 mov x29, sp                    8cc40 ret
 *   8ca64 stp x19, x20, [sp, #16]  ...   8cd88 bl __stack_chk_fail
 *   8ca74 stp x27, x28, [sp, #80]        8cd8c nop                    (padding)
 *   8ca78 sub sp, sp, #0x70              8cd90 stp x29, x30, [sp, #-16]!   (aio_write) */
#define LIBC_FDES_VADDR (0x163ec0 + 0xc834)
static const uint8_t libc_fdes[] = {
	/* aio_suspend: advance 4; def_cfa_offset 96; x29 at cfa-96, x30 at cfa-88; advance 12;
	 * def_cfa_register x29; advance 24; x19..x28 at cfa-80..cfa-8; advance1 452;
	 * remember_state; restore x30, x29, x27, x28, ..., x19, x20; def_cfa sp+0; advance 4;
	 * restore_state */
	0x40, 0x00, 0x00, 0x00, 0x38, 0xc8, 0x00, 0x00, 0x58, 0xc3, 0xf1, 0xff,
	0x38, 0x03, 0x00, 0x00, 0x00, 0x41, 0x0e, 0x60, 0x9d, 0x0c, 0x9e, 0x0b,
	0x43, 0x0d, 0x1d, 0x46, 0x93, 0x0a, 0x94, 0x09, 0x95, 0x08, 0x96, 0x07,
	0x97, 0x06, 0x98, 0x05, 0x99, 0x04, 0x9a, 0x03, 0x9b, 0x02, 0x9c, 0x01,
	0x02, 0x71, 0x0a, 0xde, 0xdd, 0xdb, 0xdc, 0xd9, 0xda, 0xd7, 0xd8, 0xd5,
	0xd6, 0xd3, 0xd4, 0x0c, 0x1f, 0x00, 0x41, 0x0b,
	/* aio_write: advance 4; def_cfa_offset 16; x29 at cfa-16, x30 at cfa-8; advance 24;
	 * restore x30, x29; def_cfa_offset 0 */
	0x1c, 0x00, 0x00, 0x00, 0x7c, 0xc8, 0x00, 0x00, 0x50, 0xc6, 0xf1, 0xff,
	0x20, 0x00, 0x00, 0x00, 0x00, 0x41, 0x0e, 0x10, 0x9d, 0x02, 0x9e, 0x01,
	0x46, 0xde, 0xdd, 0x0e, 0x00, 0x00, 0x00, 0x00,
};

/* tests/progs/unwind.c and unwind_lib.c built `aarch64-linux-gnu-gcc -O2 -fomit-frame-pointer
 * -mbranch-protection=standard` (GCC 12, Debian 12), linked as a PIE; .eh_frame at 0x11e0.
 * _start (glibc's crt1.o, FDE at 0x14, 0xc40..0xc74): advance 4; DW_CFA_undefined x30.
 *   c40 nop                  c44 mov x29, #0          c48 mov x30, #0 */
#define PAC_START_VADDR (0x11e0 + 0x14)
static const uint8_t pac_start[] = {
	0x10, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x44, 0xfa, 0xff, 0xff,
	0x34, 0x00, 0x00, 0x00, 0x00, 0x41, 0x07, 0x1e,
};

/* recurse (FDE at 0x9c, 0xd84..0xdd8) and deep_main (0xc4, 0xde0..0xdfc), with two NOPs of
 * alignment between them:
 *   d84 paciasp              da4 autiasp              dc8 ldr x30, [sp], #16
 *   d88 str x30, [sp, #-16]! ...                      dcc autiasp
 *   d8c cbz w0, dbc          db8 ret                  dd4 ret
 *   ...                      dbc mov x0, #0xe100      dd8 nop; ddc nop
 *   da0 ldr x30, [sp], #16   dc4 bl spin              de0 mov w4, w0     (deep_main)
 *                                                     de4 paciasp; de8 str x30, [sp, #-16]! */
#define PAC_RECURSE_VADDR (0x11e0 + 0x9c)
static const uint8_t pac_recurse[] = {
	/* recurse: advance 4; negate_ra_state; advance 4; def_cfa_offset 16; x30 at cfa-16;
	 * advance 24; remember_state; restore x30; def_cfa_offset 0; advance 4; negate_ra_state;
	 * advance 20; restore_state; advance 16; restore x30; def_cfa_offset 0; advance 4;
	 * negate_ra_state; nop */
	0x24, 0x00, 0x00, 0x00, 0xa0, 0x00, 0x00, 0x00, 0x00, 0xfb, 0xff, 0xff,
	0x54, 0x00, 0x00, 0x00, 0x00, 0x41, 0x2d, 0x41, 0x0e, 0x10, 0x9e, 0x02,
	0x46, 0x0a, 0xde, 0x0e, 0x00, 0x41, 0x2d, 0x45, 0x0b, 0x44, 0xde, 0x0e,
	0x00, 0x41, 0x2d, 0x00,
	/* deep_main: advance 8; negate_ra_state; advance 4; def_cfa_offset 16; x30 at cfa-16 */
	0x14, 0x00, 0x00, 0x00, 0xc8, 0x00, 0x00, 0x00, 0x34, 0xfb, 0xff, 0xff,
	0x1c, 0x00, 0x00, 0x00, 0x00, 0x42, 0x2d, 0x41, 0x0e, 0x10, 0x9e, 0x02,
};

/* ------------------------------------------------------------------ helpers */

/* Parses the CIE followed by FDEs that followed each other in their file. Every FDE's CIE
 * pointer (the distance back to its CIE) is rewritten, as the CIE now sits right before
 * them; fde_vaddr is where the first FDE was, so that the pc-relative pc_begin fields still
 * give the functions' own addresses. */
static void parse_fdes(struct cfi_table *t, const uint8_t *fdes, size_t n, uint64_t fde_vaddr)
{
	uint8_t sec[512];
	CHECK(sizeof(cie) + n <= sizeof(sec));
	if (sizeof(cie) + n > sizeof(sec))
		return;
	memcpy(sec, cie, sizeof(cie));
	memcpy(sec + sizeof(cie), fdes, n);
	for (size_t at = sizeof(cie); at + 8 <= sizeof(cie) + n;) {
		uint32_t len, ptr = (uint32_t)(at + 4);
		memcpy(&len, sec + at, 4);
		memcpy(sec + at + 4, &ptr, 4);
		at += 4 + (size_t)len;
	}
	CHECK_INT(cfi_parse(t, sec, sizeof(cie) + n, fde_vaddr - sizeof(cie), 0), 0);
}

static void finish(struct cfi_table *t)
{
	CHECK_INT(cfi_finish(t), 0);
	for (int r = CFI_R_TRUNCATED; r < CFI_R_COUNT; r++)
		if (t->counts_by_reason[r]) {
			printf("  entries skipped: %zu %s\n", t->counts_by_reason[r], cfi_reason_name(r));
			check_failed++;
		}
}

#define SP CFI_REG_SP
#define X29 CFI_REG_FP
#define NONE 0   /* fp_off: x29 unchanged; ra_off: the return address still in x30 */

/* x19..x28 slots in 8-byte units below the CFA, as rows keep them. */
static const int8_t no_saves[CFI_NSAVED];
static const int8_t all_saves[CFI_NSAVED] = { -10, -9, -8, -7, -6, -5, -4, -3, -2, -1 };

/* Checks the row covering pc: a NORMAL one with CFA = reg + off, x29 saved at CFA + fp_off
 * (NONE: unchanged), the return address at CFA + ra_off (NONE: in x30) and x19..x28 in the
 * slots given. */
static void expect(const struct cfi_table *t, uint64_t pc, int reg, int off, int fp_off, int ra_off,
		   const int8_t *saved, int line)
{
	const struct cfi_row *r = cfi_lookup(t, pc);
	if (!r || r->kind != CFI_ROW_NORMAL || r->cfa_reg != reg || r->cfa_off != off ||
	    r->fp_rule != (fp_off ? CFI_FP_OFFSET : CFI_FP_SAME) || (fp_off && r->fp_off != fp_off) ||
	    r->ra_off != ra_off || memcmp(r->saved, saved, sizeof(r->saved))) {
		printf("  line %d: at 0x%llx: got %s/%s reg=%d off=%d x29=%d/%d ra=%d x19=%d x28=%d, want "
		       "reg=%d off=%d x29 %d ra %d x19=%d x28=%d\n", line, (unsigned long long)pc,
		       r ? cfi_kind_name(r->kind) : "none", r ? cfi_reason_name(r->reason) : "-",
		       r ? r->cfa_reg : -1, r ? r->cfa_off : 0, r ? r->fp_rule : 0, r ? r->fp_off : 0,
		       r ? r->ra_off : 0, r ? r->saved[0] : 0, r ? r->saved[9] : 0, reg, off, fp_off,
		       ra_off, saved[0], saved[9]);
		check_failed++;
	}
}
#define ROW(t, pc, reg, off, fp, ra, saved) expect(t, pc, reg, off, fp, ra, saved, __LINE__)

static void expect_kind(const struct cfi_table *t, uint64_t pc, int kind, int reason, int line)
{
	const struct cfi_row *r = cfi_lookup(t, pc);
	if (!r || r->kind != kind || (reason >= 0 && r->reason != reason)) {
		printf("  line %d: at 0x%llx: got %s/%s, want %s/%s\n", line, (unsigned long long)pc,
		       r ? cfi_kind_name(r->kind) : "none", r ? cfi_reason_name(r->reason) : "-",
		       cfi_kind_name(kind), reason >= 0 ? cfi_reason_name(reason) : "any");
		check_failed++;
	}
}
#define KIND(t, pc, kind, reason) expect_kind(t, pc, kind, reason, __LINE__)

/* The pc of the row covering pc: tells whether an instruction started a row of its own. */
static uint64_t row_start(const struct cfi_table *t, uint64_t pc)
{
	const struct cfi_row *r = cfi_lookup(t, pc);
	return r ? r->pc : 0;
}

/* ------------------------------------------------------------------ cases */

/* A frame record {x29, x30} pushed by the first instruction, then the CFA moved to x29 and all
 * ten callee-saved registers stored; an early return in the middle of the function.
 *   8ca54 sp+0  (all u)                       objdump --dwarf=frames-interp
 *   8ca58 sp+96   x29 c-96 ra c-88
 *   8ca64 x29+96  x29 c-96 ra c-88
 *   8ca7c x29+96  x19 c-80 x20 c-72 ... x28 c-8  x29 c-96 ra c-88
 *   8cc40 sp+0  (all u)
 *   8cc44 x29+96  as at 8ca7c */
static void test_glibc_frame_record_and_saves(void)
{
	struct cfi_table t = { 0 };
	parse_fdes(&t, libc_fdes, sizeof(libc_fdes), LIBC_FDES_VADDR);
	finish(&t);
	CHECK_INT(t.n_fde, 2);
	ROW(&t, 0x8ca54, SP, 0, NONE, NONE, no_saves);       /* before the stp: ra in x30 */
	ROW(&t, 0x8ca58, SP, 96, -96, -88, no_saves);
	ROW(&t, 0x8ca63, SP, 96, -96, -88, no_saves);
	ROW(&t, 0x8ca64, X29, 96, -96, -88, no_saves);       /* mov x29, sp has run */
	ROW(&t, 0x8ca78, X29, 96, -96, -88, no_saves);       /* sub sp, sp, #0x70: CFA unmoved */
	ROW(&t, 0x8ca7c, X29, 96, -96, -88, all_saves);
	ROW(&t, 0x8cc3c, X29, 96, -96, -88, all_saves);      /* the ldp that restores them */
	ROW(&t, 0x8cc40, SP, 0, NONE, NONE, no_saves);       /* ret: everything back in place */
	ROW(&t, 0x8cc44, X29, 96, -96, -88, all_saves);      /* restore_state */
	ROW(&t, 0x8cd88, X29, 96, -96, -88, all_saves);      /* bl __stack_chk_fail, the last */
	KIND(&t, 0x8cd8c, CFI_ROW_END, -1);                  /* the NOP before aio_write */
	ROW(&t, 0x8cd90, SP, 0, NONE, NONE, no_saves);
	ROW(&t, 0x8cd94, SP, 16, -16, -8, no_saves);
	ROW(&t, 0x8cdab, SP, 16, -16, -8, no_saves);
	ROW(&t, 0x8cdac, SP, 0, NONE, NONE, no_saves);
	KIND(&t, 0x8cdb0, CFI_ROW_END, -1);
	CHECK(cfi_lookup(&t, 0x8ca53) == NULL);
	/* x19 is the first slot, x28 the last: bpf/arch.h's order */
	const struct cfi_row *r = cfi_lookup(&t, 0x8ca80);
	CHECK(r && r->saved[0] == -80 / 8 && r->saved[CFI_NSAVED - 1] == -8 / 8);
	cfi_free(&t);
}

/* _start says its caller is nobody (DW_CFA_undefined x30) after its first instruction.
 *   c40 sp+0 ra u      objdump prints "u" for both rows; --dwarf=frames has the undefined */
static void test_start_undefined_ra(void)
{
	struct cfi_table t = { 0 };
	parse_fdes(&t, pac_start, sizeof(pac_start), PAC_START_VADDR);
	finish(&t);
	ROW(&t, 0xc40, SP, 0, NONE, NONE, no_saves);
	KIND(&t, 0xc44, CFI_ROW_STOP, -1);
	KIND(&t, 0xc73, CFI_ROW_STOP, -1);
	KIND(&t, 0xc74, CFI_ROW_END, -1);
	cfi_free(&t);
}

/* Return addresses signed with paciasp: DW_CFA_AARCH64_negate_ra_state after paciasp and
 * autiasp. The unwinder strips signatures, so the rows are those of the same code without
 * it, and the opcode starts no row of its own; x30 is saved alone (no frame record with
 * -fomit-frame-pointer), so x29 stays unchanged throughout.
 *   d84 sp+0  ra u     dbc sp+16 ra c-16   (restore_state)
 *   d88 sp+0  ra u     dcc sp+0  ra u
 *   d8c sp+16 ra c-16  dd0 sp+0  ra u
 *   da4 sp+0  ra u     de0 sp+0  ra u      (deep_main)
 *   da8 sp+0  ra u     de8 sp+0  ra u;  dec sp+16 ra c-16 */
static void test_pac_negate_ra_state(void)
{
	struct cfi_table t = { 0 };
	parse_fdes(&t, pac_recurse, sizeof(pac_recurse), PAC_RECURSE_VADDR);
	finish(&t);
	ROW(&t, 0xd84, SP, 0, NONE, NONE, no_saves);
	ROW(&t, 0xd88, SP, 0, NONE, NONE, no_saves);          /* str x30: not run yet */
	CHECK_INT(row_start(&t, 0xd88), 0xd84);
	ROW(&t, 0xd8c, SP, 16, NONE, -16, no_saves);
	ROW(&t, 0xda0, SP, 16, NONE, -16, no_saves);          /* ldr x30, [sp], #16 */
	ROW(&t, 0xda4, SP, 0, NONE, NONE, no_saves);
	ROW(&t, 0xda8, SP, 0, NONE, NONE, no_saves);
	CHECK_INT(row_start(&t, 0xdb8), 0xda4);               /* ret, past the second negate */
	ROW(&t, 0xdbc, SP, 16, NONE, -16, no_saves);          /* remembered before the negate */
	ROW(&t, 0xdc8, SP, 16, NONE, -16, no_saves);
	ROW(&t, 0xdcc, SP, 0, NONE, NONE, no_saves);
	ROW(&t, 0xdd4, SP, 0, NONE, NONE, no_saves);
	CHECK_INT(row_start(&t, 0xdd4), 0xdcc);
	KIND(&t, 0xdd8, CFI_ROW_END, -1);
	ROW(&t, 0xde0, SP, 0, NONE, NONE, no_saves);
	CHECK_INT(row_start(&t, 0xdeb), 0xde0);
	ROW(&t, 0xdec, SP, 16, NONE, -16, no_saves);
	ROW(&t, 0xdfb, SP, 16, NONE, -16, no_saves);
	KIND(&t, 0xdfc, CFI_ROW_END, -1);
	CHECK_INT(t.counts_by_reason[CFI_R_OPCODE], 0);
	cfi_free(&t);
}


/* Alignment NOPs (1f 20 03 d5) between two functions take the entry rules of the function
 * after them; the same gap holding anything else (udf #0, or x86-64's four-byte NOP) stays
 * without rules. */
static void test_nop_padding(void)
{
	static const uint8_t nops[] = { 0x1f, 0x20, 0x03, 0xd5, 0x1f, 0x20, 0x03, 0xd5 }; /* dd8, ddc */
	static const uint8_t udf[] = { 0x00, 0x00, 0x00, 0x00, 0x1f, 0x20, 0x03, 0xd5 };
	static const uint8_t x86[] = { 0x0f, 0x1f, 0x40, 0x00, 0x0f, 0x1f, 0x40, 0x00 };
	static const uint8_t one_nop[] = { 0x1f, 0x20, 0x03, 0xd5 };                  /* 8cd8c */
	const uint8_t *const fills[] = { nops, udf, x86 };
	for (int i = 0; i < 3; i++) {
		struct cfi_table t = { 0 };
		parse_fdes(&t, pac_recurse, sizeof(pac_recurse), PAC_RECURSE_VADDR);
		finish(&t);
		struct text_image img = { fills[i], sizeof(nops), 0xdd8 };
		CHECK_INT(cfi_fill_padding(&t, read_text, &img), i == 0);
		if (i == 0) {
			ROW(&t, 0xdd8, SP, 0, NONE, NONE, no_saves);
			ROW(&t, 0xddf, SP, 0, NONE, NONE, no_saves);
		} else {
			KIND(&t, 0xdd8, CFI_ROW_END, -1);
		}
		ROW(&t, 0xdd4, SP, 0, NONE, NONE, no_saves);       /* recurse's own rows unchanged */
		ROW(&t, 0xdec, SP, 16, NONE, -16, no_saves);
		cfi_free(&t);
	}
	struct cfi_table t = { 0 };
	parse_fdes(&t, libc_fdes, sizeof(libc_fdes), LIBC_FDES_VADDR);
	finish(&t);
	struct text_image img = { one_nop, sizeof(one_nop), 0x8cd8c };
	CHECK_INT(cfi_fill_padding(&t, read_text, &img), 1);
	ROW(&t, 0x8cd8c, SP, 0, NONE, NONE, no_saves);
	ROW(&t, 0x8cd88, X29, 96, -96, -88, all_saves);
	KIND(&t, 0x8cdb0, CFI_ROW_END, -1);
	cfi_free(&t);
}

/* Rules real code seldom has, on the real CIE: what arm64's unwinder can follow and what it
 * cannot. Each one FDE instruction list after the CIE's sp+0:
 *   a: x30 in x1 (DW_CFA_register)        b: x30 at cfa+8 (offset_extended_sf)
 *   c: x30 = cfa-96 (val_offset), then     d: x30 same_value, x29 at cfa-16
 *      at an expression's address          e: x29 in x9
 *   f: CFA x19+32, then x28+16             g: CFA x7+8 (x86-64's rsp number)
 *   h: x18 at cfa-8 (not callee-saved, not kept), x19 at cfa-16 */
static void test_arm64_rules(void)
{
	struct cfi_table t = { 0 };
	static const uint8_t a[] = { 0x41, 0x0e, 0x10, 0x41, 0x09, 0x1e, 0x01 };
	static const uint8_t b[] = { 0x41, 0x0e, 0x10, 0x41, 0x11, 0x1e, 0x7f };
	static const uint8_t c[] = { 0x41, 0x0e, 0x10, 0x41, 0x14, 0x1e, 0x0c, 0x41, 0x10, 0x1e, 0x02,
				     0x70, 0x00 };
	static const uint8_t d[] = { 0x41, 0x0e, 0x10, 0x9d, 0x02, 0x41, 0x08, 0x1e };
	static const uint8_t e[] = { 0x41, 0x09, 0x1d, 0x09 };
	static const uint8_t f[] = { 0x41, 0x0c, 0x13, 0x20, 0x41, 0x0c, 0x1c, 0x10 };
	static const uint8_t g[] = { 0x41, 0x0c, 0x07, 0x08 };
	static const uint8_t h[] = { 0x41, 0x0e, 0x10, 0x92, 0x01, 0x93, 0x02 };
	const uint8_t *const insns[] = { a, b, c, d, e, f, g, h };
	const size_t lens[] = { sizeof(a), sizeof(b), sizeof(c), sizeof(d), sizeof(e), sizeof(f),
				sizeof(g), sizeof(h) };
	uint8_t fde[64];
	for (int i = 0; i < 8; i++) {
		/* length, CIE pointer (rewritten), pc_begin (pc-relative: from its own field, at
		 * 0x1008), range 0x40, no augmentation data */
		uint32_t len = (uint32_t)(4 + 4 + 4 + 1 + lens[i]);
		uint32_t begin = 0x10000u * (uint32_t)(i + 1) - 0x1008;
		uint32_t range = 0x40;
		memcpy(fde, &len, 4);
		memset(fde + 4, 0, 4);
		memcpy(fde + 8, &begin, 4);
		memcpy(fde + 12, &range, 4);
		fde[16] = 0;
		memcpy(fde + 17, insns[i], lens[i]);
		parse_fdes(&t, fde, 4 + len, 0x1000);
	}
	finish(&t);
	ROW(&t, 0x10000, SP, 0, NONE, NONE, no_saves);
	KIND(&t, 0x10008, CFI_ROW_INVALID, CFI_R_RA_RULE);     /* a */
	KIND(&t, 0x20008, CFI_ROW_INVALID, CFI_R_RA_RULE);     /* b */
	KIND(&t, 0x30008, CFI_ROW_INVALID, CFI_R_RA_RULE);     /* c: val_offset */
	KIND(&t, 0x3000c, CFI_ROW_INVALID, CFI_R_RA_RULE);     /* c: expression */
	ROW(&t, 0x40004, SP, 16, -16, NONE, no_saves);          /* d */
	ROW(&t, 0x40008, SP, 16, -16, NONE, no_saves);
	KIND(&t, 0x50004, CFI_ROW_INVALID, CFI_R_FP_RULE);     /* e */
	ROW(&t, 0x60004, CFI_REG_SAVED + 0, 32, NONE, NONE, no_saves);     /* f */
	ROW(&t, 0x60008, CFI_REG_SAVED + 9, 16, NONE, NONE, no_saves);
	KIND(&t, 0x70004, CFI_ROW_INVALID, CFI_R_CFA_REG);     /* g */
	static const int8_t x19_only[CFI_NSAVED] = { -2 };
	ROW(&t, 0x80004, SP, 16, NONE, NONE, x19_only);         /* h */
	cfi_free(&t);
}

#endif

int main(void)
{
#ifdef LF_ARCH_ARM64
	RUN(test_glibc_frame_record_and_saves);
	RUN(test_start_undefined_ra);
	RUN(test_pac_negate_ra_state);
	RUN(test_nop_padding);
	RUN(test_arm64_rules);
#else
	(void)check_failed;   /* built for x86-64: cfi_arch.h has no arm64 rules to test */
#endif
	CHECK_EXIT();
}
