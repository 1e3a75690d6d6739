/* The differential profile as text for scripts: `stack before after` per line (the
 * shape difffolded.pl writes), raw counts of every stack found on either side, sorted
 * bytewise so two runs compare with diff(1). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"

struct lines {
	char **v;
	size_t n, cap;
	int oom;
	const struct fnode *chain[FLAME_MAX_DEPTH + 1];
};

/* "root;...;leaf before after" for the stack ending at CHAIN[DEPTH - 1]. */
static void add_line(struct lines *l, size_t depth, uint64_t before, uint64_t after)
{
	size_t len = 48;
	for (size_t i = 0; i < depth; i++)
		len += l->chain[i]->len + 1;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		char **v = realloc(l->v, cap * sizeof(*v));
		if (!v) {
			l->oom = 1;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	char *s = malloc(len), *p = s;
	if (!s) {
		l->oom = 1;
		return;
	}
	for (size_t i = 0; i < depth; i++) {
		if (i)
			*p++ = ';';
		memcpy(p, l->chain[i]->name, l->chain[i]->len);
		p += l->chain[i]->len;
	}
	snprintf(p, 48, " %" PRIu64 " %" PRIu64, before, after);
	l->v[l->n++] = s;
}

/* AFTER's stacks, with BEFORE's count of the same stack. */
static void walk_after(struct lines *l, const struct flame_diff *d, const struct fnode *a, size_t depth)
{
	for (const struct fnode *x = a->child; x && !l->oom; x = x->next) {
		const struct diff_entry *e = diff_lookup(d, x);
		l->chain[depth] = x;
		if (x->self || e->self)
			add_line(l, depth + 1, e->self, x->self);
		if (depth + 1 < FLAME_MAX_DEPTH)
			walk_after(l, d, x, depth + 1);
	}
}

/* BEFORE's stacks whose path AFTER does not have at all (the rest came with AFTER's). */
static void walk_before(struct lines *l, const struct flame_diff *d, const struct fnode *b,
			const struct fnode *a, size_t depth)
{
	for (const struct fnode *x = b->child; x && !l->oom; x = x->next) {
		const struct fnode *y = a ? flame_find(d->after, a, x->name, x->len) : NULL;
		l->chain[depth] = x;
		if (!y && x->self)
			add_line(l, depth + 1, x->self, 0);
		if (depth + 1 < FLAME_MAX_DEPTH)
			walk_before(l, d, x, y, depth + 1);
	}
}

static int by_bytes(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int diff_write_folded(const struct flame_diff *d, FILE *out)
{
	struct lines *l = calloc(1, sizeof(*l));
	if (!l)
		return -1;
	walk_after(l, d, &d->after->root, 0);
	walk_before(l, d, &d->before->root, &d->after->root, 0);
	int rc = l->oom ? -1 : 0;
	if (!rc)
		qsort(l->v, l->n, sizeof(*l->v), by_bytes);
	for (size_t i = 0; i < l->n; i++) {
		if (!rc && (fputs(l->v[i], out) == EOF || fputc('\n', out) == EOF))
			rc = -1;
		free(l->v[i]);
	}
	free(l->v);
	free(l);
	return fflush(out) || ferror(out) ? -1 : rc;
}
