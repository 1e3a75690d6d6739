/* `lua-flame dump -p PID`: what every thread of a process is running right now, printed
 * once to stdout, one frame per line from the root, taken from a short burst of samples
 * (sampling sees only threads that run on a CPU; the others are listed with their state). */
#ifndef LF_DUMP_H
#define LF_DUMP_H
#include "record.h"

int dump_run(struct record_opts *o);
#endif
