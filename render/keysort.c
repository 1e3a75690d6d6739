/* Stack keys into order (see keysort.h) by a three-way radix quicksort on 8 bytes at a
 * time. Keys share long prefixes (a few callers start every stack), and comparing whole
 * keys would read those again at each of the n log n comparisons, from memory all over
 * the keys; here each group of keys that agree so far is partitioned on the 8 bytes kept
 * beside each key, and only a group found equal reads its next 8 bytes from the keys,
 * fetched ahead. A range that partitions badly too often is heap-sorted, so no input
 * makes it quadratic. */
#include <stdlib.h>
#include <string.h>
#include "keysort.h"

#define SMALL 12    /* ranges this short are sorted by insertion */

struct task {
	size_t lo, n;
	size_t d;       /* every key of the range has the same bytes before D */
	unsigned budget;/* bad partitions left before heapsort */
};

struct tasks {
	struct task *v;
	size_t n, cap;
};

uint64_t keysort_chunk(const unsigned char *key, size_t d)
{
	uint64_t c = 0;
	for (int i = 0; i < 8; i++) {
		unsigned char b = key[d + (size_t)i];
		c = c << 8 | b;
		if (!b)
			return c << (8 * (7 - i));   /* the key ends here: zeros after it */
	}
	return c;
}

/* A chunk that holds its key's end: keys equal up to it are equal. */
static int ended(uint64_t c)
{
	return (c & 0xff) == 0;
}

/* Compares two keys equal before D whose chunks hold their bytes from D. */
static int cmp(const struct keyrec *x, const struct keyrec *y, size_t d)
{
	if (x->chunk != y->chunk)
		return x->chunk < y->chunk ? -1 : 1;
	if (ended(x->chunk))
		return 0;
	for (size_t i = d + 8;; i++) {   /* ends at the keys' 0 byte at the latest */
		unsigned char a = x->key[i], b = y->key[i];
		if (a != b)
			return a < b ? -1 : 1;
		if (!a)
			return 0;
	}
}

static void swap(struct keyrec *a, size_t i, size_t j)
{
	struct keyrec t = a[i];
	a[i] = a[j];
	a[j] = t;
}

static void insertion(struct keyrec *a, size_t n, size_t d)
{
	for (size_t i = 1; i < n; i++) {
		struct keyrec x = a[i];
		size_t j = i;
		for (; j && cmp(&a[j - 1], &x, d) > 0; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static void sift(struct keyrec *a, size_t i, size_t n, size_t d)
{
	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && cmp(&a[c], &a[c + 1], d) < 0)
			c++;
		if (cmp(&a[i], &a[c], d) >= 0)
			return;
		swap(a, i, c);
	}
}

static void heapsort_keys(struct keyrec *a, size_t n, size_t d)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(a, i, n, d);
	for (size_t end = n; end-- > 1;) {
		swap(a, 0, end);
		sift(a, 0, end, d);
	}
}

static int push(struct tasks *t, size_t lo, size_t n, size_t d, unsigned budget)
{
	if (n < 2)
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct task *v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = (struct task){ lo, n, d, budget };
	return 0;
}

static uint64_t median3(uint64_t a, uint64_t b, uint64_t c)
{
	if (a > b) {
		uint64_t x = a;
		a = b;
		b = x;
	}
	return c <= a ? a : c >= b ? b : c;
}

/* Splits A[0..N) into chunks below, equal to and above a pivot; *LT and *GT are where
 * the equal ones start and end. Returns the pivot. */
static uint64_t partition(struct keyrec *a, size_t n, size_t *lt, size_t *gt)
{
	uint64_t p = median3(a[0].chunk, a[n / 2].chunk, a[n - 1].chunk);
	size_t i = 0, l = 0, g = n;
	while (i < g) {
		if (a[i].chunk < p)
			swap(a, l++, i++);
		else if (a[i].chunk > p)
			swap(a, i, --g);
		else
			i++;
	}
	*lt = l;
	*gt = g;
	return p;
}

/* The equal keys move on to their next 8 bytes, read from the keys a few ahead. */
static void next_chunks(struct keyrec *a, size_t n, size_t d)
{
	for (size_t i = 0; i < n; i++) {
		if (i + 8 < n)
			__builtin_prefetch(a[i + 8].key + d);
		a[i].chunk = keysort_chunk(a[i].key, d);
	}
}

/* Sorts one range, pushing the parts that are not equal so far for later. */
static int sort_range(struct tasks *t, struct keyrec *a, struct task k)
{
	while (k.n > SMALL) {
		if (k.budget == 0) {
			heapsort_keys(a + k.lo, k.n, k.d);
			return 0;
		}
		size_t lt, gt;
		uint64_t p = partition(a + k.lo, k.n, &lt, &gt);
		/* a side with most of the range did not halve it: a bad partition */
		unsigned budget = (lt > k.n / 8 * 7 || k.n - gt > k.n / 8 * 7) ? k.budget - 1 : k.budget;
		if (push(t, k.lo, lt, k.d, budget) < 0 || push(t, k.lo + gt, k.n - gt, k.d, budget) < 0)
			return -1;
		if (ended(p))
			return 0;   /* the equal ones are the same key */
		k.lo += lt;
		k.n = gt - lt;
		k.d += 8;
		next_chunks(a + k.lo, k.n, k.d);
	}
	insertion(a + k.lo, k.n, k.d);
	return 0;
}

int keysort(struct keyrec *a, size_t n)
{
	struct tasks t = { 0 };
	int rc = push(&t, 0, n, 0, 64);
	while (rc == 0 && t.n) {
		struct task k = t.v[--t.n];
		rc = sort_range(&t, a, k);
	}
	free(t.v);
	return rc;
}

/* Whether key X comes before key Y, compared 8 bytes at a time. */
static int key_before(const unsigned char *x, const unsigned char *y)
{
	for (size_t d = 0;; d += 8) {
		uint64_t a = keysort_chunk(x, d), b = keysort_chunk(y, d);
		if (a != b)
			return a < b;
		if (!(a & 0xff))
			return 0;   /* equal keys: the one ends within these bytes */
	}
}

void keysort_merge(const struct keyrec *a, size_t na, const struct keyrec *b, size_t nb, struct keyrec *out)
{
	size_t i = 0, j = 0;
	while (i < na && j < nb) {
		if (i + 8 < na)
			__builtin_prefetch(a[i + 8].key);   /* keys lie in input order, not this one */
		if (j + 8 < nb)
			__builtin_prefetch(b[j + 8].key);
		*out++ = key_before(b[j].key, a[i].key) ? b[j++] : a[i++];
	}
	memcpy(out, a + i, (na - i) * sizeof(*a));
	memcpy(out + (na - i), b + j, (nb - j) * sizeof(*b));
}
