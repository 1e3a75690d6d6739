/* The functions of a profile so far, for `lua-flame top`: each function's self and total
 * samples over all of it and since the last count, with every frame or with Lua frames only
 * (where the innermost Lua function is the one "on CPU", whatever C it called). */
#ifndef LF_TOP_STATS_H
#define LF_TOP_STATS_H
#include <stddef.h>
#include <stdint.h>
#include "aggregate.h"

enum top_sort { TOP_BY_SELF, TOP_BY_TOTAL };

struct top_row {
	const char *name;
	int kind;                  /* enum frame_kind */
	uint64_t self, total;      /* samples since the start */
	uint64_t dself, dtotal;    /* samples since the count before */
};

struct top_stats;

struct top_stats *top_stats_new(void);
void top_stats_free(struct top_stats *t);
/* Counts every function of p again; what grew since the last count is the "d" figures.
 * Returns the samples since the last count. */
uint64_t top_stats_count(struct top_stats *t, const struct profile *p);
/* The n busiest functions (at most max) in rows, by sort over the last count's samples
 * (then over all of them); lua_only: Lua functions only. */
size_t top_stats_rows(const struct top_stats *t, enum top_sort sort, int lua_only, struct top_row *rows,
		      size_t max);
#endif
