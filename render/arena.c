/* Bump allocator behind the flame tree (see arena.h). Blocks are 1 MiB unless a
 * single request needs more. */
#include <stdlib.h>
#include <string.h>
#include "arena.h"

#define ARENA_BLOCK (1u << 20)

struct arena_block {
	struct arena_block *next;
	size_t pad;              /* keeps data 16-byte aligned */
	unsigned char data[];
};

void *arena_alloc(struct arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	if (size == 0 || size > ((size_t)1 << 40))
		return NULL;
	if (!a->head || a->cap - a->used < size) {
		size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
		/* calloc: blocks come zeroed, so callers get cleared memory for free */
		struct arena_block *b = calloc(1, sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = a->head;
		a->head = b;
		a->used = 0;
		a->cap = cap;
	}
	void *p = a->head->data + a->used;
	a->used += size;
	a->total += size;
	return p;
}

void arena_free(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	memset(a, 0, sizeof(*a));
}
