/* Path steps named by the target's strings (heap_label.h). A key is written as it is, so
 * that `_G.cache.users` reads `cache;users`; only a key that the heap's grammar would read
 * as a step of another kind (`[n]`, `local x`) is quoted, as an empty key is. */
#include <string.h>

#include "frame_label.h"
#include "heap_label.h"
#include "safe_name.h"
#include "util.h"

static int needs_quotes(const char *prefix, const char *raw, size_t n)
{
	if (n == 0)
		return 1;
	if (*prefix)
		return 0; /* "local NAME": the prefix says what it is */
	return heap_kind_of(raw, n, 1) != KIND_HEAP_FIELD;
}

uint32_t heap_named(struct hgraph *g, const char *prefix, const char *raw, size_t n, uint64_t full)
{
	int q = needs_quotes(prefix, raw, n);
	struct sbuf *b = &g->scratch;   /* a heap has about a label per object: no allocation each */
	sb_reset(b);
	sb_puts(b, prefix);
	if (q)
		sb_puts(b, "\"");
	sb_add_safe(b, raw, n, SAFE_FOLDED);
	if (q)
		sb_puts(b, "\"");
	if (full > (uint64_t)n)
		sb_puts(b, "...");
	return hg_label(g, b->s, b->len);
}
