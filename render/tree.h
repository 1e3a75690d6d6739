/* The merged call tree behind struct flame: one node per distinct path prefix, found
 * through a single hash table keyed by (parent, name), with nodes and names in an arena. */
#ifndef LF_TREE_H
#define LF_TREE_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "flame.h"

#define FLAME_MAX_DEPTH 2048     /* frames kept per stack; deeper frames fold into the last */
#define FLAME_MAX_NAME  4096     /* bytes kept per frame name */
#define FLAME_MAX_NODES (1u << 26)

struct fnode {
	const char *name;
	uint32_t len;
	uint32_t hash;           /* of the name alone: also picks the colour */
	uint64_t total;          /* samples in this frame and below */
	uint64_t self;           /* samples ending here */
	struct fnode *parent, *child, *next;
};

struct flame {
	struct arena arena;
	struct fnode root;       /* "all" */
	struct fnode **slots;    /* open addressing, linear probing */
	size_t nslots, nnodes;
	char scratch[FLAME_MAX_NAME];
	size_t cut_stacks;       /* stacks deeper than FLAME_MAX_DEPTH, cut there */
	int saturated;           /* a count reached UINT64_MAX and stayed there */
};

uint32_t flame_hash(const char *s, size_t len);
/* Child of PARENT called NAME (clean UTF-8), created when missing; NULL when out of memory. */
struct fnode *flame_child(struct flame *f, struct fnode *parent, const char *name, size_t len);
/* Child of PARENT called NAME (as stored: clean UTF-8), or NULL; never adds one. */
struct fnode *flame_find(const struct flame *f, const struct fnode *parent, const char *name, size_t len);
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
