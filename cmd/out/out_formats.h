/* Writers for the formats other profilers' tools read: pprof (`go tool pprof`),
 * speedscope (speedscope.app) and callgrind (KCacheGrind, callgrind_annotate). Each
 * writes the whole profile to f and returns 0, or -1 when writing failed. */
#ifndef LF_OUT_FORMATS_H
#define LF_OUT_FORMATS_H
#include <stdio.h>

#include "aggregate.h"

int write_pprof(FILE *f, const struct profile *p);
int write_speedscope(FILE *f, const struct profile *p);
int write_callgrind(FILE *f, const struct profile *p);
#endif
