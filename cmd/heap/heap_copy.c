/* The heap snapshot's pause: every thread of the target held with PTRACE_SEIZE and
 * PTRACE_INTERRUPT (no signal is sent, and the kernel releases the threads if lua-flame dies,
 * SIGKILL included), its readable and writable mappings copied in big process_vm_readv reads,
 * then the threads released. Nothing is ever written to the target. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "heap_copy.h"
#include "proc.h"
#include "short_copy.h"
#include "util.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14; musl's headers may not have it */
#endif

#define MAX_THREADS 4096
#define CHUNK (64u << 20)              /* bytes per process_vm_readv */
#define MAX_COPY (64ULL << 30)         /* never more than this much of a target */

struct held { pid_t tid[MAX_THREADS]; int stopped[MAX_THREADS]; int n; };

static int held_has(const struct held *h, pid_t tid)
{
	for (int i = 0; i < h->n; i++)
		if (h->tid[i] == tid)
			return 1;
	return 0;
}

/* Seizes and interrupts the threads of pid not yet held; returns how many were new, or -1
 * with errno when pid itself could not be seized. */
static int seize_new(pid_t pid, struct held *h)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int fresh = 0, err = 0;
	struct dirent *e;
	while ((e = readdir(d)) && h->n < MAX_THREADS) {
		pid_t tid = (pid_t)atoi(e->d_name);
		if (tid <= 0 || held_has(h, tid))
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0, 0)) {
			if (tid == pid)
				err = errno;
			continue;   /* a thread that just exited */
		}
		h->tid[h->n++] = tid;
		ptrace(PTRACE_INTERRUPT, tid, 0, 0);
		fresh++;
	}
	closedir(d);
	if (err && !held_has(h, pid)) {
		errno = err;
		return -1;
	}
	return fresh;
}

/* Waits until every held thread stopped (or exited), up to the deadline: 0, or -1. */
static int wait_stopped(struct held *h, double deadline)
{
	for (;;) {
		int left = 0;
		for (int i = 0; i < h->n; i++) {
			if (h->stopped[i])
				continue;
			int st;
			pid_t r = waitpid(h->tid[i], &st, __WALL | WNOHANG);
			if (r == h->tid[i] || (r < 0 && errno == ECHILD))
				h->stopped[i] = r == h->tid[i] && WIFSTOPPED(st) ? 1 : -1;
			else
				left++;
		}
		if (!left)
			return 0;
		if (now_sec() > deadline)
			return -1;
		nanosleep(&(struct timespec){ 0, 200000 }, NULL);
	}
}

static void release(struct held *h)
{
	for (int i = 0; i < h->n; i++)
		if (h->stopped[i] == 1)
			ptrace(PTRACE_DETACH, h->tid[i], 0, 0);
	/* a thread that never stopped stays seized until lua-flame exits, which releases it */
}

/* Holds every thread, those started while the first were being held included. */
static int hold_all(pid_t pid, struct held *h, double deadline)
{
	for (int pass = 0; pass < 16; pass++) {
		int fresh = seize_new(pid, h);
		if (fresh < 0)
			return -1;
		if (wait_stopped(h, deadline))
			return -2;
		if (!fresh)
			return 0;
	}
	return 0;
}

static int copyable(const struct mapping *m)
{
	if (!m->readable || !m->writable || m->end <= m->start)
		return 0;
	return !m->path || (strcmp(m->path, "[vvar]") && strcmp(m->path, "[vsyscall]") &&
			    strncmp(m->path, "/dev/", 5));
}

/* Copies [start, end) of pid into r->data; a part that cannot be read (a page gone since the
 * maps were read) is left zero and counted in *unread. Returns -1 past the deadline. */
static int copy_region(pid_t pid, struct heap_region *r, double deadline, uint64_t *unread)
{
	uint64_t off = 0, len = r->end - r->start;
	while (off < len) {
		size_t n = len - off > CHUNK ? CHUNK : (size_t)(len - off);
		struct iovec local = { r->data + off, n };
		struct iovec remote = { (void *)(uintptr_t)(r->start + off), n };
		ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (got <= 0) {
			got = 4096;   /* skip the page that failed */
			*unread += (uint64_t)(n < 4096 ? n : 4096);
		}
		off += (uint64_t)got;
		if (now_sec() > deadline)
			return -5;
	}
	return 0;
}

/* Faults in [p, p + len) writable, so that the copy into it is the reads alone. */
static void populate(unsigned char *p, size_t len)
{
	if (len && madvise(p, len, MADV_POPULATE_WRITE))
		for (size_t off = 0; off < len; off += 4096)   /* a kernel before 5.14 */
			((volatile unsigned char *)p)[off] = 0;
}

/* On huge pages where the kernel has them: the walk reads objects all over the copy, and
 * with small pages nearly every object read is a miss in the TLB as well as in the cache. */
static unsigned char *buffer(size_t len, int populated)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, len, MADV_HUGEPAGE);   /* a hint: fine if refused */
	if (populated)
		populate(p, len);
	return p;
}

/* The buffers made ready before the pause, the later half of each by a second thread: the
 * kernel zeroes every page it hands out, about as long as the rest of the snapshot's copy. */
struct halves { struct heap_region *r; size_t n; };

static size_t half_of(const struct heap_region *r)
{
	size_t len = (size_t)(r->end - r->start), mid = len / 2;
	uintptr_t a = ((uintptr_t)r->data + mid) & ~(((uintptr_t)2 << 20) - 1);   /* a huge page's start */
	return a > (uintptr_t)r->data ? (size_t)(a - (uintptr_t)r->data) : mid & ~(size_t)4095;
}

static void *populate_later_halves(void *arg)
{
	const struct halves *h = arg;
	for (size_t i = 0; i < h->n; i++)
		if (h->r[i].data) {
			size_t mid = half_of(&h->r[i]);
			populate(h->r[i].data + mid, (size_t)(h->r[i].end - h->r[i].start) - mid);
		}
	return NULL;
}

static void populate_all(struct heap_region *r, size_t n)
{
	struct halves h = { r, n };
	pthread_t t;
	int threaded = !pthread_create(&t, NULL, populate_later_halves, &h);
	for (size_t i = 0; i < n; i++)
		if (r[i].data)
			populate(r[i].data, threaded ? half_of(&r[i]) : (size_t)(r[i].end - r[i].start));
	if (threaded)
		pthread_join(t, NULL);
}

/* Buffers for the mappings there are now, their pages touched before the target is held: the
 * copy's pause is then the reads alone. A mapping that moved or grew meanwhile gets a new one. */
static void prepare(pid_t pid, struct heap_copy *c)
{
	struct proc_maps pm;
	uint64_t total = 0;
	if (proc_read_maps(pid, &pm))
		return;
	c->pre = xcalloc(pm.n ? pm.n : 1, sizeof(*c->pre));
	for (size_t i = 0; i < pm.n; i++) {
		const struct mapping *m = &pm.m[i];
		if (!copyable(m) || (total += m->end - m->start) > MAX_COPY)
			continue;
		struct heap_region *r = &c->pre[c->npre];
		*r = (struct heap_region){ m->start, m->end, buffer(m->end - m->start, 0) };
		c->npre += r->data != NULL;
	}
	proc_maps_free(&pm);
	populate_all(c->pre, c->npre);
}

static unsigned char *take_buffer(struct heap_copy *c, const struct mapping *m)
{
	for (size_t i = 0; i < c->npre; i++) {
		struct heap_region *r = &c->pre[i];
		if (r->data && r->start == m->start && r->end == m->end) {
			unsigned char *d = r->data;
			r->data = NULL;
			return d;
		}
	}
	return buffer(m->end - m->start, 0);
}

static void drop_prepared(struct heap_copy *c)
{
	for (size_t i = 0; i < c->npre; i++)
		if (c->pre[i].data)
			munmap(c->pre[i].data, c->pre[i].end - c->pre[i].start);
	free(c->pre);
	c->pre = NULL;
	c->npre = 0;
}

static int copy_maps(pid_t pid, struct heap_copy *c, double deadline)
{
	struct proc_maps pm;
	if (proc_read_maps(pid, &pm))
		return -4;
	c->r = xcalloc(pm.n ? pm.n : 1, sizeof(*c->r));
	c->last = xcalloc(1, sizeof(*c->last));
	int rc = 0;
	for (size_t i = 0; i < pm.n && !rc; i++) {
		const struct mapping *m = &pm.m[i];
		if (!copyable(m))
			continue;
		if (c->bytes + (m->end - m->start) > MAX_COPY) {
			rc = -3;
			break;
		}
		struct heap_region *r = &c->r[c->n];
		r->start = m->start;
		r->end = m->end;
		r->data = take_buffer(c, m);
		if (!r->data) {
			rc = -3;
			break;
		}
		c->n++;
		c->bytes += m->end - m->start;
		rc = copy_region(pid, r, deadline, &c->unread);
	}
	proc_maps_free(&pm);
	return rc;
}

static int say_hold_failed(pid_t pid, int err)
{
	if (err == ESRCH || err == ENOENT)
		warnx_lf("PID %d: no such process", (int)pid);
	else if (err == EPERM)
		warnx_lf("PID %d: not permitted to hold it with ptrace (%s): run lua-flame as root, and check "
			 "that no debugger is attached to it already", (int)pid, strerror(err));
	else
		warnx_lf("PID %d: cannot hold its threads with ptrace: %s", (int)pid, strerror(err));
	return 2;
}

int heap_copy_take(pid_t pid, double max_pause, struct heap_copy *c)
{
	static struct held h;
	memset(&h, 0, sizeof(h));
	memset(c, 0, sizeof(*c));
	prepare(pid, c);
	double t0 = now_sec(), deadline = t0 + max_pause;
	int rc = hold_all(pid, &h, deadline);
	int err = errno;
	if (rc == 0)
		rc = copy_maps(pid, c, deadline);
	release(&h);
	c->pause = now_sec() - t0;
	drop_prepared(c);
	c->threads = h.n;
	if (rc == -1)
		return say_hold_failed(pid, err);
	if (rc == -4)
		warnx_lf("PID %d: reading /proc/%d/maps failed: did it exit?", (int)pid, (int)pid);
	else if (rc == -2)
		warnx_lf("PID %d: some of its %d threads did not stop within --max-pause %.3g s (one in the "
			 "kernel, or traced by another debugger); it was released: retry, or raise --max-pause",
			 (int)pid, h.n, max_pause);
	else if (rc == -3)
		warnx_lf("PID %d: its writable memory is too large to copy (%.1f GB so far, the limit is %llu GB); "
			 "it was released", (int)pid, (double)c->bytes / 1e9, (unsigned long long)(MAX_COPY >> 30));
	else if (rc < 0)
		warnx_lf("PID %d: copying its %.1f MB of memory took longer than --max-pause %.3g s; it was "
			 "released: raise --max-pause (the target stays stopped that long) or retry when it is "
			 "less busy", (int)pid, (double)c->bytes / 1e6, max_pause);
	return rc ? 1 : 0;
}

void heap_copy_free(struct heap_copy *c)
{
	for (size_t i = 0; i < c->n; i++)
		munmap(c->r[i].data, c->r[i].end - c->r[i].start);
	free(c->r);
	free(c->last);
	memset(c, 0, sizeof(*c));
}

static size_t region_of(const struct heap_copy *c, uint64_t addr)
{
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->r[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const void *heap_at(const struct heap_copy *c, uint64_t addr, size_t len)
{
	size_t k = c->last ? *c->last : c->n;
	if (k >= c->n || addr < c->r[k].start || addr >= c->r[k].end) {
		k = region_of(c, addr);
		if (k == c->n || addr < c->r[k].start)
			return NULL;
		if (c->last)
			*c->last = k;
	}
	if (len > c->r[k].end - addr)
		return NULL;
	return c->r[k].data + (addr - c->r[k].start);
}

uint64_t heap_checked_size(const struct heap_copy *c, uint64_t addr, uint64_t size, int one_block, uint64_t *bad)
{
	if (size <= c->bytes && (!one_block || heap_at(c, addr, size)))
		return size;
	(*bad)++;
	return 0;
}

#define HEAP_READ(name, type)                                         \
	type name(const struct heap_copy *c, uint64_t addr)           \
	{                                                             \
		type v = 0;                                           \
		const void *p = heap_at(c, addr, sizeof(v));          \
		if (p)                                                \
			memcpy(&v, p, sizeof(v));                     \
		return v;                                             \
	}
HEAP_READ(heap_u64, uint64_t)
HEAP_READ(heap_u32, uint32_t)
HEAP_READ(heap_u16, uint16_t)
HEAP_READ(heap_u8, uint8_t)

long heap_copy_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const void *p = heap_at(ctx, addr, len);
	if (!p)
		return -1;
	short_copy(buf, p, len);
	return (long)len;
}
