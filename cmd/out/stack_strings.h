/* Folded stacks taken apart for the structured output formats (pprof, speedscope,
 * callgrind): frames, the function name of a parsed label, and a table that numbers distinct
 * byte strings in first-seen order, as those formats do. Labels are parsed by
 * render/frame_label.h. */
#ifndef LF_STACK_STRINGS_H
#define LF_STACK_STRINGS_H
#include <stddef.h>
#include <stdint.h>

#include "frame_label.h"
#include "util.h"

/* The function name every format shows: the parsed name with the kind's suffix kept
 * (`_[k]`, `_[j]`), so the kind stays visible as it is in the flame graph. */
void frame_label_func_name(const struct frame_label *fl, struct sbuf *out);

/* One frame of a folded stack. */
struct frame_span { const char *s; size_t len; };
/* Splits "root;a;b" into frames (root first) into *v, grown as needed; returns the count. */
size_t stack_frames(const char *stack, size_t len, struct frame_span **v, size_t *cap);

/* Distinct byte strings numbered 0, 1, 2... in first-seen order. */
struct intern {
	uint32_t *slot;     /* open addressing: index + 1, 0 = empty */
	size_t nslot;
	char **str;         /* copies, NUL-terminated */
	size_t *len;
	size_t n, cap;
};
void intern_init(struct intern *t);
void intern_free(struct intern *t);
/* Index of s, adding it when new (*added says which, if not NULL). */
uint32_t intern_add(struct intern *t, const char *s, size_t len, int *added);
#endif
