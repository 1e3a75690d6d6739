/* What lua-flame tells the person running it about a recording: a live status line on
 * stderr (only on a terminal; redrawn in place with \r about once a second) and the
 * summary at the end, with how to open each output. */
#ifndef LF_STATUS_H
#define LF_STATUS_H
#include <stdint.h>
#include "record.h"

struct status_info {
	double elapsed, duration; /* duration 0: until Ctrl-C or exit */
	uint64_t samples, lost;
	int nprocs, nlua;         /* target processes, and how many run a Lua we found */
	char lua[64];             /* e.g. "Lua 5.4.6"; empty when none found yet */
};

/* Turns the line on when wanted and stderr is a terminal. */
void status_init(int wanted);
int status_enabled(void);
void status_show(const struct status_info *in);
/* Erases the line so a message can be printed; the next status_show draws it again. */
void status_clear(void);
/* The end of a recording: samples, complete stacks, Lua found, and each output written
 * (ok[i] set) with how to open it. Printed even with -q. */
void status_summary(const struct record_opts *o, const struct profile *p, const struct record_result *r,
		    const int *ok);
/* How to look at an output of this format, e.g. "go tool pprof -http=: FILE". */
const char *status_open_hint(enum out_format f);
/* Formats the line without terminal codes. */
void status_format(const struct status_info *in, char *buf, unsigned size);
#endif
