/* A cache of labels read from a target's memory (chunk names, lines, call names), keyed by
 * (address space, proto, position, kind) and the fingerprint of the proto, so that an address
 * reused for another proto never returns a stale label, and labels of functions freed since
 * stay known. Shared by the PUC Lua and LuaJIT label readers. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "label_cache.h"

#define CACHE_MIN 4096        /* slots at first; power of two */
#define CACHE_MAX (1 << 16)   /* growth stops here (about 20 MiB); then old entries are evicted */
#define CACHE_PROBES 8

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static size_t home_slot(const struct label_cache *c, uint64_t ctx, uint64_t proto, int64_t pos, int kind,
			uint64_t fp)
{
	uint64_t h = mix(ctx ^ mix(proto ^ mix((uint64_t)pos * 4 + (uint64_t)kind) ^ mix(fp + 1)));
	return (size_t)(h & (c->nslots - 1));
}

static int same_key(const struct label_entry *e, uint64_t ctx, uint64_t proto, int64_t pos, int kind,
		    uint64_t fp)
{
	return e->used && e->ctx == ctx && e->proto == proto && e->pos == pos && e->kind == kind && e->fp == fp;
}

struct label_entry *label_cache_get(struct label_cache *c, uint64_t ctx, uint64_t proto, int64_t pos,
				    int kind, uint64_t fp)
{
	if (!c->slots)
		return NULL;
	size_t h = home_slot(c, ctx, proto, pos, kind, fp);
	for (int i = 0; i < CACHE_PROBES; i++) {
		struct label_entry *e = &c->slots[(h + (size_t)i) & (c->nslots - 1)];
		if (same_key(e, ctx, proto, pos, kind, fp))
			return e;
	}
	return NULL;
}

/* A free slot (or this key's) in the probe window, or NULL. */
static struct label_entry *find_slot(struct label_cache *c, uint64_t ctx, uint64_t proto, int64_t pos,
				     int kind, uint64_t fp)
{
	size_t h = home_slot(c, ctx, proto, pos, kind, fp);
	for (int i = 0; i < CACHE_PROBES; i++) {
		struct label_entry *s = &c->slots[(h + (size_t)i) & (c->nslots - 1)];
		if (!s->used || same_key(s, ctx, proto, pos, kind, fp))
			return s;
	}
	return NULL;
}

/* Doubles the table; 0, or -1 when at its limit or out of memory (the old one stays). */
static int grow(struct label_cache *c)
{
	size_t n = c->nslots * 2;
	struct label_cache big = { calloc(n, sizeof(*c->slots)), n };
	if (n > CACHE_MAX || !big.slots) {
		free(big.slots);
		return -1;
	}
	for (size_t i = 0; i < c->nslots; i++) {
		struct label_entry *e = &c->slots[i], *d;
		if (e->used && (d = find_slot(&big, e->ctx, e->proto, e->pos, e->kind, e->fp)))
			*d = *e;
	}
	free(c->slots);
	*c = big;
	return 0;
}

struct label_entry *label_cache_put(struct label_cache *c, uint64_t ctx, uint64_t proto, int64_t pos,
				    int kind, uint64_t fp)
{
	if (!c->slots) {
		if (!(c->slots = calloc(CACHE_MIN, sizeof(*c->slots))))
			return NULL;
		c->nslots = CACHE_MIN;
	}
	struct label_entry *e = find_slot(c, ctx, proto, pos, kind, fp);
	if (!e && grow(c) == 0)
		e = find_slot(c, ctx, proto, pos, kind, fp);
	if (!e)
		e = &c->slots[home_slot(c, ctx, proto, pos, kind, fp)];  /* full: evict */
	memset(e, 0, offsetof(struct label_entry, text));
	e->text[0] = '\0';
	e->ctx = ctx;
	e->proto = proto;
	e->pos = pos;
	e->kind = (uint8_t)kind;
	e->used = 1;
	e->fp = fp;
	return e;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void label_cache_lock(void)
{
	pthread_mutex_lock(&lock);
}

void label_cache_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

void label_cache_clear(struct label_cache *c)
{
	if (c->slots)
		memset(c->slots, 0, c->nslots * sizeof(*c->slots));
}

void label_cache_free(struct label_cache *c)
{
	free(c->slots);
	c->slots = NULL;
	c->nslots = 0;
}

void label_copy(char *out, size_t size, const char *s)
{
	size_t n = strnlen(s, size - 1);
	memcpy(out, s, n);
	out[n] = '\0';
}
