/* The heap walk of one PUC Lua VM over a copy of its process's memory: the objects on the
 * collector's lists with the sizes it counts them at (heap_puc_objects.c), and the references
 * between them, walked breadth-first from the roots (heap_puc_refs.c). */
#ifndef LF_HEAP_PUC_H
#define LF_HEAP_PUC_H
#include <stdint.h>

#include "heap_copy.h"
#include "heap_graph.h"
#include "puc_frames.h"
#include "puc_layouts.h"

struct puc_heap {
	const struct puc_layout *l;
	const struct heap_copy *c;
	struct puc_mem m;
	struct hgraph *g;
	uint64_t G, L0;        /* global state, main thread */
	uint64_t vm_count;     /* what the VM counts: totalbytes (+ GCdebt) */
	uint64_t vm_own;       /* the VM's own blocks: global state, string table, buffer */
	uint64_t bad;          /* objects whose header or size could not be read */
	uint64_t cut;          /* references not followed: outside the copy, or lists cut short */
	uint64_t tables, misfit_tables; /* tables sized, and those with a part outside the copy */
};

/* Whether the layout does not fit the VM's tables: a build patched beyond its release's
 * layout (Redis 7's Lua 5.1) puts most tables' parts outside the copy, a wild write a few. */
int puc_heap_misfit(const struct puc_heap *h);
/* Reads G's counters and finds every object it counts; 0, or -1 when G cannot be read. */
int puc_heap_objects(struct puc_heap *h, uint64_t G);
/* Walks the references from the roots, placing each object under its shortest path. */
void puc_heap_refs(struct puc_heap *h);

/* ---- shared by heap_puc_objects.c and heap_puc_refs.c ---- */
/* The n bytes at a, or NULL outside the copy. */
const uint8_t *ph_at(const struct puc_heap *h, uint64_t a, size_t n);
uint64_t ph_u64(const struct puc_heap *h, uint64_t a);   /* 0 when outside the copy */
uint32_t ph_u32(const struct puc_heap *h, uint64_t a);
uint8_t ph_u8(const struct puc_heap *h, uint64_t a);
/* The label prefix + the string at ts, made safe for a folded line and cut to a name's length;
 * none when ts is 0 or not a string. */
uint32_t ph_named(struct puc_heap *h, const char *prefix, uint64_t ts, const char *none);
/* The kind of the object at a from its header tag, or -1. */
int ph_kind(const struct puc_heap *h, uint64_t a);
/* Slots of the table t's array part. */
uint64_t ph_array_size(const struct puc_heap *h, uint64_t t);
/* Places what thread L's stack holds (heap_puc_thread.c). */
void puc_heap_thread_refs(struct puc_heap *h, uint32_t i, uint64_t L);
/* Whether the TValue tag tt marks a collectable value; its basic type (LUA_T*). */
int ph_collectable(const struct puc_layout *l, uint32_t tt);
int ph_basic(const struct puc_layout *l, uint32_t tt);
#endif
