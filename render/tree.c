/* Building the merged call tree: flame_new, flame_add, flame_free, dropping subtrees
 * that cannot be drawn, and the reversed tree used by --reverse. Frame names are cleaned
 * of invalid UTF-8 on the way in. */
#include <stdlib.h>
#include <string.h>
#include "text.h"
#include "tree.h"

uint32_t flame_hash(const char *s, size_t len)
{
	/* FNV-1a: stable across runs and builds, which keeps colours stable */
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static size_t slot_of(const struct flame *f, const struct fnode *parent, uint32_t hash)
{
	uint64_t k = ((uint64_t)(uintptr_t)parent >> 4) * 0x9E3779B97F4A7C15ull ^ hash;
	k ^= k >> 29;
	k *= 0xBF58476D1CE4E5B9ull;
	k ^= k >> 32;
	return (size_t)k & (f->nslots - 1);
}

/* Marks a slot whose node was dropped: probes go on past it, inserts may take it. */
static struct fnode gone = { .name = "" };

/* Rebuilds the table without dropped entries, sized for the live nodes: larger when it
 * is getting full, smaller after many were dropped. */
static int grow(struct flame *f)
{
	size_t n = 4096;
	while ((f->nindexed + 1) * 4 > n)
		n *= 2;   /* at most a quarter full: short probes, room for dropped slots */
	struct fnode **old = f->slots;
	size_t oldn = f->nslots;
	f->slots = calloc(n, sizeof(*f->slots));
	if (!f->slots) {
		f->slots = old;
		return -1;
	}
	f->nslots = n;
	f->ngone = 0;
	for (size_t i = 0; i < oldn; i++) {
		struct fnode *x = old[i];
		if (!x || x == &gone)
			continue;
		size_t j = slot_of(f, x->parent, x->hash);
		while (f->slots[j])
			j = (j + 1) & (n - 1);
		f->slots[j] = x;
	}
	free(old);
	return 0;
}

static int init(struct flame *f)
{
	memset(f, 0, sizeof(*f));
	f->root.name = "all";
	f->root.len = 3;
	f->root.hash = flame_hash("all", 3);
	return grow(f);
}

struct flame *flame_new(void)
{
	struct flame *f = malloc(sizeof(*f));
	if (f && init(f) < 0) {
		free(f);
		return NULL;
	}
	return f;
}

static void release(struct flame *f)
{
	arena_free(&f->arena);
	names_free(&f->names);
	free(f->slots);
}

int flame_clear(struct flame *f)
{
	release(f);
	return init(f);
}

void flame_free(struct flame *f)
{
	if (!f)
		return;
	release(f);
	free(f);
}

uint64_t flame_total(const struct flame *f)
{
	return f ? f->root.total : 0;
}

/* A new node, first among PARENT's children; not in the table yet. */
static struct fnode *new_node(struct flame *f, struct fnode *parent, const struct name_rec *name)
{
	if (f->nnodes >= FLAME_MAX_NODES || parent->nkids == UINT32_MAX)
		return NULL;
	struct fnode *x = f->spare;
	if (x) {
		f->spare = x->next;
		memset(x, 0, sizeof(*x));
	} else if (!(x = arena_alloc(&f->arena, sizeof(*x)))) {
		return NULL;
	}
	x->name = name->bytes;
	x->len = name->len;
	x->hash = name->hash;
	x->parent = parent;
	x->next = parent->child;
	parent->child = x;
	parent->nkids++;
	f->nnodes++;
	return x;
}

/* Whether X's children are in the table: always, unless F is lazy and they are few. */
static int indexed(const struct flame *f, const struct fnode *x)
{
	return !f->lazy || x->nkids > FLAME_FEW_KIDS;
}

/* Slot for a child of PARENT with name hash H: the one holding it when MATCH (a name) is
 * given and it is there, else the first free or dropped one. */
static size_t probe(struct flame *f, const struct fnode *parent, uint32_t h, const char *match,
		    struct fnode **found)
{
	size_t j = slot_of(f, parent, h), free_slot = SIZE_MAX;
	*found = NULL;
	for (;; j = (j + 1) & (f->nslots - 1)) {
		struct fnode *x = f->slots[j];
		if (!x)
			break;
		if (x == &gone) {
			if (free_slot == SIZE_MAX)
				free_slot = j;
			if (!match)
				break;
		} else if (match && x->name == match && x->parent == parent) {
			*found = x;
			return j;
		}
	}
	return free_slot != SIZE_MAX ? free_slot : j;
}

/* Puts X (known to be absent) in the table. */
static int put(struct flame *f, struct fnode *x)
{
	if ((f->nindexed + f->ngone + 1) * 2 > f->nslots && grow(f) < 0)
		return -1;
	struct fnode *found;
	size_t j = probe(f, x->parent, x->hash, NULL, &found);
	if (f->slots[j] == &gone)
		f->ngone--;
	f->slots[j] = x;
	f->nindexed++;
	return 0;
}

size_t flame_name_len(const char *name, size_t len)
{
	if (len > FLAME_MAX_NAME) {
		len = FLAME_MAX_NAME;   /* cut on a code point boundary */
		while (len && ((unsigned char)name[len] & 0xC0) == 0x80)
			len--;
	}
	return len;
}

/* A lazy tree finds the few children of a node through its list, where the last one made
 * is first: in sorted input, the only one likely to match. Past FLAME_FEW_KIDS they all
 * go into the table. */
static struct fnode *few_kids_child(struct flame *f, struct fnode *parent, const struct name_rec *r,
				    int fresh, int *created)
{
	if (!fresh)
		for (struct fnode *c = parent->child; c; c = c->next)
			if (c->name == r->bytes) {
				*created = 0;
				return c;
			}
	struct fnode *x = new_node(f, parent, r);
	if (!x)
		return NULL;
	*created = 1;
	if (parent->nkids == FLAME_FEW_KIDS + 1)
		for (struct fnode *c = parent->child; c; c = c->next)
			if (put(f, c) < 0)
				return NULL;
	return x;
}

/* Names are interned first, so a node matches on its name's address: no bytes compared.
 * A child of a node made for the same stack cannot exist yet (FRESH): no match is
 * looked for, and only the slot is touched, not the nodes in the way. */
static struct fnode *child(struct flame *f, struct fnode *parent, const char *name, size_t len,
			   int fresh, int *created)
{
	len = flame_name_len(name, len);
	const struct name_rec *r = names_intern(&f->names, name, len);
	if (!r)
		return NULL;
	if (!indexed(f, parent))
		return few_kids_child(f, parent, r, fresh, created);
	if ((f->nindexed + f->ngone + 1) * 2 > f->nslots && grow(f) < 0)
		return NULL;
	struct fnode *x;
	size_t j = probe(f, parent, r->hash, fresh ? NULL : r->bytes, &x);
	if (x) {
		*created = 0;
		return x;
	}
	if (!(x = new_node(f, parent, r)))
		return NULL;
	if (f->slots[j] == &gone)
		f->ngone--;
	f->slots[j] = x;
	f->nindexed++;
	*created = 1;
	return x;
}

struct fnode *flame_child_at(struct flame *f, struct fnode *parent, const char *name, size_t len,
			    int *created)
{
	return child(f, parent, name, len, 0, created);
}

struct fnode *flame_child_fresh(struct flame *f, struct fnode *parent, const char *name, size_t len)
{
	int created;
	return child(f, parent, name, len, 1, &created);
}

struct fnode *flame_child(struct flame *f, struct fnode *parent, const char *name, size_t len)
{
	int created;
	return flame_child_at(f, parent, name, len, &created);
}

struct fnode *flame_find(const struct flame *f, const struct fnode *parent, const char *name, size_t len)
{
	if (!indexed(f, parent)) {
		for (struct fnode *c = parent->child; c; c = c->next)
			if (c->len == len && !memcmp(c->name, name, len))
				return c;
		return NULL;
	}
	uint32_t h = flame_hash(name, len);
	for (size_t j = slot_of(f, parent, h);; j = (j + 1) & (f->nslots - 1)) {
		struct fnode *x = f->slots[j];
		if (!x)
			return NULL;
		if (x->parent == parent && x->hash == h && x->len == len && !memcmp(x->name, name, len))
			return x;
	}
}

static void unlink_slot(struct flame *f, const struct fnode *x)
{
	size_t i = slot_of(f, x->parent, x->hash);
	while (f->slots[i] != x)
		i = (i + 1) & (f->nslots - 1);
	f->slots[i] = &gone;
	f->ngone++;
	f->nindexed--;
}

/* Depth is bounded by FLAME_MAX_DEPTH, so recursion stays shallow enough. */
void flame_drop_children(struct flame *f, struct fnode *x)
{
	int in_table = indexed(f, x);
	struct fnode *c = x->child;
	x->child = NULL;
	x->nkids = 0;
	while (c) {
		struct fnode *next = c->next;
		flame_drop_children(f, c);
		if (in_table)
			unlink_slot(f, c);
		c->next = f->spare;
		f->spare = c;
		f->nnodes--;
		c = next;
	}
}

int flame_compact(struct flame *f)
{
	return (f->nindexed + 1) * 8 < f->nslots ? grow(f) : 0;
}

void flame_count(struct flame *f, struct fnode **path, size_t n, uint64_t count)
{
	f->saturated |= f->root.total + count < f->root.total;   /* the root holds the largest sum */
	f->root.total = sat_add(f->root.total, count);
	for (size_t i = 0; i < n; i++)
		path[i]->total = sat_add(path[i]->total, count);
	if (n)
		path[n - 1]->self = sat_add(path[n - 1]->self, count);
}

/* Bytes of the frame at S: up to its ';' or the AVAIL bytes left. The same pass finds
 * whether they are printable ASCII, with nothing to clean (as text_is_plain). */
static size_t scan_frame(const char *s, size_t avail, int *plain)
{
	const uint64_t ones = 0x0101010101010101ull, tops = 0x8080808080808080ull;
	uint64_t bad = 0;
	size_t i = 0;
	for (; i + 8 <= avail; i += 8) {
		uint64_t w, x;
		memcpy(&w, s + i, 8);
		x = w ^ (ones * ';');
		/* a top bit per ';' byte, and per byte below 0x20 or above 0x7E: a borrow or
		 * carry only spreads upwards from a byte flagged itself, so the lowest flag is
		 * right, and so are all flags below the first ';' */
		uint64_t semi = (x - ones) & ~x & tops;
		uint64_t odd = (((w - ones * 0x20) & ~w) | (w + ones) | w) & tops;
		if (semi) {
			unsigned k = (unsigned)__builtin_ctzll(semi) >> 3;   /* bytes before the ';' */
			if (k)
				bad |= odd & (~0ull >> (64 - 8 * k));
			*plain = !bad;
			return i + k;
		}
		bad |= odd;
	}
	for (; i < avail && s[i] != ';'; i++) {
		unsigned char b = (unsigned char)s[i];
		bad |= b < 0x20 || b > 0x7E;
	}
	*plain = !bad;
	return i;
}

int flame_next_frame(struct flame *f, const char *stack, size_t len, size_t *pos,
		      struct frame_text *t)
{
	while (*pos < len) {
		const char *s = stack + *pos;
		int plain;
		size_t n = scan_frame(s, len - *pos, &plain);
		*pos += n + 1;
		if (n == 0)
			continue;
		if (n > FLAME_MAX_NAME * 4) {
			n = FLAME_MAX_NAME * 4;   /* more than can survive cleaning anyway */
			plain = text_is_plain(s, n);
		}
		t->in_place = plain;
		t->rec = NULL;
		if (plain) {
			t->name = s;
			t->len = n;
		} else {
			t->name = f->scratch;
			t->len = text_clean(s, n, f->scratch, sizeof(f->scratch));
		}
		return 1;
	}
	return 0;
}

int flame_add_stack(struct flame *f, const char *stack, size_t len, uint64_t count)
{
	struct fnode *path[FLAME_MAX_DEPTH];
	struct fnode *at = &f->root;
	size_t depth = 0, pos = 0;
	struct frame_text t;
	if (!f || !stack)
		return -1;
	while (depth < FLAME_MAX_DEPTH && flame_next_frame(f, stack, len, &pos, &t)) {
		at = flame_child(f, at, t.name, t.len);
		if (!at)
			return -1;
		path[depth++] = at;
	}
	if (depth == 0)
		return 1;
	if (depth == FLAME_MAX_DEPTH && flame_next_frame(f, stack, len, &pos, &t))
		f->cut_stacks++;
	flame_count(f, path, depth, count);
	return 0;
}

int flame_add(struct flame *f, const char *stack, size_t len, uint64_t count)
{
	return flame_add_stack(f, stack, len, count) == 0 ? 0 : -1;
}

static int add_reversed(struct flame *dst, const struct fnode *const *chain, size_t n, uint64_t count)
{
	struct fnode *path[FLAME_MAX_DEPTH];
	struct fnode *at = &dst->root;
	for (size_t i = 0; i < n; i++) {
		const struct fnode *src = chain[n - 1 - i];
		at = flame_child(dst, at, src->name, src->len);
		if (!at)
			return -1;
		path[i] = at;
	}
	flame_count(dst, path, n, count);
	return 0;
}

/* Depth-first walk without recursion: CHAIN holds the current path. */
struct flame *flame_reversed(const struct flame *f)
{
	struct flame *dst = flame_new();
	const struct fnode *chain[FLAME_MAX_DEPTH];
	size_t depth = 0;
	const struct fnode *x = f->root.child;
	if (!dst)
		return NULL;
	while (x) {
		chain[depth++] = x;
		if (x->self && add_reversed(dst, chain, depth, x->self) < 0) {
			flame_free(dst);
			return NULL;
		}
		if (x->child && depth < FLAME_MAX_DEPTH) {
			x = x->child;
			continue;
		}
		/* climb until a sibling is found */
		while (depth && !chain[depth - 1]->next)
			depth--;
		if (!depth)
			break;
		x = chain[--depth]->next;
	}
	return dst;
}
