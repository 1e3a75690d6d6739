/* The SVG writer's output buffer: numbers exactly as printf writes them (rounding ties
 * to even on the exact binary value, as "%.2f" does), pieces larger than the buffer,
 * and XML escaping through it. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "outbuf.h"
#include "text.h"

static uint64_t state = 88172645463325252ull;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static int differs(double v, int decimals)
{
	char mine[FIXED_MAX + 1], want[FIXED_MAX];
	mine[fixed_format(mine, v, decimals)] = '\0';
	snprintf(want, sizeof(want), "%.*f", decimals, v);
	if (strcmp(mine, want)) {
		printf("  %.17g with %d decimals: \"%s\", printf says \"%s\"\n", v, decimals, mine, want);
		return 1;
	}
	return 0;
}

static void fixed_like_printf(void)
{
	static const double fixed[] = { 0, 0.005, 0.015, 0.125, 0.375, 0.5, 1.5, 2.5, 2.675, 10.125,
		1.005, 99.995, 100, 1189.995, 4503599627370.5, 9999999999999.99, 1e13, 1e15, 1e300,
		-0.0, -1.25, NAN, INFINITY };
	int bad = 0;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		for (int d = 0; d <= 2; d++)
			bad += differs(fixed[i], d);
	for (long i = 0; i < 300000 && bad < 10; i++) {
		double v;
		switch (i % 5) {
		case 0: v = (double)(rnd() % 100000000) / 8; break;     /* ties at .125, .5, ... */
		case 1: v = (double)(rnd() % 100000000) / 200; break;   /* near ties */
		case 2: v = nextafter((double)(rnd() % 1000000) / 1000, (rnd() & 1) ? 0 : 1e9); break;
		case 3: v = 10 + (double)(rnd() % 1000000) * 1180 / (double)(1 + rnd() % 10000000); break;
		default: v = ldexp((double)(rnd() >> 11), -(int)(rnd() % 90)); break;
		}
		for (int d = 0; d <= 2; d++)
			bad += differs(v, d);
	}
	CHECK_INT(bad, 0);
}

static void buffer(void)
{
	char *text = NULL, small[16];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct outbuf b;
	outbuf_init(&b, m, small, sizeof(small));
	outbuf_u64(&b, 0);
	outbuf_putc(&b, ' ');
	outbuf_u64(&b, UINT64_MAX);
	outbuf_puts(&b, " a piece longer than the buffer itself ");
	outbuf_fixed(&b, 2.5, 0);
	outbuf_putc(&b, ' ');
	outbuf_fixed(&b, 1.005, 2);
	outbuf_putc(&b, ' ');
	text_xml(&b, "<a & \"b\">\xff", 10);
	outbuf_flush(&b);
	fclose(m);
	CHECK_STR(text, "0 18446744073709551615 a piece longer than the buffer itself 2 1.00 "
		  "&lt;a &amp; &quot;b&quot;&gt;\xef\xbf\xbd");
	free(text);
}

int main(void)
{
	RUN(fixed_like_printf);
	RUN(buffer);
	CHECK_EXIT();
}
