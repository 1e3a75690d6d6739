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
int output_write(const struct output *o, struct profile *p, unsigned mode);
int write_folded(FILE *f, const struct profile *p);
#endif
