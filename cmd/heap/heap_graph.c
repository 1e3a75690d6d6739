/* The heap snapshot's object graph: an open-addressing table of objects by address, the
 * interned step labels, and the breadth-first queue. */
#include <stdlib.h>
#include <string.h>

#include "frame_label.h"
#include "heap_graph.h"
#include "util.h"

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Objects the walk meets one after another mostly lie near each other (a list's objects were
 * allocated in turn, a table's keys and values beside it), so addresses in one window of
 * WINDOW_BITS keep their order in the slots, in a run of slots of their own, and only the
 * windows are scattered: a probe then mostly lands in cache lines (and pages) the previous
 * ones brought in. No two objects share 8 bytes, and none is smaller than 16, so a window
 * fills at most half its run. */
#define WINDOW_BITS 14

static size_t slot_of(uint64_t addr, size_t mask)
{
	uint64_t unit = addr >> 3;
	return (size_t)((unit & ((1u << WINDOW_BITS) - 1)) ^ mix(unit >> WINDOW_BITS) << WINDOW_BITS) & mask;
}

void hg_init(struct hgraph *g)
{
	memset(g, 0, sizeof(*g));
	g->mask = 1023;
	g->slot = xcalloc(g->mask + 1, sizeof(*g->slot));
	g->lab.mask = 1023;
	g->lab.slot = xcalloc(g->lab.mask + 1, sizeof(*g->lab.slot));
	sb_init(&g->scratch);
	hg_label(g, "", 0);
}

void hg_free(struct hgraph *g)
{
	arena_free(&g->lab.text);
	free(g->lab.s);
	free(g->lab.len);
	free(g->lab.slot);
	free(g->o);
	free(g->slot);
	free(g->queue);
	sb_free(&g->scratch);
	memset(g, 0, sizeof(*g));
}

static void grow_slots(struct hgraph *g)
{
	size_t mask = g->mask * 2 + 1;
	uint32_t *s = xcalloc(mask + 1, sizeof(*s));
	huge_hint(s, (mask + 1) * sizeof(*s));
	for (size_t i = 0; i < g->n; i++) {
		size_t h = slot_of(g->o[i].addr, mask);
		while (s[h])
			h = (h + 1) & mask;
		s[h] = (uint32_t)i + 1;
	}
	free(g->slot);
	g->slot = s;
	g->mask = mask;
}

uint32_t hg_find(const struct hgraph *g, uint64_t addr)
{
	for (size_t h = slot_of(addr, g->mask);; h = (h + 1) & g->mask) {
		uint32_t s = g->slot[h];
		if (!s)
			return HG_NONE;
		if (g->o[s - 1].addr == addr)
			return s - 1;
	}
}

/* One probe both finds the object and, when it is new, the empty slot for it: the table is
 * grown first, so that slot stays the one to fill. */
uint32_t hg_add(struct hgraph *g, uint64_t addr, enum hg_kind kind, uint64_t size, int *added)
{
	if (added)
		*added = 0;
	if ((g->n + 1) * 2 > g->mask)
		grow_slots(g);
	size_t h = slot_of(addr, g->mask);
	for (uint32_t s; (s = g->slot[h]); h = (h + 1) & g->mask)
		if (g->o[s - 1].addr == addr)
			return s - 1;
	if (g->n >= HG_MAX_OBJECTS) {
		g->dropped++;
		return HG_NONE;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 4096;
		g->o = xrealloc(g->o, g->cap * sizeof(*g->o));
		huge_hint(g->o, g->cap * sizeof(*g->o));
	}
	uint32_t i = (uint32_t)g->n++;
	g->o[i] = (struct hg_obj){ .addr = addr, .parent = HG_NONE, .kind = (uint8_t)kind };
	hg_set_size(&g->o[i], size);
	g->slot[h] = i + 1;
	if (added)
		*added = 1;
	return i;
}

void hg_drop_index(struct hgraph *g)
{
	free(g->slot);
	g->slot = NULL;
	g->mask = 0;
	free(g->lab.slot);
	g->lab.slot = NULL;
	g->lab.mask = 0;
}

uint32_t hg_unreached(const struct hgraph *g, uint64_t addr)
{
	uint32_t i = hg_find(g, addr);
	return i != HG_NONE && !g->o[i].reached ? i : HG_NONE;
}

void hg_reach(struct hgraph *g, uint32_t i, uint32_t parent, uint32_t label)
{
	if (g->o[i].reached || g->qn >= g->n)
		return;
	if (!g->queue) {
		g->queue = xmalloc((g->n ? g->n : 1) * sizeof(*g->queue));
		huge_hint(g->queue, g->n * sizeof(*g->queue));
	}
	g->o[i].reached = 1;
	g->o[i].parent = parent;
	g->o[i].label = label;
	g->queue[g->qn++] = i;   /* each object is queued once: n slots suffice */
}

uint32_t hg_next(struct hgraph *g)
{
	return g->qhead < g->qn ? g->queue[g->qhead++] : HG_NONE;
}

static void grow_labels(struct hg_labels *l)
{
	size_t mask = l->mask * 2 + 1;
	uint32_t *s = xcalloc(mask + 1, sizeof(*s));
	for (size_t i = 0; i < l->n; i++) {
		size_t h = hash_bytes(l->s[i], l->len[i], 0) & mask;
		while (s[h])
			h = (h + 1) & mask;
		s[h] = (uint32_t)i + 1;
	}
	free(l->slot);
	l->slot = s;
	l->mask = mask;
}

uint32_t hg_label(struct hgraph *g, const char *s, size_t n)
{
	struct hg_labels *l = &g->lab;
	size_t h = hash_bytes(s, n, 0) & l->mask;
	for (; l->slot[h]; h = (h + 1) & l->mask) {
		uint32_t i = l->slot[h] - 1;
		if (l->len[i] == n && !memcmp(l->s[i], s, n))
			return i;
	}
	if ((l->n + 1) * 2 > l->mask) {
		grow_labels(l);
		return hg_label(g, s, n);
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->s = xrealloc(l->s, l->cap * sizeof(*l->s));
		l->len = xrealloc(l->len, l->cap * sizeof(*l->len));
	}
	l->s[l->n] = xarena_text(&l->text, s, n);
	l->len[l->n] = (uint32_t)n;
	l->slot[h] = (uint32_t)l->n + 1;
	return (uint32_t)l->n++;
}

const char *hg_label_text(const struct hgraph *g, uint32_t id, size_t *len)
{
	if (id >= g->lab.n) {
		*len = 0;
		return "";
	}
	*len = g->lab.len[id];
	return g->lab.s[id];
}

const char *hg_kind_name(enum hg_kind k)
{
	_Static_assert((int)HK_COUNT == LF_HEAP_NTYPES, "the grammar's leaf types are the heap's kinds");
	return (unsigned)k < HK_COUNT ? lf_heap_types[k] : "[object]";
}
