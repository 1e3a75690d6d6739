/* The name Lua's tracebacks give a function that no caller named (one called from C): the
 * field of a module in package.loaded that holds it, "handle" for a global, "mod.run" for a
 * module's function. Read from the VM's own tables through each family's reader, and
 * remembered per VM so that naming many functions costs one walk of those tables. */
#ifndef LF_GLOBAL_NAMES_H
#define LF_GLOBAL_NAMES_H
#include <stddef.h>
#include <stdint.h>

enum gn_kind { GN_OTHER, GN_TABLE, GN_FUNC };

/* A family's view of its tables; every address comes from the target and is checked by the
 * family's reads. */
struct gn_ops {
	/* Exactly len bytes at addr: 0, or -1. */
	int (*read)(const void *ctx, uint64_t addr, void *buf, size_t len);
	/* The global state of the VM thread L belongs to and its registry table: 0, or -1. */
	int (*registry)(const void *ctx, uint64_t L, uint64_t *g, uint64_t *reg);
	/* Where table t keeps its hash part: count nodes of node_size bytes at *nodes; 0 or -1. */
	int (*hash_part)(const void *ctx, uint64_t t, uint64_t *nodes, uint32_t *count);
	size_t node_size;
	/* What the raw node holds: its key's string object (0: the key is not a string), and its
	 * value's kind and object. */
	void (*node)(const void *ctx, const uint8_t *raw, uint64_t *key, enum gn_kind *kind, uint64_t *val);
	/* The text of string object s, cut to size - 1 bytes, and its whole length in *full:
	 * the bytes copied, or -1. */
	long (*string)(const void *ctx, uint64_t s, char *out, size_t size, uint64_t *full);
	/* The prototype of function object fn when it is a Lua function, else 0. */
	uint64_t (*proto_of)(const void *ctx, uint64_t fn);
};

/* The global name of the Lua function with prototype proto in the VM of thread L of the
 * address space `space`: 0 with the name ("_G." left out, as Lua's tracebacks do), -1 when
 * no module field holds it, -2 when the VM's tables could not be read. Call from one thread
 * (the label caches' lock). */
int global_name(const struct gn_ops *ops, const void *ctx, uint64_t space, uint64_t L, uint64_t proto,
		char *out, size_t size);
/* Forgets every VM's names (the tables of a process that is gone). */
void global_names_clear(void);
#endif
