/* The parts a big unsorted folded file is read in, each by its own reader: the cut falls
 * right after a newline near the middle (or nowhere, when no line ends near it), and the
 * parts read through their own FILEs, at once, give back the file's bytes exactly. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "filerange.h"
#include "lines.h"

/* A temporary file holding the N bytes of DATA. */
static FILE *file_of(const char *data, size_t n)
{
	FILE *f = tmpfile();
	CHECK(f && fwrite(data, 1, n, f) == n && fflush(f) == 0);
	return f;
}

/* LINES lines of 1 to 300 bytes: the text, its size in *N. */
static char *lines_text(size_t lines, size_t *n)
{
	char *s = malloc(lines * 302);
	size_t len = 0;
	unsigned seed = 5;
	for (size_t i = 0; i < lines; i++) {
		seed = seed * 1103515245u + 12345u;
		size_t w = 1 + (seed >> 8) % 300;
		memset(s + len, 'a' + (int)(i % 26), w);
		len += w;
		s[len++] = '\n';
	}
	*n = len;
	return s;
}

static void cut_after_newline(void)
{
	size_t n;
	char *s = lines_text(5000, &n);
	FILE *f = file_of(s, n);
	off_t cut = filerange_middle_line(fileno(f), 0, (off_t)n);
	CHECK(cut > (off_t)n / 2 && cut <= (off_t)n / 2 + 301);
	CHECK(cut > 0 && s[cut - 1] == '\n');
	/* from an offset: the middle of what is left */
	off_t at = 100000, c2 = filerange_middle_line(fileno(f), at, (off_t)n);
	CHECK(c2 > at + ((off_t)n - at) / 2 && s[c2 - 1] == '\n');
	fclose(f);
	free(s);
}

static void no_line_end_near(void)
{
	size_t n = 3 * LINE_MAX_BYTES;
	char *s = malloc(n);
	memset(s, 'x', n);
	s[10] = '\n';         /* a line ends, but far before the middle */
	s[n - 1] = '\n';      /* and after more than a line's most bytes past it */
	FILE *f = file_of(s, n);
	CHECK_INT(filerange_middle_line(fileno(f), 0, (off_t)n), -1);
	CHECK_INT(filerange_middle_line(fileno(f), 0, 0), -1);
	fclose(f);
	free(s);
}

static void parts_read_back(void)
{
	size_t n;
	char *s = lines_text(20000, &n), *got = malloc(n);
	FILE *f = file_of(s, n);
	off_t cut = filerange_middle_line(fileno(f), 0, (off_t)n);
	FILE *a = filerange_open(fileno(f), 0, cut), *b = filerange_open(fileno(f), cut, (off_t)n);
	CHECK(a && b);
	/* both read a little at a time, turn about: neither moves the other */
	size_t ga = 0, gb = 0, ra, rb;
	do {
		ra = fread(got + ga, 1, 777, a);
		rb = fread(got + cut + gb, 1, 1234, b);
		ga += ra;
		gb += rb;
	} while (ra || rb);
	CHECK_INT(ga, cut);
	CHECK_INT(gb, (off_t)n - cut);
	CHECK(memcmp(got, s, n) == 0);
	CHECK(fgetc(a) == EOF && fgetc(b) == EOF);
	fclose(a);
	fclose(b);
	fclose(f);   /* the parts left the descriptor open */
	free(got);
	free(s);
}

int main(void)
{
	RUN(cut_after_newline);
	RUN(no_line_end_near);
	RUN(parts_read_back);
	CHECK_EXIT();
}
