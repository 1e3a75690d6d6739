/* libFuzzer target for the CFI parser (cmd/unwind/cfi.c). Input: one flags byte (bit 0: parse as
 * .debug_frame), eight bytes of section address (little-endian), then the section bytes.
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
		if (r->rbp_rule == CFI_RBP_OFFSET && r->kind != CFI_ROW_NORMAL)
			abort();
		int plt = r->kind == CFI_ROW_PLT1 ? 11 : r->kind == CFI_ROW_PLT2 ? 10 :
			  r->kind == CFI_ROW_PLT3 ? 5 : r->kind == CFI_ROW_PLT4 ? 9 : -1;
		if (plt >= 0 && (r->plt_at != plt || r->cfa_off != 8 || r->cfa_reg != CFI_REG_RSP ||
				 r->rbp_rule != CFI_RBP_SAME))
			abort();
		if (cfi_lookup(t, r->pc) != r)
			abort();
	}
	if (t->n && t->rows[t->n - 1].kind != CFI_ROW_END)
		abort();
	if (t->n && cfi_lookup(t, t->rows[0].pc - 1) != NULL && t->rows[0].pc != 0)
		abort();
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
	if (cfi_parse(&t, data + 9, size - 9, vaddr, data[0] & 1) == 0 && cfi_finish(&t) == 0)
		check_table(&t);
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
