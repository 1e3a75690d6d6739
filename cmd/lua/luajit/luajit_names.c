/* Names LuaJIT functions the way lj_debug_funcname does, from the caller's bytecode read out of
 * the target: the calling instruction says whether a metamethod ran, else which slot held the
 * callee, and a backward scan finds what loaded that slot (local, global, field, method,
 * upvalue). The rules follow LuaJIT's lj_debug.c; the code is written from those rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "luajit_frames.h"
#include "name_budget.h"
#include "safe_name.h"

#define NAME_PROTO_MAX (16u << 20)  /* protos bigger than this are not read for names */
#define MAX_RESTARTS 256            /* MOV chains followed for one name */
#define ULEB_MAX_BYTES 5            /* a 32-bit ULEB128 */

/* The proto's whole allocation, copied once: bytecode, constant refs and debug info all lie in
 * it, so every index below is checked against this buffer rather than trusted. */
struct namer {
	const struct luajit_layout *l;
	const struct luajit_mem *m;
	const struct luajit_proto *p;
	const uint8_t *blob;   /* p->addr .. p->addr + p->sizept */
	int failed;            /* a read failed: the answer may be wrong, do not cache it */
	long work;             /* steps left (name_budget.h): huge or tangled code gets no name */
};

static const char *const builtin_varnames[] = {
	NULL, "(for index)", "(for limit)", "(for step)", "(for generator)", "(for state)",
	"(for control)",
};

/* Offset in blob of target address a, or -1 when a (and len bytes) is not inside it. */
static int64_t blob_off(const struct namer *n, uint64_t a, uint64_t len)
{
	if (a < n->p->addr || a - n->p->addr > n->p->sizept || len > n->p->sizept - (a - n->p->addr))
		return -1;
	return (int64_t)(a - n->p->addr);
}

static uint32_t ins_at(const struct namer *n, uint32_t pos)
{
	uint32_t v;
	memcpy(&v, n->blob + n->l->pt_size + 4 * (size_t)pos, 4);
	return v;
}

/* bcmode of op, or 0xffff for an opcode this layout does not have. */
static unsigned mode_of(const struct namer *n, unsigned op)
{
	if (op >= (unsigned)n->l->bc_max || op >= LUAJIT_BC_CAP)
		return 0xffff;
	return n->l->bcmode[op];
}

/* ---- Strings ---- */

/* String constant ~idx: the GCRef idx + 1 slots below pt->k (proto_kgc). */
static int kgc_string(struct namer *n, uint32_t idx, char *out, size_t size)
{
	const struct luajit_layout *l = n->l;
	if (idx >= n->p->sizekgc)
		return -1;
	uint64_t at = n->p->k - (uint64_t)(idx + 1) * (uint32_t)l->gcref_size;
	int64_t off = blob_off(n, at, (uint64_t)l->gcref_size);
	if (off < 0)
		return -1;
	uint64_t s = 0;
	memcpy(&s, n->blob + off, (size_t)l->gcref_size);
	if (luajit_gcstr(l, n->m, s, out, size, NULL) < 0) {
		n->failed = 1;
		return -1;
	}
	return 0;
}

/* Copies the NUL-terminated string at blob offset off (it must end inside the blob). */
static int blob_string(const struct namer *n, int64_t off, char *out, size_t size)
{
	const uint8_t *s = n->blob + off, *end = n->blob + n->p->sizept;
	const uint8_t *nul = memchr(s, 0, (size_t)(end - s));
	if (!nul)
		return -1;
	size_t len = (size_t)(nul - s) < size - 1 ? (size_t)(nul - s) : size - 1;
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

/* lj_debug_uvname: entry idx of the NUL-separated uvinfo list; "" when stripped. */
static int uv_name(struct namer *n, uint32_t idx, char *out, size_t size)
{
	out[0] = '\0';
	if (idx >= n->p->sizeuv)
		return -1;
	if (!n->p->uvinfo)
		return 0;
	int64_t off = blob_off(n, n->p->uvinfo, 0);
	for (uint32_t i = 0; off >= 0 && i < idx; i++) {
		const uint8_t *s = n->blob + off;
		const uint8_t *nul = memchr(s, 0, n->p->sizept - (size_t)off);
		off = nul ? (int64_t)(nul + 1 - n->blob) : -1;
	}
	return off < 0 ? -1 : blob_string(n, off, out, size);
}

/* ---- Local variable names (varinfo) ---- */

/* lj_buf_ruleb128 over the blob; -1 at its end or on an over-long number. */
static int64_t uleb(const struct namer *n, int64_t *off)
{
	uint64_t v = 0;
	for (int i = 0; i < ULEB_MAX_BYTES && *off < n->p->sizept; i++) {
		uint8_t b = n->blob[(*off)++];
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return (int64_t)(uint32_t)v;
	}
	return -1;
}

/* debug_varname: the slot-th variable live at pos. Entries are a name (a string, or one byte
 * below varname_max for the built-in ones), then the start pc as a delta from the previous
 * entry's start and the length, both ULEB128; a 0 byte ends the list. */
static int var_name(struct namer *n, uint32_t pos, int slot, char *out, size_t size)
{
	int64_t off = n->p->varinfo ? blob_off(n, n->p->varinfo, 0) : -1;
	uint64_t lastpc = 0;
	while (off >= 0 && off < n->p->sizept && slot >= 0 && n->work-- > 0) {
		int64_t name = off;
		uint8_t vn = n->blob[off];
		if (vn == 0)
			return -1;
		if (vn < n->l->varname_max) {
			off++;
		} else {
			const uint8_t *nul = memchr(n->blob + off, 0, n->p->sizept - (size_t)off);
			if (!nul)
				return -1;
			off = nul + 1 - n->blob;
		}
		int64_t start = uleb(n, &off), len = start < 0 ? -1 : uleb(n, &off);
		if (len < 0)
			return -1;
		lastpc += (uint64_t)start;
		if (lastpc > pos)
			return -1;
		if (pos < lastpc + (uint64_t)len && slot-- == 0) {
			if (vn >= n->l->varname_max)
				return blob_string(n, name, out, size);
			if (vn >= sizeof builtin_varnames / sizeof builtin_varnames[0])
				return -1;
			snprintf(out, size, "%s", builtin_varnames[vn]);
			return 0;
		}
	}
	return -1;
}

/* ---- What loaded a slot ---- */

/* The name the instruction at i gives the slot it writes, following MOV to another slot
 * (*slot, *at updated, returns 1). 0 with a name, -1 without. */
static int loaded_by(struct namer *n, uint32_t i, int *slot, uint32_t *at, char *out, size_t size)
{
	const struct luajit_layout *l = n->l;
	uint32_t ins = ins_at(n, i);
	int op = (int)LUAJIT_BC_OP(ins);
	if (op == l->bc_mov) {
		*slot = (int)LUAJIT_BC_D(ins);
		*at = i;
		return 1;
	}
	if (op == l->bc_gget)
		return kgc_string(n, LUAJIT_BC_D(ins), out, size);
	if (op == l->bc_tgets)  /* "field" or "method": the bare name is the key either way */
		return kgc_string(n, LUAJIT_BC_C(ins), out, size);
	if (op == l->bc_uget)
		return uv_name(n, LUAJIT_BC_D(ins), out, size);
	return -1;
}

/* lj_debug_slotname: a live local's name, else the instruction that last wrote the slot,
 * scanning back from pos (the first instruction that could have clobbered it ends the scan). */
static int slot_name(struct namer *n, uint32_t pos, int slot, char *out, size_t size)
{
	const struct luajit_layout *l = n->l;
	for (int restarts = 0; restarts < MAX_RESTARTS && slot >= 0; restarts++) {
		if (var_name(n, pos, slot, out, size) == 0)
			return 0;
		int rc = -1, next = 0;
		if ((n->work -= pos) < 0)
			return -1;
		for (uint32_t i = pos - 1; i >= 1 && i < pos; i--) {
			uint32_t ins = ins_at(n, i);
			unsigned mode = mode_of(n, LUAJIT_BC_OP(ins)), a = LUAJIT_BC_A(ins);
			if (mode == 0xffff)
				return -1;
			if (LUAJIT_BCMODE_A(mode) == (unsigned)l->bcm_base) {
				if ((unsigned)slot >= a && ((int)LUAJIT_BC_OP(ins) != l->bc_knil ||
							    (unsigned)slot <= LUAJIT_BC_D(ins)))
					return -1;
			} else if (LUAJIT_BCMODE_A(mode) == (unsigned)l->bcm_dst && a == (unsigned)slot) {
				rc = loaded_by(n, i, &slot, &pos, out, size);
				next = rc == 1;
				break;
			}
		}
		if (!next)
			return rc < 0 ? -1 : 0;
	}
	return -1;
}

/* The metamethod's name: "__" and the name LuaJIT keeps without it. */
static int mm_name(const struct luajit_layout *l, unsigned mm, char *out, size_t size)
{
	const char *s = luajit_name_at(l->mm_names, l->mm_names_count, (int32_t)mm);
	if (!s)
		return -1;
	snprintf(out, size, "__%s", s);
	return 0;
}

static int name_at(struct namer *n, uint32_t pos, char *out, size_t size)
{
	const struct luajit_layout *l = n->l;
	uint32_t ins = ins_at(n, pos);
	unsigned mode = mode_of(n, LUAJIT_BC_OP(ins)), mm = LUAJIT_BCMODE_MM(mode);
	if (mode == 0xffff)
		return -1;
	if (mm == (unsigned)l->mm_call) {
		int slot = (int)LUAJIT_BC_A(ins);
		if ((int)LUAJIT_BC_OP(ins) == l->bc_iterc)
			slot -= 3;  /* ITERC calls a copy of the generator, 3 slots below */
		return slot_name(n, pos, slot, out, size);
	}
	if (mm != (unsigned)l->mm_max)
		return mm_name(l, mm, out, size);
	return -1;
}

int luajit_name_from_code(const struct luajit_layout *l, const struct luajit_mem *m,
		      const struct luajit_proto *p, uint32_t pos, char *out, size_t out_size)
{
	if (!out || out_size == 0)
		return -1;
	out[0] = '\0';
	if (pos < 1 || pos >= p->sizebc || p->sizept > NAME_PROTO_MAX ||
	    (uint64_t)l->pt_size + 4 * (uint64_t)p->sizebc > p->sizept)
		return -1;
	long grant = name_budget_take(), read_cost = READ_STEPS + (long)(p->sizept / 32);
	uint8_t *blob = grant > read_cost ? malloc(p->sizept) : NULL;
	if (!blob) {
		name_budget_return(grant);
		return -2;
	}
	struct namer n = { l, m, p, blob, 0, grant - read_cost };
	int rc = luajit_rd(m, p->addr, blob, p->sizept) < 0 ? -2 : name_at(&n, pos, out, out_size);
	free(blob);
	name_budget_return(n.work);
	if (n.work <= 0) {   /* no name rather than half of one */
		rc = -1;
		n.failed |= grant < NAME_WORK;   /* cut by the shared allowance: worth another try */
	}
	if (rc == 0)
		safe_name_fix(out, out_size, SAFE_LUA_NAME); /* " (" would end the name */
	else
		out[0] = '\0';
	return n.failed && rc != 0 ? -2 : rc;
}
