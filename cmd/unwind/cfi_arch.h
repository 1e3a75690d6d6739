/* What the CFI interpreter needs to know of the architecture lua-flame is built for: the
 * DWARF numbers of the stack and frame pointers, where a return address may live, which
 * callee-saved registers rows record (in bpf/arch.h's order), and what padding looks like. */
#ifndef LF_CFI_ARCH_H
#define LF_CFI_ARCH_H
#include <stddef.h>
#include <stdint.h>
#include "arch.h"

#ifdef LF_ARCH_ARM64
#define DW_SP 31
#define DW_FP 29  /* x29 */
/* x30 holds the return address until a prologue saves it (and in leaf functions): the rule
 * a CIE starts with, without saying so, is "same value". */
#define CFI_RA_IN_REG 1
enum { CFI_SAVED_X19, CFI_NSAVED = 10 }; /* x19..x28 */

static inline int cfi_saved_index(uint64_t reg)
{
	return reg >= 19 && reg <= 28 ? (int)(reg - 19) : -1;
}

/* DW_CFA_AARCH64_negate_ra_state: the return address is signed (pointer authentication)
 * from here on. The unwinder strips the signature from every return address, so the
 * instruction changes no rule. */
static inline int cfi_op_is_noop(uint8_t op)
{
	return op == 0x2d;
}

/* Bytes of the NOP at p, or 0. */
static inline size_t cfi_nop_len(const uint8_t *p, size_t n)
{
	return n >= 4 && p[0] == 0x1f && p[1] == 0x20 && p[2] == 0x03 && p[3] == 0xd5 ? 4 : 0;
}
#else
#define DW_SP 7
#define DW_FP 6   /* rbp */
#define CFI_RA_IN_REG 0 /* the return address is always at CFA-8 */
enum { CFI_SAVED_RBX, CFI_SAVED_R12, CFI_SAVED_R13, CFI_SAVED_R14, CFI_SAVED_R15, CFI_NSAVED };

static inline int cfi_saved_index(uint64_t reg)
{
	if (reg == 3)
		return CFI_SAVED_RBX;
	return reg >= 12 && reg <= 15 ? CFI_SAVED_R12 + (int)(reg - 12) : -1;
}

/* Architecture-specific DW_CFA_* opcodes that change no rule: none. */
static inline int cfi_op_is_noop(uint8_t op)
{
	(void)op;
	return 0;
}

/* Bytes of the NOP at p (0x90, or 0f 1f /0 with any operand, after 66/2e prefixes), or 0. */
static inline size_t cfi_nop_len(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n && i < 14 && (p[i] == 0x66 || p[i] == 0x2e))
		i++;
	if (i < n && p[i] == 0x90)
		return i + 1;
	if (i + 2 >= n || p[i] != 0x0f || p[i + 1] != 0x1f || ((p[i + 2] >> 3) & 7) != 0)
		return 0;
	uint8_t mod = p[i + 2] >> 6, rm = p[i + 2] & 7;
	size_t len = i + 3 + (mod != 3 && rm == 4);                     /* SIB byte */
	len += mod == 1 ? 1 : mod == 2 || (mod == 0 && rm == 5) ? 4 : 0; /* displacement */
	return len <= n ? len : 0;
}
#endif

#endif
