/* `lua-flame diff --top N`: the functions (frame labels, wherever they are called from)
 * whose self or total share changed most between BEFORE and AFTER, as a table with each
 * one's kind (Lua, C, ...). Total counts a stack once however often the function recurses
 * in it. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "kind.h"

/* Short kind names for a narrow column (kind_label's are for the legend). */
static const char *const kind_short[KIND_COUNT] = {
	[KIND_LUA] = "Lua", [KIND_JIT] = "Lua JIT", [KIND_NATIVE] = "C", [KIND_KERNEL] = "kernel",
	[KIND_VM] = "VM", [KIND_MARKER] = "marker", [KIND_OFFCPU] = "off-CPU",
	[KIND_HEAP_FIELD] = "field", [KIND_HEAP_VAR] = "var", [KIND_HEAP_STEP] = "step", [KIND_HEAP_TYPE] = "type",
	[KIND_HEAP_VM] = "VM",
};

struct fn {
	const struct fnode *name;    /* any frame with this label */
	uint64_t self[2], total[2];  /* [0] BEFORE, [1] AFTER */
	double rank;
};

struct fns {
	struct fn *v;
	size_t *slot;                /* index + 1, 0 free */
	size_t n, nslots;
	const struct fnode *chain[FLAME_MAX_DEPTH + 1];
};

static int same(const struct fnode *a, const struct fnode *b)
{
	return a->hash == b->hash && a->len == b->len && !memcmp(a->name, b->name, a->len);
}

static struct fn *fn_of(struct fns *t, const struct fnode *x)
{
	size_t j = x->hash & (t->nslots - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslots - 1))
		if (same(t->v[t->slot[j] - 1].name, x))
			return &t->v[t->slot[j] - 1];
	t->v[t->n] = (struct fn){ .name = x };
	t->slot[j] = ++t->n;
	return &t->v[t->n - 1];
}

static void walk(struct fns *t, const struct fnode *p, size_t depth, int side)
{
	for (const struct fnode *x = p->child; x; x = x->next) {
		struct fn *f = fn_of(t, x);
		int outer = 1;
		for (size_t i = 0; i < depth && outer; i++)
			outer = !same(t->chain[i], x);
		f->self[side] = sat_add(f->self[side], x->self);
		if (outer)
			f->total[side] = sat_add(f->total[side], x->total);
		t->chain[depth] = x;
		if (depth + 1 < FLAME_MAX_DEPTH)
			walk(t, x, depth + 1, side);
	}
}

static int by_rank(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	size_t n = x->name->len < y->name->len ? x->name->len : y->name->len;
	int c = memcmp(x->name->name, y->name->name, n);
	return c ? c : (int)x->name->len - (int)y->name->len;
}

static void put_side(const struct flame_diff *d, const uint64_t v[2], FILE *out)
{
	if (d->raw) {
		double c = diff_change(d, v[0], v[1]);
		fprintf(out, "%12" PRIu64 " %10" PRIu64 " %+10.0f", v[0], v[1], c);
		return;
	}
	uint64_t bt = d->before->root.total, at = d->after->root.total;
	fprintf(out, "%11.2f%% %9.2f%% %+10.2f", bt ? 100.0 * (double)v[0] / (double)bt : 0,
		at ? 100.0 * (double)v[1] / (double)at : 0, 100 * diff_change(d, v[0], v[1]));
}

static void put_table(const struct flame_diff *d, const struct fns *t, size_t n, FILE *out)
{
	fprintf(out, "%12s %10s %10s  %12s %10s %10s  %-7s  %s\n", "self before", "after",
		d->raw ? "change" : "change pts", "total before", "after", d->raw ? "change" : "change pts",
		"kind", "function");
	for (size_t i = 0; i < n && i < t->n; i++) {
		const struct fn *f = &t->v[i];
		put_side(d, f->self, out);
		fputs("  ", out);
		put_side(d, f->total, out);
		fprintf(out, "  %-7s  ", kind_short[diff_kind(d, f->name->name, f->name->len)]);
		fwrite(f->name->name, 1, f->name->len, out);
		fputs(!f->total[0] ? " (new)\n" : !f->total[1] ? " (gone)\n" : "\n", out);
	}
}

int diff_write_top(const struct flame_diff *d, size_t n, FILE *out)
{
	struct fns t = { 0 };
	size_t most = d->before->nnodes + d->after->nnodes + 1;
	for (t.nslots = 64; t.nslots < most * 2; t.nslots *= 2)
		;
	t.v = malloc(most * sizeof(*t.v));
	t.slot = calloc(t.nslots, sizeof(*t.slot));
	if (!t.v || !t.slot) {
		free(t.v);
		free(t.slot);
		return -1;
	}
	walk(&t, &d->before->root, 0, 0);
	walk(&t, &d->after->root, 0, 1);
	for (size_t i = 0; i < t.n; i++) {
		struct fn *f = &t.v[i];
		double s = fabs(diff_change(d, f->self[0], f->self[1]));
		double c = fabs(diff_change(d, f->total[0], f->total[1]));
		f->rank = s > c ? s : c;
	}
	qsort(t.v, t.n, sizeof(*t.v), by_rank);
	put_table(d, &t, n, out);
	free(t.v);
	free(t.slot);
	return fflush(out) || ferror(out) ? -1 : 0;
}
