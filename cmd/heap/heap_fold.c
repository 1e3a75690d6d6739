/* Folded stacks of a walked heap. A path deeper than DEPTH_MAX steps (a linked list) keeps
 * its first steps and ends in "[deeper]", so a long chain is one box, and each object's path
 * is built from at most DEPTH_MAX parents: the ancestor at that depth is found once per object
 * in breadth-first order, parents before children. Objects are folded in that order too, so
 * that siblings, which follow each other, share their parent's path built once. */
#include <stdlib.h>
#include <string.h>

#include "frame_label.h"
#include "heap_fold.h"
#include "util.h"

#define DEPTH_MAX 48
#define HOPS_MAX (3 * (DEPTH_MAX + 2))   /* parents path() follows up from an object */

struct fold {
	uint32_t *depth, *cut;   /* steps from the roots; the ancestor where the path is cut */
	uint32_t *hops;          /* objects from this one up to its root, both counted */
	uint32_t memo;           /* the object whose path() is in text, or HG_NONE */
	struct sbuf text;
};

/* A stack built and hashed, added to the profile once the next one is built: its slot in the
 * table, a miss in the cache for nearly every stack, is fetched meanwhile. */
struct pending {
	struct sbuf line;
	uint32_t hash;
	const struct hg_obj *o;   /* NULL: none */
};

static void depths(const struct hgraph *g, struct fold *f)
{
	f->depth = xcalloc(g->n ? g->n : 1, sizeof(*f->depth));
	f->cut = xcalloc(g->n ? g->n : 1, sizeof(*f->cut));
	f->hops = xcalloc(g->n ? g->n : 1, sizeof(*f->hops));
	for (size_t q = 0; q < g->qn; q++) {
		uint32_t i = g->queue[q], par = g->o[i].parent;
		uint32_t d = (par == HG_NONE ? 0 : f->depth[par]) + (g->o[i].label != 0);
		f->depth[i] = d;
		f->cut[i] = d <= DEPTH_MAX ? i : f->cut[par];
		f->hops[i] = par == HG_NONE ? 1 : f->hops[par] + (f->hops[par] < UINT32_MAX);
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

/* f->text holds path() of a, built unless it is there from the object before. */
static void memo_path(const struct hgraph *g, struct fold *f, uint32_t a, const char *root)
{
	if (f->memo == a)
		return;
	sb_reset(&f->text);
	path(g, f, a, root, &f->text);
	f->memo = a;
}

/* line: the path of reached object i. Its path is its parent's and its own step, unless
 * it is cut (its cut ancestor's and [deeper]) or so far from its root that path() would stop
 * short of the root (its own, as path() stops). */
static void reached_line(const struct hgraph *g, struct fold *f, uint32_t i, const char *root, struct sbuf *line)
{
	uint32_t par = g->o[i].parent;
	if (f->cut[i] == i && (par == HG_NONE || f->hops[i] > HOPS_MAX)) {
		path(g, f, i, root, line);
		return;
	}
	memo_path(g, f, f->cut[i] == i ? par : f->cut[i], root);
	sb_add(line, f->text.s, f->text.len);
	if (f->cut[i] != i) {
		sb_puts(line, ";[deeper]");
	} else if (g->o[i].label) {
		size_t len;
		const char *s = hg_label_text(g, g->o[i].label, &len);
		sb_add(line, ";", 1);
		sb_add(line, s, len);
	}
}

static void flush(struct profile *p, struct pending *r)
{
	if (r->o)
		profile_add_hashed(p, r->line.s, r->line.len, r->hash, hg_size(r->o), 1);
	r->o = NULL;
}

/* *next holds o's path: ends it with o's kind, asks for its slot, adds *ready, and swaps the
 * two, the one just built now ready. */
static void add_line(struct profile *p, struct pending **ready, struct pending **next, const struct hg_obj *o)
{
	struct pending *n = *next;
	sb_add(&n->line, ";", 1);
	sb_puts(&n->line, hg_kind_name((enum hg_kind)o->kind));
	n->hash = profile_hash(n->line.s, n->line.len);
	n->o = o;
	profile_prefetch(p, n->hash);
	flush(p, *ready);
	*next = *ready;
	*ready = n;
	sb_reset(&(*next)->line);
}

uint64_t heap_fold(const struct hgraph *g, const char *root, struct profile *p)
{
	struct fold f = { .memo = HG_NONE };
	struct pending two[2] = { { .o = NULL }, { .o = NULL } }, *ready = &two[0], *next = &two[1];
	uint64_t total = 0;
	depths(g, &f);
	sb_init(&f.text);
	sb_init(&two[0].line);
	sb_init(&two[1].line);
	profile_reserve(p, g->n / 4 * 3);   /* objects that share a path share a stack: most heaps have
					     * fewer stacks than that, and the others grow the table once */
	for (size_t q = 0; q < g->qn; q++) {
		reached_line(g, &f, g->queue[q], root, &next->line);
		add_line(p, &ready, &next, &g->o[g->queue[q]]);
	}
	for (size_t i = 0; i < g->n; i++) {
		const struct hg_obj *o = &g->o[i];
		total += hg_size(o);
		if (o->reached)
			continue;
		sb_puts(&next->line, root);
		sb_puts(&next->line, ";" LF_HEAP_UNREACHED);
		add_line(p, &ready, &next, o);
	}
	flush(p, ready);
	sb_free(&f.text);
	sb_free(&two[0].line);
	sb_free(&two[1].line);
	free(f.depth);
	free(f.cut);
	free(f.hops);
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
