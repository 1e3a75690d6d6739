/* Bump allocator for the flame tree: nodes and names live until the tree is freed,
 * so they are carved out of large blocks and released all at once. */
#ifndef LF_ARENA_H
#define LF_ARENA_H
#include <stddef.h>

struct arena_block;
struct arena {
	struct arena_block *head;
	size_t used, cap;    /* within head */
	size_t total;        /* bytes handed out, for limits */
};

void *arena_alloc(struct arena *a, size_t size);   /* 16-byte aligned, zeroed; NULL when out of memory */
void arena_free(struct arena *a);

#endif
