/* libFuzzer target for the CFI parser (cmd/unwind/cfi.c). Input: one flags byte (bit 0: parse as
 * .debug_frame), eight bytes of section address (little-endian), then the section bytes.
 * Flags bit 1: also add rows to the finished table (crti frames, an entry point).
 * Besides memory errors (ASan/UBSan) it aborts when a finished table breaks its contract, or
 * when the FDE reader (cfi_fde_range) returns an empty or oversized range. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cfi.h"

static void check_table(const struct cfi_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct cfi_row *r = &t->rows[i];
		if (i > 0 && t->rows[i - 1].pc >= r->pc)
			abort();                           /* strictly increasing */
		if (r->kind > CFI_ROW_PLT4 || r->reason >= CFI_R_COUNT)
			abort();
		if ((r->kind == CFI_ROW_INVALID) != (r->reason != CFI_R_NONE))
			abort();
		if (r->fp_rule == CFI_FP_OFFSET && r->kind != CFI_ROW_NORMAL)
			abort();
		int plt = r->kind == CFI_ROW_PLT1 ? 11 : r->kind == CFI_ROW_PLT2 ? 10 :
			  r->kind == CFI_ROW_PLT3 ? 5 : r->kind == CFI_ROW_PLT4 ? 9 : -1;
		if (plt >= 0 && (r->plt_at != plt || r->cfa_off != 8 || r->cfa_reg != CFI_REG_SP ||
				 r->fp_rule != CFI_FP_SAME))
			abort();
		if (cfi_lookup(t, r->pc) != r)
			abort();
	}
	if (t->n && t->rows[t->n - 1].kind != CFI_ROW_END)
		abort();
	if (t->n && cfi_lookup(t, t->rows[0].pc - 1) != NULL && t->rows[0].pc != 0)
		abort();
}

/* The passes that add rows to a finished table: a crti/crtn frame in each gap (at its start
 * or a few bytes in, by flags bits 2-4) and an entry point before the first row. Each insert
 * may move the rows, which ASan sees if anything still points into the old ones. */
static void add_rows(struct cfi_table *t, uint8_t flags)
{
	static const uint8_t crt[] = { 0x48, 0x83, 0xec, 0x08, 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	for (size_t i = 0; i < t->n && i < 64; i++)
		if (t->rows[i].kind == CFI_ROW_END &&
		    cfi_describe_crt(t, t->rows[i].pc + ((flags >> 2) & 7), crt, sizeof(crt)) < 0)
			return;
	if (t->n && t->rows[0].pc > CFI_ENTRY_SPAN && cfi_mark_entry(t, t->rows[0].pc - CFI_ENTRY_SPAN / 2) < 0)
		return;
	check_table(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 9)
		return 0;
	uint64_t vaddr = 0;
	for (int i = 8; i >= 1; i--)
		vaddr = (vaddr << 8) | data[i];
	struct cfi_table t;
	memset(&t, 0, sizeof(t));
	if (cfi_parse(&t, data + 9, size - 9, vaddr, data[0] & 1) == 0 && cfi_finish(&t) == 0) {
		check_table(&t);
		if (data[0] & 2)
			add_rows(&t, data[0]);
	}
	cfi_free(&t);
	/* The FDE reader behind function starts, at offsets an .eh_frame_hdr may point to. */
	for (uint64_t off = 0; !(data[0] & 1) && off <= size - 9 && off < 1024; off += 4) {
		uint64_t start, end;
		if (cfi_fde_range(data + 9, size - 9, vaddr, off, &start, &end) == 0 &&
		    (end <= start || end - start > (1ull << 32)))
			abort();
	}
	return 0;
}
