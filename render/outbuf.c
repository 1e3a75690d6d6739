/* Buffered output with printf's number formats (see outbuf.h). */
#include <math.h>
#include <string.h>
#include "outbuf.h"

void outbuf_init(struct outbuf *b, FILE *f, char *buf, size_t cap)
{
	b->f = f;
	b->buf = buf;
	b->n = 0;
	b->cap = cap;
}

void outbuf_flush(struct outbuf *b)
{
	if (b->n)
		fwrite(b->buf, 1, b->n, b->f);
	b->n = 0;
}

void outbuf_write_slow(struct outbuf *b, const char *s, size_t n)
{
	outbuf_flush(b);
	if (n > b->cap) {
		fwrite(s, 1, n, b->f);
		return;
	}
	memcpy(b->buf, s, n);
	b->n = n;
}

void outbuf_puts(struct outbuf *b, const char *s)
{
	outbuf_write(b, s, strlen(s));
}

static size_t u64_format(char *s, uint64_t v)
{
	char tmp[20];
	size_t n = 0, i = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		s[i++] = tmp[--n];
	return i;
}

void outbuf_u64(struct outbuf *b, uint64_t v)
{
	char s[20];
	outbuf_write(b, s, u64_format(s, v));
}

/* printf rounds the exact value of V * 10^DECIMALS, which hi + lo hold exactly (fma gives
 * the product's rounding error), to nearest with ties to even. rint(hi) does that to hi;
 * it is the answer unless hi is a tie that lo breaks. Below 2^52 a step of hi is at most
 * 1/2 and |lo| at most half a step, so lo cannot move hi past another tie; other values
 * (none in a flame graph) go to snprintf. */
size_t fixed_format(char *s, double v, int decimals)
{
	static const double scale[] = { 1, 10, 100 };
	static const uint64_t pow10[] = { 1, 10, 100 };
	if (decimals < 0 || decimals > 2 || !(v >= 0 && v < 1e13) || signbit(v))
		return (size_t)snprintf(s, FIXED_MAX, "%.*f", decimals, v);
	double hi = v * scale[decimals];
	double lo = fma(v, scale[decimals], -hi);
	double q = rint(hi);   /* not nearbyint, which saves and restores the FP flags */
	double d = hi - q;   /* exact: hi and q are within 0.5 of each other */
	if (d == 0.5 && lo > 0)
		q += 1;
	else if (d == -0.5 && lo < 0)
		q -= 1;
	uint64_t r = (uint64_t)q, unit = pow10[decimals];
	size_t n = u64_format(s, r / unit);
	if (decimals) {
		uint64_t frac = r % unit;
		s[n++] = '.';
		for (uint64_t p = unit / 10; p; p /= 10)
			s[n++] = (char)('0' + frac / p % 10);
	}
	return n;
}

void outbuf_fixed(struct outbuf *b, double v, int decimals)
{
	char s[FIXED_MAX];
	outbuf_write(b, s, fixed_format(s, v, decimals));
}
