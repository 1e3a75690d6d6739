/* Reader for folded stacks ("root;...;leaf COUNT" per line), as written by lua-flame,
 * stackcollapse-perf.pl or py-spy --format raw. Any line that is not that shape is
 * skipped and counted; lines are capped so binary junk cannot exhaust memory.
 * Folded files are sorted, so a line shares most of its frames with the line before:
 * those frames are taken from the previous line's path by comparing bytes, and only the
 * rest is looked up in the tree. Rendering may also drop subtrees too narrow to draw
 * as soon as the input has left them, which keeps memory far below the tree's size. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "layout.h"
#include "tree.h"

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

/* A line's path in the tree: node and end of its frame in the line's bytes, per depth. */
struct path {
	struct fnode *node[FLAME_MAX_DEPTH];
	size_t end[FLAME_MAX_DEPTH];   /* offset of the ';' after the frame, or the length */
	size_t depth;
};

struct loader {
	struct flame *f;
	struct path *path;             /* the last line's */
	const char *bytes;             /* the previous line's stack: in the read buffer, */
	size_t len;
	size_t same;                   /* bytes the line being read shares with it */
	char *own;                     /* ... or copied here before the buffer moves */
	size_t cap;
	const struct flame_opts *prune; /* NULL: keep every node */
	int pruned;                    /* some subtree was dropped */
	size_t swept;                  /* live nodes after the last sweep */
	int unsafe;                    /* ... and the input came back into a node it had left */
};

static size_t common_prefix(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen, i = 0;
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

/* Frames the previous line left for good, deepest first: those narrower than a frame
 * can be drawn lose their subtrees. Their own totals stay, for their siblings' places. */
static void leave(struct loader *ld, const struct path *p, size_t from, size_t to)
{
	uint64_t min = layout_min_samples(ld->prune, ld->f->root.total);
	for (size_t d = to; d-- > from;) {
		struct fnode *x = p->node[d];
		if (x->child && x->total < min) {
			flame_drop_children(ld->f, x);
			ld->pruned = 1;
		}
	}
}

/* Drops the subtrees of every frame below MIN that the input has left (all but the
 * current path, X being DEPTH frames deep). Frames kept early on, while the total and
 * with it the minimum were small, go here. */
static void sweep(struct loader *ld, struct fnode *x, size_t depth, uint64_t min)
{
	const struct path *p = ld->path;
	for (struct fnode *c = x->child; c; c = c->next) {
		int on_path = depth < p->depth && p->node[depth] == c;
		if (!on_path && c->total < min) {
			if (c->child) {
				flame_drop_children(ld->f, c);
				ld->pruned = 1;
			}
		} else if (depth + 1 < FLAME_MAX_DEPTH) {
			sweep(ld, c, depth + 1, min);
		}
	}
}

/* Sweeps whenever the live nodes have doubled since the last sweep, which keeps the
 * work linear in the input. */
static int maybe_sweep(struct loader *ld)
{
	struct flame *f = ld->f;
	if (f->nnodes < 2 * ld->swept)
		return 0;
	sweep(ld, &f->root, 0, layout_min_samples(ld->prune, f->root.total));
	ld->swept = f->nnodes > 4096 ? f->nnodes : 4096;
	return flame_compact(f);
}

/* Walks STACK from where it parts from the previous line. 0 added, 1 no frames, -1 out
 * of memory. */
static int walk(struct loader *ld, const char *stack, size_t len, uint64_t count)
{
	struct path *p = ld->path;   /* the previous line's, overwritten from where they part */
	struct flame *f = ld->f;
	size_t same = ld->same < len ? ld->same : len, k = 0, old = p->depth;
	while (k < old && p->end[k] < same)
		k++;   /* frame k and its ';' are the same bytes in both lines */
	size_t depth = k, pos = k ? p->end[k - 1] + 1 : 0;
	struct fnode *at = k ? p->node[k - 1] : &f->root;
	const char *name;
	size_t nlen;
	int created = 0, parted = 0;
	while (depth < FLAME_MAX_DEPTH && flame_next_frame(f, stack, len, &pos, &name, &nlen)) {
		if (created)
			at = flame_child_fresh(f, at, name, nlen);
		else
			at = flame_child_at(f, at, name, nlen, &created);
		if (!at)
			return -1;
		int on_prev = !parted && depth < old && p->node[depth] == at;
		if (!created && !on_prev && ld->pruned)
			ld->unsafe = 1;
		if (!on_prev && !parted) {
			parted = 1;   /* the previous line's frames from here down are left behind */
			if (ld->prune)
				leave(ld, p, depth, old);
		}
		p->node[depth] = at;
		p->end[depth++] = pos - 1;
	}
	if (depth == 0)
		return 1;
	if (depth == FLAME_MAX_DEPTH && flame_next_frame(f, stack, len, &pos, &name, &nlen))
		f->cut_stacks++; /* said at the end: the graph keeps the outermost frames */
	if (!parted && ld->prune)
		leave(ld, p, depth, old);
	p->depth = depth;
	flame_count(f, p->node, depth, count);
	if (ld->prune && maybe_sweep(ld) < 0)
		return -1;
	ld->bytes = stack;
	ld->len = len;
	return 0;
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
	return walk(ld, line, len, count);
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
			if (keep_prev(ld) < 0 || refill(&r) < 0) { rc = -1; break; }
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
