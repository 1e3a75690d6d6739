/* The aggregated profile: distinct folded stacks ("root;caller;callee") with their
 * sample counts, plus the facts about the run that outputs print. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "util.h"

#define LIMIT_MARK ";[profile: memory limit]"

static size_t limit = (size_t)PROFILE_DEFAULT_MB << 20;

void profile_set_limit(size_t bytes)
{
	limit = bytes;
}

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
}

static void drop_order(struct profile *p)
{
	free(p->order);
	p->order = NULL;
	p->order_n = 0;
}

void profile_free(struct profile *p)
{
	drop_order(p);
	arena_free(&p->text);
	free(p->e);
	memset(p, 0, sizeof(*p));
}

static void grow_to(struct profile *p, size_t cap)
{
	struct prof_entry *e = xcalloc(cap, sizeof(*e));
	huge_hint(e, cap * sizeof(*e));
	for (size_t i = 0; i < p->cap; i++) {
		if (!p->e[i].stack)
			continue;
		size_t j = p->e[i].hash & (cap - 1);
		while (e[j].stack)
			j = (j + 1) & (cap - 1);
		e[j] = p->e[i];
	}
	free(p->e);
	p->e = e;
	p->cap = cap;
}

static void grow(struct profile *p)
{
	grow_to(p, p->cap ? p->cap * 2 : 1024);
}

void profile_reserve(struct profile *p, size_t more)
{
	size_t cap = p->cap ? p->cap : 1024;
	while ((p->n + more) * 4 > cap * 3 && cap < ((size_t)1 << 40))
		cap *= 2;
	if (cap != p->cap)
		grow_to(p, cap);
}

/* The slot holding stack, or the empty slot where it would go. */
static size_t find(const struct profile *p, const char *stack, size_t len, uint32_t h)
{
	size_t j = h & (p->cap - 1);
	while (p->e[j].stack && !(p->e[j].hash == h && p->e[j].len == len && !memcmp(p->e[j].stack, stack, len)))
		j = (j + 1) & (p->cap - 1);
	return j;
}

/* A table entry and its text, with the table's slack (a quarter of it stays empty). */
static size_t entry_bytes(size_t len)
{
	return len + 1 + 2 * sizeof(struct prof_entry);
}

static void add_limited(struct profile *p, const char *stack, size_t len, uint64_t count, uint64_t objects)
{
	if (!p->over_limit)
		warnx_lf("the profile's %zu distinct stacks take %zu MiB, the limit (--max-profile-mb): samples "
			 "of stacks not seen before are counted under their process as [profile: memory limit]; "
			 "raise the limit to keep them apart", p->n, p->bytes >> 20);
	struct sbuf b;
	sb_init(&b);
	sb_add(&b, stack, strcspn(stack, ";") < len ? strcspn(stack, ";") : len);
	sb_puts(&b, LIMIT_MARK);
	uint32_t h = (uint32_t)hash_bytes(b.s, b.len, 0);
	size_t j = find(p, b.s, b.len, h);
	if (!p->e[j].stack) {   /* one per root at most: allowed past the limit */
		if ((p->n + 1) * 4 > p->cap * 3) {
			grow(p);
			j = find(p, b.s, b.len, h);
		}
		p->e[j] = (struct prof_entry){ xarena_text(&p->text, b.s, b.len), (uint32_t)b.len, h, 0, 0 };
		p->n++;
		p->bytes += entry_bytes(b.len);
	}
	p->e[j].count += count;
	p->e[j].objects += objects;
	p->total += count;
	p->over_limit += count;
	sb_free(&b);
}

uint32_t profile_hash(const char *stack, size_t len)
{
	return (uint32_t)hash_bytes(stack, len > PROFILE_STACK_MAX ? PROFILE_STACK_MAX : len, 0);
}

void profile_prefetch(const struct profile *p, uint32_t h)
{
	if (p->cap)
		__builtin_prefetch(&p->e[h & (p->cap - 1)]);
}

void profile_add_objects(struct profile *p, const char *stack, size_t len, uint64_t count, uint64_t objects)
{
	profile_add_hashed(p, stack, len, profile_hash(stack, len), count, objects);
}

void profile_add_hashed(struct profile *p, const char *stack, size_t len, uint32_t h, uint64_t count,
			uint64_t objects)
{
	if (p->order)
		drop_order(p);
	if (len > PROFILE_STACK_MAX)
		len = PROFILE_STACK_MAX;   /* an entry keeps its length in 32 bits */
	const char *nul = memchr(stack, 0, len);
	if (nul) {   /* the stack as every output prints it: its length is then the text's */
		len = (size_t)(nul - stack);
		h = profile_hash(stack, len);
	}
	if ((p->n + 1) * 4 > p->cap * 3)
		grow(p);
	size_t j = find(p, stack, len, h);
	if (!p->e[j].stack && p->bytes + entry_bytes(len) > limit) {
		add_limited(p, stack, len, count, objects);
		return;
	}
	if (!p->e[j].stack) {
		p->e[j] = (struct prof_entry){ xarena_text(&p->text, stack, len), (uint32_t)len, h, 0, 0 };
		p->n++;
		p->bytes += entry_bytes(len);
	}
	p->e[j].count += count;
	p->e[j].objects += objects;
	p->total += count;
}

void profile_add(struct profile *p, const char *stack, size_t len, uint64_t count)
{
	profile_add_objects(p, stack, len, count, 0);
}

/* The sort's order of a byte: ';' first after the end (NUL), then the others as they are.
 * Every stack under one frame then follows the one before, as the flame graph's tree is
 * built from them (flame_sorted_add), where in plain byte order "a;b1" would come between
 * "a;b" and "a;b;c". */
static inline unsigned char rank(unsigned char c)
{
	return c == ';' ? 1 : c && c < ';' ? (unsigned char)(c + 1) : c;
}

/* Byte d of e's stack, ranked, as strcmp sees it: 0 from its end (or a NUL in it) on. The
 * caller only asks past d when byte d was not 0, so the read stays inside the string. */
static unsigned char byte_at(const struct prof_entry *e, size_t d)
{
	return rank((unsigned char)e->stack[d]);
}

/* strcmp in the order of rank. */
static int ranked_cmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return rank((unsigned char)*a) - rank((unsigned char)*b);
}

static void swap_entries(struct prof_entry **v, size_t a, size_t b)
{
	struct prof_entry *t = v[a];
	v[a] = v[b];
	v[b] = t;
}

/* Stacks share long prefixes (the process, its entry points), which a comparison sort scans
 * again in every comparison; a string sort keyed on one byte at a time scans each byte about
 * once. Few entries are left to insertion sort from byte d on. */
static void insertion_sort(struct prof_entry **v, size_t n, size_t d)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && ranked_cmp(v[j - 1]->stack + d, v[j]->stack + d) > 0; j--)
			swap_entries(v, j - 1, j);
}

/* Three-way partition of v[0, n) on byte d around the median of three: the bytes below the
 * pivot end up in [0, *lt), equal ones in [*lt, *gt), greater ones in [*gt, n). */
static unsigned char partition(struct prof_entry **v, size_t n, size_t d, size_t *lt, size_t *gt)
{
	unsigned char a = byte_at(v[0], d), b = byte_at(v[n / 2], d), c = byte_at(v[n - 1], d);
	unsigned char pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
	size_t lo = 0, i = 0, hi = n;
	while (i < hi) {
		unsigned char x = byte_at(v[i], d);
		if (x < pivot)
			swap_entries(v, lo++, i++);
		else if (x > pivot)
			swap_entries(v, i, --hi);
		else
			i++;
	}
	*lt = lo;
	*gt = hi;
	return pivot;
}

/* The two smaller parts are sorted by a call of their own, each at most half of n, so the
 * calls nest at most log2(n) deep; the largest part is sorted by the loop. */
static void sort_from(struct prof_entry **v, size_t n, size_t d)
{
	while (n > 12) {
		size_t lt, gt;
		unsigned char pivot = partition(v, n, d, &lt, &gt);
		struct { struct prof_entry **v; size_t n, d; } part[3] = {
			{ v, lt, d }, { v + lt, gt - lt, pivot ? d + 1 : SIZE_MAX }, { v + gt, n - gt, d } };
		int big = part[0].n >= part[1].n ? (part[0].n >= part[2].n ? 0 : 2) : (part[1].n >= part[2].n ? 1 : 2);
		for (int k = 0; k < 3; k++)
			if (k != big && part[k].d != SIZE_MAX)
				sort_from(part[k].v, part[k].n, part[k].d);
		if (part[big].d == SIZE_MAX)
			return;   /* equal stacks, all ended at d */
		v = part[big].v;
		n = part[big].n;
		d = part[big].d;
	}
	insertion_sort(v, n, d);
}

/* The sort by byte above reads byte d of every stack at every level, each read a miss in the
 * cache once there are many stacks. Here each entry's stack and length are copied into an
 * array of items, with eight bytes of the stack at a time, which are sorted there; only a
 * run of stacks equal in those eight goes on to the next eight, read again from the stacks. */
#define KEY_BYTES 8
#define KEY_LEVELS 64   /* then the byte sort: it bounds its own nesting */
#define FEW 12          /* then an insertion sort */

struct item {
	uint64_t key;
	const char *s;
	size_t len;            /* of s up to its first NUL, as strcmp sees it */
	struct prof_entry *e;
};

/* KEY_BYTES bytes of x's stack from d, the first the highest: 0 past its end, so that keys
 * order as strcmp orders the stacks. */
static uint64_t key_at(const struct item *x, size_t d)
{
	uint64_t k = 0;
	for (size_t i = 0; i < KEY_BYTES && d + i < x->len; i++)
		k |= (uint64_t)rank((unsigned char)x->s[d + i]) << (8 * (KEY_BYTES - 1 - i));
	return k;
}

static void swap_items(struct item *v, size_t a, size_t b)
{
	struct item t = v[a];
	v[a] = v[b];
	v[b] = t;
}

/* Sorts v[0, n) by key: three-way quicksort, smaller parts by a call, the largest by the
 * loop, so calls nest at most log2(n) deep. */
static void sort_keys(struct item *v, size_t n)
{
	while (n > FEW) {
		uint64_t a = v[0].key, b = v[n / 2].key, c = v[n - 1].key;
		uint64_t pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		size_t lo = 0, i = 0, hi = n;
		while (i < hi) {
			if (v[i].key < pivot)
				swap_items(v, lo++, i++);
			else if (v[i].key > pivot)
				swap_items(v, i, --hi);
			else
				i++;
		}
		if (lo < n - hi) {
			sort_keys(v, lo);
			v += hi;
			n -= hi;
		} else {
			sort_keys(v + hi, n - hi);
			n = lo;
		}
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j - 1].key > v[j].key; j--)
			swap_items(v, j - 1, j);
}

/* A few items, or ones equal in KEY_LEVELS keys, by the byte sort from d. */
static void sort_rest(struct item *v, size_t n, size_t d)
{
	struct prof_entry *few[FEW], **e = n <= FEW ? few : xmalloc(n * sizeof(*e));
	for (size_t i = 0; i < n; i++)
		e[i] = v[i].e;
	sort_from(e, n, d);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct item){ 0, e[i]->stack, 0, e[i] };
	if (e != few)
		free(e);
}

/* The bytes from d on that all of v[0, n) share: a profile's stacks mostly share their first
 * frames, and one pass over them skips those, where a key at a time would read them all
 * again for each KEY_BYTES of them. */
static size_t common_from(const struct item *v, size_t n, size_t d)
{
	const char *first = v[0].s + d;
	size_t m = v[0].len > d ? v[0].len - d : 0;
	for (size_t i = 1; i < n && m; i++) {
		if (i + 8 < n)
			__builtin_prefetch(v[i + 8].s + d);   /* the stacks lie apart: fetch ahead */
		const char *s = v[i].s + d;
		size_t len = v[i].len > d ? v[i].len - d : 0, j = 0;
		if (len < m)
			m = len;
		while (j < m && s[j] == first[j])
			j++;
		m = j;
	}
	return m;
}

/* Sorts v[0, n), equal in their first d bytes, by their stacks from byte d on. */
static void sort_keyed(struct item *v, size_t n, size_t d, int level)
{
	while (n > 1) {
		if (level >= KEY_LEVELS || n <= FEW) {
			sort_rest(v, n, d);
			return;
		}
		d += common_from(v, n, d);
		for (size_t i = 0; i < n; i++) {
			if (i + 8 < n)
				__builtin_prefetch(v[i + 8].s + d);
			v[i].key = key_at(&v[i], d);
		}
		sort_keys(v, n);
		int all = 0;   /* the run of equal keys is all of v: it goes on in this loop */
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && v[j].key == v[i].key; j++)
				;
			if (j - i < 2 || !(v[i].key & 0xff))
				continue;   /* one stack, or stacks that all end within the key: equal */
			if (i == 0 && j == n)
				all = 1;
			else
				sort_keyed(v + i, j - i, d + KEY_BYTES, level + 1);
		}
		if (!all)
			return;
		d += KEY_BYTES;
		level++;
	}
}

/* v in the order of their stacks' text in memory, to a MiB (the arena's blocks), by a radix
 * sort on the address (into tmp, then back): the first pass over the stacks then reads the
 * text in the order it lies in, where the table's order is random. Within a MiB, which the
 * cache holds, the order does not matter. */
static void by_address(struct item *v, struct item *tmp, size_t n)
{
	enum { BITS = 16, BUCKETS = 1 << BITS };
	size_t *count = xmalloc(BUCKETS * sizeof(*count));   /* sorts may run on two threads */
	for (int shift = 20; shift < 64; shift += BITS) {
		memset(count, 0, BUCKETS * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[(uintptr_t)v[i].s >> shift & (BUCKETS - 1)]++;
		if (count[(uintptr_t)v[0].s >> shift & (BUCKETS - 1)] == n)
			continue;   /* all alike in these bits */
		for (size_t b = 0, sum = 0; b < BUCKETS; b++) {
			size_t c = count[b];
			count[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[(uintptr_t)v[i].s >> shift & (BUCKETS - 1)]++] = v[i];
		memcpy(v, tmp, n * sizeof(*v));
	}
	free(count);
}

/* Past this many stacks, each half is sorted on a thread of its own, then the two merged. */
#define PARALLEL_MIN (1u << 16)

struct half {
	struct item *v;
	size_t n;
};

static void *sort_half(void *arg)
{
	struct half *h = arg;
	sort_keyed(h->v, h->n, 0, 0);
	return NULL;
}

/* The sorted runs a and b into out, as one run. */
static void merge(const struct item *a, size_t na, const struct item *b, size_t nb, struct prof_entry **out)
{
	size_t i = 0, j = 0, k = 0;
	while (i < na && j < nb) {
		if (i + 8 < na)
			__builtin_prefetch(a[i + 8].s);
		if (j + 8 < nb)
			__builtin_prefetch(b[j + 8].s);
		out[k++] = ranked_cmp(a[i].s, b[j].s) <= 0 ? a[i++].e : b[j++].e;
	}
	while (i < na)
		out[k++] = a[i++].e;
	while (j < nb)
		out[k++] = b[j++].e;
}

struct prof_entry **profile_sorted(const struct profile *p)
{
	if (p->order) {
		struct prof_entry **out = xmalloc((p->order_n + 1) * sizeof(*out));
		for (size_t i = 0; i < p->order_n; i++)
			out[i] = &p->order[i];
		out[p->order_n] = NULL;
		return out;
	}
	struct item *v = xmalloc((p->n ? p->n : 1) * sizeof(*v));
	struct item *tmp = xmalloc((p->n ? p->n : 1) * sizeof(*tmp));
	size_t n = 0;
	for (size_t i = 0; i < p->cap; i++)
		if (p->e[i].stack)
			v[n++] = (struct item){ 0, p->e[i].stack, p->e[i].len, &p->e[i] };
	if (n > 1)
		by_address(v, tmp, n);
	free(tmp);
	struct prof_entry **out = xcalloc(n + 1, sizeof(*out));
	struct half h = { v + n / 2, n - n / 2 };
	pthread_t t;
	if (n >= PARALLEL_MIN && start_helper(&t, sort_half, &h)) {
		sort_keyed(v, n / 2, 0, 0);
		pthread_join(t, NULL);
		merge(v, n / 2, h.v, h.n, out);
	} else {
		sort_keyed(v, n, 0, 0);
		for (size_t i = 0; i < n; i++)
			out[i] = v[i].e;
	}
	free(v);
	return out;
}

void profile_sort(struct profile *p)
{
	if (p->order || !p->n)
		return;
	struct prof_entry **v = profile_sorted(p);
	size_t n = 0;
	while (v[n])
		n++;
	struct prof_entry *o = xmalloc((n ? n : 1) * sizeof(*o));
	for (size_t i = 0; i < n; i++) {
		if (i + 16 < n)
			__builtin_prefetch(v[i + 16]);   /* the table's entries lie in hash order */
		o[i] = *v[i];
	}
	free(v);
	p->order = o;
	p->order_n = n;
}
