/* Matching the AFTER tree to BEFORE for `lua-flame diff`: one walk of each tree side by
 * side, so every AFTER frame learns its BEFORE counts once, and BEFORE frames with no
 * AFTER counterpart are counted in their parent (they cannot be drawn at zero width). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"

static size_t slot_of(const struct flame_diff *d, const struct fnode *x)
{
	uint64_t k = ((uint64_t)(uintptr_t)x >> 4) * 0x9E3779B97F4A7C15ull;
	return (size_t)(k ^ (k >> 31)) & (d->nslots - 1);
}

static struct diff_entry *entry(const struct flame_diff *d, const struct fnode *x)
{
	size_t j = slot_of(d, x);
	while (d->slots[j].node && d->slots[j].node != x)
		j = (j + 1) & (d->nslots - 1);
	return &d->slots[j];
}

double diff_change(const struct flame_diff *d, uint64_t b, uint64_t a)
{
	if (d->raw)
		return (double)a - (double)b;
	uint64_t bt = d->before->root.total, at = d->after->root.total;
	double sa = at ? (double)a / (double)at : 0, sb = bt ? (double)b / (double)bt : 0;
	return sa - sb;
}

/* AFTER frame A and its BEFORE counterpart B (or NULL); depth is bounded by the trees'. */
static void match_after(struct flame_diff *d, const struct fnode *a, const struct fnode *b)
{
	struct diff_entry *e = entry(d, a);
	e->node = a;
	if (b) {
		e->found = 1;
		e->total = b->total;
		e->self = b->self;
	}
	double c = fabs(diff_change(d, e->total, a->total));
	if (c > d->max_change)
		d->max_change = c;
	for (const struct fnode *x = a->child; x; x = x->next)
		match_after(d, x, b ? flame_find(d->before, b, x->name, x->len) : NULL);
}

/* BEFORE frame B whose AFTER counterpart is A: children missing from AFTER are gone. */
static void match_before(struct flame_diff *d, const struct fnode *b, const struct fnode *a)
{
	for (const struct fnode *x = b->child; x; x = x->next) {
		const struct fnode *y = flame_find(d->after, a, x->name, x->len);
		if (y) {
			match_before(d, x, y);
			continue;
		}
		entry(d, a)->gone = sat_add(entry(d, a)->gone, x->total);
		d->gone_frames++;
		d->gone_samples = sat_add(d->gone_samples, x->total);
	}
}

int diff_build(struct flame_diff *d, const struct flame *before, const struct flame *after, int raw)
{
	memset(d, 0, sizeof(*d));
	d->before = before;
	d->after = after;
	d->raw = raw;
	size_t want = (after->nnodes + 1) * 2;
	for (d->nslots = 64; d->nslots < want; d->nslots *= 2)
		;
	d->slots = calloc(d->nslots, sizeof(*d->slots));
	if (!d->slots)
		return -1;
	match_after(d, &after->root, &before->root);
	match_before(d, &before->root, &after->root);
	return 0;
}

void diff_free(struct flame_diff *d)
{
	free(d->slots);
	d->slots = NULL;
}

const struct diff_entry *diff_lookup(const struct flame_diff *d, const struct fnode *x)
{
	static const struct diff_entry none;
	const struct diff_entry *e = entry(d, x);
	return e->node ? e : &none;
}

enum frame_kind diff_kind(const struct flame_diff *d, const char *name, size_t len)
{
	/* a depth past the root: a heap's root is a process name, which reads as a field anyway */
	return d->heap ? heap_kind_of(name, len, 1) : kind_of(name, len);
}
