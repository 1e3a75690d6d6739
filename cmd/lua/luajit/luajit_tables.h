/* LuaJIT's tables read from a target's memory (luajit_globals.c): a VM's registry, a table's
 * hash part and what one of its nodes holds, for the walks of package.loaded (global names of
 * functions, the check of a VM's built-ins in luajit_vmcheck.c). */
#ifndef LF_LUAJIT_TABLES_H
#define LF_LUAJIT_TABLES_H
#include <stdint.h>
#include "global_names.h"
#include "luajit_frames.h"

/* The registry table of the VM of thread L, and its global_State in *g: 0 or -1. */
int luajit_registry(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t L, uint64_t *g,
		    uint64_t *reg);
/* Where table t keeps its hash part: *count nodes of node_size bytes at *nodes; 0 or -1. */
int luajit_hash_part(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t t, uint64_t *nodes,
		     uint32_t *count);
/* What raw node holds: its key's string (0 when the key is no string), its value's kind
 * and object. */
void luajit_node(const struct luajit_layout *l, const uint8_t *raw, uint64_t *key, enum gn_kind *kind,
		 uint64_t *val);
#endif
