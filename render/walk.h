/* Stacks into the tree one line after another, for the folded reader (folded.c). A line
 * is walked from where it parts from the previous one; with pruning, frames the input
 * has left that are too narrow to draw lose their subtrees (see walk.c). */
#ifndef LF_WALK_H
#define LF_WALK_H
#include "tree.h"

/* A frame of the path that has no node yet: nearly every frame a line adds is left by
 * the next lines and dropped with its too narrow parent, so it only gets a node (and an
 * interned name) when it is left and could still be drawn. */
struct pending {
	const char *name;             /* clean bytes: in the read buffer, or interned */
	size_t len;
	int interned;
	uint64_t total, self;
};

/* A line's path in the tree, per depth. */
struct path {
	struct fnode *node[FLAME_MAX_DEPTH];   /* NULL for a pending frame */
	size_t end[FLAME_MAX_DEPTH];   /* offset of the ';' after the frame, or the length */
	struct pending pend[FLAME_MAX_DEPTH];
	size_t depth;
	size_t pend_from;              /* frames from here to depth are pending */
};

struct loader {
	struct flame *f;
	struct path *path;             /* the last line's */
	const struct flame_opts *prune; /* NULL: keep every node, none pending */
	int pruned;                    /* some subtree was dropped */
	size_t swept;                  /* live nodes after the last sweep */
	int unsafe;                    /* ... and the input came back into a node it had left */
};

/* Adds STACK (LEN bytes, at least one frame, its first SAME bytes those of the previous
 * line's stack) with COUNT samples: 0 added, 1 no frames, -1 out of memory. */
int walk_line(struct loader *ld, const char *stack, size_t len, size_t same, uint64_t count);
/* walk_line for a stack given as N interned names (N <= FLAME_MAX_DEPTH), the first
 * SHARED of them those of the previous stack: for input sorted by stackkeys.c. */
int walk_names(struct loader *ld, const struct name_rec *const *names, size_t n, size_t shared,
	       uint64_t count);
/* Interns the names of pending frames, which point into the read buffer, before the
 * buffer moves: 0, or -1 when out of memory. */
int walk_pin_names(struct loader *ld);
/* Gives the last path's pending frames their nodes, at the end of the input: 0 or -1. */
int walk_finish(struct loader *ld);

#endif
