/* Bump allocator (see arena.h). Blocks are 1 MiB at first, unless a single request needs
 * more, and grow with the arena up to BLOCK_MAX, on huge pages where the kernel has them. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "arena.h"
#include "short_copy.h"

#define ARENA_BLOCK (1u << 20)
#define BLOCK_MAX (32u << 20)
#define HUGE_PAGE ((size_t)2 << 20)

/* An arena as large as a heap snapshot's stacks (tens of MiB) is read at random when they
 * are sorted and written: in 1 MiB blocks of small pages, nearly every read would miss the
 * TLB. So a block is an eighth of what the arena holds, and asks for huge pages. */
static size_t block_size(const struct arena *a, size_t size)
{
	size_t cap = a->total / 8;
	cap = cap < ARENA_BLOCK ? ARENA_BLOCK : cap > BLOCK_MAX ? BLOCK_MAX : cap;
	return size > cap ? size : cap;
}

static void huge_pages(void *p, size_t n)
{
	unsigned char *a = (unsigned char *)(((size_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
	unsigned char *b = (unsigned char *)(((size_t)p + n) & ~(HUGE_PAGE - 1));
	if (b > a)
		(void)madvise(a, (size_t)(b - a), MADV_HUGEPAGE);   /* a hint: fine if refused */
}

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
		size_t cap = block_size(a, size);
		/* calloc: blocks come zeroed, so callers get cleared memory for free */
		struct arena_block *b = calloc(1, sizeof(*b) + cap);
		if (!b)
			return NULL;
		huge_pages(b, sizeof(*b) + cap);
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
