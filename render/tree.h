/* The merged call tree behind struct flame: one node per distinct path prefix, found
 * through a hash table keyed by (parent, name), or in a lazy tree through its parent's
 * list while it has few siblings; nodes live in an arena (dropped ones are reused) and
 * point at interned names. */
#ifndef LF_TREE_H
#define LF_TREE_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "names.h"
#include "flame.h"

#define FLAME_MAX_DEPTH 2048     /* frames kept per stack; deeper frames fold into the last */
#define FLAME_MAX_NAME  4096     /* bytes kept per frame name */
#define FLAME_MAX_NODES (1u << 26)
#define FLAME_FEW_KIDS  8        /* in a lazy tree, children past this many are in the table */

struct fnode {
	const char *name;        /* interned: equal names share one copy */
	uint32_t len;
	uint32_t hash;           /* of the name alone: also picks the colour */
	uint64_t total;          /* samples in this frame and below */
	uint64_t self;           /* samples ending here */
	uint32_t nkids;          /* children */
	struct fnode *parent, *child, *next;
};

struct flame {
	struct arena arena;
	struct fnode root;       /* "all" */
	struct fnode **slots;    /* open addressing, linear probing */
	size_t nslots, nnodes;   /* nnodes: live nodes, the root excepted */
	size_t ngone;            /* slots of dropped nodes */
	size_t nindexed;         /* nodes in the table: all of them unless LAZY */
	int lazy;                /* a node's first few children are found through its list */
	struct names names;
	struct fnode *spare;     /* dropped nodes, chained by next, reused first */
	char scratch[FLAME_MAX_NAME];
	size_t cut_stacks;       /* stacks deeper than FLAME_MAX_DEPTH, cut there */
	int saturated;           /* a count reached UINT64_MAX and stayed there */
};

uint32_t flame_hash(const char *s, size_t len);
/* Child of PARENT called NAME (clean UTF-8), created when missing; NULL when out of memory. */
struct fnode *flame_child(struct flame *f, struct fnode *parent, const char *name, size_t len);
/* flame_child that also says whether the child was *CREATED just now (1) or found (0). */
struct fnode *flame_child_at(struct flame *f, struct fnode *parent, const char *name, size_t len,
			    int *created);
/* A new child of PARENT, which has none called NAME (PARENT was made for this same
 * stack, say): nothing is looked up. */
struct fnode *flame_child_fresh(struct flame *f, struct fnode *parent, const char *name, size_t len);
/* A frame as read from a stack: clean UTF-8. */
struct frame_text {
	const char *name;
	size_t len;
	int in_place;            /* NAME is in the stack's own bytes (nothing was cleaned), not
	                          * in F's scratch space, which the next frame overwrites */
	const struct name_rec *rec; /* NULL, or NAME's interned copy: nothing to look up */
};
/* Next frame of STACK (LEN bytes) starting at *POS, which moves one past the frame's ';':
 * its bytes, cleaned into F's scratch buffer when needed. 0 at the end; empty frames
 * (";;") are skipped. */
int flame_next_frame(struct flame *f, const char *stack, size_t len, size_t *pos,
		     struct frame_text *t);
/* Bytes of a frame name that are kept: FLAME_MAX_NAME at most, cut on a code point. */
size_t flame_name_len(const char *name, size_t len);
/* Empties F as flame_new leaves it: 0, or -1 when out of memory. */
int flame_clear(struct flame *f);
/* Child of PARENT called NAME (as stored: clean UTF-8), or NULL; never adds one. */
struct fnode *flame_find(const struct flame *f, const struct fnode *parent, const char *name, size_t len);
/* Drops every descendant of X (X keeps its total and self): for subtrees that can no
 * longer be drawn. */
void flame_drop_children(struct flame *f, struct fnode *x);
/* Shrinks the table after many nodes were dropped: 0, or -1 when out of memory. */
int flame_compact(struct flame *f);
/* Adds COUNT to every node of PATH[0..N-1] (a chain from a child of the root down). */
void flame_count(struct flame *f, struct fnode **path, size_t n, uint64_t count);
/* flame_add with a reason: 0 added, 1 no frames in STACK, -1 out of memory. */
int flame_add_stack(struct flame *f, const char *stack, size_t len, uint64_t count);
/* A new tree with every stack of F read leaf first. */
struct flame *flame_reversed(const struct flame *f);

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

#endif
