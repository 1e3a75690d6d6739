/* The text of a path step named by a string read from the target (a table's key, a local's
 * or an upvalue's name), for both runtime families: made safe for a folded line, cut to a
 * name's length, and kept from reading as another kind of step. */
#ifndef LF_HEAP_LABEL_H
#define LF_HEAP_LABEL_H
#include <stddef.h>
#include <stdint.h>

#include "heap_graph.h"

/* The label prefix + the n bytes at raw of a string full bytes long, interned in g. */
uint32_t heap_named(struct hgraph *g, const char *prefix, const char *raw, size_t n, uint64_t full);
#endif
