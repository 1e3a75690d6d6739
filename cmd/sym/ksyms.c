/* Kernel symbols from /proc/kallsyms, for labelling kernel frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "util.h"

struct ksym { uint64_t addr; char *name; };
struct ksyms { struct ksym *s; size_t n; };

static int cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct ksyms *ksyms_load(void)
{
	struct ksyms *k = xcalloc(1, sizeof(*k));
	FILE *f = fopen("/proc/kallsyms", "re");
	if (!f)
		return k;
	size_t cap = 0;
	char line[512];
	while (fgets(line, sizeof(line), f) && k->n < 10000000) {
		unsigned long long addr;
		char type, name[256];
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || addr == 0)
			continue;
		if (type != 't' && type != 'T' && type != 'W' && type != 'w')
			continue;
		if (k->n == cap) {
			cap = cap ? cap * 2 : 65536;
			k->s = xrealloc(k->s, cap * sizeof(*k->s));
		}
		k->s[k->n++] = (struct ksym){ addr, xstrdup(name) };
	}
	fclose(f);
	qsort(k->s, k->n, sizeof(*k->s), cmp);
	return k;
}

const char *ksyms_lookup(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->s[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? k->s[lo - 1].name : NULL;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->s[i].name);
	free(k->s);
	free(k);
}
