/* The heap walk of one LuaJIT 2.1 VM over a copy of its process's memory: every object the
 * collector counts in gc.total, with the size its free function gives back
 * (heap_luajit_objects.c), the VM's own blocks, and the references walked breadth-first from
 * the roots as lj_gc.c marks them (heap_luajit_refs.c, heap_luajit_thread.c). */
#ifndef LF_HEAP_LUAJIT_H
#define LF_HEAP_LUAJIT_H
#include <stdint.h>
#include <sys/types.h>

#include "aggregate.h"
#include "heap_copy.h"
#include "heap_graph.h"
#include "luajit_layouts.h"

/* The VM's own blocks that gc.total counts, each a frame under [vm]. */
enum lh_own { LH_GG, LH_STRTAB, LH_BUFFERS, LH_JIT, LH_CTYPES, LH_OWN_N };

struct lj_heap {
	const struct luajit_layout *l;
	const struct heap_copy *c;
	struct hgraph *g;
	uint64_t G, L0, J;     /* global_State, main thread, jit_State (all inside GG_State) */
	uint64_t vm_count;     /* gc.total */
	uint64_t own[LH_OWN_N];
	uint64_t bad;          /* objects whose header or size could not be read */
	uint64_t cut;          /* references not followed: outside the copy, or lists cut short */
};

/* Reads G's counter and finds every object it counts; 0, or -1 when G cannot be read. */
int lj_heap_objects(struct lj_heap *h, uint64_t G);
/* Walks the references from the roots, placing each object under its shortest path. */
void lj_heap_refs(struct lj_heap *h);
/* Walks the VM at G in c into g (initialised here; the caller frees it); 0, or -1 when G is
 * not in the copy (told). The copy is not needed after it. */
int lj_heap_walk(pid_t pid, const struct luajit_layout *l, const struct heap_copy *c, uint64_t G, int k,
		 struct lj_heap *h, struct hgraph *g);
/* Folds the walked VM into p under root and says what it found. */
void lj_heap_fold(pid_t pid, const char *vm_name, int k, struct lj_heap *h, const char *root, struct profile *p);

/* ---- shared by the heap_luajit_*.c files ---- */
struct lh_tv { uint64_t gc; uint32_t it; };

const uint8_t *lh_at(const struct lj_heap *h, uint64_t a, size_t n);
uint64_t lh_u64(const struct lj_heap *h, uint64_t a);   /* 0 when outside the copy */
uint32_t lh_u32(const struct lj_heap *h, uint64_t a);
uint16_t lh_u16(const struct lj_heap *h, uint64_t a);
uint8_t lh_u8(const struct lj_heap *h, uint64_t a);
uint64_t lh_gcref(const struct lj_heap *h, uint64_t a);  /* a GCRef field */
uint64_t lh_mref(const struct lj_heap *h, uint64_t a);   /* an MRef field */
/* The TValue at a; -1 when outside the copy. */
int lh_tv(const struct lj_heap *h, uint64_t a, struct lh_tv *t);
int lh_tv_isgc(const struct luajit_layout *l, uint32_t it);
int lh_tv_isnum(const struct luajit_layout *l, uint32_t it);
/* The kind of the object at a from its gct byte, or -1. */
int lh_kind(const struct lj_heap *h, uint64_t a);
/* The GCtrace of trace number n, or 0. */
uint64_t lh_trace(const struct lj_heap *h, uint32_t n);
/* Places what thread L's stack holds (heap_luajit_thread.c). */
void lj_heap_thread_refs(struct lj_heap *h, uint32_t i, uint64_t L);
/* Interns prefix + the bytes of GCstr s made safe for a folded line; none when s is no string. */
uint32_t lh_named(struct lj_heap *h, const char *prefix, uint64_t s, const char *none);
uint32_t lh_fixed(struct lj_heap *h, const char *s);
/* Places the object at a under from by label when it is not placed yet. */
void lh_ref(struct lj_heap *h, uint32_t from, uint64_t a, uint32_t label);
void lh_ref_tv(struct lj_heap *h, uint32_t from, uint64_t a, uint32_t label);
#endif
