/* Unit tests for the aggregated profile and the folded writer. */
#include <stdlib.h>
#include "aggregate.h"
#include "check.h"
#include "output.h"

static char *folded_of(struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	write_folded(f, p);
	fclose(f);
	return buf;
}

static void merges_identical_stacks(void)
{
	struct profile p;
	profile_init(&p);
	profile_add(&p, "a;b;c", 5, 2);
	profile_add(&p, "a;b", 3, 1);
	profile_add(&p, "a;b;c", 5, 3);
	CHECK_INT(p.n, 2);
	CHECK_INT(p.total, 6);
	char *s = folded_of(&p);
	CHECK_STR(s, "a;b 1\na;b;c 5\n");
	free(s);
	profile_free(&p);
}

static void survives_growth(void)
{
	struct profile p;
	profile_init(&p);
	char buf[32];
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(buf, sizeof(buf), "root;f%d", i % 2500);
		profile_add(&p, buf, (size_t)n, 1);
	}
	CHECK_INT(p.n, 2500);
	CHECK_INT(p.total, 5000);
	struct prof_entry **v = profile_sorted(&p);
	int ok = 1;
	for (size_t i = 0; v[i]; i++)
		ok &= v[i]->count == 2 && (!v[i + 1] || strcmp(v[i]->stack, v[i + 1]->stack) < 0);
	CHECK(ok);
	free(v);
	profile_free(&p);
}

/* ';' sorts before every other byte, so the stacks under a frame follow each other. */
static void sorted_by_frames(void)
{
	struct profile p;
	profile_init(&p);
	const char *in[] = { "a;b1", "a;b!x", "a;b;c", "a;b", "a;b c", "a;a" };
	for (size_t i = 0; i < sizeof(in) / sizeof(*in); i++)
		profile_add(&p, in[i], strlen(in[i]), 1);
	char *s = folded_of(&p);
	CHECK_STR(s, "a;a 1\na;b 1\na;b;c 1\na;b c 1\na;b!x 1\na;b1 1\n");
	free(s);
	profile_free(&p);
}

/* Sorted once for every output; an add after it is in the next output. A stack is cut at a
 * NUL, as every output would print it. */
static void sorted_once_until_added(void)
{
	struct profile p;
	profile_init(&p);
	profile_add(&p, "r;b", 3, 1);
	profile_add(&p, "r;a\0x", 5, 2);
	profile_add(&p, "r;a", 3, 3);
	CHECK_INT(p.n, 2);
	profile_sort(&p);
	CHECK(p.order != NULL);
	char *s = folded_of(&p);
	CHECK_STR(s, "r;a 5\nr;b 1\n");
	free(s);
	profile_add(&p, "r;0", 3, 4);
	CHECK(p.order == NULL);
	s = folded_of(&p);
	CHECK_STR(s, "r;0 4\nr;a 5\nr;b 1\n");
	free(s);
	profile_free(&p);
}

static int rank(unsigned char c)
{
	return c == ';' ? 1 : c && c < ';' ? c + 1 : c;
}

static int frames_cmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return rank((unsigned char)*a) - rank((unsigned char)*b);
}

/* Enough stacks for the halves to be sorted on two threads and merged: every one once, in order. */
static void many_sorted_in_halves(void)
{
	struct profile p;
	profile_init(&p);
	char buf[64];
	unsigned x = 7;
	for (int i = 0; i < 150000; i++) {
		x = x * 1103515245u + 12345u;
		int n = snprintf(buf, sizeof(buf), "root;k%u;%c%u;[table]", (x >> 8) % 5000, ":;a"[(x >> 4) % 3],
				 (x >> 12) % 40);
		profile_add(&p, buf, (size_t)n, 1);
	}
	struct prof_entry **v = profile_sorted(&p);
	size_t n = 0;
	uint64_t total = 0;
	int ok = 1;
	for (; v[n]; n++) {
		total += v[n]->count;
		ok &= !v[n + 1] || frames_cmp(v[n]->stack, v[n + 1]->stack) < 0;
	}
	CHECK(p.n > 65536);
	CHECK_INT(n, p.n);
	CHECK_INT(total, 150000);
	CHECK(ok);
	free(v);
	profile_free(&p);
}

static void empty_profile_writes_nothing(void)
{
	struct profile p;
	profile_init(&p);
	char *s = folded_of(&p);
	CHECK_STR(s, "");
	free(s);
	profile_free(&p);
}

static void formats_from_extension(void)
{
	CHECK_INT(output_format_for("x.folded", NULL), OUT_FOLDED);
	CHECK_INT(output_format_for("dir/x.svg", NULL), OUT_SVG);
	CHECK_INT(output_format_for("x.txt", NULL), OUT_UNKNOWN);
	CHECK_INT(output_format_for("x.txt", "folded"), OUT_FOLDED);
	CHECK_INT(output_format_for("x.svg", "nope"), OUT_UNKNOWN);
}

int main(void)
{
	RUN(merges_identical_stacks);
	RUN(survives_growth);
	RUN(sorted_by_frames);
	RUN(sorted_once_until_added);
	RUN(many_sorted_in_halves);
	RUN(empty_profile_writes_nothing);
	RUN(formats_from_extension);
	CHECK_EXIT();
}
