/* Buffered output for the SVG writer: bytes, counts and fixed-point numbers appended to
 * a buffer that goes to the FILE in large writes. A graph has tens of thousands of
 * frames, each a dozen small pieces; through stdio every piece would be a call (a copy, a
 * lock, printf's parsing and its long-double conversion), costing more than reading the
 * input. The numbers come out exactly as printf's "%" PRIu64 and "%.Nf" write them. */
#ifndef LF_OUTBUF_H
#define LF_OUTBUF_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct outbuf {
	FILE *f;
	char *buf;                /* the caller's: CAP bytes */
	size_t n, cap;            /* bytes waiting in buf */
};

void outbuf_init(struct outbuf *b, FILE *f, char *buf, size_t cap);
/* Writes what is waiting to the FILE (errors show in ferror). */
void outbuf_flush(struct outbuf *b);
void outbuf_write_slow(struct outbuf *b, const char *s, size_t n);
void outbuf_puts(struct outbuf *b, const char *s);
/* v in decimal, as printf's "%" PRIu64. */
void outbuf_u64(struct outbuf *b, uint64_t v);
/* v with DECIMALS (0 to 2) digits after the point, as printf's "%.Nf" writes it: the
 * exact binary value rounded to nearest, ties to even. */
void outbuf_fixed(struct outbuf *b, double v, int decimals);
/* The same into S (FIXED_MAX bytes: DBL_MAX has 309 digits); returns the length. */
#define FIXED_MAX 320
size_t fixed_format(char *s, double v, int decimals);

/* Inline, so that pieces of a known size are copied without a call. */
static inline void outbuf_write(struct outbuf *b, const char *s, size_t n)
{
	if (n <= b->cap - b->n) {
		memcpy(b->buf + b->n, s, n);
		b->n += n;
	} else {
		outbuf_write_slow(b, s, n);
	}
}

static inline void outbuf_putc(struct outbuf *b, char c)
{
	if (b->n == b->cap)
		outbuf_flush(b);
	b->buf[b->n++] = c;
}

#endif
