/* Kernel symbols from /proc/kallsyms, for labelling kernel frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "ksyms.h"
#include "util.h"

struct ksyms { struct elf_sym *s; size_t n; };

static int cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
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
		k->s[k->n++] = (struct elf_sym){ addr, 0, xstrdup(name) };
	}
	fclose(f);
	qsort(k->s, k->n, sizeof(*k->s), cmp);
	return k;
}

const char *ksyms_lookup(const struct ksyms *k, uint64_t addr)
{
	long i = elfsyms_floor(k->s, k->n, addr);
	return i >= 0 ? k->s[i].name : NULL;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free((char *)k->s[i].name);
	free(k->s);
	free(k);
}
