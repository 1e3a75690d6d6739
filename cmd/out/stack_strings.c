/* Folded stacks split into frames, the function names the structured formats show, and a
 * table that numbers distinct byte strings in first-seen order, as pprof, speedscope and
 * callgrind do (stack_strings.h). */
#include <stdlib.h>
#include <string.h>

#include "stack_strings.h"
#include "util.h"

void frame_label_func_name(const struct frame_label *fl, struct sbuf *out)
{
	sb_reset(out);
	sb_add(out, fl->name, fl->name_len);
	if (fl->kind == KIND_KERNEL)
		sb_puts(out, "_[k]");
	else if (fl->kind == KIND_JIT)
		sb_puts(out, "_[j]");
}

/* Empty frames (";;") are dropped; a stack with none left becomes "[unknown]" so its
 * samples still count in every format's totals. */
size_t stack_frames(const char *stack, size_t len, struct frame_span **v, size_t *cap)
{
	size_t n = 0, start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && stack[i] != ';')
			continue;
		if (i > start) {
			if (n == *cap) {
				*cap = *cap ? *cap * 2 : 64;
				*v = xrealloc(*v, *cap * sizeof(**v));
			}
			(*v)[n++] = (struct frame_span){ stack + start, i - start };
		}
		start = i + 1;
	}
	if (n == 0) {
		if (*cap == 0) {
			*cap = 64;
			*v = xrealloc(*v, *cap * sizeof(**v));
		}
		(*v)[n++] = (struct frame_span){ "[unknown]", 9 };
	}
	return n;
}

void intern_init(struct intern *t)
{
	memset(t, 0, sizeof(*t));
}

void intern_free(struct intern *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->str[i]);
	free(t->str);
	free(t->len);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static void rehash(struct intern *t)
{
	size_t nslot = t->nslot ? t->nslot * 2 : 256;
	uint32_t *slot = xcalloc(nslot, sizeof(*slot));
	for (size_t i = 0; i < t->n; i++) {
		size_t j = hash_bytes(t->str[i], t->len[i], 0) & (nslot - 1);
		while (slot[j])
			j = (j + 1) & (nslot - 1);
		slot[j] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = nslot;
}

static uint32_t append(struct intern *t, const char *s, size_t len)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->str = xrealloc(t->str, t->cap * sizeof(*t->str));
		t->len = xrealloc(t->len, t->cap * sizeof(*t->len));
	}
	t->str[t->n] = xstrndup(s, len);
	t->len[t->n] = len;
	return (uint32_t)t->n++;
}

uint32_t intern_add(struct intern *t, const char *s, size_t len, int *added)
{
	if ((t->n + 1) * 2 > t->nslot)
		rehash(t);
	size_t j = hash_bytes(s, len, 0) & (t->nslot - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1)) {
		uint32_t i = t->slot[j] - 1;
		if (t->len[i] == len && !memcmp(t->str[i], s, len)) {
			if (added)
				*added = 0;
			return i;
		}
	}
	uint32_t i = append(t, s, len);
	t->slot[j] = i + 1;
	if (added)
		*added = 1;
	return i;
}
