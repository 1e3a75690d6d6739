/* `lua-flame top`: records like `record`, writes no file, and shows the busiest functions
 * every second: a full-screen table on a terminal (keys s, t, l, q), plain lines otherwise. */
#ifndef LF_TOP_VIEW_H
#define LF_TOP_VIEW_H
#include "record.h"

/* Runs until q, Ctrl-C, the duration or the targets' exit; returns record's exit status. */
int top_run(struct record_opts *o);
#endif
