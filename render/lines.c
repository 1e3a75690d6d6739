/* Folded lines one at a time (see lines.h): a buffer refilled in large reads, a line
 * found by its newline, and its trailing count parsed and checked. The search for the
 * newline starts past the bytes shared with the previous line, which a sorted file has
 * by the hundred. */
#include <stdlib.h>
#include <string.h>
#include "lines.h"

#define READ_CHUNK (1u << 20)
#define COUNT_MAX  1000000000000000ull   /* 1e15: totals stay exact in a double */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Parses the trailing count of LINE[0..*LEN); on success shortens *LEN to the stack. */
static int split_count(const char *line, size_t *len, uint64_t *count)
{
	size_t n = *len, end, start;
	while (n && is_space(line[n - 1]))
		n--;
	end = n;
	while (n && line[n - 1] >= '0' && line[n - 1] <= '9')
		n--;
	start = n;
	if (start == end || end - start > 16 || start == 0 || !is_space(line[start - 1]))
		return -1;
	uint64_t v = 0;
	for (size_t i = start; i < end; i++)
		v = v * 10 + (uint64_t)(line[i] - '0');
	if (v > COUNT_MAX)
		return -1;
	while (n && is_space(line[n - 1]))
		n--;
	*len = n;
	*count = v;
	return 0;
}

/* Lines share hundreds of bytes with the line before: 32 at a time, then 8, then 1. */
static size_t common_prefix(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen, i = 0;
	for (; i + 32 <= n; i += 32) {
		uint64_t x[4], y[4];
		memcpy(x, a + i, 32);
		memcpy(y, b + i, 32);
		if ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]))
			break;
	}
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Copies the previous line out of the buffer, which is about to be overwritten. */
static int keep_prev(struct line_reader *r)
{
	if (r->prev == r->own || !r->prevlen)
		return 0;
	if (r->prevlen > r->cap) {
		size_t cap = r->prevlen > 2 * r->cap ? r->prevlen : 2 * r->cap;
		char *b = realloc(r->own, cap);
		if (!b)
			return -1;
		r->own = b;
		r->cap = cap;
	}
	memcpy(r->own, r->prev, r->prevlen);
	r->prev = r->own;
	return 0;
}

/* Makes room and reads more, after the caller's pointers into the buffer are gone.
 * Returns 0, or -1 on a read error or lack of memory. */
static int refill(struct line_reader *r)
{
	if ((r->moving && r->moving(r->ctx) < 0) || keep_prev(r) < 0)
		return -1;
	if (r->start) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	size_t got = fread(r->buf + r->end, 1, LINE_MAX_BYTES + READ_CHUNK - r->end, r->in);
	r->end += got;
	if (got == 0) {
		if (ferror(r->in))
			return -1;
		r->eof = 1;
	}
	return 0;
}

/* 1 when LINE has a count above 0 and a frame (fills L), 0 for a count of 0 (skipped,
 * not malformed), -1 when malformed. */
static int parse(const char *line, size_t len, struct folded_line *l)
{
	if (split_count(line, &len, &l->count) < 0)
		return -1;
	if (l->count == 0)
		return 0;
	size_t semis = 0;
	while (semis < len && line[semis] == ';')
		semis++;
	if (semis == len)
		return -1;   /* no frames at all */
	l->stack = line;
	l->len = len;
	return 1;
}

int lines_open(struct line_reader *r, FILE *in, int (*moving)(void *), void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->in = in;
	r->moving = moving;
	r->ctx = ctx;
	r->buf = malloc(LINE_MAX_BYTES + READ_CHUNK);
	return r->buf ? 0 : -1;
}

int lines_next(struct line_reader *r, struct folded_line *l)
{
	for (;;) {
		char *s = r->buf + r->start;
		size_t avail = r->end - r->start;
		/* bytes equal to the previous stack hold no newline: the search starts after them */
		size_t same = common_prefix(r->prev, r->prevlen, s, avail);
		char *nl = memchr(s + same, '\n', avail - same);
		size_t len = nl ? (size_t)(nl - s) : avail;
		if (!nl && !r->eof && len < LINE_MAX_BYTES) {
			if (refill(r) < 0)
				return -1;
			continue;
		}
		if (!nl && !r->eof) {
			/* over-long line: drop what we have and keep dropping up to its newline */
			if (!r->skipping)
				r->ignored++;
			r->skipping = 1;
			r->start = r->end;
			continue;
		}
		if (!nl && len == 0)
			return 0;   /* clean end of input */
		r->start += len + (nl != NULL);
		if (r->skipping) {
			r->skipping = 0;
			continue;
		}
		int t = parse(s, len, l);
		r->ignored += t < 0;
		if (t <= 0)
			continue;
		l->same = same;
		r->prev = l->stack;
		r->prevlen = l->len;
		return 1;
	}
}

void lines_close(struct line_reader *r)
{
	free(r->buf);
	free(r->own);
	r->buf = r->own = NULL;
}
