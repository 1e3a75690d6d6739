/* Layout of the flame graph: widths add up, children sit inside their parents, the
 * pre-order that the zoom relies on, pruning by pixels and percent, sibling order. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "layout.h"

static struct flame *tree_of(const char *const *stacks, const unsigned *counts, size_t n)
{
	struct flame *f = flame_new();
	for (size_t i = 0; i < n; i++)
		flame_add(f, stacks[i], strlen(stacks[i]), counts[i]);
	return f;
}

/* A pseudo-random tree: stacks over a small alphabet, so names repeat at many depths. */
static struct flame *random_tree(unsigned seed, size_t nstacks)
{
	struct flame *f = flame_new();
	char buf[256];
	for (size_t i = 0; i < nstacks; i++) {
		size_t len = 0;
		int depth = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 12;
		for (int d = 0; d < depth; d++) {
			seed = seed * 1103515245u + 12345u;
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%sf%u", d ? ";" : "", (seed >> 16) % 7);
		}
		seed = seed * 1103515245u + 12345u;
		flame_add(f, buf, len, 1 + (seed >> 16) % 50);
	}
	return f;
}

static const struct lframe *find(const struct layout *l, const char *name, uint32_t depth)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->frames[i].depth == depth && l->frames[i].node->len == strlen(name) &&
		    !memcmp(l->frames[i].node->name, name, strlen(name)))
			return &l->frames[i];
	return NULL;
}

static void widths_add_up(void)
{
	struct flame *f = random_tree(7, 3000);
	struct flame_opts o;
	struct layout l;
	flame_opts_default(&o);
	o.minwidth = 0;
	CHECK_INT(layout_build(f, &o, &l), 0);
	CHECK(l.n > 100);
	CHECK(layout_x(&l, 0) == LAYOUT_XPAD);
	CHECK(layout_w(&l, 0) == l.plot_width);
	uint64_t *kids = calloc(l.n, sizeof(*kids));
	int outside = 0, order = 0;
	for (size_t i = 1; i < l.n; i++) {
		const struct lframe *c = &l.frames[i], *p = &l.frames[c->parent];
		kids[c->parent] += c->node->total;
		if (c->offset < p->offset || c->offset + c->node->total > p->offset + p->node->total)
			outside++;
		if (layout_x(&l, i) < layout_x(&l, c->parent) - 1e-9 ||
		    layout_x(&l, i) + layout_w(&l, i) > layout_x(&l, c->parent) + layout_w(&l, c->parent) + 1e-6)
			outside++;
		if (c->depth != p->depth + 1 || c->parent >= i)
			order++;
	}
	CHECK_INT(outside, 0);
	CHECK_INT(order, 0);
	/* with nothing pruned, children plus self make exactly the parent */
	int mismatched = 0;
	for (size_t i = 0; i < l.n; i++)
		if (kids[i] + l.frames[i].node->self != l.frames[i].node->total)
			mismatched++;
	CHECK_INT(mismatched, 0);
	free(kids);
	layout_free(&l);
	flame_free(f);
}

/* The script zooms into frame i by showing frames i .. end(i), the frames that follow
 * it with a greater depth: that range must be exactly its descendants. */
static void preorder_subtrees(void)
{
	struct flame *f = random_tree(11, 2000);
	struct flame_opts o;
	struct layout l;
	flame_opts_default(&o);
	o.minwidth = 0.5;
	CHECK_INT(layout_build(f, &o, &l), 0);
	int wrong = 0;
	for (size_t i = 0; i < l.n && i < 400; i++) {
		size_t end = i + 1;
		while (end < l.n && l.frames[end].depth > l.frames[i].depth)
			end++;
		for (size_t j = 0; j < l.n; j++) {
			size_t a = j;   /* is i an ancestor-or-self of j? */
			int below = 0;
			for (int guard = 0; guard < 64; guard++) {
				if (a == i) { below = 1; break; }
				if (a == 0) break;
				a = l.frames[a].parent;
			}
			if (below != (j >= i && j < end))
				wrong++;
		}
		/* zoomed geometry: descendants scaled into the full width stay inside it */
		for (size_t j = i; j < end; j++) {
			double k = l.plot_width / (double)l.frames[i].node->total;
			double x = (double)(l.frames[j].offset - l.frames[i].offset) * k;
			double w = (double)l.frames[j].node->total * k;
			if (x < 0 || x + w > l.plot_width * (1 + 1e-12))
				wrong++;
		}
	}
	CHECK_INT(wrong, 0);
	layout_free(&l);
	flame_free(f);
}

static void prune_pixels(void)
{
	/* 1000 samples over 1180 px: 1 sample is 1.18 px */
	static const char *const s[] = { "p;big", "p;small", "p;small;deeper", "p;mid" };
	static const unsigned c[] = { 990, 1, 1, 8 };
	struct flame *f = tree_of(s, c, 4);
	struct flame_opts o;
	struct layout l;
	flame_opts_default(&o);
	o.minwidth = 3;   /* 3 px: needs 3 samples */
	CHECK_INT(layout_build(f, &o, &l), 0);
	CHECK(find(&l, "big", 2) != NULL);
	CHECK(find(&l, "mid", 2) != NULL);
	CHECK(find(&l, "small", 2) == NULL);     /* 2 samples: 2.36 px */
	CHECK(find(&l, "deeper", 3) == NULL);
	const struct lframe *p = find(&l, "p", 1);
	CHECK(p && p->node->total == 1000);      /* pruned samples still in the parent */
	/* "mid" keeps its place after the gap "small" leaves (alphabetical: big, mid, small) */
	const struct lframe *mid = find(&l, "mid", 2);
	CHECK(mid && mid->offset == 990);
	layout_free(&l);
	o.minwidth = 2;   /* 2.36 px >= 2: kept, and its child (1.18 px) is not */
	CHECK_INT(layout_build(f, &o, &l), 0);
	CHECK(find(&l, "small", 2) != NULL);
	CHECK(find(&l, "deeper", 3) == NULL);
	layout_free(&l);
	flame_free(f);
}

static void prune_percent(void)
{
	static const char *const s[] = { "p;a", "p;b", "p;c" };
	static const unsigned c[] = { 9990, 5, 5 };
	struct flame *f = tree_of(s, c, 3);
	struct flame_opts o;
	struct layout l;
	flame_opts_default(&o);
	o.minwidth = 0.05;
	o.minwidth_is_percent = 1;   /* 0.05% of 10000 = 5 samples */
	CHECK_INT(layout_build(f, &o, &l), 0);
	CHECK(find(&l, "b", 2) != NULL);
	CHECK_INT(l.n, 5);
	layout_free(&l);
	o.minwidth = 0.06;
	CHECK_INT(layout_build(f, &o, &l), 0);
	CHECK(find(&l, "b", 2) == NULL);
	CHECK_INT(l.n, 3);
	layout_free(&l);
	flame_free(f);
}

static void sort_alphabetical(void)
{
	/* flamegraph.pl sorts the folded lines, so "foo;x" < "foo-bar" is false ('-' < ';')
	 * and "foo;x" < "foo_bar" is true (';' < '_') */
	static const char *const s[] = { "r;foo_bar", "r;B", "r;foo;x", "r;foo-bar", "r;a", "r;foo" };
	static const unsigned c[] = { 1, 50, 2, 3, 4, 9 };
	struct flame *f = tree_of(s, c, 6);
	struct flame_opts o;
	struct layout l;
	flame_opts_default(&o);
	o.minwidth = 0;
	CHECK_INT(layout_build(f, &o, &l), 0);
	const char *want[] = { "B", "a", "foo-bar", "foo", "foo_bar" };
	size_t k = 0;
	for (size_t i = 0; i < l.n; i++) {
		if (l.frames[i].depth != 2)
			continue;
		if (k < 5)
			CHECK_STR(l.frames[i].node->name, want[k]);
		k++;
	}
	CHECK_INT(k, 5);
	layout_free(&l);
	o.heaviest_first = 1;
	CHECK_INT(layout_build(f, &o, &l), 0);
	const char *heavy[] = { "B", "foo", "a", "foo-bar", "foo_bar" };
	k = 0;
	uint64_t last_off = 0;
	for (size_t i = 0; i < l.n; i++) {
		if (l.frames[i].depth != 2)
			continue;
		if (k < 5)
			CHECK_STR(l.frames[i].node->name, heavy[k]);
		CHECK(!k || l.frames[i].offset > last_off);
		last_off = l.frames[i].offset;
		k++;
	}
	layout_free(&l);
	flame_free(f);
}

static void reversed_tree(void)
{
	static const char *const s[] = { "main;a;leaf", "main;b;leaf", "main;b" };
	static const unsigned c[] = { 3, 4, 5 };
	struct flame *f = tree_of(s, c, 3);
	struct flame *r = flame_reversed(f);
	struct flame_opts o;
	struct layout l;
	flame_opts_default(&o);
	o.minwidth = 0;
	CHECK(r != NULL);
	CHECK_INT(flame_total(r), 12);
	CHECK_INT(layout_build(r, &o, &l), 0);
	const struct lframe *leaf = find(&l, "leaf", 1), *b = find(&l, "b", 1);
	CHECK(leaf && leaf->node->total == 7);
	CHECK(b && b->node->total == 5);
	CHECK(find(&l, "main", 3) != NULL);
	CHECK(find(&l, "main", 2) != NULL);   /* from "main;b" reversed */
	layout_free(&l);
	flame_free(r);
	flame_free(f);
}

static void merge_and_totals(void)
{
	struct flame *f = flame_new();
	CHECK_INT(flame_add(f, "a;b;c", 5, 2), 0);
	CHECK_INT(flame_add(f, "a;b;c", 5, 3), 0);
	CHECK_INT(flame_add(f, "a;;b", 4, 1), 0);      /* empty frames are skipped */
	CHECK_INT(flame_add(f, ";;", 2, 1), -1);        /* no frames at all */
	CHECK_INT(flame_add(f, "", 0, 1), -1);
	CHECK_INT(flame_total(f), 6);
	CHECK_INT(flame_add(f, "a", 1, UINT64_MAX), 0); /* totals saturate, never wrap */
	CHECK(flame_total(f) == UINT64_MAX);
	flame_free(f);
	/* deep stacks are cut at FLAME_MAX_DEPTH frames */
	size_t n = 3 * FLAME_MAX_DEPTH;
	char *deep = malloc(2 * n);
	for (size_t i = 0; i < n; i++) {
		deep[2 * i] = 'x';
		deep[2 * i + 1] = ';';
	}
	f = flame_new();
	CHECK_INT(flame_add(f, deep, 2 * n - 1, 1), 0);
	struct flame_opts o;
	struct layout l;
	flame_opts_default(&o);
	CHECK_INT(layout_build(f, &o, &l), 0);
	CHECK_INT(l.max_depth, FLAME_MAX_DEPTH);
	layout_free(&l);
	flame_free(f);
	free(deep);
}

int main(void)
{
	RUN(widths_add_up);
	RUN(preorder_subtrees);
	RUN(prune_pixels);
	RUN(prune_percent);
	RUN(sort_alphabetical);
	RUN(reversed_tree);
	RUN(merge_and_totals);
	CHECK_EXIT();
}
