/* Reader for folded stacks ("root;...;leaf COUNT" per line), as written by lua-flame,
 * stackcollapse-perf.pl or py-spy --format raw. Any line that is not that shape is
 * skipped and counted; lines are capped so binary junk cannot exhaust memory. Each line
 * goes into the tree through walk.c, from where it parts from the line before; rendering
 * may also drop subtrees too narrow to draw as soon as the input has left them, which
 * keeps memory far below the tree's size. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "walk.h"

#define LINE_MAX_BYTES (1u << 20)
#define READ_CHUNK     (1u << 20)
#define COUNT_MAX      1000000000000000ull   /* 1e15: totals stay exact in a double */

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

/* Copies the previous line out of the read buffer, which is about to be overwritten. */
static int keep_prev(struct loader *ld)
{
	if (ld->bytes == ld->own || !ld->len)
		return 0;
	if (ld->len > ld->cap) {
		size_t cap = ld->len > 2 * ld->cap ? ld->len : 2 * ld->cap;
		char *b = realloc(ld->own, cap);
		if (!b)
			return -1;
		ld->own = b;
		ld->cap = cap;
	}
	memcpy(ld->own, ld->bytes, ld->len);
	ld->bytes = ld->own;
	return 0;
}

/* 0 used or skipped as empty-count, 1 ignored, -1 out of memory */
static int take_line(struct loader *ld, const char *line, size_t len)
{
	uint64_t count;
	if (split_count(line, &len, &count) < 0)
		return 1;
	if (count == 0)
		return 0;
	size_t semis = 0;
	while (semis < len && line[semis] == ';')
		semis++;
	if (semis == len)
		return 1;   /* no frames at all */
	return walk_line(ld, line, len, count);
}

struct reader {
	FILE *in;
	char *buf;
	size_t start, end;
	int eof, skipping;
};

/* Makes room and reads more. Returns 0, or -1 on a read error. */
static int refill(struct reader *r)
{
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

/* Feeds every line of IN to LD. 0, -1 on a read error or lack of memory, or 1 when
 * pruning proved unsafe for this input (it stops there). */
static int read_lines(struct loader *ld, FILE *in, size_t *ignored)
{
	struct reader r = { .in = in };
	int rc = 0;
	r.buf = malloc(LINE_MAX_BYTES + READ_CHUNK);
	if (!r.buf)
		return -1;
	for (;;) {
		char *s = r.buf + r.start;
		size_t avail = r.end - r.start;
		/* bytes equal to the previous stack hold no newline: the search starts after them */
		ld->same = common_prefix(ld->bytes, ld->len, s, avail);
		char *nl = memchr(s + ld->same, '\n', avail - ld->same);
		size_t len = nl ? (size_t)(nl - s) : r.end - r.start;
		if (!nl && !r.eof && len < LINE_MAX_BYTES) {
			if (walk_pin_names(ld) < 0 || keep_prev(ld) < 0 || refill(&r) < 0) { rc = -1; break; }
			continue;
		}
		if (!nl && !r.eof) {
			/* over-long line: drop what we have and keep dropping up to its newline */
			if (!r.skipping)
				++*ignored;
			r.skipping = 1;
			r.start = r.end;
			continue;
		}
		if (!nl && len == 0)
			break;   /* clean end of input */
		if (r.skipping) {
			r.skipping = 0;
		} else {
			int t = take_line(ld, s, len);
			if (t < 0) { rc = -1; break; }
			*ignored += (size_t)t;
			if (ld->unsafe) { rc = 1; break; }
		}
		r.start += len + (nl != NULL);
		if (!nl)
			break;
	}
	if (rc == 0)
		rc = walk_finish(ld);   /* while pending names still point into the buffer */
	free(r.buf);
	return rc;
}

/* LAZY: only the renderer reads this tree, flame_find need not be fast (tree.h). */
static int load(struct flame *f, FILE *in, size_t *ignored_lines, const struct flame_opts *prune,
		int lazy)
{
	struct loader ld = { .f = f, .prune = prune, .swept = 4096 };
	if (lazy && !f->nnodes)
		f->lazy = 1;
	size_t ignored = 0;
	int rc = -1;
	ld.path = calloc(1, sizeof(*ld.path));
	if (ld.path)
		rc = read_lines(&ld, in, &ignored);
	free(ld.path);
	free(ld.own);
	if (ignored_lines)
		*ignored_lines = ignored;
	return rc;
}

int flame_read_folded(struct flame *f, FILE *in, size_t *ignored_lines)
{
	if (!f || !in)
		return -1;
	return load(f, in, ignored_lines, NULL, 0);
}

/* Pruning needs a second chance: an unsorted input may come back into a subtree already
 * dropped, and is then read again from the start with every node kept. */
int flame_read_folded_for(struct flame *f, FILE *in, size_t *ignored_lines, const struct flame_opts *o)
{
	struct stat st;
	off_t start;
	if (!f || !in)
		return -1;
	if (!o || o->diff)
		return load(f, in, ignored_lines, NULL, 0);
	if (o->reverse || fstat(fileno(in), &st) < 0 || !S_ISREG(st.st_mode) || (start = ftello(in)) < 0)
		return load(f, in, ignored_lines, NULL, 1);
	int rc = load(f, in, ignored_lines, o, 1);
	if (rc != 1)
		return rc;
	if (flame_clear(f) < 0 || fseeko(in, start, SEEK_SET) < 0)
		return -1;
	return load(f, in, ignored_lines, NULL, 1);
}
