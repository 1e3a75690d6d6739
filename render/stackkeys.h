/* Unsorted folded files drawn in little memory: each line becomes a short key (its
 * frames as the numbers of their interned names) and the keys are sorted, so that lines
 * sharing frames come together as in a sorted file; walk.c then takes them as it takes
 * a sorted file's lines, dropping what cannot be drawn as it goes. */
#ifndef LF_STACKKEYS_H
#define LF_STACKKEYS_H
#include <stdio.h>
#include "walk.h"

/* Reads every line of IN into LD's tree, in the order of their keys: 0, -1 on a read
 * error or lack of memory (errno tells), or 1 when LD's pruning proved unsafe (a bug:
 * sorted keys never come back into a frame they left). *IGNORED: malformed lines. */
int stackkeys_read(struct loader *ld, FILE *in, size_t *ignored);

#endif
