/* The DW_CFA_* instruction interpreter: tracks the CFA, frame-pointer, return-address and
 * callee-saved register rules of one CIE+FDE and emits a row each time the location advances.
 * Registers the unwinder never reads are skipped over, whatever their rules. */
#include <string.h>
#include "cfi_internal.h"

/* GNU ld's .plt CFA expression: breg7 8; breg16 0; lit15; and; litN; ge; lit3; shl; plus,
 * that is rsp + 8 + (((rip & 15) >= N) << 3), with N one of the thresholds in cfi.h. */
static bool plt_expr(const uint8_t *e, uint64_t n, struct cfi_state *s)
{
	static const uint8_t want[] = { 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0 /* litN */, 0x2a, 0x33,
					0x24, 0x22 };
	if (n != sizeof(want))
		return false;
	for (size_t i = 0; i < sizeof(want); i++)
		if (i != 6 && e[i] != want[i])
			return false;
	switch (e[6] - 0x30) {
	case 11: case 10: case 9: case 5:
		s->plt_at = (uint8_t)(e[6] - 0x30);
		s->cfa_off = 8;
		return true;
	default:
		return false;
	}
}

static uint8_t plt_kind(uint8_t at)
{
	switch (at) {
	case 11: return CFI_ROW_PLT1;
	case 10: return CFI_ROW_PLT2;
	case 5: return CFI_ROW_PLT3;
	default: return CFI_ROW_PLT4;
	}
}

static bool is_plt(const struct cfi_row *row)
{
	return row->kind == CFI_ROW_PLT1 || row->kind == CFI_ROW_PLT2 ||
	       row->kind == CFI_ROW_PLT3 || row->kind == CFI_ROW_PLT4;
}

void cfi_state_init(struct cfi_state *s)
{
	memset(s, 0, sizeof(*s));
	s->cfa_how = CFA_BAD;
	s->cfa_reason = CFI_R_CFA_REG;      /* no CFA rule at all */
	s->fp.how = RULE_SAME;             /* callee-saved: unchanged unless said otherwise */
	for (int i = 0; i < CFI_NSAVED; i++)
		s->cs[i].how = RULE_SAME;
	s->ra.how = CFI_RA_IN_REG ? RULE_SAME : RULE_BAD;
	s->ra.reason = CFI_RA_IN_REG ? 0 : CFI_R_RA_RULE;
}

/* -------- rows -------- */

static bool fits(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

/* Turns row into an INVALID one; returns false so callers can `return invalid(...)`. */
static bool invalid(struct cfi_row *row, uint8_t reason)
{
	uint64_t pc = row->pc;
	memset(row, 0, sizeof(*row));
	row->pc = pc;
	row->kind = CFI_ROW_INVALID;
	row->reason = reason ? reason : CFI_R_CFA_REG;
	return false;
}

/* CFI_REG_* of a DWARF register the CFA may be based on, or -1. */
static int cfa_reg_of(uint64_t reg)
{
	if (reg == DW_SP)
		return CFI_REG_SP;
	if (reg == DW_FP)
		return CFI_REG_FP;
	int i = cfi_saved_index(reg);
	return i < 0 ? -1 : CFI_REG_SAVED + i;
}

/* The fill functions return false once the row is INVALID. */
static bool fill_cfa(struct cfi_row *row, const struct cfi_state *s)
{
	switch (s->cfa_how) {
	case CFA_PLT:
		row->kind = plt_kind(s->plt_at);
		row->cfa_reg = CFI_REG_SP;
		row->cfa_off = 8;
		row->plt_at = s->plt_at;
		return true;
	case CFA_REGOFF:
		if (cfa_reg_of(s->cfa_reg) < 0)
			return invalid(row, CFI_R_CFA_REG);
		if (!fits(s->cfa_off, INT32_MIN, INT32_MAX))
			return invalid(row, CFI_R_RANGE);
		row->kind = CFI_ROW_NORMAL;
		row->cfa_reg = (uint8_t)cfa_reg_of(s->cfa_reg);
		row->cfa_off = (int32_t)s->cfa_off;
		return true;
	default:
		return invalid(row, s->cfa_reason);
	}
}

static bool fill_regs(struct cfi_row *row, const struct cfi_state *s)
{
	if (s->ra.how == RULE_BAD)
		return invalid(row, s->ra.reason);
	if (CFI_RA_IN_REG && s->ra.how == RULE_SAME)
		row->ra_off = 0;
	else if (s->ra.how == RULE_OFFSET && (CFI_RA_IN_REG ? s->ra.off % 8 == 0 && fits(s->ra.off, INT16_MIN, -8)
							: s->ra.off == -8))
		row->ra_off = (int16_t)s->ra.off;
	else
		return invalid(row, CFI_R_RA_RULE);
	if (is_plt(row)) {                 /* plt_at shares fp_off's bytes: rbp must be unchanged */
		if (s->fp.how == RULE_OFFSET || s->fp.how == RULE_BAD)
			return invalid(row, CFI_R_FP_RULE);
		return true;
	}
	switch (s->fp.how) {
	case RULE_OFFSET:
		if (!fits(s->fp.off, INT16_MIN, INT16_MAX))
			return invalid(row, CFI_R_RANGE);
		row->fp_rule = CFI_FP_OFFSET;
		row->fp_off = (int16_t)s->fp.off;
		return true;
	case RULE_BAD:
		return invalid(row, s->fp.reason);
	default:        /* same value, or undefined: nothing to restore */
		row->fp_rule = CFI_FP_SAME;
		return true;
	}
}

/* Best effort: a register whose slot cannot be expressed is simply not restored. */
static void fill_saved(struct cfi_row *row, const struct cfi_state *s)
{
	for (int i = 0; i < CFI_NSAVED; i++) {
		const struct cfi_rule *c = &s->cs[i];
		if (c->how == RULE_OFFSET && c->off % 8 == 0 && fits(c->off / 8, -128, -1))
			row->saved[i] = (int8_t)(c->off / 8);
	}
}

static void build_row(struct cfi_row *row, const struct cfi_state *s, bool signal, uint64_t pc)
{
	memset(row, 0, sizeof(*row));
	row->pc = pc;
	if (!signal && s->ra.how == RULE_UNDEF) {
		row->kind = CFI_ROW_STOP;
		return;
	}
	if (fill_cfa(row, s) && fill_regs(row, s) && row->kind == CFI_ROW_NORMAL)
		fill_saved(row, s);
	if (signal && row->kind != CFI_ROW_NORMAL) {
		memset(row, 0, sizeof(*row));    /* the ucontext has everything */
		row->pc = pc;
	}
	row->signal = signal;
}

bool cfi_same_rules(const struct cfi_row *a, const struct cfi_row *b)
{
	return a->kind == b->kind && a->cfa_reg == b->cfa_reg && a->cfa_off == b->cfa_off &&
	       a->fp_rule == b->fp_rule && a->fp_off == b->fp_off && a->ra_off == b->ra_off &&
	       a->signal == b->signal && a->reason == b->reason &&
	       !memcmp(a->saved, b->saved, sizeof(a->saved));
}

bool cfi_emit(struct cfi_run *r)
{
	struct cfi_table *t = r->t;
	struct cfi_row row;
	build_row(&row, &r->st, r->cie->signal, r->loc);
	if (t->n > r->first_row) {
		struct cfi_row *last = &t->rows[t->n - 1];
		if (last->pc == row.pc) {
			*last = row;
			if (t->n - 1 > r->first_row && cfi_same_rules(&t->rows[t->n - 2], last))
				t->n--;
			return true;
		}
		if (cfi_same_rules(last, &row))
			return true;
	}
	if (!cfi_table_push(t, &row)) {
		r->oom = true;
		return false;
	}
	return true;
}

/* -------- instructions -------- */

static bool stop(struct cfi_run *r, uint8_t reason)
{
	r->reason = reason;
	return false;
}

/* u * f as a signed offset; false when it does not fit. */
static bool factored(uint64_t u, int64_t f, int64_t *out)
{
	if (u > INT64_MAX)
		return false;
	return !__builtin_mul_overflow((int64_t)u, f, out);
}

static bool sfactored(int64_t s, int64_t f, int64_t *out)
{
	return !__builtin_mul_overflow(s, f, out);
}

static struct cfi_rule *tracked(struct cfi_run *r, uint64_t reg)
{
	if (reg == r->cie->ra_reg)
		return &r->st.ra;
	if (reg == DW_FP)
		return &r->st.fp;
	int i = cfi_saved_index(reg);
	return i < 0 ? NULL : &r->st.cs[i];
}

static void set_bad(struct cfi_run *r, uint64_t reg, uint8_t reason)
{
	struct cfi_rule *rule = tracked(r, reg);
	if (!rule)
		return;
	rule->how = RULE_BAD;
	if (!reason)
		reason = rule == &r->st.ra ? CFI_R_RA_RULE : CFI_R_FP_RULE;
	if (rule != &r->st.ra && rule != &r->st.fp)
		reason = 0; /* other callee-saved registers never invalidate a row */
	rule->reason = reason;
}

static void set_offset(struct cfi_run *r, uint64_t reg, bool ok, int64_t off)
{
	struct cfi_rule *rule = tracked(r, reg);
	if (!rule)
		return;
	if (!ok) {
		set_bad(r, reg, CFI_R_RANGE);
		return;
	}
	rule->how = RULE_OFFSET;
	rule->off = off;
	rule->reason = 0;
}

static void set_how(struct cfi_run *r, uint64_t reg, uint8_t how)
{
	struct cfi_rule *rule = tracked(r, reg);
	if (rule) {
		rule->how = how;
		rule->reason = 0;
	}
}

static void restore_reg(struct cfi_run *r, uint64_t reg)
{
	struct cfi_rule *rule = tracked(r, reg);
	if (rule)
		*rule = *(const struct cfi_rule *)((const char *)&r->init + ((const char *)rule - (const char *)&r->st));
}

static void set_cfa(struct cfi_run *r, bool ok, int64_t off)
{
	if (!ok) {
		r->st.cfa_how = CFA_BAD;
		r->st.cfa_reason = CFI_R_RANGE;
		return;
	}
	r->st.cfa_how = CFA_REGOFF;
	r->st.cfa_off = off;
	r->st.cfa_reason = 0;
}

/* Moves to loc + delta, emitting the row for the old location first. Returns false when
 * processing should stop: past the FDE's end (r->reason stays NONE) or on an error. */
static bool advance(struct cfi_run *r, uint64_t delta, bool factor)
{
	uint64_t d = delta, to;
	if (!r->fde_cur)
		return stop(r, CFI_R_LOCATION);        /* a CIE has no location */
	if (factor && __builtin_mul_overflow(delta, r->cie->code_align, &d))
		return stop(r, CFI_R_LOCATION);
	if (__builtin_add_overflow(r->loc, d, &to))
		return stop(r, CFI_R_LOCATION);
	if (!cfi_emit(r))
		return false;
	r->loc = to;
	return to < r->end;
}

static bool set_loc(struct cfi_run *r, struct cfi_cur *c)
{
	uint64_t to;
	bool unsupported;
	if (!r->fde_cur)
		return stop(r, CFI_R_LOCATION);
	if (!cur_ptr(c, r->cie->fde_enc, r->cie->addr_size, &to, &unsupported))
		return stop(r, unsupported ? CFI_R_ENCODING : CFI_R_TRUNCATED);
	if (to < r->loc)
		return stop(r, CFI_R_LOCATION);
	return advance(r, to - r->loc, false);
}

static bool remember(struct cfi_run *r)
{
	if (r->depth >= CFI_STATE_DEPTH)
		return stop(r, CFI_R_STATE_STACK);
	r->stack[r->depth++] = r->st;
	return true;
}

static bool restore_state(struct cfi_run *r)
{
	if (r->depth == 0)
		return stop(r, CFI_R_STATE_STACK);
	r->st = r->stack[--r->depth];
	return true;
}

static bool def_cfa_expr(struct cfi_run *r, struct cfi_cur *c)
{
	uint64_t n;
	if (!cur_uleb(c, &n))
		return false;
	const uint8_t *e = c->p;
	if (!cur_skip(c, n))
		return false;
	if (plt_expr(e, n, &r->st)) {
		r->st.cfa_how = CFA_PLT;
		r->st.cfa_reason = 0;
	} else {
		r->st.cfa_how = CFA_BAD;
		r->st.cfa_reason = CFI_R_CFA_EXPR;
	}
	return true;
}

/* DW_CFA_expression / val_expression: the rule is unusable for the registers we track. */
static bool reg_expr(struct cfi_run *r, struct cfi_cur *c)
{
	uint64_t reg, n;
	if (!cur_uleb(c, &reg) || !cur_uleb(c, &n) || !cur_skip(c, n))
		return false;
	set_bad(r, reg, 0);
	return true;
}

/* Opcodes with the operand in the low six bits. */
static bool run_primary(struct cfi_run *r, struct cfi_cur *c, uint8_t op)
{
	uint64_t reg = op & 0x3f, u;
	int64_t off = 0;
	bool ok;
	switch (op & 0xc0) {
	case 0x40:
		return advance(r, op & 0x3f, true);
	case 0x80:
		if (!cur_uleb(c, &u))
			return false;
		ok = factored(u, r->cie->data_align, &off);
		set_offset(r, reg, ok, off);
		return true;
	default:
		restore_reg(r, reg);
		return true;
	}
}

/* Register-rule opcodes. Returns -1 when op is not one of them. */
static int run_reg_op(struct cfi_run *r, struct cfi_cur *c, uint8_t op)
{
	uint64_t reg, u;
	int64_t s, off = 0;
	bool ok;
	switch (op) {
	case 0x05: /* offset_extended */
	case 0x2f: /* GNU_negative_offset_extended */
		if (!cur_uleb(c, &reg) || !cur_uleb(c, &u))
			return 0;
		ok = factored(u, r->cie->data_align, &off);
		if (ok && op == 0x2f) {
			ok = off != INT64_MIN;
			off = ok ? -off : 0;
		}
		set_offset(r, reg, ok, off);
		return 1;
	case 0x11: /* offset_extended_sf */
		if (!cur_uleb(c, &reg) || !cur_sleb(c, &s))
			return 0;
		ok = sfactored(s, r->cie->data_align, &off);
		set_offset(r, reg, ok, off);
		return 1;
	case 0x06: /* restore_extended */
		if (!cur_uleb(c, &reg))
			return 0;
		restore_reg(r, reg);
		return 1;
	case 0x07: /* undefined */
	case 0x08: /* same_value */
		if (!cur_uleb(c, &reg))
			return 0;
		set_how(r, reg, op == 0x07 ? RULE_UNDEF : RULE_SAME);
		return 1;
	case 0x09: /* register */
		if (!cur_uleb(c, &reg) || !cur_uleb(c, &u))
			return 0;
		if (reg == u)
			set_how(r, reg, RULE_SAME);
		else
			set_bad(r, reg, 0);
		return 1;
	case 0x14: /* val_offset */
	case 0x15: /* val_offset_sf */
		if (!cur_uleb(c, &reg) || (op == 0x14 ? !cur_uleb(c, &u) : !cur_sleb(c, &s)))
			return 0;
		set_bad(r, reg, 0);
		return 1;
	case 0x10: /* expression */
	case 0x16: /* val_expression */
		return reg_expr(r, c) ? 1 : 0;
	default:
		return -1;
	}
}

/* CFA-rule opcodes. Returns -1 when op is not one of them. */
static int run_cfa_op(struct cfi_run *r, struct cfi_cur *c, uint8_t op)
{
	uint64_t reg, u;
	int64_t s, off = 0;
	bool ok;
	switch (op) {
	case 0x0c: /* def_cfa */
		if (!cur_uleb(c, &reg) || !cur_uleb(c, &u))
			return 0;
		r->st.cfa_reg = reg;
		set_cfa(r, u <= INT64_MAX, (int64_t)u);
		return 1;
	case 0x12: /* def_cfa_sf */
		if (!cur_uleb(c, &reg) || !cur_sleb(c, &s))
			return 0;
		r->st.cfa_reg = reg;
		ok = sfactored(s, r->cie->data_align, &off);
		set_cfa(r, ok, off);
		return 1;
	case 0x0d: /* def_cfa_register: keeps the offset */
		if (!cur_uleb(c, &reg))
			return 0;
		r->st.cfa_reg = reg;
		if (r->st.cfa_how != CFA_BAD || r->st.cfa_reason != CFI_R_RANGE)
			set_cfa(r, true, r->st.cfa_off);   /* unless the offset is the problem */
		return 1;
	case 0x0e: /* def_cfa_offset: keeps the register */
		if (!cur_uleb(c, &u))
			return 0;
		set_cfa(r, u <= INT64_MAX, (int64_t)u);
		return 1;
	case 0x13: /* def_cfa_offset_sf */
		if (!cur_sleb(c, &s))
			return 0;
		ok = sfactored(s, r->cie->data_align, &off);
		set_cfa(r, ok, off);
		return 1;
	case 0x0f:
		return def_cfa_expr(r, c) ? 1 : 0;
	default:
		return -1;
	}
}

/* One instruction. Returns false to stop (end reached, error, or out of memory). */
static bool run_one(struct cfi_run *r, struct cfi_cur *c)
{
	uint8_t op, u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	if (!cur_u8(c, &op))
		return false;
	if (op & 0xc0)
		return run_primary(r, c, op);
	int done = run_reg_op(r, c, op);
	if (done < 0)
		done = run_cfa_op(r, c, op);
	if (done >= 0)
		return done == 1 || stop(r, CFI_R_TRUNCATED);
	switch (op) {
	case 0x00: return true;                               /* nop */
	case 0x01: return set_loc(r, c);
	case 0x02: return cur_u8(c, &u8) ? advance(r, u8, true) : stop(r, CFI_R_TRUNCATED);
	case 0x03: return cur_u16(c, &u16) ? advance(r, u16, true) : stop(r, CFI_R_TRUNCATED);
	case 0x04: return cur_u32(c, &u32) ? advance(r, u32, true) : stop(r, CFI_R_TRUNCATED);
	case 0x1d: return cur_u64(c, &u64) ? advance(r, u64, true) : stop(r, CFI_R_TRUNCATED);
	case 0x0a: return remember(r);
	case 0x0b: return restore_state(r);
	case 0x2e: return cur_uleb(c, &u64) || stop(r, CFI_R_TRUNCATED); /* GNU_args_size */
	default: return cfi_op_is_noop(op) || stop(r, CFI_R_OPCODE);
	}
}

bool cfi_run_insns(struct cfi_run *r, const uint8_t *p, const uint8_t *end)
{
	struct cfi_cur c = { .p = p, .end = end };
	if (r->fde_cur) {
		c.sec = r->fde_cur->sec;
		c.sec_vaddr = r->fde_cur->sec_vaddr;
	}
	r->reason = CFI_R_NONE;
	/* Every instruction consumes at least one byte, so this loop is bounded by the entry. */
	while (c.p < c.end) {
		if (run_one(r, &c))
			continue;
		if (c.err && r->reason == CFI_R_NONE)
			r->reason = CFI_R_TRUNCATED;
		return r->reason == CFI_R_NONE && !r->oom;
	}
	return true;
}
