/* Bump allocator for what lives until its owner is freed (the flame tree's nodes and names,
 * a profile's stacks, a heap graph's labels): carved out of large blocks, released at once. */
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
/* A NUL-terminated copy of the n bytes at s, packed without alignment (text of many short
 * strings); NULL when out of memory. */
char *arena_text(struct arena *a, const char *s, size_t n);
void arena_free(struct arena *a);

#endif
