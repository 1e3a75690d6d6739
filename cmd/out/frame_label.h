/* Frame labels taken apart for the structured output formats (pprof, speedscope,
 * callgrind): kind, function name, file and line, recovered from the label alone. Also
 * a table that numbers distinct byte strings in first-seen order, as those formats do. */
#ifndef LF_FRAME_LABEL_H
#define LF_FRAME_LABEL_H
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum frame_label_kind {
	FRAME_NATIVE,   /* symbol, `file+0xOFFSET`, or a plain name such as the process */
	FRAME_KERNEL,   /* `symbol_[k]` */
	FRAME_LUA,      /* `NAME (CHUNK:LINE)` */
	FRAME_LUA_JIT,  /* `NAME (CHUNK:LINE)_[j]`: Lua code running in a compiled trace */
	FRAME_MARKER,   /* `[GC]`, `[trace 17]`, `[unknown]`, `[unwind: ...]` */
};

/* Pointers into the parsed label; nothing is copied. */
struct frame_label {
	enum frame_label_kind kind;
	const char *name;   /* Lua NAME, kernel symbol without `_[k]`, else the whole label */
	size_t name_len;
	const char *file;   /* Lua CHUNK, the file of `file+0xOFFSET`, else empty */
	size_t file_len;
	long line;          /* Lua LINE, else 0 */
};

void frame_label_parse(const char *s, size_t len, struct frame_label *fl);
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
