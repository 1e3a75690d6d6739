/* Flame-graph layout (see layout.h). Siblings are ordered as flamegraph.pl orders
 * them after sorting the folded lines, or heaviest first; a pruned sibling leaves
 * its gap so the others keep their places. */
#include <stdlib.h>
#include <string.h>
#include "layout.h"

int layout_cmp_name(const struct fnode *a, const struct fnode *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->name, b->name, n);
	if (c)
		return c;
	/* a sorted folded file has ';' after a frame name: "foo;x" < "foo_bar;x" */
	unsigned char ca = a->len > n ? (unsigned char)a->name[n] : ';';
	unsigned char cb = b->len > n ? (unsigned char)b->name[n] : ';';
	return (int)ca - (int)cb;
}

int layout_cmp_heavy(const struct fnode *a, const struct fnode *b)
{
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return layout_cmp_name(a, b);
}

static int by_name(const void *x, const void *y)
{
	return layout_cmp_name(*(const struct fnode *const *)x, *(const struct fnode *const *)y);
}

static int by_weight(const void *x, const void *y)
{
	return layout_cmp_heavy(*(const struct fnode *const *)x, *(const struct fnode *const *)y);
}

/* Most frames have a few children: sorted in place, without the calls through a pointer
 * and the memcpy per move of musl's qsort. Siblings never compare equal (their names differ),
 * so any sort puts them in the same order. */
#define SMALL_SORT 16

static void insertion_sort(const struct fnode **v, size_t n,
			   int (*cmp)(const struct fnode *, const struct fnode *))
{
	for (size_t i = 1; i < n; i++) {
		const struct fnode *x = v[i];
		size_t j = i;
		for (; j && cmp(v[j - 1], x) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Whether v is sorted by name, after reversing it when it was the other way round: a tree
 * built from sorted stacks lists a frame's children newest first, and a heap snapshot's
 * frame may have a child per key of a large table. */
static int in_order(const struct fnode **v, size_t n)
{
	size_t i = 1;
	while (i < n && layout_cmp_name(v[i - 1], v[i]) > 0)
		i++;
	if (i == n) {
		for (size_t a = 0, z = n - 1; a < z; a++, z--) {
			const struct fnode *t = v[a];
			v[a] = v[z];
			v[z] = t;
		}
		return 1;
	}
	for (i = 1; i < n && layout_cmp_name(v[i - 1], v[i]) < 0; i++)
		;
	return i == n;
}

struct builder {
	struct layout *l;
	const struct fnode **kids;   /* a stack of sorted sibling lists */
	size_t nkids, capkids;
	uint64_t min_samples;        /* narrowest frame drawn */
	int heavy;
};

static int push_frame(struct layout *l, const struct fnode *x, uint64_t off, uint32_t depth,
		      uint32_t parent)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct lframe *f = realloc(l->frames, cap * sizeof(*f));
		if (!f)
			return -1;
		l->frames = f;
		l->cap = cap;
	}
	l->frames[l->n++] = (struct lframe){ x, off, depth, parent };
	if (depth > l->max_depth)
		l->max_depth = depth;
	return 0;
}

/* Pushes X's children, sorted, onto the kids stack; returns how many, or -1. */
static long push_kids(struct builder *b, const struct fnode *x)
{
	size_t base = b->nkids;
	for (const struct fnode *c = x->child; c; c = c->next) {
		if (b->nkids == b->capkids) {
			size_t cap = b->capkids ? b->capkids * 2 : 1024;
			const struct fnode **k = realloc(b->kids, cap * sizeof(*k));
			if (!k)
				return -1;
			b->kids = k;
			b->capkids = cap;
		}
		b->kids[b->nkids++] = c;
	}
	size_t n = b->nkids - base;
	if (n > SMALL_SORT && (b->heavy || !in_order(b->kids + base, n)))
		qsort(b->kids + base, n, sizeof(*b->kids), b->heavy ? by_weight : by_name);
	else if (n > 1)
		insertion_sort(b->kids + base, n, b->heavy ? layout_cmp_heavy : layout_cmp_name);
	return (long)n;
}

/* Depth is bounded by FLAME_MAX_DEPTH, so recursion stays shallow enough. */
static int visit(struct builder *b, const struct fnode *x, uint64_t off, uint32_t depth, uint32_t parent)
{
	uint32_t me = (uint32_t)b->l->n;
	if (push_frame(b->l, x, off, depth, parent) < 0)
		return -1;
	if (!x->child || depth >= FLAME_MAX_DEPTH)
		return 0;
	size_t base = b->nkids;
	long n = push_kids(b, x);
	if (n < 0)
		return -1;
	uint64_t at = off;
	for (long i = 0; i < n; i++) {
		const struct fnode *c = b->kids[base + (size_t)i];
		if (c->total >= b->min_samples && visit(b, c, at, depth + 1, me) < 0)
			return -1;
		at += c->total;
	}
	b->nkids = base;
	return 0;
}

static double plot_width(const struct flame_opts *o)
{
	int width = o->width > 2 * LAYOUT_XPAD + 10 ? o->width : 2 * LAYOUT_XPAD + 10;
	if (width > LAYOUT_MAX_WIDTH)
		width = LAYOUT_MAX_WIDTH;
	return width - 2 * LAYOUT_XPAD;
}

uint64_t layout_min_samples(const struct flame_opts *o, uint64_t total)
{
	double share = o->minwidth_is_percent ? o->minwidth / 100.0 : o->minwidth / plot_width(o);
	if (!(share > 0))
		return 1;
	if (share >= 1)
		return total;
	double m = share * (double)total;
	uint64_t s = (uint64_t)m;
	if ((double)s < m)
		s++;   /* a frame is drawn when total * width / all >= minwidth */
	return s ? s : 1;
}

int layout_build(const struct flame *f, const struct flame_opts *o, struct layout *out)
{
	struct builder b = { .l = out, .heavy = o->heaviest_first };
	memset(out, 0, sizeof(*out));
	out->total = f->root.total;
	out->plot_width = plot_width(o);
	b.min_samples = layout_min_samples(o, out->total);
	int rc = visit(&b, &f->root, 0, 0, 0);
	free(b.kids);
	if (rc < 0)
		layout_free(out);
	return rc;
}

void layout_free(struct layout *l)
{
	free(l->frames);
	memset(l, 0, sizeof(*l));
}

double layout_x(const struct layout *l, size_t i)
{
	if (!l->total)
		return LAYOUT_XPAD;
	return LAYOUT_XPAD + (double)l->frames[i].offset * l->plot_width / (double)l->total;
}

double layout_w(const struct layout *l, size_t i)
{
	if (!l->total)
		return 0;
	return (double)l->frames[i].node->total * l->plot_width / (double)l->total;
}
