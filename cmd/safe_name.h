/* Names that come from a profiled program (symbols, process and thread names, mapped
 * paths, Lua chunk and function names) made inert for the output they go to: bytes that
 * could end a frame, a line or a count, or drive a terminal, are written as \xHH text. */
#ifndef LF_SAFE_NAME_H
#define LF_SAFE_NAME_H
#include <stddef.h>

#include "util.h"

enum safe_mode {
	SAFE_TERMINAL,   /* control bytes, C1 and bidi controls, invalid UTF-8 */
	SAFE_FOLDED,     /* the same, plus ';' and the space of a trailing " <digits>" */
	SAFE_FOLDED_ROOT,/* SAFE_FOLDED, and spaces as '_' (process and thread names) */
	SAFE_LUA_NAME,   /* SAFE_FOLDED, and the space of a " (" (a Lua function's name: in
			  * `NAME (CHUNK:LINE)` the first " (" ends the name) */
};

/* Writes the safe form of s[0..n) into dst (cap bytes, NUL included; cap >= 1), never cutting
 * an escape in two; returns its length. */
size_t safe_name_write(char *dst, size_t cap, const char *s, size_t n, enum safe_mode mode);
/* Appends the safe form of s[0..n) to b. */
void sb_add_safe(struct sbuf *b, const char *s, size_t n, enum safe_mode mode);
/* Rewrites the NUL-terminated s in place, within size bytes (NUL included). */
void safe_name_fix(char *s, size_t size, enum safe_mode mode);
#endif
