/* Folded stacks of a walked heap. A path deeper than DEPTH_MAX steps (a linked list) keeps
 * its first steps and ends in "[deeper]", so a long chain is one box, and each object's path
 * is built from at most DEPTH_MAX parents: the ancestor at that depth is found once per object
 * in breadth-first order, parents before children. */
#include <stdlib.h>
#include <string.h>

#include "frame_label.h"
#include "heap_fold.h"
#include "util.h"

#define DEPTH_MAX 48

struct fold { uint32_t *depth, *cut; };   /* steps from the roots; the ancestor where the path is cut */

static void depths(const struct hgraph *g, struct fold *f)
{
	f->depth = xcalloc(g->n ? g->n : 1, sizeof(*f->depth));
	f->cut = xcalloc(g->n ? g->n : 1, sizeof(*f->cut));
	for (size_t q = 0; q < g->qn; q++) {
		uint32_t i = g->queue[q], par = g->o[i].parent;
		uint32_t d = (par == HG_NONE ? 0 : f->depth[par]) + (g->o[i].label != 0);
		f->depth[i] = d;
		f->cut[i] = d <= DEPTH_MAX ? i : f->cut[par];
	}
}

/* root;step;...;step of object i (from its cut ancestor up). */
static void path(const struct hgraph *g, const struct fold *f, uint32_t i, const char *root, struct sbuf *b)
{
	uint32_t steps[DEPTH_MAX + 2], n = 0, a = f->cut[i];
	for (uint32_t k = 0; a != HG_NONE && k < 3 * (DEPTH_MAX + 2); k++, a = g->o[a].parent)
		if (g->o[a].label && n < DEPTH_MAX + 1)
			steps[n++] = g->o[a].label;
	sb_puts(b, root);
	while (n--) {
		size_t len;
		const char *s = hg_label_text(g, steps[n], &len);
		sb_add(b, ";", 1);
		sb_add(b, s, len);
	}
	if (f->cut[i] != i)
		sb_puts(b, ";[deeper]");
}

uint64_t heap_fold(const struct hgraph *g, const char *root, struct profile *p)
{
	struct fold f;
	struct sbuf b;
	uint64_t total = 0;
	depths(g, &f);
	sb_init(&b);
	for (size_t i = 0; i < g->n; i++) {
		const struct hg_obj *o = &g->o[i];
		sb_reset(&b);
		if (o->reached)
			path(g, &f, (uint32_t)i, root, &b);
		else
			sb_printf(&b, "%s;" LF_HEAP_UNREACHED, root);
		sb_printf(&b, ";%s", hg_kind_name((enum hg_kind)o->kind));
		profile_add_objects(p, b.s, b.len, hg_size(o), 1);
		total += hg_size(o);
	}
	sb_free(&b);
	free(f.depth);
	free(f.cut);
	return total;
}

void heap_fold_vm(struct profile *p, const char *root, const char *what, uint64_t bytes)
{
	struct sbuf b;
	sb_init(&b);
	sb_printf(&b, "%s;" LF_HEAP_VM ";%s", root, what);
	if (bytes)
		profile_add_objects(p, b.s, b.len, bytes, 0);
	sb_free(&b);
}
