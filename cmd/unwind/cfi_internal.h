/* Shared between the CFI parser's files (cfi.c, cfi_read.c, cfi_insn.c): a bounds-checked
 * byte cursor, the parsed CIE, and the register-rule state the CFA instructions act on. */
#ifndef LF_CFI_INTERNAL_H
#define LF_CFI_INTERNAL_H
#include <stdbool.h>
#include "cfi.h"

/* Reads never go past end; the first failed read sets err and every later read fails too. */
struct cfi_cur {
	const uint8_t *p, *end;
	const uint8_t *sec;       /* section start, for pc-relative pointers */
	uint64_t sec_vaddr;
	bool err;
};

bool cur_u8(struct cfi_cur *c, uint8_t *v);
bool cur_u16(struct cfi_cur *c, uint16_t *v);
bool cur_u32(struct cfi_cur *c, uint32_t *v);
bool cur_u64(struct cfi_cur *c, uint64_t *v);
bool cur_uleb(struct cfi_cur *c, uint64_t *v);
bool cur_sleb(struct cfi_cur *c, int64_t *v);
bool cur_skip(struct cfi_cur *c, uint64_t n);
/* Reads a pointer in DW_EH_PE encoding enc. Returns false on truncation (c->err set) or on an
 * encoding whose value cannot be computed (*unsupported set, c->err not set). */
bool cur_ptr(struct cfi_cur *c, uint8_t enc, uint8_t addr_size, uint64_t *v, bool *unsupported);

#define DW_EH_PE_omit 0xff

enum { RULE_SAME, RULE_OFFSET, RULE_UNDEF, RULE_BAD };
enum { CFA_REGOFF, CFA_PLT, CFA_BAD };

struct cfi_rule {
	uint8_t how, reason;      /* reason when RULE_BAD */
	int64_t off;              /* RULE_OFFSET: saved at CFA + off */
};

struct cfi_state {
	uint8_t cfa_how, cfa_reason;
	uint8_t plt_at;           /* CFA_PLT: see CFI_ROW_PLT */
	uint64_t cfa_reg;
	int64_t cfa_off;
	struct cfi_rule fp, ra;
	struct cfi_rule cs[CFI_NSAVED]; /* CFI_SAVED_* (cfi_arch.h), for saved[] in rows */
};

struct cfi_cie {
	size_t off;               /* entry offset in the section */
	bool ok;
	uint8_t reason;           /* when !ok */
	uint8_t fde_enc, addr_size;
	bool has_z, signal;
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	const uint8_t *insn, *insn_end;
	struct cfi_state init;    /* after the initial instructions */
};

/* Interpreter context of one CIE+FDE. Rows go to t, all with pc in [start, end). */
struct cfi_run {
	struct cfi_table *t;
	const struct cfi_cie *cie;
	struct cfi_cur *fde_cur;         /* NULL while running CIE instructions */
	uint64_t start, loc, end;
	struct cfi_state st, init;
	struct cfi_state stack[CFI_STATE_DEPTH];
	unsigned depth;
	size_t first_row;
	uint8_t reason;                  /* why execution stopped early; CFI_R_NONE if it did not */
	bool oom;
};

/* Runs instructions [p, end). For the CIE (r->fde_cur == NULL) it only builds r->st; for an FDE
 * it also emits rows. Returns false when it stopped early (r->reason, or r->oom). */
bool cfi_run_insns(struct cfi_run *r, const uint8_t *p, const uint8_t *end);
/* Emits the row for r->st at r->loc (replacing a row at the same pc, skipping a repeat). */
bool cfi_emit(struct cfi_run *r);
void cfi_state_init(struct cfi_state *s);
bool cfi_same_rules(const struct cfi_row *a, const struct cfi_row *b);
bool cfi_table_push(struct cfi_table *t, const struct cfi_row *row);

#endif
