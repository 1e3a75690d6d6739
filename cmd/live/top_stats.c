/* Function counts of a profile for `lua-flame top` (top_stats.h). Frame names are interned
 * once; each count walks every distinct stack of the profile, which stays cheap because a
 * profile holds distinct stacks, not samples. */
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "top_stats.h"
#include "util.h"

struct fn { char *name; size_t len; uint64_t hash; int kind; };
struct counts { uint64_t self, total, lself, ltotal; };

struct top_stats {
	struct fn *fns;
	size_t nfns, cap;
	uint32_t *index;          /* open addressing: function id + 1, 0 empty */
	size_t icap;
	struct counts *cur, *prev;
	uint32_t *seen, *lseen;   /* the stack that last counted a function's total */
	uint32_t stack_no;
	uint32_t *ids;            /* one stack's frames */
	size_t nids_cap;
	uint64_t samples, prev_samples;
};

static uint64_t hash_of(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
	return h;
}

static void grow_index(struct top_stats *t)
{
	size_t icap = t->icap ? t->icap * 2 : 4096;
	uint32_t *index = xcalloc(icap, sizeof(*index));
	for (size_t i = 0; i < t->nfns; i++) {
		size_t j = t->fns[i].hash & (icap - 1);
		while (index[j])
			j = (j + 1) & (icap - 1);
		index[j] = (uint32_t)i + 1;
	}
	free(t->index);
	t->index = index;
	t->icap = icap;
}

static void grow_fns(struct top_stats *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	t->fns = xrealloc(t->fns, cap * sizeof(*t->fns));
	t->cur = xrealloc(t->cur, cap * sizeof(*t->cur));
	t->prev = xrealloc(t->prev, cap * sizeof(*t->prev));
	t->seen = xrealloc(t->seen, cap * sizeof(*t->seen));
	t->lseen = xrealloc(t->lseen, cap * sizeof(*t->lseen));
	memset(t->cur + t->cap, 0, (cap - t->cap) * sizeof(*t->cur));
	memset(t->prev + t->cap, 0, (cap - t->cap) * sizeof(*t->prev));
	memset(t->seen + t->cap, 0, (cap - t->cap) * sizeof(*t->seen));
	memset(t->lseen + t->cap, 0, (cap - t->cap) * sizeof(*t->lseen));
	t->cap = cap;
}

static uint32_t intern(struct top_stats *t, const char *s, size_t n)
{
	uint64_t h = hash_of(s, n);
	if (2 * (t->nfns + 1) > t->icap)
		grow_index(t);
	size_t j = h & (t->icap - 1);
	for (; t->index[j]; j = (j + 1) & (t->icap - 1)) {
		const struct fn *f = &t->fns[t->index[j] - 1];
		if (f->hash == h && f->len == n && !memcmp(f->name, s, n))
			return t->index[j] - 1;
	}
	if (t->nfns == t->cap)
		grow_fns(t);
	struct fn *f = &t->fns[t->nfns];
	f->name = xmalloc(n + 1);
	memcpy(f->name, s, n);
	f->name[n] = '\0';
	f->len = n;
	f->hash = h;
	f->kind = (int)kind_of(s, n);
	t->cur[t->nfns] = (struct counts){ 0 };
	t->index[j] = (uint32_t)++t->nfns;
	return (uint32_t)(t->nfns - 1);
}

struct top_stats *top_stats_new(void)
{
	return xcalloc(1, sizeof(struct top_stats));
}

void top_stats_free(struct top_stats *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfns; i++)
		free(t->fns[i].name);
	free(t->fns);
	free(t->index);
	free(t->cur);
	free(t->prev);
	free(t->seen);
	free(t->lseen);
	free(t->ids);
	free(t);
}

static int is_lua(const struct top_stats *t, uint32_t id)
{
	return t->fns[id].kind == KIND_LUA || t->fns[id].kind == KIND_JIT;
}

/* The frames of one stack, after its root (the process), into t->ids; returns how many. */
static size_t split(struct top_stats *t, const char *s, size_t len)
{
	size_t n = 0;
	const char *end = s + len, *p = memchr(s, ';', len);
	while (p && p < end) {
		const char *f = p + 1, *q = memchr(f, ';', (size_t)(end - f));
		if (n == t->nids_cap) {
			t->nids_cap = t->nids_cap ? t->nids_cap * 2 : 256;
			t->ids = xrealloc(t->ids, t->nids_cap * sizeof(*t->ids));
		}
		t->ids[n++] = intern(t, f, (size_t)((q ? q : end) - f));
		p = q;
	}
	return n;
}

/* A function counts once in a stack's total, however often it recurs. */
static void count_stack(struct top_stats *t, size_t n, uint64_t c)
{
	uint32_t stamp = ++t->stack_no;
	int leaf_lua = -1;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = t->ids[i];
		if (t->seen[id] != stamp) {
			t->seen[id] = stamp;
			t->cur[id].total += c;
		}
		if (is_lua(t, id)) {
			leaf_lua = (int)id;
			if (t->lseen[id] != stamp) {
				t->lseen[id] = stamp;
				t->cur[id].ltotal += c;
			}
		}
	}
	if (n)
		t->cur[t->ids[n - 1]].self += c;
	if (leaf_lua >= 0)
		t->cur[leaf_lua].lself += c;
}

uint64_t top_stats_count(struct top_stats *t, const struct profile *p)
{
	struct counts *c = t->prev;
	t->prev = t->cur;
	t->cur = c;
	memset(t->cur, 0, t->cap * sizeof(*t->cur));
	for (size_t i = 0; i < p->cap; i++) {
		const struct prof_entry *e = &p->e[i];
		if (e->stack)
			count_stack(t, split(t, e->stack, e->len), e->count);
	}
	t->prev_samples = t->samples;
	t->samples = p->total;
	return t->samples - t->prev_samples;
}

struct sort_ctx { const struct top_stats *t; enum top_sort sort; int lua; };
static struct sort_ctx sort_by;

static void figures(const struct top_stats *t, uint32_t id, int lua, uint64_t *self, uint64_t *total,
		    uint64_t *dself, uint64_t *dtotal)
{
	const struct counts *c = &t->cur[id], *p = &t->prev[id];
	*self = lua ? c->lself : c->self;
	*total = lua ? c->ltotal : c->total;
	*dself = *self - (lua ? p->lself : p->self);
	*dtotal = *total - (lua ? p->ltotal : p->total);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

/* Busiest first: over the last count, then since the start, then by name (a stable order). */
static int by_figures(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t sx, tx, dsx, dtx, sy, ty, dsy, dty;
	figures(sort_by.t, x, sort_by.lua, &sx, &tx, &dsx, &dtx);
	figures(sort_by.t, y, sort_by.lua, &sy, &ty, &dsy, &dty);
	int r = sort_by.sort == TOP_BY_SELF ? cmp_u64(dsx, dsy) : cmp_u64(dtx, dty);
	if (!r)
		r = sort_by.sort == TOP_BY_SELF ? cmp_u64(sx, sy) : cmp_u64(tx, ty);
	return r ? r : strcmp(sort_by.t->fns[x].name, sort_by.t->fns[y].name);
}

size_t top_stats_rows(const struct top_stats *t, enum top_sort sort, int lua_only, struct top_row *rows,
		      size_t max)
{
	uint32_t *ids = xmalloc((t->nfns + 1) * sizeof(*ids));
	size_t n = 0;
	for (uint32_t i = 0; i < t->nfns; i++) {
		uint64_t s, tot, ds, dt;
		figures(t, i, lua_only, &s, &tot, &ds, &dt);
		if ((!lua_only || is_lua(t, i)) && tot)
			ids[n++] = i;
	}
	sort_by = (struct sort_ctx){ t, sort, lua_only };
	qsort(ids, n, sizeof(*ids), by_figures);
	size_t k = n < max ? n : max;
	for (size_t i = 0; i < k; i++) {
		struct top_row *r = &rows[i];
		r->name = t->fns[ids[i]].name;
		r->kind = t->fns[ids[i]].kind;
		figures(t, ids[i], lua_only, &r->self, &r->total, &r->dself, &r->dtotal);
	}
	free(ids);
	return k;
}
