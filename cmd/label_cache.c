/* A small cache of labels read from a target's memory (chunk names, lines, call names),
 * keyed by (address space, proto, position, kind) and checked against a fingerprint of the
 * proto, so that an address reused for another proto never returns a stale label. Shared
 * by the PUC Lua and LuaJIT label readers. */
#include <stdlib.h>
#include <string.h>

#include "label_cache.h"

#define CACHE_SLOTS 4096   /* power of two */
#define CACHE_PROBES 8

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static size_t home_slot(uint64_t ctx, uint64_t proto, int64_t pos, int kind)
{
	return (size_t)(mix(ctx ^ mix(proto ^ mix((uint64_t)pos * 4 + (uint64_t)kind))) & (CACHE_SLOTS - 1));
}

static int same_key(const struct label_entry *e, uint64_t ctx, uint64_t proto, int64_t pos, int kind)
{
	return e->used && e->ctx == ctx && e->proto == proto && e->pos == pos && e->kind == kind;
}

struct label_entry *label_cache_get(struct label_cache *c, uint64_t ctx, uint64_t proto, int64_t pos,
				    int kind, const uint64_t fp[4])
{
	if (!c->slots)
		return NULL;
	size_t h = home_slot(ctx, proto, pos, kind);
	for (int i = 0; i < CACHE_PROBES; i++) {
		struct label_entry *e = &c->slots[(h + (size_t)i) & (CACHE_SLOTS - 1)];
		if (!same_key(e, ctx, proto, pos, kind))
			continue;
		/* the address may now hold another proto: then the caller refills the slot */
		return memcmp(e->fp, fp, sizeof(e->fp)) ? NULL : e;
	}
	return NULL;
}

struct label_entry *label_cache_put(struct label_cache *c, uint64_t ctx, uint64_t proto, int64_t pos,
				    int kind, const uint64_t fp[4])
{
	if (!c->slots && !(c->slots = calloc(CACHE_SLOTS, sizeof(*c->slots))))
		return NULL;
	size_t h = home_slot(ctx, proto, pos, kind);
	struct label_entry *e = &c->slots[h];
	for (int i = 0; i < CACHE_PROBES; i++) {
		struct label_entry *s = &c->slots[(h + (size_t)i) & (CACHE_SLOTS - 1)];
		if (!s->used || same_key(s, ctx, proto, pos, kind)) {
			e = s;
			break;
		}
	}
	memset(e, 0, offsetof(struct label_entry, text));
	e->text[0] = '\0';
	e->ctx = ctx;
	e->proto = proto;
	e->pos = pos;
	e->kind = (uint8_t)kind;
	e->used = 1;
	memcpy(e->fp, fp, sizeof(e->fp));
	return e;
}

void label_cache_clear(struct label_cache *c)
{
	if (c->slots)
		memset(c->slots, 0, CACHE_SLOTS * sizeof(*c->slots));
}

void label_cache_free(struct label_cache *c)
{
	free(c->slots);
	c->slots = NULL;
}

void label_copy(char *out, size_t size, const char *s)
{
	size_t n = strnlen(s, size - 1);
	memcpy(out, s, n);
	out[n] = '\0';
}
