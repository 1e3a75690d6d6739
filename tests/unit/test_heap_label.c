/* Unit tests for the heap's path steps named by the target's strings (heap_label.c): keys as
 * they are, unless the heap's grammar would read them as another kind of step. */
#include <string.h>

#include "check.h"
#include "heap_label.h"

static const char *text(struct hgraph *g, const char *prefix, const char *raw, uint64_t full)
{
	static char buf[128];
	size_t n;
	const char *s = hg_label_text(g, heap_named(g, prefix, raw, strlen(raw), full), &n);
	snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
	return buf;
}

static void keys(void)
{
	struct hgraph g;
	hg_init(&g);
	CHECK_STR(text(&g, "", "cache", 5), "cache");
	CHECK_STR(text(&g, "", "", 0), "\"\"");
	CHECK_STR(text(&g, "", "[n]", 3), "\"[n]\"");
	CHECK_STR(text(&g, "", "[table]", 7), "\"[table]\"");
	CHECK_STR(text(&g, "", "local x", 7), "\"local x\"");
	CHECK_STR(text(&g, "", "a;b", 3), "a\\x3bb");
	CHECK_STR(text(&g, "", "long", 900), "long...");
	CHECK_STR(text(&g, "local ", "[n]", 3), "local [n]");
	CHECK_STR(text(&g, "upvalue ", "list", 4), "upvalue list");
	hg_free(&g);
}

int main(void)
{
	RUN(keys);
	CHECK_EXIT();
}
