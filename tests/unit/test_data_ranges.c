/* Unit tests for cmd/unwind/data_ranges.c: which mappings may hold data, the slack for their
 * growth, the brk heap's place before it is mapped, and the joining of ranges that do not fit
 * (the answer only ever widens); and the same on our own live maps, where a malloc'd object
 * is inside and a number is not. Which
 * mappings are threads' stacks, exactly, and our own threads' stacks among them. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "data_ranges.h"

#define MB (1ULL << 20)

static struct mapping map(uint64_t start, uint64_t end, const char *perms, const char *path)
{
	char line[256];
	struct mapping m;
	snprintf(line, sizeof(line), "%llx-%llx %s 00000000 00:00 0 %s\n", (unsigned long long)start,
		 (unsigned long long)end, perms, path);
	if (proc_parse_maps_line(line, &m))
		abort();
	return m;
}

static int covers(const struct lf_range *r, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (addr >= r[i].lo && addr < r[i].hi)
			return 1;
	return 0;
}

static void keeps_data_not_code(void)
{
	struct mapping m[] = {
		map(0x555500000000ULL, 0x555500010000ULL, "r-xp", "/usr/bin/lua5.4"),
		map(0x555501000000ULL, 0x555501021000ULL, "rw-p", "[heap]"),
		map(0x7f0000000000ULL, 0x7f0004000000ULL, "---p", ""),          /* an arena's reserve */
		map(0x7f1000000000ULL, 0x7f1000100000ULL, "r--p", "/usr/lib/libc.so.6"),
		map(0x7ffff7fc0000ULL, 0x7ffff7fc4000ULL, "r--p", "[vvar]"),
		map(0x7ffffffde000ULL, 0x7ffffffff000ULL, "rw-p", "[stack]"),
	};
	struct proc_maps pm = { m, sizeof(m) / sizeof(m[0]) };
	struct lf_range r[16];
	size_t n = data_ranges(&pm, 0, r, 16);
	CHECK_INT(n, 3);
	CHECK(covers(r, n, 0x555501000100ULL));
	CHECK(covers(r, n, 0x555501021000ULL + 8 * MB));  /* the heap's growth */
	CHECK(covers(r, n, 0x7f0000000000ULL - 8 * MB));  /* a neighbour mapped below */
	CHECK(covers(r, n, 0x7f0003fff000ULL));
	CHECK(!covers(r, n, 0x7f1000000040ULL));            /* read-only file data */
	CHECK(!covers(r, n, 0x7ffff7fc0000ULL - DATA_RANGE_SLACK - 8)); /* nothing near */
	CHECK(!covers(r, n, 0xa1b8));
	CHECK(!covers(r, n, 0x7ffffc50));
	for (size_t i = 0; i + 1 < n; i++)
		CHECK(r[i].hi < r[i + 1].lo);
	for (size_t i = 0; i < pm.n; i++)
		free(m[i].path);
}

static void joins_closest_when_full(void)
{
	struct mapping m[6];
	uint64_t at[6] = { 1ULL << 32, 2ULL << 32, 2ULL << 32 | 1ULL << 28, 5ULL << 32, 9ULL << 32, 10ULL << 32 };
	for (int i = 0; i < 6; i++)
		m[i] = map(at[i], at[i] + 4096, "rw-p", "");
	struct proc_maps pm = { m, 6 };
	struct lf_range r[4], one[1];
	size_t n = data_ranges(&pm, 0, r, 4);
	CHECK_INT(n, 4);
	for (int i = 0; i < 6; i++)
		CHECK(covers(r, n, at[i] + 64));
	CHECK(!covers(r, n, 7ULL << 32)); /* the widest gap stays out */
	CHECK_INT(data_ranges(&pm, 0, one, 1), 1);
	CHECK(one[0].lo <= at[0] && one[0].hi >= at[5] + 4096);
	CHECK_INT(data_ranges(&pm, 0, one, 0), 0);
	for (int i = 0; i < 6; i++)
		free(m[i].path);
}

/* A program's maps read before it made its heap: the heap's place counts as data, in order
 * among the mappings' ranges, however many mappings lie above and below it. */
static void heap_not_mapped_yet(void)
{
	uint64_t brk = 0x555503000000ULL; /* 48 MB above the program's data */
	struct mapping m[] = {
		map(0x555500000000ULL, 0x555500010000ULL, "r-xp", "/usr/bin/lua5.4"),
		map(0x555500020000ULL, 0x555500021000ULL, "rw-p", "/usr/bin/lua5.4"),
		map(0x7f0000000000ULL, 0x7f0000001000ULL, "rw-p", ""),
		map(0x7ffffffde000ULL, 0x7ffffffff000ULL, "rw-p", "[stack]"),
	};
	struct proc_maps pm = { m, sizeof(m) / sizeof(m[0]) };
	struct lf_range r[16];
	size_t n = data_ranges(&pm, 0, r, 16);
	CHECK(!covers(r, n, brk + 4096));
	n = data_ranges(&pm, brk, r, 16);
	CHECK_INT(n, 4);
	CHECK(covers(r, n, brk + 4096));
	CHECK(covers(r, n, brk + DATA_RANGE_SLACK - 8));
	CHECK(!covers(r, n, brk - DATA_RANGE_SLACK));
	CHECK(covers(r, n, 0x555500020100ULL));
	for (size_t i = 0; i + 1 < n; i++)
		CHECK(r[i].hi < r[i + 1].lo);
	struct lf_range two[2];
	CHECK_INT(data_ranges(&pm, brk, two, 2), 2); /* joined: still covered */
	CHECK(covers(two, 2, brk + 4096) && covers(two, 2, 0x7f0000000100ULL));
	CHECK(two[0].hi < two[1].lo);
	struct proc_maps below = { m, 3 }; /* without the stack: brk above every mapping, last */
	CHECK_INT(data_ranges(&below, 0x7f1000000000ULL, r, 16), 3);
	CHECK(covers(r, 3, 0x7f1000000100ULL) && r[1].hi < r[2].lo);
	for (size_t i = 0; i < pm.n; i++)
		free(m[i].path);
}

static void our_own_heap_is_data(void)
{
	struct proc_maps pm;
	CHECK_INT(proc_read_maps(getpid(), &pm), 0);
	struct lf_range r[LF_MAX_DATA];
	uint64_t brk = proc_start_brk(getpid());
	const struct mapping *heap = proc_maps_find(&pm, brk);
#ifdef __x86_64__
	CHECK(brk != 0); /* the aarch64 build's tests run under qemu-user, whose /proc/self/stat has none */
#endif
	CHECK(!brk || (heap && heap->start == brk)); /* where our [heap] starts */
	size_t n = data_ranges(&pm, brk, r, LF_MAX_DATA);
	void *small = malloc(64), *big = malloc(4 * MB);
	CHECK(covers(r, n, (uint64_t)(uintptr_t)small));
	CHECK(covers(r, n, (uint64_t)(uintptr_t)big));
	CHECK(!covers(r, n, 0x7ffffc50)); /* far from everything mapped */
	free(small);
	free(big);
	proc_maps_free(&pm);
}

static int same_range(const struct lf_range *r, const struct mapping *m)
{
	return r->lo == m->start && r->hi == m->end;
}

static void stacks_exactly(void)
{
	struct mapping m[] = {
		map(0x555501000000ULL, 0x555501021000ULL, "rw-p", "[heap]"),
		map(0x7f0000000000ULL, 0x7f0000001000ULL, "---p", ""),          /* a thread's guard */
		map(0x7f0000001000ULL, 0x7f0000801000ULL, "rw-p", ""),          /* ... and its stack */
		map(0x7f0010000000ULL, 0x7f0010100000ULL, "rw-p", ""),          /* an arena */
		map(0x7f0010100000ULL, 0x7f0014000000ULL, "---p", ""),          /* ... and its reserve */
		map(0x7f0020000000ULL, 0x7f0020001000ULL, "---p", ""),          /* a guard with a gap */
		map(0x7f0020002000ULL, 0x7f0020004000ULL, "rw-p", ""),
		map(0x7f0030000000ULL, 0x7f0030001000ULL, "---p", ""),
		map(0x7f0030001000ULL, 0x7f0030002000ULL, "rw-s", "/dev/shm/x"), /* shared file data */
		map(0x7ffffffde000ULL, 0x7ffffffff000ULL, "rw-p", "[stack]"),
	};
	struct proc_maps pm = { m, sizeof(m) / sizeof(m[0]) };
	struct lf_range r[8], one[1];
	CHECK_INT(stack_ranges(&pm, r, 8), 2);
	CHECK(same_range(&r[0], &m[2]));
	CHECK(same_range(&r[1], &m[9]));
	/* full: the main thread's stack keeps the last place */
	CHECK_INT(stack_ranges(&pm, one, 1), 1);
	CHECK(same_range(&one[0], &m[9]));
	CHECK_INT(stack_ranges(&pm, one, 0), 0);
	for (size_t i = 0; i < pm.n; i++)
		free(m[i].path);
}

static void *thread_sp(void *arg)
{
	volatile uint64_t here = 0;
	*(uint64_t *)arg = (uint64_t)(uintptr_t)&here;
	return NULL;
}

static void our_own_stacks(void)
{
	volatile uint64_t here = 0, there = 0;
	pthread_t t;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setguardsize(&a, 4096);
	CHECK_INT(pthread_create(&t, &a, thread_sp, (void *)&there), 0);
	struct proc_maps pm;
	CHECK_INT(proc_read_maps(getpid(), &pm), 0); /* while the thread's stack is mapped */
	pthread_join(t, NULL);
	struct lf_range r[LF_MAX_STACKS];
	size_t n = stack_ranges(&pm, r, LF_MAX_STACKS);
	CHECK(covers(r, n, (uint64_t)(uintptr_t)&here));
	CHECK(covers(r, n, there));
	void *heap = malloc(64);
	CHECK(!covers(r, n, (uint64_t)(uintptr_t)heap));
	free(heap);
	pthread_attr_destroy(&a);
	proc_maps_free(&pm);
}

int main(void)
{
	RUN(stacks_exactly);
	RUN(our_own_stacks);
	RUN(keeps_data_not_code);
	RUN(joins_closest_when_full);
	RUN(heap_not_mapped_yet);
	RUN(our_own_heap_is_data);
	CHECK_EXIT();
}
