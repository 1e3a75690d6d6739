/* `lua-flame heap --every`: a numbered series of snapshots. The names of each snapshot's
 * files, and the wait between snapshots that Ctrl-C or SIGTERM ends. */
#ifndef LF_HEAP_SERIES_H
#define LF_HEAP_SERIES_H
#include <stddef.h>

/* PATH with "-NNN" (K, at least three digits) before its extension: heap.svg is
 * heap-001.svg, x.pb.gz x-001.pb.gz, heap.speedscope.json heap-001.speedscope.json, a name
 * without one gets it at its end. Returns 0, or -1 when OUT is too small. */
int heap_series_name(const char *path, unsigned k, char *out, size_t size);

/* From now on SIGINT, SIGTERM and SIGHUP ask the series to stop after the snapshot in
 * progress; a second SIGINT exits at once. */
void heap_series_signals(void);
/* The signal that asked to stop, or 0. */
int heap_series_stopped(void);
/* Waits until now_sec() reaches WHEN; returns early, non-zero, when asked to stop. */
int heap_series_wait(double when);
#endif
