/* Text hygiene for frame names and titles: invalid UTF-8 and control characters are
 * replaced by U+FFFD, and text is escaped for XML before it reaches the SVG. */
#ifndef LF_TEXT_H
#define LF_TEXT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Decodes one code point at S (LEN > 0 bytes). Returns bytes consumed (>= 1) and sets
 * *CP, or U+FFFD for an invalid, overlong, surrogate or non-XML sequence or a control. */
size_t text_decode(const unsigned char *s, size_t len, uint32_t *cp);
/* Copies S into OUT (capacity CAP) with bad bytes replaced; stops at a code point
 * boundary when OUT is full. Returns bytes written. */
size_t text_clean(const char *s, size_t len, char *out, size_t cap);
/* 1 when S is printable ASCII only (nothing to clean). */
int text_is_plain(const char *s, size_t len);
/* Number of code points in clean UTF-8 text, and bytes taken by the first N of them. */
size_t text_chars(const char *s, size_t len);
size_t text_prefix(const char *s, size_t len, size_t n);
/* UTF-8 for code point C into OUT; returns its bytes (1 to 4). */
size_t text_encode(uint32_t c, char *out);
/* Writes S cleaned and escaped for XML text or attribute values (text_xml.c). */
void text_put_xml(FILE *out, const char *s, size_t len);
struct outbuf;
void text_xml(struct outbuf *out, const char *s, size_t len);

#endif
