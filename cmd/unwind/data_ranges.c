/* The ranges of a process's address space that may hold its data, built from its maps for
 * the BPF side's pointer checks: merged, widened by a slack for growth, and joined where
 * they would not fit. */
#include <string.h>
#include "data_ranges.h"

/* Writable mappings hold data; anonymous ones without access are reservations that an
 * allocator (glibc's per-thread arenas, LuaJIT's) turns writable piece by piece. Code,
 * read-only file data and the kernel's special mappings ([vvar], [vdso]) never hold a VM. */
static int may_hold_data(const struct mapping *m)
{
	if (m->exec)
		return 0;
	if (m->writable)
		return 1;
	return !m->path[0] || !strncmp(m->path, "[anon", 5) || !strcmp(m->path, "[heap]");
}

/* Adds [lo, hi) after the ranges so far (maps come sorted), joining an overlapping one. */
static size_t add_range(struct lf_range *r, size_t n, uint64_t lo, uint64_t hi)
{
	if (n && lo <= r[n - 1].hi) {
		if (hi > r[n - 1].hi)
			r[n - 1].hi = hi;
		return n;
	}
	r[n].lo = lo;
	r[n].hi = hi;
	return n + 1;
}

/* Joins the two neighbours with the smallest gap between them. */
static size_t join_closest(struct lf_range *r, size_t n)
{
	size_t best = 0;
	for (size_t i = 1; i + 1 < n; i++)
		if (r[i + 1].lo - r[i].hi < r[best + 1].lo - r[best].hi)
			best = i;
	r[best].hi = r[best + 1].hi;
	memmove(&r[best + 1], &r[best + 2], (n - best - 2) * sizeof(*r));
	return n - 1;
}

/* Adds [lo, hi) to the n ranges of out (lo no lower than theirs), over max by joining. */
static size_t add_capped(struct lf_range *out, size_t n, size_t max, uint64_t lo, uint64_t hi)
{
	if (n == max && n > 1)
		n = join_closest(out, n);
	if (n == max) { /* max 1: one range over everything */
		out[0].hi = hi > out[0].hi ? hi : out[0].hi;
		return n;
	}
	return add_range(out, n, lo, hi);
}

size_t data_ranges(const struct proc_maps *pm, uint64_t brk, struct lf_range *out, size_t max)
{
	size_t n = 0;
	if (!max)
		return 0;
	for (size_t i = 0; i < pm->n; i++) {
		const struct mapping *m = &pm->m[i];
		if (!may_hold_data(m))
			continue;
		uint64_t lo = m->start > DATA_RANGE_SLACK ? m->start - DATA_RANGE_SLACK : 0;
		if (brk && brk < lo) { /* in order: the heap's place before the mappings above it */
			n = add_capped(out, n, max, brk, brk + DATA_RANGE_SLACK);
			brk = 0;
		}
		n = add_capped(out, n, max, lo, m->end + DATA_RANGE_SLACK);
	}
	if (brk)
		n = add_capped(out, n, max, brk, brk + DATA_RANGE_SLACK);
	return n;
}

static int is_thread_stack(const struct proc_maps *pm, size_t i)
{
	const struct mapping *m = &pm->m[i], *below = i ? &pm->m[i - 1] : NULL;
	if (!strcmp(m->path, "[stack]"))
		return 1;
	return !m->path[0] && m->writable && !m->exec && below && below->end == m->start &&
	       !below->readable && !below->writable && !below->exec;
}

size_t stack_ranges(const struct proc_maps *pm, struct lf_range *out, size_t max)
{
	size_t n = 0;
	if (!max)
		return 0;
	for (size_t i = 0; i < pm->n; i++) {
		if (!is_thread_stack(pm, i))
			continue;
		/* past max, only the main thread's stack (the last of them) takes the last place */
		if (n == max && strcmp(pm->m[i].path, "[stack]"))
			continue;
		if (n == max)
			n--;
		out[n].lo = pm->m[i].start;
		out[n].hi = pm->m[i].end;
		n++;
	}
	return n;
}
