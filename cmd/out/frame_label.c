/* Frame labels taken apart for the structured output formats (pprof, speedscope,
 * callgrind): kind, function name, file and line, recovered from the label alone. Also
 * a table that numbers distinct byte strings in first-seen order, as those formats do. */
#include <stdlib.h>
#include <string.h>

#include "frame_label.h"
#include "util.h"

/* `NAME (CHUNK:LINE)`. Chunk names may hold anything (`[string "f (x:1)"]`), names
 * do not hold " (", so the first " (" splits them. LINE has at most 9 digits. */
static int parse_lua(const char *s, size_t len, struct frame_label *fl)
{
	if (len < 7 || s[len - 1] != ')')
		return 0;
	size_t d = len - 1;
	long line = 0;
	while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	size_t ndig = len - 1 - d;
	if (ndig == 0 || ndig > 9 || d == 0 || s[d - 1] != ':')
		return 0;
	for (size_t i = d; i < len - 1; i++)
		line = line * 10 + (s[i] - '0');
	size_t colon = d - 1, open = 0;
	while (open + 1 < colon && !(s[open] == ' ' && s[open + 1] == '('))
		open++;
	if (open == 0 || open + 1 >= colon || open + 2 == colon)
		return 0;   /* no " (", empty name or empty chunk */
	fl->name = s;
	fl->name_len = open;
	fl->file = s + open + 2;
	fl->file_len = colon - (open + 2);
	fl->line = line;
	return 1;
}

/* `file+0xHEX`: a mapped file without a symbol for the address. */
static void parse_offset(const char *s, size_t len, struct frame_label *fl)
{
	size_t i = len;
	while (i > 0 && strchr("0123456789abcdefABCDEF", s[i - 1]) && s[i - 1])
		i--;
	if (i == len || i < 4 || memcmp(s + i - 3, "+0x", 3))
		return;
	fl->file = s;
	fl->file_len = i - 3;
}

void frame_label_parse(const char *s, size_t len, struct frame_label *fl)
{
	*fl = (struct frame_label){ FRAME_NATIVE, s, len, "", 0, 0 };
	if (ends_with(s, len, "_[j]") && parse_lua(s, len - 4, fl)) {
		fl->kind = FRAME_LUA_JIT;
	} else if (parse_lua(s, len, fl)) {
		fl->kind = FRAME_LUA;
	} else if (len > 4 && ends_with(s, len, "_[k]")) {
		fl->kind = FRAME_KERNEL;
		fl->name_len = len - 4;
	} else if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
		fl->kind = FRAME_MARKER;
	} else {
		parse_offset(s, len, fl);
	}
}

void frame_label_func_name(const struct frame_label *fl, struct sbuf *out)
{
	sb_reset(out);
	sb_add(out, fl->name, fl->name_len);
	if (fl->kind == FRAME_KERNEL)
		sb_puts(out, "_[k]");
	else if (fl->kind == FRAME_LUA_JIT)
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
