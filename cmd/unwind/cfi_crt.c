/* Rows for the .init and .fini frames of glibc's crti.o/crtn.o, which carry no CFI. Their
 * prologue and epilogue are fixed, so the code itself says where the one stack word the
 * frame holds is pushed and popped. */
#include <string.h>
#include "cfi.h"

#define CRT_MAX_CODE 4096     /* a .init is tens of bytes; anything larger is not this frame */

static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
static const uint8_t sub8[] = { 0x48, 0x83, 0xec, 0x08 };        /* sub $8,%rsp */
static const uint8_t add8_ret[] = { 0x48, 0x83, 0xc4, 0x08, 0xc3 }; /* add $8,%rsp; ret */

static struct cfi_row rsp_row(uint64_t pc, int32_t cfa_off)
{
	return (struct cfi_row){ .pc = pc, .kind = CFI_ROW_NORMAL, .cfa_reg = CFI_REG_SP,
				 .cfa_off = cfa_off, .fp_rule = CFI_FP_SAME, .ra_off = -8 };
}

int cfi_describe_crt(struct cfi_table *t, uint64_t addr, const uint8_t *code, size_t n)
{
	size_t p = n >= sizeof(endbr64) && !memcmp(code, endbr64, sizeof(endbr64)) ? sizeof(endbr64) : 0;
	if (n > CRT_MAX_CODE || n < p + sizeof(sub8) + sizeof(add8_ret) ||
	    memcmp(code + p, sub8, sizeof(sub8)) ||
	    memcmp(code + n - sizeof(add8_ret), add8_ret, sizeof(add8_ret)))
		return 1;
	struct cfi_row rows[] = {
		rsp_row(addr, 8),                       /* the return address on top */
		rsp_row(addr + p + sizeof(sub8), 16),   /* one word below it, up to and with the add */
		rsp_row(addr + n - 1, 8),               /* the ret */
	};
	return cfi_fill_gap(t, rows, sizeof(rows) / sizeof(rows[0]), addr + n);
}
