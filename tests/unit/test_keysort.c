/* The order of stack keys (keysort.c): sorting and merging two sorted runs both give the
 * order strcmp gives (unsigned bytes up to the first 0), whatever the keys share: long
 * common prefixes, one key the start of another, bytes above 0x7f, equal keys. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "keysort.h"

#define N 4000

static unsigned seed = 9;
static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % n;
}

/* N keys of 0 to 40 bytes over few byte values (1, 2, 0x80, 0xff), so that many share
 * prefixes, many are prefixes of others and some are equal. */
static unsigned char *keys[N];
static void make_keys(void)
{
	static const unsigned char bytes[] = { 1, 2, 0x80, 0xff };
	for (int i = 0; i < N; i++) {
		size_t len = rnd(41);
		keys[i] = calloc(len + 2, 1);
		for (size_t j = 0; j < len; j++)
			keys[i][j] = bytes[j < 9 ? rnd(2) : rnd(4)];
		keys[i][len + 1] = (unsigned char)(i & 0x7f);   /* after the 0: not part of the key */
	}
}

static void fill(struct keyrec *r, size_t from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		r[i] = (struct keyrec){ keysort_chunk(keys[from + i], 0), keys[from + i] };
}

/* Whether R[0..n) is in strcmp's order. */
static int ordered(const struct keyrec *r, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp((const char *)r[i - 1].key, (const char *)r[i].key) > 0)
			return 0;
	return 1;
}

static void sorts_as_strcmp(void)
{
	struct keyrec *r = malloc(N * sizeof(*r));
	fill(r, 0, N);
	CHECK_INT(keysort(r, N), 0);
	CHECK(ordered(r, N));
	free(r);
}

static void merges_as_strcmp(void)
{
	size_t na = N / 3, nb = N - na;
	struct keyrec *a = malloc(na * sizeof(*a)), *b = malloc(nb * sizeof(*b)), *out = malloc(N * sizeof(*out));
	fill(a, 0, na);
	fill(b, na, nb);
	CHECK_INT(keysort(a, na), 0);
	CHECK_INT(keysort(b, nb), 0);
	keysort_merge(a, na, b, nb, out);
	CHECK(ordered(out, N));
	/* every key once: the merge neither drops nor repeats one */
	int *seen = calloc(N, sizeof(*seen)), *from = calloc(N, sizeof(*from));
	for (size_t i = 0; i < N; i++)
		for (int k = 0; k < N; k++)
			if (out[i].key == keys[k]) {
				seen[k]++;
				from[i] = k;
			}
	int once = 1;
	for (int k = 0; k < N; k++)
		once &= seen[k] == 1;
	CHECK(once);
	/* of equal keys, the first run's come first */
	int a_first = 1, equal = 0;
	for (size_t i = 1; i < N; i++)
		if (!strcmp((const char *)out[i - 1].key, (const char *)out[i].key)) {
			equal++;
			if ((size_t)from[i - 1] >= na && (size_t)from[i] < na)
				a_first = 0;
		}
	CHECK(equal > 100);
	CHECK(a_first);
	free(from);
	free(seen);
	free(a);
	free(b);
	free(out);
}

int main(void)
{
	make_keys();
	RUN(sorts_as_strcmp);
	RUN(merges_as_strcmp);
	for (int i = 0; i < N; i++)
		free(keys[i]);
	CHECK_EXIT();
}
