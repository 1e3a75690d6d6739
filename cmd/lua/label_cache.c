/* A cache of labels read from a target's memory (chunk names, lines, call names), keyed by
 * (address space, proto, position, kind) and the fingerprint of the proto, so that an address
 * reused for another proto never returns a stale label, and labels of functions freed since
 * stay known. Shared by the PUC Lua and LuaJIT label readers. */
#include <pthread.h>
#include <sys/mman.h>
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

/* The key's tag: never 0; its slot comes from the high bits (the low one is always set). */
static uint64_t key_hash(uint64_t ctx, uint64_t proto, int64_t pos, int kind, uint64_t fp)
{
	return mix(ctx ^ mix(proto ^ mix((uint64_t)pos * 4 + (uint64_t)kind) ^ mix(fp + 1))) | 1;
}

static int same_key(const struct label_entry *e, uint64_t ctx, uint64_t proto, int64_t pos, int kind,
		    uint64_t fp)
{
	return e->used && e->ctx == ctx && e->proto == proto && e->pos == pos && e->kind == kind && e->fp == fp;
}

/* The slot of this key in the probe window of hash h (want 1), or the first free one (want 0). */
static struct label_entry *probe(const struct label_cache *c, uint64_t h, int want, uint64_t ctx,
				 uint64_t proto, int64_t pos, int kind, uint64_t fp)
{
	for (int i = 0; i < CACHE_PROBES; i++) {
		size_t at = (size_t)((h >> 32) + (uint64_t)i) & (c->nslots - 1);
		uint64_t t = c->tags[at];
		if (want ? t == h && same_key(&c->slots[at], ctx, proto, pos, kind, fp) : t == 0)
			return &c->slots[at];
	}
	return NULL;
}

struct label_entry *label_cache_get(struct label_cache *c, uint64_t ctx, uint64_t proto, int64_t pos,
				    int kind, uint64_t fp)
{
	if (!c->slots)
		return NULL;
	return probe(c, key_hash(ctx, proto, pos, kind, fp), 1, ctx, proto, pos, kind, fp);
}

/* This key's slot or a free one in its probe window, or NULL. */
static struct label_entry *find_slot(struct label_cache *c, uint64_t h, uint64_t ctx, uint64_t proto,
				     int64_t pos, int kind, uint64_t fp)
{
	struct label_entry *e = probe(c, h, 1, ctx, proto, pos, kind, fp);
	return e ? e : probe(c, h, 0, ctx, proto, pos, kind, fp);
}

/* Slots in pages of their own, huge ones where the kernel has them: the namer wakes for a
 * new stack, touches a few slots anywhere in megabytes, and sleeps again, so each probe would
 * otherwise walk the page tables anew. */
static struct label_entry *alloc_slots(size_t n)
{
	void *p = mmap(NULL, n * sizeof(struct label_entry), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, n * sizeof(struct label_entry), MADV_HUGEPAGE); /* a hint: fine if refused */
	return p;
}

static int alloc_table(struct label_cache *c, size_t n)
{
	c->slots = alloc_slots(n);
	c->tags = calloc(n, sizeof(*c->tags));
	c->nslots = n;
	if (c->slots && c->tags)
		return 0;
	label_cache_free(c);
	return -1;
}

/* Doubles the table; 0, or -1 when at its limit or out of memory (the old one stays). */
static int grow(struct label_cache *c)
{
	struct label_cache big;
	if (c->nslots * 2 > CACHE_MAX || alloc_table(&big, c->nslots * 2))
		return -1;
	for (size_t i = 0; i < c->nslots; i++) {
		struct label_entry *e = &c->slots[i], *d;
		uint64_t h = c->tags[i];
		if (h && (d = find_slot(&big, h, e->ctx, e->proto, e->pos, e->kind, e->fp))) {
			*d = *e;
			big.tags[d - big.slots] = h;
		}
	}
	label_cache_free(c);
	*c = big;
	return 0;
}

struct label_entry *label_cache_put(struct label_cache *c, uint64_t ctx, uint64_t proto, int64_t pos,
				    int kind, uint64_t fp)
{
	if (!c->slots && alloc_table(c, CACHE_MIN))
		return NULL;
	uint64_t h = key_hash(ctx, proto, pos, kind, fp);
	struct label_entry *e = find_slot(c, h, ctx, proto, pos, kind, fp);
	if (!e && grow(c) == 0)
		e = find_slot(c, h, ctx, proto, pos, kind, fp);
	if (!e)
		e = &c->slots[(size_t)(h >> 32) & (c->nslots - 1)];  /* full: evict */
	c->tags[e - c->slots] = h;
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
	if (c->slots) {
		memset(c->slots, 0, c->nslots * sizeof(*c->slots));
		memset(c->tags, 0, c->nslots * sizeof(*c->tags));
	}
}

void label_cache_free(struct label_cache *c)
{
	if (c->slots)
		munmap(c->slots, c->nslots * sizeof(*c->slots));
	free(c->tags);
	c->slots = NULL;
	c->tags = NULL;
	c->nslots = 0;
}

void label_copy(char *out, size_t size, const char *s)
{
	size_t n = strnlen(s, size - 1);
	memcpy(out, s, n);
	out[n] = '\0';
}
