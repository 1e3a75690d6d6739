/* Stacks held in memory, in frame order, into a tree for drawing (flame.h): walked as a
 * folded file's lines are (walk.c), so that the frames too narrow to draw are dropped as soon
 * as the input has left them, where flame_add would keep a node for every frame. */
#include <stdlib.h>
#include "flame.h"
#include "walk.h"

struct flame_sorted {
	struct loader ld;
	const char *prev;   /* the last stack, which stays readable until the end */
	size_t prev_len;
};

struct flame_sorted *flame_sorted_begin(struct flame *f, const struct flame_opts *o)
{
	struct flame_sorted *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ld = (struct loader){ .f = f, .prune = o, .swept = 4096 };
	s->ld.path = calloc(1, sizeof(*s->ld.path));
	if (!s->ld.path || f->nnodes) {
		free(s->ld.path);
		free(s);
		return NULL;
	}
	f->lazy = 1;
	return s;
}

int flame_sorted_add(struct flame_sorted *s, const char *stack, size_t len, uint64_t count)
{
	size_t same = 0, m = len < s->prev_len ? len : s->prev_len;
	while (same < m && stack[same] == s->prev[same])
		same++;
	int rc = walk_line(&s->ld, stack, len, same, count);
	if (rc < 0)
		return -1;
	s->prev = stack;
	s->prev_len = len;
	return s->ld.unsafe ? 1 : 0;
}

int flame_sorted_end(struct flame_sorted *s)
{
	int rc = s->ld.unsafe ? 1 : walk_finish(&s->ld);
	free(s->ld.path);
	free(s);
	return rc;
}
