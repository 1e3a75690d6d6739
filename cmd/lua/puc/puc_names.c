/* Names functions the way Lua's lua_getinfo "n" does, from the caller's bytecode read out of the
 * target: which instruction last set the called register (symbolic execution over the code up to
 * the call), and what that instruction loaded (global, field, method, local, upvalue, constant).
 * The rules follow each version's ldebug.c (5.5's are 5.4's plus OP_GETVARG and constant SELF
 * keys); the code is written from those rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "name_budget.h"
#include "puc_frames.h"
#include "safe_name.h"

#define MAX_CODE (1 << 20)     /* instructions read for one name (4 MiB) */
#define MAX_LOCVARS (1 << 16)  /* locvars scanned for one local name */
#define MAX_DEPTH 32           /* nested lookups (MOVE chains, table names, RK keys) */
#define LV_CHUNK 64            /* locvars read per call of the reader */

/* What a register holds, as getobjname says it. */
enum what { W_NONE, W_LOCAL, W_GLOBAL, W_FIELD, W_METHOD, W_UPVAL, W_CONST };

struct namer {
	const struct puc_layout *l;
	const struct puc_mem *m;
	const struct puc_proto *p;
	const uint32_t *code;  /* code[0 .. ncode) */
	int ncode;
	int depth;
	int failed;            /* a read failed: the answer may be wrong, do not cache it */
	long work;             /* steps left (name_budget.h): huge or tangled code gets no name */
};

static const char *const tm_names[LTM_COUNT] = {
	[LTM_INDEX] = "__index", [LTM_NEWINDEX] = "__newindex", [LTM_GC] = "__gc",
	[LTM_MODE] = "__mode", [LTM_LEN] = "__len", [LTM_EQ] = "__eq", [LTM_ADD] = "__add",
	[LTM_SUB] = "__sub", [LTM_MUL] = "__mul", [LTM_MOD] = "__mod", [LTM_POW] = "__pow",
	[LTM_DIV] = "__div", [LTM_IDIV] = "__idiv", [LTM_BAND] = "__band", [LTM_BOR] = "__bor",
	[LTM_BXOR] = "__bxor", [LTM_SHL] = "__shl", [LTM_SHR] = "__shr", [LTM_UNM] = "__unm",
	[LTM_BNOT] = "__bnot", [LTM_LT] = "__lt", [LTM_LE] = "__le", [LTM_CONCAT] = "__concat",
	[LTM_CALL] = "__call", [LTM_CLOSE] = "__close",
};

/* Instructions that call a metamethod, for the minor versions whose funcnamefromcode names them
 * (5.4 moved arithmetic to OP_MMBIN*, handled apart; 5.1 names no metamethod). */
static const struct { uint8_t op, tm, lo, hi; } mm_ops[] = {
	{ LOP_SELF, LTM_INDEX, 2, 4 }, { LOP_GETTABUP, LTM_INDEX, 2, 4 },
	{ LOP_GETTABLE, LTM_INDEX, 2, 4 }, { LOP_GETI, LTM_INDEX, 4, 4 },
	{ LOP_GETFIELD, LTM_INDEX, 4, 4 }, { LOP_SETTABUP, LTM_NEWINDEX, 2, 4 },
	{ LOP_SETTABLE, LTM_NEWINDEX, 2, 4 }, { LOP_SETI, LTM_NEWINDEX, 4, 4 },
	{ LOP_SETFIELD, LTM_NEWINDEX, 4, 4 },
	{ LOP_ADD, LTM_ADD, 2, 3 }, { LOP_SUB, LTM_SUB, 2, 3 }, { LOP_MUL, LTM_MUL, 2, 3 },
	{ LOP_MOD, LTM_MOD, 2, 3 }, { LOP_POW, LTM_POW, 2, 3 }, { LOP_DIV, LTM_DIV, 2, 3 },
	{ LOP_IDIV, LTM_IDIV, 2, 3 }, { LOP_BAND, LTM_BAND, 2, 3 }, { LOP_BOR, LTM_BOR, 2, 3 },
	{ LOP_BXOR, LTM_BXOR, 2, 3 }, { LOP_SHL, LTM_SHL, 2, 3 }, { LOP_SHR, LTM_SHR, 2, 3 },
	{ LOP_UNM, LTM_UNM, 2, 4 }, { LOP_BNOT, LTM_BNOT, 2, 4 }, { LOP_LEN, LTM_LEN, 2, 4 },
	{ LOP_CONCAT, LTM_CONCAT, 2, 4 }, { LOP_EQ, LTM_EQ, 2, 4 },
	{ LOP_LT, LTM_LT, 2, 4 }, { LOP_LTI, LTM_LT, 4, 4 }, { LOP_GTI, LTM_LT, 4, 4 },
	{ LOP_LE, LTM_LE, 2, 4 }, { LOP_LEI, LTM_LE, 4, 4 }, { LOP_GEI, LTM_LE, 4, 4 },
	{ LOP_CLOSE, LTM_CLOSE, 4, 4 }, { LOP_RETURN, LTM_CLOSE, 4, 4 },
};

/* ---- Instruction fields ---- */

static unsigned field(uint32_t i, unsigned pos, unsigned size)
{
	if (size == 0 || size >= 32 || pos >= 32)
		return 0;
	return (i >> pos) & ((1u << size) - 1);
}

static unsigned OP(const struct namer *n, uint32_t i) { return field(i, n->l->pos_op, n->l->size_op); }
static int A(const struct namer *n, uint32_t i) { return (int)field(i, n->l->pos_a, n->l->size_a); }
static int B(const struct namer *n, uint32_t i) { return (int)field(i, n->l->pos_b, n->l->size_b); }
static int C(const struct namer *n, uint32_t i) { return (int)field(i, n->l->pos_c, n->l->size_c); }
static int Bx(const struct namer *n, uint32_t i) { return (int)field(i, n->l->pos_bx, n->l->size_bx); }
static int Ax(const struct namer *n, uint32_t i) { return (int)field(i, n->l->pos_ax, n->l->size_ax); }
static int sBx(const struct namer *n, uint32_t i) { return Bx(n, i) - (int)n->l->offset_sbx; }
static int sJ(const struct namer *n, uint32_t i)
{
	return (int)field(i, n->l->pos_sj, n->l->size_sj) - (int)n->l->offset_sj;
}
static int kbit(const struct namer *n, uint32_t i) { return (int)field(i, n->l->pos_k, 1); }

/* Is opcode o the version's LOP_x? (LUA_OP_NONE never matches a decoded opcode.) */
static int is(const struct namer *n, unsigned o, enum puc_op x)
{
	return n->l->op[x] != LUA_OP_NONE && o == n->l->op[x];
}

/* testAMode: the instruction writes register A. */
static int sets_a(const struct namer *n, unsigned o)
{
	return o < n->l->num_opcodes && o < LUA_MAX_OPCODES && ((n->l->opmodes[o] >> n->l->om_a_bit) & 1);
}

/* ---- Strings the names come from ---- */

static int read_tstring(struct namer *n, uint64_t ts, char *out, size_t size)
{
	if (puc_tstring(n->l, n->m, ts, out, size, NULL) < 0) {
		n->failed = 1;
		return -1;
	}
	return 0;
}

/* Constant k[c] when it is a string; -1 otherwise. */
static int kstring(struct namer *n, int c, char *out, size_t size)
{
	const struct puc_layout *l = n->l;
	uint8_t tv[32];
	if (c < 0 || c >= n->p->sizek || !n->p->k || l->tv_sizeof > sizeof tv)
		return -1;
	if (puc_rd(n->m, n->p->k + (uint64_t)c * l->tv_sizeof, tv, l->tv_sizeof) < 0) {
		n->failed = 1;
		return -1;
	}
	uint32_t tag = puc_tag_at(tv, l->tv_tt, l->tv_tt_size);
	if (tag != l->tvtag_shrstr && tag != l->tvtag_lngstr)
		return -1;
	uint64_t ts = puc_u64_at(tv, l->tv_value);
	return read_tstring(n, ts, out, size);
}

/* upvalname: "?" when the name is missing (stripped) or the index is out of range. */
static void upval_name(struct namer *n, int uv, char *out, size_t size)
{
	const struct puc_layout *l = n->l;
	uint64_t ts = 0;
	if (uv >= 0 && uv < n->p->sizeupvalues && n->p->upvalues &&
	    puc_rd(n->m, n->p->upvalues + (uint64_t)uv * l->uv_sizeof + l->uv_name, &ts, 8) < 0)
		n->failed = 1;
	if (!ts || read_tstring(n, ts, out, size) < 0)
		snprintf(out, size, "?");
}

/* luaF_getlocalname: the name of the reg1-th (1-based) variable active at pc. */
static int local_name(struct namer *n, int reg1, int pc, char *out, size_t size)
{
	const struct puc_layout *l = n->l;
	uint8_t buf[LV_CHUNK * 32];
	int total = n->p->sizelocvars < MAX_LOCVARS ? n->p->sizelocvars : MAX_LOCVARS;
	if (!n->p->locvars || l->lv_sizeof == 0 || l->lv_sizeof > 32)
		return -1;
	for (int base = 0; base < total; base += LV_CHUNK) {
		int cnt = total - base < LV_CHUNK ? total - base : LV_CHUNK;
		if ((n->work -= cnt + READ_STEPS) < 0)
			return -1;
		if (puc_rd(n->m, n->p->locvars + (uint64_t)base * l->lv_sizeof, buf,
			   (size_t)cnt * l->lv_sizeof) < 0) {
			n->failed = 1;
			return -1;
		}
		for (int j = 0; j < cnt; j++) {
			const uint8_t *e = buf + (size_t)j * l->lv_sizeof;
			int32_t startpc, endpc;
			uint64_t name;
			memcpy(&startpc, e + l->lv_startpc, 4);
			memcpy(&endpc, e + l->lv_endpc, 4);
			memcpy(&name, e + l->lv_varname, 8);
			if (startpc > pc)
				return -1;
			if (pc < endpc && --reg1 == 0)
				return read_tstring(n, name, out, size);
		}
	}
	return -1;
}

/* ---- Which instruction last set a register ---- */

/* 5.1: the upvalue count of child proto b, i.e. how many pseudo-instructions follow CLOSURE. */
static int child_nups(struct namer *n, int b)
{
	uint64_t child = 0;
	uint8_t nups = 0;
	if (b < 0 || b >= n->p->sizep || !n->p->p || n->l->p_numparams == 0 ||
	    puc_rd(n->m, n->p->p + (uint64_t)b * 8, &child, 8) < 0 ||
	    puc_rd(n->m, child + n->l->p_numparams - 1u, &nups, 1) < 0) {
		n->failed = 1;
		return 0;
	}
	return nups;
}

/* 5.1 (symbexec): follows forward jumps that do not skip lastpc, and skips the data words after
 * SETLIST (C == 0) and CLOSURE. Returns the pc, or -1 for "the final return" (no name). */
static int findsetreg_51(struct namer *n, int lastpc, int reg)
{
	int last = -1;
	if ((n->work -= lastpc) < 0)
		return -1;
	for (int pc = 0; pc < lastpc; pc++) {
		uint32_t i = n->code[pc];
		unsigned o = OP(n, i);
		int a = A(n, i);
		if (o >= n->l->num_opcodes)
			return -1;  /* Lua's verifier would reject this code */
		if (sets_a(n, o) && a == reg)
			last = pc;
		if (is(n, o, LOP_LOADNIL)) {
			if (a <= reg && reg <= B(n, i))
				last = pc;
		} else if (is(n, o, LOP_SELF)) {
			if (reg == a + 1)
				last = pc;
		} else if (is(n, o, LOP_TFORLOOP)) {
			if (reg >= a + 2)
				last = pc;
		} else if (is(n, o, LOP_CALL) || is(n, o, LOP_TAILCALL)) {
			if (reg >= a)
				last = pc;
		} else if (is(n, o, LOP_JMP) || is(n, o, LOP_FORLOOP) || is(n, o, LOP_FORPREP)) {
			int b = sBx(n, i), dest = pc + 1 + b;
			if (pc < dest && dest <= lastpc)
				pc += b;
		} else if (is(n, o, LOP_SETLIST)) {
			if (C(n, i) == 0)
				pc++;
		} else if (is(n, o, LOP_CLOSURE)) {
			pc += child_nups(n, Bx(n, i));
		}
	}
	return last;
}

/* 5.2-5.4: the last instruction before lastpc that changed reg, or -1 when that is unknown
 * (nothing did, or it sits in code a forward jump may skip). */
static int findsetreg(struct namer *n, int lastpc, int reg)
{
	const int v54 = n->l->minor >= 4;
	int setreg = -1, jmptarget = 0;
	if ((n->work -= lastpc) < 0)
		return -1;
	if (v54 && lastpc < n->ncode) {
		unsigned o = OP(n, n->code[lastpc]);
		if (is(n, o, LOP_MMBIN) || is(n, o, LOP_MMBINI) || is(n, o, LOP_MMBINK))
			lastpc--;  /* the arithmetic before OP_MMBIN* did not run */
	}
	for (int pc = 0; pc < lastpc; pc++) {
		uint32_t i = n->code[pc];
		unsigned o = OP(n, i);
		int a = A(n, i), change;
		if (is(n, o, LOP_LOADNIL)) {
			change = a <= reg && reg <= a + B(n, i);
		} else if (is(n, o, LOP_TFORCALL)) {
			change = reg >= a + 2;
		} else if (is(n, o, LOP_CALL) || is(n, o, LOP_TAILCALL)) {
			change = reg >= a;
		} else if (is(n, o, LOP_JMP)) {
			int dest = pc + 1 + (v54 ? sJ(n, i) : sBx(n, i));
			/* 5.2/5.3 only count forward jumps */
			if ((v54 || pc < dest) && dest <= lastpc && dest > jmptarget)
				jmptarget = dest;
			change = 0;
		} else if (n->l->minor == 2 && is(n, o, LOP_TEST)) {
			change = reg == a;  /* 5.2: the jumped code may change A */
		} else {
			change = sets_a(n, o) && reg == a;
		}
		if (change)
			setreg = pc < jmptarget ? -1 : pc;
	}
	return setreg;
}

/* ---- What a register holds ---- */

static enum what getobjname(struct namer *n, int lastpc, int reg, char *out, size_t size);

/* 5.1 RK operand: a string constant's text, else "?". */
static void kname_51(struct namer *n, int c, char *out, size_t size)
{
	if (!((unsigned)c & n->l->bitrk) ||
	    kstring(n, (int)((unsigned)c & ~n->l->bitrk), out, size) < 0)
		snprintf(out, size, "?");
}

/* 5.2/5.3 RK operand: a string constant, or a register holding one (LOADK), else "?". */
static void kname_rk(struct namer *n, int pc, int c, char *out, size_t size)
{
	if ((unsigned)c & n->l->bitrk) {
		if (kstring(n, (int)((unsigned)c & ~n->l->bitrk), out, size) < 0)
			snprintf(out, size, "?");
	} else if (getobjname(n, pc, c, out, size) != W_CONST) {
		snprintf(out, size, "?");
	}
}

/* 5.4: the key in register c, when it is a known string constant. */
static void rname(struct namer *n, int pc, int c, char *out, size_t size)
{
	if (getobjname(n, pc, c, out, size) != W_CONST)
		snprintf(out, size, "?");
}

/* 5.4: an indexed table named _ENV makes the access a global. */
static enum what gxf(struct namer *n, int pc, uint32_t i, int isup)
{
	char t[LUA_IDENT_MAX];
	t[0] = '\0';
	if (isup)
		upval_name(n, B(n, i), t, sizeof t);
	else if (getobjname(n, pc, B(n, i), t, sizeof t) == W_NONE)
		return W_FIELD;
	return strcmp(t, "_ENV") == 0 ? W_GLOBAL : W_FIELD;
}

static enum what objname_51(struct namer *n, int lastpc, uint32_t i, char *out, size_t size)
{
	unsigned o = OP(n, i);
	if (is(n, o, LOP_GETGLOBAL)) {
		if (kstring(n, Bx(n, i), out, size) < 0)
			snprintf(out, size, "?");
		return W_GLOBAL;
	}
	if (is(n, o, LOP_MOVE))  /* 5.1 names the source as seen from the call itself */
		return B(n, i) < A(n, i) ? getobjname(n, lastpc, B(n, i), out, size) : W_NONE;
	if (is(n, o, LOP_GETTABLE)) {
		kname_51(n, C(n, i), out, size);
		return W_FIELD;
	}
	if (is(n, o, LOP_GETUPVAL)) {
		upval_name(n, B(n, i), out, size);
		return W_UPVAL;
	}
	if (is(n, o, LOP_SELF)) {
		kname_51(n, C(n, i), out, size);
		return W_METHOD;
	}
	return W_NONE;
}

/* 5.2/5.3: GETTABUP and GETTABLE name the table by a local or upvalue called _ENV. */
static enum what objname_52(struct namer *n, int pc, uint32_t i, char *out, size_t size)
{
	unsigned o = OP(n, i);
	if (is(n, o, LOP_GETTABUP) || is(n, o, LOP_GETTABLE)) {
		char t[LUA_IDENT_MAX];
		int found = 1;
		if (is(n, o, LOP_GETTABLE))
			found = local_name(n, B(n, i) + 1, pc, t, sizeof t) == 0;
		else
			upval_name(n, B(n, i), t, sizeof t);
		kname_rk(n, pc, C(n, i), out, size);
		return found && strcmp(t, "_ENV") == 0 ? W_GLOBAL : W_FIELD;
	}
	if (is(n, o, LOP_SELF)) {
		kname_rk(n, pc, C(n, i), out, size);
		return W_METHOD;
	}
	return W_NONE;
}

static enum what objname_54(struct namer *n, int pc, uint32_t i, char *out, size_t size)
{
	unsigned o = OP(n, i);
	if (is(n, o, LOP_GETTABUP)) {
		if (kstring(n, C(n, i), out, size) < 0)
			snprintf(out, size, "?");
		return gxf(n, pc, i, 1);
	}
	if (is(n, o, LOP_GETTABLE) || is(n, o, LOP_GETVARG)) {  /* GETVARG: 5.5, t[k] on "..." */
		rname(n, pc, C(n, i), out, size);
		return gxf(n, pc, i, 0);
	}
	if (is(n, o, LOP_GETI)) {
		snprintf(out, size, "integer index");
		return W_FIELD;
	}
	if (is(n, o, LOP_GETFIELD)) {
		if (kstring(n, C(n, i), out, size) < 0)
			snprintf(out, size, "?");
		return gxf(n, pc, i, 0);
	}
	if (is(n, o, LOP_SELF)) {
		if (kbit(n, i) || n->l->minor >= 5) {  /* 5.5: the key is always a constant */
			if (kstring(n, C(n, i), out, size) < 0)
				snprintf(out, size, "?");
		} else {
			rname(n, pc, C(n, i), out, size);
		}
		return W_METHOD;
	}
	return W_NONE;
}

/* Cases 5.2-5.4 share: MOVE, GETUPVAL, LOADK/LOADKX. W_NONE with *handled = 0 otherwise. */
static enum what objname_common(struct namer *n, int pc, uint32_t i, char *out, size_t size,
				int *handled)
{
	unsigned o = OP(n, i);
	*handled = 1;
	if (is(n, o, LOP_MOVE))
		return B(n, i) < A(n, i) ? getobjname(n, pc, B(n, i), out, size) : W_NONE;
	if (is(n, o, LOP_GETUPVAL)) {
		upval_name(n, B(n, i), out, size);
		return W_UPVAL;
	}
	if (is(n, o, LOP_LOADK) || is(n, o, LOP_LOADKX)) {
		int b = is(n, o, LOP_LOADK) ? Bx(n, i) : pc + 1 < n->ncode ? Ax(n, n->code[pc + 1]) : -1;
		return kstring(n, b, out, size) == 0 ? W_CONST : W_NONE;
	}
	*handled = 0;
	return W_NONE;
}

static enum what getobjname(struct namer *n, int lastpc, int reg, char *out, size_t size)
{
	enum what w = W_NONE;
	if (lastpc < 0 || lastpc >= n->ncode || n->depth >= MAX_DEPTH || n->work <= 0)
		return W_NONE;
	n->depth++;
	if (local_name(n, reg + 1, lastpc, out, size) == 0) {
		w = W_LOCAL;
	} else {
		int minor = n->l->minor;
		int pc = minor == 1 ? findsetreg_51(n, lastpc, reg) : findsetreg(n, lastpc, reg);
		if (pc >= 0) {
			uint32_t i = n->code[pc];
			int handled = 0;
			if (minor == 1)
				w = objname_51(n, lastpc, i, out, size);
			else if ((w = objname_common(n, pc, i, out, size, &handled)), !handled)
				w = minor >= 4 ? objname_54(n, pc, i, out, size) : objname_52(n, pc, i, out, size);
		}
	}
	n->depth--;
	return w;
}

/* ---- The calling instruction ---- */

/* The metamethod instruction o calls in this version, or -1. */
static int metamethod_of(struct namer *n, uint32_t i)
{
	unsigned o = OP(n, i);
	int minor = n->l->minor > 4 ? 4 : n->l->minor;  /* 5.5 calls metamethods where 5.4 does */
	if (minor >= 4 && (is(n, o, LOP_MMBIN) || is(n, o, LOP_MMBINI) || is(n, o, LOP_MMBINK))) {
		int c = C(n, i);  /* the version's own TMS number */
		for (int e = 0; e < LTM_N; e++)
			if (n->l->tm[e] != LUA_OP_NONE && n->l->tm[e] == c)
				return e;
		return -1;
	}
	for (size_t j = 0; j < sizeof mm_ops / sizeof mm_ops[0]; j++)
		if (minor >= mm_ops[j].lo && minor <= mm_ops[j].hi && is(n, o, mm_ops[j].op))
			return mm_ops[j].tm;
	return -1;
}

/* funcnamefromcode: 0 with the name, or -1. */
static int name_of_call(struct namer *n, int pc, char *out, size_t size)
{
	uint32_t i = n->code[pc];
	unsigned o = OP(n, i);
	if (is(n, o, LOP_CALL) || is(n, o, LOP_TAILCALL) || (n->l->minor == 1 && is(n, o, LOP_TFORLOOP)))
		return getobjname(n, pc, A(n, i), out, size) == W_NONE ? -1 : 0;
	if (n->l->minor == 1)
		return -1;
	if (is(n, o, LOP_TFORCALL)) {
		snprintf(out, size, "for iterator");
		return 0;
	}
	int tm = metamethod_of(n, i);
	if (tm < 0 || !tm_names[tm])
		return -1;
	snprintf(out, size, "%s", tm_names[tm]);
	return 0;
}

int puc_name_from_code(const struct puc_layout *l, const struct puc_mem *m,
		       const struct puc_proto *p, int pc, char *out, size_t out_size)
{
	if (!out || out_size == 0)
		return -1;
	out[0] = '\0';
	if (pc < 0 || pc >= p->sizecode || pc >= MAX_CODE - 1 || l->size_op == 0)
		return -1;
	int ncode = pc + 2 <= p->sizecode ? pc + 2 : p->sizecode;
	long grant = name_budget_take();
	long read_cost = READ_STEPS + ncode / 4;
	uint32_t *code = grant > read_cost ? malloc((size_t)ncode * 4) : NULL;
	if (!code || puc_rd(m, p->code, code, (size_t)ncode * 4) < 0) {
		free(code);
		name_budget_return(grant);
		return -2;
	}
	struct namer n = { .l = l, .m = m, .p = p, .code = code, .ncode = ncode, .work = grant - read_cost };
	int rc = name_of_call(&n, pc, out, out_size);
	free(code);
	name_budget_return(n.work);
	if (n.work <= 0) {   /* no name rather than half of one */
		rc = -1;
		n.failed |= grant < NAME_WORK;   /* cut by the shared allowance: worth another try */
	}
	if (n.failed)
		return -2;
	if (rc == 0)
		safe_name_fix(out, out_size, SAFE_LUA_NAME); /* " (" would end the name */
	else
		out[0] = '\0';
	return rc;
}
