/* Flame-graph layout: which frames are drawn (pruned below the minimum width, with
 * their samples still inside their parents) and where, in depth-first order. */
#ifndef LF_LAYOUT_H
#define LF_LAYOUT_H
#include <stddef.h>
#include <stdint.h>
#include "tree.h"

#define LAYOUT_XPAD 10   /* pixels left and right of the frames */
#define LAYOUT_MAX_WIDTH 100000

struct lframe {
	const struct fnode *node;
	uint64_t offset;     /* samples left of this frame, from the left edge of the root */
	uint32_t depth;      /* 0 for "all" */
	uint32_t parent;     /* index of the parent frame (0 for the root itself) */
};

struct layout {
	struct lframe *frames;   /* pre-order: a frame's subtree follows it contiguously */
	size_t n, cap;
	uint32_t max_depth;
	uint64_t total;
	double plot_width;       /* pixels across the root */
};

/* Lays out F for options O. Returns 0, or -1 when memory ran out. */
int layout_build(const struct flame *f, const struct flame_opts *o, struct layout *out);
void layout_free(struct layout *l);
/* Samples the narrowest drawn frame has, for options O and TOTAL samples in all; it never
 * decreases as TOTAL grows, so a frame below it now stays below it. */
uint64_t layout_min_samples(const struct flame_opts *o, uint64_t total);
/* Left edge and width of frame I in pixels. */
double layout_x(const struct layout *l, size_t i);
double layout_w(const struct layout *l, size_t i);
/* Sibling order: flamegraph.pl's (bytes of "name;"), and heaviest first. */
int layout_cmp_name(const struct fnode *a, const struct fnode *b);
int layout_cmp_heavy(const struct fnode *a, const struct fnode *b);

#endif
