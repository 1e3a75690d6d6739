/* Bump allocator (see arena.h). Blocks are 1 MiB unless a single request needs more. */
#include <stdlib.h>
#include <string.h>
#include "arena.h"
#include "short_copy.h"

#define ARENA_BLOCK (1u << 20)

struct arena_block {
	struct arena_block *next;
	size_t pad;              /* keeps data 16-byte aligned */
	unsigned char data[];
};

/* size bytes at the next multiple of align (a power of two) in the head block, or a new one. */
static unsigned char *take(struct arena *a, size_t size, size_t align)
{
	if (size == 0 || size > ((size_t)1 << 40))
		return NULL;
	size_t at = a->head ? (a->used + align - 1) & ~(align - 1) : 0;
	if (!a->head || at > a->cap || a->cap - at < size) {
		size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
		/* calloc: blocks come zeroed, so callers get cleared memory for free */
		struct arena_block *b = calloc(1, sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = a->head;
		a->head = b;
		a->cap = cap;
		at = 0;
	}
	a->used = at + size;
	a->total += size;
	return a->head->data + at;
}

void *arena_alloc(struct arena *a, size_t size)
{
	return take(a, (size + 15) & ~(size_t)15, 16);
}

char *arena_text(struct arena *a, const char *s, size_t n)
{
	char *t = (char *)take(a, n + 1, 1);
	if (t)
		short_copy(t, s, n); /* the NUL is the block's zero */
	return t;
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
