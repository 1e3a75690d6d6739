/* The unwinder's branchless search (bpf/search.h), run on the host: lf_below is an unsigned
 * comparison over the whole 64-bit range, and LF_SEARCH finds the last entry at or below a key
 * among the first n, as a plain scan does, and LF_FIND the entry holding it, whatever n and
 * the key, a mapping above 2^63 ([vsyscall]) and keys beyond every entry included; and
 * lf_halve's rounds as lf_find_row runs them over a file's rows. */
#include <linux/types.h>
#include "check.h"

#pragma GCC diagnostic ignored "-Wunknown-pragmas" /* the search's clang loop pragma */
#define barrier_var(var) __asm__ __volatile__("" : "+r"(var))
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#include "search.h"

#define SIZE 128

struct range {
	__u64 lo, hi;
};

static unsigned long long seed = 7;
static __u64 rnd(__u64 n)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (seed >> 17) % n;
}

static void below_edges(void)
{
	static const __u64 v[] = { 0, 1, 2, 0x7fffffffffffffffULL, 1ULL << 63, (1ULL << 63) + 1,
				   0xffffffffff600000ULL, ~0ULL - 1, ~0ULL };
	int n = (int)(sizeof(v) / sizeof(v[0]));
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			CHECK_INT(lf_below(v[i], v[j]), v[i] < v[j]);
}

/* What LF_SEARCH must give: the last of the first n entries with lo <= key, else 0. */
static __u32 scan(const struct range *r, __u32 n, __u64 key)
{
	__u32 at = 0;
	for (__u32 i = 0; i < n && i < SIZE; i++)
		if (r[i].lo <= key)
			at = i;
	return at;
}

static void search_matches_scan(void)
{
	static struct range r[SIZE];
	int wrong = 0;
	for (int t = 0; t < 20000; t++) {
		__u32 n = (__u32)rnd(SIZE + 1);
		__u64 x = 4096 + rnd(1 << 20);
		for (int i = 0; i < SIZE; i++) {
			r[i].lo = x += 1 + rnd(8192);
			r[i].hi = x += 1 + rnd(8192);
		}
		if (n && t % 3 == 0) { /* the kernel's [vsyscall] page, last of the listed mappings */
			r[n - 1].lo = 0xffffffffff600000ULL;
			r[n - 1].hi = 0xffffffffff601000ULL;
		}
		__u64 key;
		switch (t % 5) {
		case 0: key = rnd(x + 65536); break;              /* anywhere, beyond the last too */
		case 1: key = n ? r[rnd(n)].lo : 0; break;        /* an entry's first byte */
		case 2: key = ~0ULL - rnd(1 << 24); break;        /* above 2^63 */
		case 3: key = n ? r[rnd(n)].hi - 1 : 1; break;    /* an entry's last byte */
		default: key = n ? r[rnd(n)].hi : 2; break;       /* just past an entry */
		}
		__u32 got = LF_SEARCH(r, SIZE, n, lo, key), want = scan(r, n, key);
		int in = n && key >= r[want].lo && key < r[want].hi;
		if ((got != want || LF_FIND(r, SIZE, n, lo, hi, key) != (in ? (int)want : -1)) && wrong++ < 5)
			printf("  n %u key %#llx: %u, scan %u\n", n, (unsigned long long)key, got, want);
	}
	CHECK_INT(wrong, 0);
}

/* lf_halve's rounds over n sorted keys from start, as lf_find_row runs them: the last entry
 * <= key, or -1. */
static int halve_search(const __u32 *keys, __u32 start, __u32 n, __u32 key)
{
	__u32 base = start, len = n;
	for (int i = 0; i < 25 && len > 1; i++)
		lf_halve(&base, &len, key, keys[base + len / 2]);
	return n && keys[base] <= key ? (int)base : -1;
}

/* Keys sorted, with runs of equal ones (rows of one address), searched from any start. */
static void halve_matches_scan(void)
{
	static __u32 k[4096];
	int wrong = 0;
	for (int t = 0; t < 20000; t++) {
		__u32 x = (__u32)rnd(1 << 20);
		for (int i = 0; i < 4096; i++)
			k[i] = x += (__u32)rnd(4) == 0 ? 0 : 1 + (__u32)rnd(64);
		__u32 start = (__u32)rnd(64), n = (__u32)rnd(t % 2 ? 9 : 4096 - start + 1);
		__u32 key = (__u32)(t % 4 == 0 && n ? k[start + rnd(n)] : rnd(x + 256));
		int want = -1;
		for (__u32 i = start; i < start + n; i++)
			if (k[i] <= key)
				want = (int)i;
		int got = halve_search(k, start, n, key);
		if (got != want && wrong++ < 5)
			printf("  start %u n %u key %u: %d, scan %d\n", start, n, key, got, want);
	}
	CHECK_INT(wrong, 0);
}

int main(void)
{
	RUN(below_edges);
	RUN(search_matches_scan);
	RUN(halve_matches_scan);
	CHECK_EXIT();
}
