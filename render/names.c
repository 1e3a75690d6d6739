/* Interned frame names (see names.h). The table only grows: names are few next to nodes,
 * and a dropped node's name is usually shared by nodes that stay. */
#include <stdlib.h>
#include <string.h>
#include "names.h"
#include "tree.h"

uint64_t names_key(const char *s, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ len;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xFF51AFD7ED558CCDull;
		h ^= h >> 32;
	}
	if (i < len) {
		uint64_t w = 0;
		for (size_t k = 0; i + k < len; k++)   /* no memcpy call for a few bytes */
			w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
		h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
	}
	h ^= h >> 29;
	return h * 0xBF58476D1CE4E5B9ull ^ (h >> 31);
}

static int grow(struct names *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024;
	const struct name_rec **s = calloc(n, sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; i < t->nslots; i++) {
		const struct name_rec *r = t->slots[i];
		if (!r)
			continue;
		size_t j = r->key & (n - 1);
		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = r;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = n;
	return 0;
}

const struct name_rec *names_intern(struct names *t, const char *name, size_t len)
{
	if ((t->n + 1) * 2 > t->nslots && grow(t) < 0)
		return NULL;
	uint64_t key = names_key(name, len);
	size_t j = key & (t->nslots - 1);
	for (const struct name_rec *r; (r = t->slots[j]); j = (j + 1) & (t->nslots - 1))
		if (r->key == key && r->len == len && names_same(r->bytes, name, len))
			return r;
	struct name_rec *r = arena_alloc(&t->arena, sizeof(*r) + len + 1);
	if (!r)
		return NULL;
	r->key = key;
	r->hash = flame_hash(name, len);
	r->len = (uint32_t)len;
	r->id = (uint32_t)t->n;
	memcpy(r->bytes, name, len);
	t->slots[j] = r;
	t->n++;
	return r;
}

void names_free(struct names *t)
{
	arena_free(&t->arena);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
