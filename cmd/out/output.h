/* Writing the profile in each output format; the format follows the file extension.
 * Every file is written to a temporary name in the same directory and renamed, so a
 * reader never sees half a file. */
#ifndef LF_OUTPUT_H
#define LF_OUTPUT_H
#include <stdio.h>
#include "aggregate.h"

enum out_format { OUT_UNKNOWN, OUT_FOLDED, OUT_SVG, OUT_PPROF, OUT_SPEEDSCOPE, OUT_CALLGRIND };

struct output { const char *path; enum out_format fmt; };

enum out_format output_format_for(const char *path, const char *forced);
const char *output_format_name(enum out_format f);
/* Checks that path can be created, before sampling starts; 0 or -1 with a message. */
int output_check_writable(const char *path);
/* Writes p to o (sorting p first, once for every output: profile_sort); 0 or -1, said. */
int output_write(const struct output *o, struct profile *p, unsigned mode);
/* Every output of outs[0, n), each on a thread of its own once p is sorted: the formats are
 * independent, and a heap snapshot's SVG and folded file each take a good part of a second.
 * ok (may be NULL) gets whether output i was written; returns how many were not. */
#define OUTPUTS_MAX 16
int output_write_all(const struct output *outs, int n, struct profile *p, unsigned mode, int *ok);
int write_folded(FILE *f, const struct profile *p);
#endif
