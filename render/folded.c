/* Reader for folded stacks ("root;...;leaf COUNT" per line), as written by lua-flame,
 * stackcollapse-perf.pl or py-spy --format raw. Any line that is not that shape is
 * skipped and counted; lines are capped so binary junk cannot exhaust memory. Each line
 * goes into the tree through walk.c, from where it parts from the line before; rendering
 * may also drop subtrees too narrow to draw as soon as the input has left them, which
 * keeps memory far below the tree's size. */
#include <stdlib.h>
#include <sys/stat.h>
#include "lines.h"
#include "stackkeys.h"
#include "walk.h"

/* The walk's pending frames point into the reader's buffer: interned before it moves. */
static int pin_names(void *ld)
{
	return walk_pin_names(ld);
}

/* Feeds every line of IN to LD. 0, -1 on a read error or lack of memory, or 1 when
 * pruning proved unsafe for this input (it stops there). */
static int read_lines(struct loader *ld, FILE *in, size_t *ignored)
{
	struct line_reader r;
	struct folded_line l;
	int rc;
	if (lines_open(&r, in, pin_names, ld) < 0)
		return -1;
	while ((rc = lines_next(&r, &l)) > 0) {
		if (walk_line(ld, l.stack, l.len, l.same, l.count) < 0) {
			rc = -1;
			break;
		}
		if (ld->unsafe) {
			rc = 1;
			break;
		}
	}
	if (rc == 0)
		rc = walk_finish(ld);   /* while pending names still point into the buffer */
	*ignored = r.ignored;
	lines_close(&r);
	return rc;
}

/* LAZY: only the renderer reads this tree, flame_find need not be fast (tree.h).
 * SORTING: the lines are sorted first (stackkeys.c), for input that is not. */
static int load(struct flame *f, FILE *in, size_t *ignored_lines, const struct flame_opts *prune,
		int lazy, int sorting)
{
	struct loader ld = { .f = f, .prune = prune, .swept = 4096 };
	if (lazy && !f->nnodes)
		f->lazy = 1;
	size_t ignored = 0;
	int rc = -1;
	ld.path = calloc(1, sizeof(*ld.path));
	if (ld.path)
		rc = sorting ? stackkeys_read(&ld, in, &ignored) : read_lines(&ld, in, &ignored);
	free(ld.path);
	if (ignored_lines)
		*ignored_lines = ignored;
	return rc;
}

int flame_read_folded(struct flame *f, FILE *in, size_t *ignored_lines)
{
	if (!f || !in)
		return -1;
	return load(f, in, ignored_lines, NULL, 0, 0);
}

/* Pruning needs a second chance: an unsorted input may come back into a subtree already
 * dropped, and is then read again from the start with its lines sorted, through keys far
 * smaller than the tree of every node would be (stackkeys.c). A pipe cannot be read
 * again, so from a pipe every node is kept from the start. */
int flame_read_folded_for(struct flame *f, FILE *in, size_t *ignored_lines, const struct flame_opts *o)
{
	struct stat st;
	off_t start;
	if (!f || !in)
		return -1;
	if (!o || o->diff)
		return load(f, in, ignored_lines, NULL, 0, 0);
	if (o->reverse || fstat(fileno(in), &st) < 0 || !S_ISREG(st.st_mode) || (start = ftello(in)) < 0)
		return load(f, in, ignored_lines, NULL, 1, 0);
	int rc = load(f, in, ignored_lines, o, 1, 0);
	for (int sorting = 1; rc == 1 && sorting >= 0; sorting--) {
		/* sorted keys never come back: keeping every node is only a safety net */
		if (flame_clear(f) < 0 || fseeko(in, start, SEEK_SET) < 0)
			return -1;
		rc = load(f, in, ignored_lines, sorting ? o : NULL, 1, sorting);
	}
	return rc;
}
