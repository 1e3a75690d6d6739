/* Unit tests for cmd/out/aggregate.c: distinct stacks merge with their counts, and past the
 * memory limit new stacks are counted under their root and a marker, with no sample lost. */
#include <stdio.h>
#include <string.h>
#include "aggregate.h"
#include "check.h"

static uint64_t count_of(const struct profile *p, const char *stack)
{
	for (size_t i = 0; i < p->cap; i++)
		if (p->e[i].stack && !strcmp(p->e[i].stack, stack))
			return p->e[i].count;
	return 0;
}

static void merges_counts(void)
{
	struct profile p;
	profile_init(&p);
	profile_add(&p, "app;a;b", 7, 3);
	profile_add(&p, "app;a;b", 7, 4);
	profile_add(&p, "app;a", 5, 1);
	CHECK_INT(p.n, 2);
	CHECK_INT(count_of(&p, "app;a;b"), 7);
	CHECK_INT(p.total, 8);
	profile_free(&p);
}

static void bounded_by_the_limit(void)
{
	struct profile p;
	profile_init(&p);
	profile_set_limit(4096);
	char s[64];
	uint64_t want = 0;
	for (int i = 0; i < 1000; i++) {
		int n = snprintf(s, sizeof(s), "%s;main;f%d", i % 2 ? "app" : "web", i);
		profile_add(&p, s, (size_t)n, (uint64_t)i + 1);
		want += (uint64_t)i + 1;
	}
	profile_add(&p, "app;main;f1", 11, 5);   /* seen before the limit: still its own */
	want += 5;
	CHECK(p.bytes <= 4096 + 2 * 200);       /* at most one marker entry per root past it */
	CHECK(p.n < 100);
	CHECK_INT(p.total, want);
	CHECK_INT(count_of(&p, "app;main;f1"), 2 + 5);
	uint64_t kept = 0;
	for (size_t i = 0; i < p.cap; i++)
		if (p.e[i].stack)
			kept += p.e[i].count;
	CHECK_INT(kept, want);
	CHECK(count_of(&p, "app;[profile: memory limit]") > 0);
	CHECK(count_of(&p, "web;[profile: memory limit]") > 0);
	CHECK(p.over_limit > 0);
	profile_set_limit((size_t)PROFILE_DEFAULT_MB << 20);
	profile_free(&p);
}

int main(void)
{
	RUN(merges_counts);
	RUN(bounded_by_the_limit);
	CHECK_EXIT();
}
