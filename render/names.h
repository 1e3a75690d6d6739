/* Interned frame names: every distinct name is stored once and nodes point at it, so a
 * tree of millions of nodes over a few thousand functions holds each name once, and
 * two nodes have the same name exactly when they point at the same copy. */
#ifndef LF_NAMES_H
#define LF_NAMES_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "arena.h"

struct name_rec {
	uint64_t key;            /* names_key of the bytes: for the table */
	uint32_t hash;           /* flame_hash of the bytes: for colours and the tree */
	uint32_t len;
	uint32_t id;             /* names added before this one: 0, 1, 2, ... */
	char bytes[];            /* NUL-terminated */
};

struct names {
	struct arena arena;
	const struct name_rec **slots;   /* open addressing, linear probing */
	size_t nslots, n;
};

/* A hash of NAME that reads it 8 bytes at a time, unlike flame_hash. */
uint64_t names_key(const char *name, size_t len);
/* The stored copy of NAME (LEN bytes), added when new; NULL when out of memory. */
const struct name_rec *names_intern(struct names *t, const char *name, size_t len);
/* Whether N bytes at A and B are the same (memcmp a word at a time: names are short).
 * Inline: every frame of an unsorted file is compared with a name. */
static inline int names_same(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}
void names_free(struct names *t);

#endif
