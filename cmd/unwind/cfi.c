/* Walks the entries of an .eh_frame or .debug_frame section, parses CIEs and FDEs, runs their
 * instructions (cfi_insn.c) into per-PC rows, and turns the rows of all FDEs into one sorted,
 * gap-terminated table (cfi_finish). Malformed entries are skipped and counted by reason. */
#include <stdlib.h>
#include <string.h>
#include "cfi_internal.h"

#define CIE_CACHE 16
#define MAX_AUG 16
#define MAX_FDE_RANGE (1ull << 32)   /* no function is 4 GiB long */
/* Real CIEs carry a handful of initial instructions. The cap bounds the work a hostile file can
 * cause by making many FDEs alternate between CIEs that evict each other from the cache. */
#define MAX_CIE_INSNS 256

struct entry {
	size_t off;                 /* of the length field */
	const uint8_t *id_at, *end; /* CIE id / CIE pointer field, end of the entry */
	bool is64;
};

struct walk {
	struct cfi_table *t;
	const uint8_t *sec;
	size_t len;
	uint64_t vaddr;
	bool debug;
	uint32_t seq;
	struct cfi_cie cache[CIE_CACHE];
	bool cached[CIE_CACHE];
};

static void count(struct cfi_table *t, uint8_t reason)
{
	if (reason < CFI_R_COUNT)
		t->counts_by_reason[reason]++;
}

bool cfi_table_push(struct cfi_table *t, const struct cfi_row *row)
{
	if (t->n == t->cap) {
		if (t->cap >= CFI_MAX_ROWS)
			return false;
		size_t cap = t->cap ? t->cap * 2 : 1024;
		if (cap > CFI_MAX_ROWS)
			cap = CFI_MAX_ROWS;
		struct cfi_row *rows = realloc(t->rows, cap * sizeof(*rows));
		if (!rows)
			return false;
		t->rows = rows;
		t->cap = cap;
	}
	t->rows[t->n++] = *row;
	return true;
}

static bool fde_push(struct cfi_table *t, const struct cfi_fde *f)
{
	if (t->nfde == t->fde_cap) {
		if (t->fde_cap >= CFI_MAX_FDES)
			return false;
		size_t cap = t->fde_cap ? t->fde_cap * 2 : 256;
		struct cfi_fde *fdes = realloc(t->fdes, cap * sizeof(*fdes));
		if (!fdes)
			return false;
		t->fdes = fdes;
		t->fde_cap = cap;
	}
	t->fdes[t->nfde++] = *f;
	return true;
}

/* Reads the length of the entry at off. Returns 1 with *e filled, 0 at a terminator,
 * -1 when the entry does not fit in the section. */
static int entry_at(const struct walk *w, size_t off, struct entry *e)
{
	struct cfi_cur c = { .p = w->sec + off, .end = w->sec + w->len };
	uint32_t len32;
	uint64_t len;
	if (off > w->len || !cur_u32(&c, &len32))
		return -1;
	len = len32;
	e->is64 = len32 == 0xffffffffu;
	if (e->is64 && !cur_u64(&c, &len))
		return -1;
	if (len == 0)
		return 0;
	if (len > (uint64_t)(c.end - c.p))
		return -1;
	e->off = off;
	e->id_at = c.p;
	e->end = c.p + len;
	return 1;
}

/* The CIE id, or for an FDE the section offset of its CIE. .eh_frame always uses a 4-byte
 * field holding the distance back from the field; .debug_frame an absolute offset. */
static bool entry_id(const struct walk *w, const struct entry *e, struct cfi_cur *c,
		     bool *is_cie, uint64_t *cie_off)
{
	uint32_t id32;
	uint64_t id;
	if (w->debug && e->is64) {
		if (!cur_u64(c, &id))
			return false;
		*is_cie = id == ~(uint64_t)0;
		*cie_off = id;
		return true;
	}
	if (!cur_u32(c, &id32))
		return false;
	if (w->debug) {
		*is_cie = id32 == 0xffffffffu;
		*cie_off = id32;
	} else {
		size_t at = (size_t)(e->id_at - w->sec);
		*is_cie = id32 == 0;
		*cie_off = id32 <= at ? at - id32 : ~(uint64_t)0;
	}
	return true;
}

static bool cie_fail(struct cfi_cie *cie, uint8_t reason)
{
	cie->ok = false;
	cie->reason = reason;
	return false;
}

/* Skips a pointer whose value we do not need; its size is all that matters. */
static bool skip_ptr(struct cfi_cur *c, uint8_t enc, uint8_t addr_size)
{
	const uint8_t *before = c->p;
	uint64_t v;
	bool unsupported;
	if (cur_ptr(c, enc, addr_size, &v, &unsupported))
		return true;
	return unsupported && !c->err && c->p != before;   /* read, only its base is unknown */
}

/* Augmentation data after 'z': only the FDE encoding and the signal flag matter to us; the
 * personality pointer is skipped by size, and anything unknown ends the walk (the 'z' length
 * says where the instructions start). Returns a reason, or CFI_R_NONE. */
static uint8_t parse_aug_data(struct cfi_cie *cie, const char *aug, struct cfi_cur *c)
{
	uint8_t enc;
	for (const char *a = aug + 1; *a; a++) {
		switch (*a) {
		case 'R':
			if (!cur_u8(c, &cie->fde_enc))
				return CFI_R_TRUNCATED;
			break;
		case 'L':
			if (!cur_u8(c, &enc))
				return CFI_R_TRUNCATED;
			break;
		case 'P':
			if (!cur_u8(c, &enc))
				return CFI_R_TRUNCATED;
			if (!skip_ptr(c, enc, cie->addr_size))
				return c->err ? CFI_R_TRUNCATED : CFI_R_ENCODING;
			break;
		case 'S':
			cie->signal = true;
			break;
		default:
			return CFI_R_NONE;
		}
	}
	return CFI_R_NONE;
}

static bool read_aug(struct cfi_cur *c, char *aug)
{
	for (int i = 0; i < MAX_AUG; i++) {
		uint8_t ch;
		if (!cur_u8(c, &ch))
			return false;
		aug[i] = (char)ch;
		if (!ch)
			return true;
	}
	return false;
}

/* Header fields between the augmentation string and the instructions. */
static bool parse_cie_fields(struct cfi_cie *cie, uint8_t version, struct cfi_cur *c)
{
	uint8_t u8, seg;
	if (version == 4) {
		if (!cur_u8(c, &cie->addr_size) || !cur_u8(c, &seg))
			return cie_fail(cie, CFI_R_TRUNCATED);
		if ((cie->addr_size != 4 && cie->addr_size != 8) || seg != 0)
			return cie_fail(cie, CFI_R_CIE_VERSION);
	}
	if (!cur_uleb(c, &cie->code_align) || !cur_sleb(c, &cie->data_align))
		return cie_fail(cie, CFI_R_TRUNCATED);
	/* x86-64 compilers use 1 and -8; anything huge is garbage and would only overflow. */
	if (cie->code_align == 0 || cie->code_align > 256 ||
	    cie->data_align < -256 || cie->data_align > 256)
		return cie_fail(cie, CFI_R_CIE_VERSION);
	if (version == 1) {
		if (!cur_u8(c, &u8))
			return cie_fail(cie, CFI_R_TRUNCATED);
		cie->ra_reg = u8;
	} else if (!cur_uleb(c, &cie->ra_reg)) {
		return cie_fail(cie, CFI_R_TRUNCATED);
	}
	return true;
}

static bool parse_cie(const struct walk *w, const struct entry *e, struct cfi_cur *c,
		      struct cfi_cie *cie)
{
	uint8_t version;
	char aug[MAX_AUG];
	memset(cie, 0, sizeof(*cie));
	cie->off = e->off;
	cie->addr_size = 8;
	if (!cur_u8(c, &version) || !read_aug(c, aug))
		return cie_fail(cie, c->err ? CFI_R_TRUNCATED : CFI_R_AUGMENTATION);
	if (version != 1 && version != 3 && version != 4)
		return cie_fail(cie, CFI_R_CIE_VERSION);
	if (!parse_cie_fields(cie, version, c))
		return false;
	if (aug[0] == 'z') {
		uint64_t n;
		cie->has_z = true;
		if (!cur_uleb(c, &n) || n > (uint64_t)(c->end - c->p))
			return cie_fail(cie, CFI_R_TRUNCATED);
		struct cfi_cur ac = *c;
		ac.end = c->p + n;
		uint8_t reason = parse_aug_data(cie, aug, &ac);
		if (reason)
			return cie_fail(cie, reason);
		c->p += n;
	} else if (aug[0]) {
		return cie_fail(cie, CFI_R_AUGMENTATION);   /* cannot tell where instructions start */
	}
	cie->insn = c->p;
	cie->insn_end = e->end;
	if (cie->insn_end - cie->insn > MAX_CIE_INSNS)
		return cie_fail(cie, CFI_R_TOO_MANY);

	struct cfi_run r = { .t = w->t, .cie = cie };
	cfi_state_init(&r.st);
	r.init = r.st;
	if (!cfi_run_insns(&r, cie->insn, cie->insn_end))
		return cie_fail(cie, r.reason ? r.reason : CFI_R_TRUNCATED);
	cie->init = r.st;
	cie->ok = true;
	return true;
}

/* The CIE at section offset off, parsed once and cached. */
static const struct cfi_cie *cie_at(struct walk *w, uint64_t off)
{
	static const struct cfi_cie bad = { .reason = CFI_R_BAD_CIE };
	struct entry e;
	bool is_cie;
	uint64_t id;
	if (off >= w->len)
		return &bad;
	size_t slot = (size_t)(off / 4) % CIE_CACHE;
	if (w->cached[slot] && w->cache[slot].off == off)
		return &w->cache[slot];
	if (entry_at(w, (size_t)off, &e) != 1)
		return &bad;
	struct cfi_cur c = { .p = e.id_at, .end = e.end, .sec = w->sec, .sec_vaddr = w->vaddr };
	if (!entry_id(w, &e, &c, &is_cie, &id) || !is_cie)
		return &bad;
	parse_cie(w, &e, &c, &w->cache[slot]);
	w->cached[slot] = true;
	w->t->n_cie++;
	if (!w->cache[slot].ok)
		count(w->t, w->cache[slot].reason);
	return &w->cache[slot];
}

/* Runs the FDE's instructions and records its rows; on an error the rows before the failing
 * location are kept, since everything up to there was decoded correctly. */
static int run_fde(struct walk *w, const struct cfi_cie *cie, struct cfi_cur *c,
		   uint64_t start, uint64_t end, const uint8_t *insn_end)
{
	struct cfi_table *t = w->t;
	struct cfi_run r = { .t = t, .cie = cie, .fde_cur = c, .start = start, .loc = start,
			     .end = end, .st = cie->init, .init = cie->init, .first_row = t->n };
	bool ok = cfi_run_insns(&r, c->p, insn_end);
	if (r.oom || (ok && r.loc < end && !cfi_emit(&r))) {
		count(t, CFI_R_TOO_MANY);     /* row cap or memory: the rest of the section is lost */
		t->n = r.first_row;
		return -1;
	}
	if (!ok) {
		count(t, r.reason);
		end = r.loc < end ? r.loc : end;
		while (t->n > r.first_row && t->rows[t->n - 1].pc >= end)
			t->n--;
	}
	if (t->n == r.first_row)
		return 0;
	struct cfi_fde f = { .start = start, .end = end, .first = r.first_row,
			     .n = t->n - r.first_row, .seq = w->seq++ };
	if (!fde_push(t, &f)) {
		count(t, CFI_R_TOO_MANY);
		t->n = r.first_row;
		return -1;
	}
	return 0;
}

/* An FDE's header up to its instructions: its CIE, initial location and address range.
 * Returns CFI_R_NONE, or why the FDE cannot be used. */
static uint8_t fde_header(struct walk *w, struct cfi_cur *c, uint64_t cie_off,
			  const struct cfi_cie **cie_out, uint64_t *start, uint64_t *range)
{
	const struct cfi_cie *cie = cie_at(w, cie_off);
	uint64_t aug_len;
	bool unsupported;
	*cie_out = cie;
	if (!cie->ok)
		return CFI_R_BAD_CIE;
	if (!cur_ptr(c, cie->fde_enc, cie->addr_size, start, &unsupported) ||
	    !cur_ptr(c, cie->fde_enc & 0x0f, cie->addr_size, range, &unsupported))
		return unsupported ? CFI_R_ENCODING : CFI_R_TRUNCATED;
	if (cie->has_z && (!cur_uleb(c, &aug_len) || !cur_skip(c, aug_len)))
		return CFI_R_TRUNCATED;
	if (*range > MAX_FDE_RANGE || *start + *range < *start)
		return CFI_R_PC_RANGE;
	return CFI_R_NONE;
}

static int parse_fde(struct walk *w, const struct entry *e, struct cfi_cur *c, uint64_t cie_off)
{
	const struct cfi_cie *cie;
	uint64_t start, range;
	w->t->n_fde++;
	uint8_t reason = fde_header(w, c, cie_off, &cie, &start, &range);
	if (reason) {
		count(w->t, reason);
		return 0;
	}
	if (range == 0)
		return 0;                /* covers nothing: a discarded function */
	return run_fde(w, cie, c, start, start + range, e->end);
}

int cfi_parse(struct cfi_table *t, const uint8_t *sec, size_t len, uint64_t sec_vaddr,
	      int is_debug_frame)
{
	struct walk *w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	*w = (struct walk){ .t = t, .sec = sec, .len = len, .vaddr = sec_vaddr,
			    .debug = is_debug_frame != 0, .seq = (uint32_t)t->nfde };
	int rc = 0;
	size_t off = 0;
	/* Each entry is at least 4 bytes long, so this walk ends. */
	while (off < len && rc == 0) {
		struct entry e;
		int got = entry_at(w, off, &e);
		if (got < 0)
			count(t, CFI_R_TRUNCATED);
		if (got == 0 && w->debug) {   /* .debug_frame has no terminator: skip the word */
			off += 4;
			continue;
		}
		if (got <= 0)
			break;
		struct cfi_cur c = { .p = e.id_at, .end = e.end, .sec = sec, .sec_vaddr = sec_vaddr };
		bool is_cie;
		uint64_t cie_off;
		if (!entry_id(w, &e, &c, &is_cie, &cie_off))
			count(t, CFI_R_TRUNCATED);
		else if (is_cie)
			cie_at(w, e.off);        /* parse now so its errors count once */
		else
			rc = parse_fde(w, &e, &c, cie_off);
		off = (size_t)(e.end - sec);
	}
	free(w);
	return rc;
}

int cfi_fde_range(const uint8_t *sec, size_t len, uint64_t sec_vaddr, uint64_t fde_off,
		  uint64_t *start, uint64_t *end)
{
	struct cfi_table scratch = { 0 };   /* counts only: CIEs emit no rows */
	struct walk *w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	*w = (struct walk){ .t = &scratch, .sec = sec, .len = len, .vaddr = sec_vaddr };
	struct entry e;
	struct cfi_cur c;
	const struct cfi_cie *cie;
	bool is_cie = true;
	uint64_t cie_off, s = 0, range = 0;
	int rc = -1;
	if (fde_off < len && entry_at(w, (size_t)fde_off, &e) == 1) {
		c = (struct cfi_cur){ .p = e.id_at, .end = e.end, .sec = sec, .sec_vaddr = sec_vaddr };
		if (entry_id(w, &e, &c, &is_cie, &cie_off) && !is_cie &&
		    fde_header(w, &c, cie_off, &cie, &s, &range) == CFI_R_NONE && range) {
			*start = s;
			*end = s + range;
			rc = 0;
		}
	}
	free(w);
	return rc;
}

static int span_cmp(const void *a, const void *b)
{
	const struct cfi_span *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static bool span_push(struct cfi_span **v, size_t *n, size_t *cap, uint64_t start, uint64_t end)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		struct cfi_span *nv = c <= CFI_MAX_FDES ? realloc(*v, c * sizeof(**v)) : NULL;
		if (!nv)
			return false;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = (struct cfi_span){ start, end };
	return true;
}

size_t cfi_fde_spans(const uint8_t *sec, size_t len, uint64_t sec_vaddr, struct cfi_span **out)
{
	struct cfi_table scratch = { 0 };
	struct walk *w = calloc(1, sizeof(*w));
	size_t n = 0, cap = 0, off = 0;
	*out = NULL;
	if (!w)
		return 0;
	*w = (struct walk){ .t = &scratch, .sec = sec, .len = len, .vaddr = sec_vaddr };
	struct entry e;
	/* Each entry is at least 4 bytes long, so this walk ends. */
	while (off < len && entry_at(w, off, &e) == 1) {
		struct cfi_cur c = { .p = e.id_at, .end = e.end, .sec = sec, .sec_vaddr = sec_vaddr };
		const struct cfi_cie *cie;
		bool is_cie;
		uint64_t cie_off, start, range;
		if (entry_id(w, &e, &c, &is_cie, &cie_off) && !is_cie &&
		    fde_header(w, &c, cie_off, &cie, &start, &range) == CFI_R_NONE && range &&
		    !span_push(out, &n, &cap, start, start + range))
			break;
		off = (size_t)(e.end - sec);
	}
	free(w);
	if (n)
		qsort(*out, n, sizeof(**out), span_cmp);
	return n;
}

/* -------- finishing -------- */

static int fde_cmp(const void *a, const void *b)
{
	const struct cfi_fde *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool fdes_sorted(const struct cfi_table *t)
{
	for (size_t i = 1; i < t->nfde; i++)
		if (fde_cmp(&t->fdes[i - 1], &t->fdes[i]) > 0)
			return false;
	return true;
}

static void put(struct cfi_row *out, size_t *n, const struct cfi_row *row)
{
	if (*n > 0 && out[*n - 1].kind != CFI_ROW_END && cfi_same_rules(&out[*n - 1], row))
		return;
	if (*n > 0 && out[*n - 1].pc == row->pc) {   /* END of the previous range replaced */
		out[*n - 1] = *row;
		return;
	}
	out[(*n)++] = *row;
}

static void put_end(struct cfi_row *out, size_t *n, uint64_t pc)
{
	struct cfi_row end = { .pc = pc, .kind = CFI_ROW_END };
	out[(*n)++] = end;
}

int cfi_finish(struct cfi_table *t)
{
	struct cfi_row *out = malloc((t->n + t->nfde + 1) * sizeof(*out));
	size_t n = 0;
	uint64_t prev_end = 0;
	bool any = false;
	if (!out)
		return -1;
	if (!fdes_sorted(t))
		qsort(t->fdes, t->nfde, sizeof(*t->fdes), fde_cmp);
	for (size_t i = 0; i < t->nfde; i++) {
		const struct cfi_fde *f = &t->fdes[i];
		if (any && f->start < prev_end) {
			count(t, CFI_R_OVERLAP);
			continue;
		}
		if (any && f->start > prev_end)
			put_end(out, &n, prev_end);
		for (size_t j = 0; j < f->n; j++)
			put(out, &n, &t->rows[f->first + j]);
		prev_end = f->end;
		any = true;
	}
	if (any)
		put_end(out, &n, prev_end);
	for (size_t i = 0; i < n; i++)
		if (out[i].kind == CFI_ROW_INVALID)
			count(t, out[i].reason);
	free(t->rows);
	free(t->fdes);
	t->rows = out;
	t->n = t->cap = n;
	t->fdes = NULL;
	t->nfde = t->fde_cap = 0;
	return 0;
}

/* Inserts n rows at index i of a finished table. */
static int insert_rows(struct cfi_table *t, size_t i, const struct cfi_row *row, size_t n)
{
	struct cfi_row *rows = realloc(t->rows, (t->n + n) * sizeof(*rows));
	if (!rows)
		return -1;
	memmove(rows + i + n, rows + i, (t->n - i) * sizeof(*rows));
	memcpy(rows + i, row, n * sizeof(*rows));
	t->rows = rows;
	t->n += n;
	t->cap = t->n;
	return 0;
}

int cfi_fill_gap(struct cfi_table *t, const struct cfi_row *rows, size_t n, uint64_t end)
{
	if (!n || rows[0].pc >= end)
		return 1;
	const struct cfi_row *at = cfi_lookup(t, rows[0].pc);
	size_t i = at ? (size_t)(at - t->rows) + 1 : 0; /* first row after the start */
	if ((at && at->kind != CFI_ROW_END) || (i < t->n && t->rows[i].pc < end))
		return 1;                    /* described by an FDE, at least in part */
	/* an END exactly at the start gives way; asked now, as inserting moves the rows */
	int replace = at && at->pc == rows[0].pc;
	struct cfi_row gap = { .pc = end, .kind = CFI_ROW_END };
	if (i == t->n || t->rows[i].pc != end) /* the rest up to the next FDE stays a gap */
		if (insert_rows(t, i, &gap, 1))
			return -1;
	if (replace) {
		t->rows[i - 1] = rows[0];
		return insert_rows(t, i, rows + 1, n - 1);
	}
	return insert_rows(t, i, rows, n);
}

int cfi_mark_entry(struct cfi_table *t, uint64_t entry)
{
	const struct cfi_row *at = cfi_lookup(t, entry);
	if (!entry || (at && at->kind != CFI_ROW_END))
		return 0;                    /* no entry, or described by an FDE */
	size_t i = at ? (size_t)(at - t->rows) + 1 : 0; /* first row after entry */
	uint64_t end = i < t->n && t->rows[i].pc - entry < CFI_ENTRY_SPAN ? t->rows[i].pc
									 : entry + CFI_ENTRY_SPAN;
	struct cfi_row stop = { .pc = entry, .kind = CFI_ROW_STOP };
	return cfi_fill_gap(t, &stop, 1, end) < 0 ? -1 : 0;
}

static bool all_nops(const uint8_t *p, size_t n)
{
	for (size_t k; n; p += k, n -= k)
		if (!(k = cfi_nop_len(p, n)))
			return false;
	return true;
}

size_t cfi_fill_padding(struct cfi_table *t, int (*read)(void *ctx, uint64_t addr, uint8_t *buf, size_t n),
			void *ctx)
{
	size_t filled = 0;
	uint8_t code[CFI_MAX_PADDING];
	for (size_t i = 0; i + 1 < t->n; i++) {
		struct cfi_row *gap = &t->rows[i], *next = &t->rows[i + 1];
		uint64_t n = next->pc - gap->pc;
		if (gap->kind != CFI_ROW_END || n > CFI_MAX_PADDING || next->kind != CFI_ROW_NORMAL)
			continue;
		if (!read(ctx, gap->pc, code, (size_t)n) || !all_nops(code, (size_t)n))
			continue;
		uint64_t pc = gap->pc;
		*gap = *next;
		gap->pc = pc;
		filled++;
	}
	return filled;
}

const struct cfi_row *cfi_lookup(const struct cfi_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;
	if (!t->n || pc < t->rows[0].pc)
		return NULL;
	while (hi - lo > 1) {            /* invariant: rows[lo].pc <= pc < rows[hi].pc */
		size_t mid = lo + (hi - lo) / 2;
		if (t->rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

void cfi_free(struct cfi_table *t)
{
	free(t->rows);
	free(t->fdes);
	memset(t, 0, sizeof(*t));
}

const char *cfi_reason_name(int reason)
{
	static const char *const names[CFI_R_COUNT] = {
		[CFI_R_NONE] = "none", [CFI_R_CFA_REG] = "cfa-register",
		[CFI_R_CFA_EXPR] = "cfa-expression", [CFI_R_RA_RULE] = "ra-rule",
		[CFI_R_FP_RULE] = "fp-rule", [CFI_R_RANGE] = "offset-range",
		[CFI_R_TRUNCATED] = "truncated", [CFI_R_BAD_CIE] = "bad-cie",
		[CFI_R_CIE_VERSION] = "cie-version", [CFI_R_AUGMENTATION] = "augmentation",
		[CFI_R_ENCODING] = "pointer-encoding", [CFI_R_OPCODE] = "unknown-opcode",
		[CFI_R_STATE_STACK] = "state-stack", [CFI_R_LOCATION] = "location",
		[CFI_R_PC_RANGE] = "pc-range", [CFI_R_OVERLAP] = "overlap",
		[CFI_R_TOO_MANY] = "too-many",
	};
	if (reason < 0 || reason >= CFI_R_COUNT)
		return "unknown";
	return names[reason];
}

const char *cfi_kind_name(int kind)
{
	static const char *const names[] = { "normal", "plt1", "plt2", "end", "stop", "invalid",
					     "plt3", "plt4" };
	if (kind < 0 || kind >= (int)(sizeof(names) / sizeof(names[0])))
		return "unknown";
	return names[kind];
}
