/* The heap snapshot's object graph: every object the VM counts (address, kind, size), found
 * once, and for the ones reached from the roots the step by which the breadth-first walk first
 * reached them (its parent and a label), so each object stands under its shortest path. */
#ifndef LF_HEAP_GRAPH_H
#define LF_HEAP_GRAPH_H
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "util.h"

#define HG_NONE 0xffffffffu   /* no object; as a parent: a root */
#define HG_MAX_OBJECTS (1u << 28)

/* Kinds, each the leaf frame of its objects ("[table]"). */
enum hg_kind { HK_STRING, HK_TABLE, HK_FUNCTION, HK_CFUNCTION, HK_USERDATA, HK_THREAD, HK_PROTO, HK_UPVALUE,
	       HK_CDATA, HK_TRACE, HK_COUNT };

/* 24 bytes: a snapshot holds one per object. The size has 48 bits (hg_size), more than any
 * copy can hold. */
struct hg_obj {
	uint64_t addr;
	uint32_t parent;   /* HG_NONE: a root, or not reached */
	uint32_t label;    /* the step from the parent (0: none, the parent's path is the object's) */
	uint32_t size_lo;
	uint8_t kind, reached;
	uint16_t size_hi;
};

#define HG_SIZE_MAX ((1ULL << 48) - 1)

static inline uint64_t hg_size(const struct hg_obj *o)
{
	return (uint64_t)o->size_hi << 32 | o->size_lo;
}

/* Sizes past HG_SIZE_MAX (read from a damaged header) are kept as that. */
static inline void hg_set_size(struct hg_obj *o, uint64_t size)
{
	size = size > HG_SIZE_MAX ? HG_SIZE_MAX : size;
	o->size_lo = (uint32_t)size;
	o->size_hi = (uint16_t)(size >> 32);
}

/* Interned labels; their text in an arena, as there are about as many as distinct table keys. */
struct hg_labels {
	char **s;
	uint32_t *len;
	size_t n, cap;
	uint32_t *slot;
	size_t mask;
	struct arena text;
};

struct hgraph {
	struct hg_obj *o;
	size_t n, cap;
	uint32_t *slot;        /* open addressing on addr: index + 1, 0 empty */
	size_t mask;
	struct hg_labels lab;
	uint32_t *queue;       /* breadth-first order of reached objects */
	size_t qhead, qn;
	uint64_t dropped;      /* objects past HG_MAX_OBJECTS */
	struct sbuf scratch;   /* a step's text while it is built: one buffer for every label */
};

void hg_init(struct hgraph *g);
void hg_free(struct hgraph *g);
/* Adds an object; returns its index, or the existing one's (its first kind and size stay),
 * or HG_NONE when the table is full. *added (may be NULL) tells which. */
uint32_t hg_add(struct hgraph *g, uint64_t addr, enum hg_kind kind, uint64_t size, int *added);
uint32_t hg_find(const struct hgraph *g, uint64_t addr);
/* The index of the object at addr when it exists and is not reached yet, else HG_NONE: the
 * caller then builds the step's label only for objects it will place. */
uint32_t hg_unreached(const struct hgraph *g, uint64_t addr);
/* Frees the indexes on addresses and labels once the walk is over: hg_add, hg_find,
 * hg_unreached and hg_label must not be called after it. */
void hg_drop_index(struct hgraph *g);
/* Places object i under parent by step label and queues it. */
void hg_reach(struct hgraph *g, uint32_t i, uint32_t parent, uint32_t label);
/* The next queued object, or HG_NONE. */
uint32_t hg_next(struct hgraph *g);
/* Interns a step's text; label 0 is the empty step. */
uint32_t hg_label(struct hgraph *g, const char *s, size_t n);
const char *hg_label_text(const struct hgraph *g, uint32_t id, size_t *len);
const char *hg_kind_name(enum hg_kind k);
#endif
