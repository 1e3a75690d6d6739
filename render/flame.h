/* Flame graphs from folded stacks: a merged call tree (flame_add, flame_read_folded)
 * and a self-contained interactive SVG writer (flame_write_svg). Used by the recorder
 * and by `lua-flame render`. */
#ifndef LF_FLAME_H
#define LF_FLAME_H
#include <stdint.h>
#include <stdio.h>

struct flame_diff;

struct flame_opts {
	const char *title;      /* NULL: "Flame Graph" (or "Icicle Graph" when inverted) */
	const char *subtitle;   /* NULL or "": no subtitle line */
	const char *countname;  /* unit of the counts, "samples" by default */
	int width;              /* image width in pixels */
	int inverted;           /* icicle: root at the top */
	int reverse;            /* merge stacks leaf first */
	int heaviest_first;     /* siblings by weight instead of by name */
	int heap;               /* a heap snapshot's frames: coloured by heap_kind_of */
	double minwidth;        /* frames narrower than this are left out */
	int minwidth_is_percent;/* minwidth is a percentage of all samples, not pixels */
	const struct flame_diff *diff; /* NULL, or the BEFORE side of a differential graph
	                        * (diff.h): colours by change, BEFORE in the tooltips */
};

void flame_opts_default(struct flame_opts *o);

struct flame;

struct flame *flame_new(void);
void flame_free(struct flame *f);
/* Adds COUNT samples to the stack "root;...;leaf" (LEN bytes, no count). Returns 0,
 * or -1 when the stack has no frames or memory ran out. */
int flame_add(struct flame *f, const char *stack, size_t len, uint64_t count);
/* Reads "frame;frame;... COUNT" lines. Malformed lines are skipped and counted in
 * *IGNORED_LINES (may be NULL). Returns 0, or -1 on a read error or lack of memory. */
int flame_read_folded(struct flame *f, FILE *in, size_t *ignored_lines);
/* flame_read_folded for drawing with options O only: subtrees narrower than O's minimum
 * width are dropped once the input is past them, so F is no longer complete (no
 * flame_reversed, no diff); the SVG is the same. */
int flame_read_folded_for(struct flame *f, FILE *in, size_t *ignored_lines, const struct flame_opts *o);
/* Stacks already in memory, given in frame order (every stack under a frame follows the
 * one before it: ';' sorts before every other byte), for drawing with options O only, as
 * flame_read_folded_for reads a file. F must be new; each STACK stays readable until
 * flame_sorted_end. flame_sorted_add and _end return 0, -1 when memory ran out, or 1 when the
 * stacks were not in that order after all (or two frame names became one when cut to
 * FLAME_MAX_NAME): F is then incomplete, and is cleared and built again with flame_add. */
struct flame_sorted;
struct flame_sorted *flame_sorted_begin(struct flame *f, const struct flame_opts *o);
int flame_sorted_add(struct flame_sorted *s, const char *stack, size_t len, uint64_t count);
int flame_sorted_end(struct flame_sorted *s);
/* Total samples added so far. */
uint64_t flame_total(const struct flame *f);
/* Writes the SVG. Returns 0, or -1 when memory ran out or writing failed. */
int flame_write_svg(const struct flame *f, const struct flame_opts *o, FILE *out);

/* --width and --minwidth values, shared by `render` and `diff`: 0, or -1 when out of range. */
int render_parse_width(const char *s, int *width);
int render_parse_minwidth(const char *s, struct flame_opts *o);
/* `lua-flame render [opts] [-o OUT.svg] [IN.folded|-]`: exit status 0, 1 or 2. */
int render_main(int argc, char **argv);

#endif
