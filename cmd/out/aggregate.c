/* The aggregated profile: distinct folded stacks ("root;caller;callee") with their
 * sample counts, plus the facts about the run that outputs print. */
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "util.h"

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

void profile_add(struct profile *p, const char *stack, size_t len, uint64_t count)
{
	if ((p->n + 1) * 4 > p->cap * 3)
		grow(p);
	uint64_t h = hash_bytes(stack, len, 0);
	size_t j = h & (p->cap - 1);
	while (p->e[j].stack) {
		if (p->e[j].hash == h && p->e[j].len == len && !memcmp(p->e[j].stack, stack, len)) {
			p->e[j].count += count;
			p->total += count;
			return;
		}
		j = (j + 1) & (p->cap - 1);
	}
	p->e[j] = (struct prof_entry){ xstrndup(stack, len), len, count, h };
	p->n++;
	p->total += count;
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
