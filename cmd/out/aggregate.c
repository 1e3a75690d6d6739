/* The aggregated profile: distinct folded stacks ("root;caller;callee") with their
 * sample counts, plus the facts about the run that outputs print. */
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "util.h"

#define LIMIT_MARK ";[profile: memory limit]"

static size_t limit = (size_t)PROFILE_DEFAULT_MB << 20;

void profile_set_limit(size_t bytes)
{
	limit = bytes;
}

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->cap; i++)
		free(p->e[i].stack);
	free(p->e);
	memset(p, 0, sizeof(*p));
}

static void grow(struct profile *p)
{
	size_t cap = p->cap ? p->cap * 2 : 1024;
	struct prof_entry *e = xcalloc(cap, sizeof(*e));
	for (size_t i = 0; i < p->cap; i++) {
		if (!p->e[i].stack)
			continue;
		size_t j = p->e[i].hash & (cap - 1);
		while (e[j].stack)
			j = (j + 1) & (cap - 1);
		e[j] = p->e[i];
	}
	free(p->e);
	p->e = e;
	p->cap = cap;
}

/* The slot holding stack, or the empty slot where it would go. */
static size_t find(const struct profile *p, const char *stack, size_t len, uint64_t h)
{
	size_t j = h & (p->cap - 1);
	while (p->e[j].stack && !(p->e[j].hash == h && p->e[j].len == len && !memcmp(p->e[j].stack, stack, len)))
		j = (j + 1) & (p->cap - 1);
	return j;
}

/* A table entry and its text, with the table's slack (a quarter of it stays empty). */
static size_t entry_bytes(size_t len)
{
	return len + 1 + 2 * sizeof(struct prof_entry);
}

static void add_limited(struct profile *p, const char *stack, size_t len, uint64_t count, uint64_t objects)
{
	if (!p->over_limit)
		warnx_lf("the profile's %zu distinct stacks take %zu MiB, the limit (--max-profile-mb): samples "
			 "of stacks not seen before are counted under their process as [profile: memory limit]; "
			 "raise the limit to keep them apart", p->n, p->bytes >> 20);
	struct sbuf b;
	sb_init(&b);
	sb_add(&b, stack, strcspn(stack, ";") < len ? strcspn(stack, ";") : len);
	sb_puts(&b, LIMIT_MARK);
	uint64_t h = hash_bytes(b.s, b.len, 0);
	size_t j = find(p, b.s, b.len, h);
	if (!p->e[j].stack) {   /* one per root at most: allowed past the limit */
		if ((p->n + 1) * 4 > p->cap * 3) {
			grow(p);
			j = find(p, b.s, b.len, h);
		}
		p->e[j] = (struct prof_entry){ xstrndup(b.s, b.len), b.len, 0, h, 0 };
		p->n++;
		p->bytes += entry_bytes(b.len);
	}
	p->e[j].count += count;
	p->e[j].objects += objects;
	p->total += count;
	p->over_limit += count;
	sb_free(&b);
}

void profile_add_objects(struct profile *p, const char *stack, size_t len, uint64_t count, uint64_t objects)
{
	if ((p->n + 1) * 4 > p->cap * 3)
		grow(p);
	uint64_t h = hash_bytes(stack, len, 0);
	size_t j = find(p, stack, len, h);
	if (!p->e[j].stack && p->bytes + entry_bytes(len) > limit) {
		add_limited(p, stack, len, count, objects);
		return;
	}
	if (!p->e[j].stack) {
		p->e[j] = (struct prof_entry){ xstrndup(stack, len), len, 0, h, 0 };
		p->n++;
		p->bytes += entry_bytes(len);
	}
	p->e[j].count += count;
	p->e[j].objects += objects;
	p->total += count;
}

void profile_add(struct profile *p, const char *stack, size_t len, uint64_t count)
{
	profile_add_objects(p, stack, len, count, 0);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct prof_entry *x = *(struct prof_entry *const *)a, *y = *(struct prof_entry *const *)b;
	return strcmp(x->stack, y->stack);
}

struct prof_entry **profile_sorted(const struct profile *p)
{
	struct prof_entry **v = xcalloc(p->n + 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < p->cap; i++)
		if (p->e[i].stack)
			v[k++] = &p->e[i];
	qsort(v, k, sizeof(*v), cmp_entry);
	return v;
}
