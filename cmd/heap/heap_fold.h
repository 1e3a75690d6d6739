/* A walked heap as folded stacks: each object's bytes under its process, its path of steps
 * from the roots, and its kind as the leaf; what no path reaches under "[unreached]". */
#ifndef LF_HEAP_FOLD_H
#define LF_HEAP_FOLD_H
#include "aggregate.h"
#include "heap_graph.h"

/* Adds every object of g to p under root ("lua5.4", "lua5.4;[VM 2]"); returns the bytes. */
uint64_t heap_fold(const struct hgraph *g, const char *root, struct profile *p);
/* Adds bytes held by no object (the VM's own structures) under root;[vm];what. */
void heap_fold_vm(struct profile *p, const char *root, const char *what, uint64_t bytes);
#endif
