/* Walks over a target's memory for the runtime finders: its mapped executable files (to
 * recognise a runtime in one) and its heap and anonymous memory in overlapping chunks (to
 * find a VM's state block). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "proc_scan.h"
#include "util.h"

#define SCAN_CHUNK (1 << 20)

/* The scores match gave to files lately, by (dev, inode) as the unwind tables know files:
 * the processes of one program (nginx's workers) map the same files, and a file's symbols
 * and read-only data are read once for all of them, not once per process. */
struct file_score {
	file_match match;
	uint64_t dev, inode;
	int score;
};
#define SCORES 256
static struct file_score scores[SCORES];
static size_t nscores, next_score;
static pthread_mutex_t scores_lock = PTHREAD_MUTEX_INITIALIZER;

static void remember(const struct file_score *f)
{
	pthread_mutex_lock(&scores_lock);
	scores[next_score] = *f;
	next_score = (next_score + 1) % SCORES;
	nscores += nscores < SCORES;
	pthread_mutex_unlock(&scores_lock);
}

/* match's score for m, remembered; *read set when the file was read for it (ctx says what
 * it found), not when the score was known already. */
static int score_of(pid_t pid, const struct mapping *m, file_match match, void *ctx, int *read)
{
	int score = -1;
	pthread_mutex_lock(&scores_lock);
	for (size_t i = 0; i < nscores && score < 0; i++)
		if (scores[i].match == match && scores[i].dev == m->dev && scores[i].inode == m->inode)
			score = scores[i].score;
	pthread_mutex_unlock(&scores_lock);
	*read = score < 0;
	if (score >= 0)
		return score;
	score = match(pid, m, ctx);
	if (score < 0)
		return 0; /* unread, not a verdict */
	remember(&(struct file_score){ match, m->dev, m->inode, score });
	return score;
}

int proc_scores_send(int fd)
{
	pthread_mutex_lock(&scores_lock);
	uint64_t n = nscores;
	int rc = write_all(fd, &n, sizeof(n)) || write_all(fd, scores, n * sizeof(*scores)) ? -1 : 0;
	pthread_mutex_unlock(&scores_lock);
	return rc;
}

/* The match functions are the same in the sender, a child of this process. */
int proc_scores_take(int fd)
{
	uint64_t n;
	struct file_score got[SCORES];
	if (read_all(fd, &n, sizeof(n)) || n > SCORES || read_all(fd, got, n * sizeof(*got)))
		return -1;
	for (uint64_t i = 0; i < n; i++)
		remember(&got[i]);
	return 0;
}

int proc_find_file(pid_t pid, file_match match, void *ctx, struct mapping *found)
{
	struct proc_maps pm;
	if (proc_read_maps(pid, &pm))
		return -1;
	const struct mapping *best = NULL, *last = NULL;
	int best_score = 0, read;
	for (size_t i = 0; i < pm.n; i++) {
		const struct mapping *m = &pm.m[i];
		if (!m->exec || m->path[0] != '/' || (best && best->inode == m->inode && best->dev == m->dev))
			continue;
		int score = score_of(pid, m, match, ctx, &read);
		if (read)
			last = m;
		if (score > best_score)
			best = m, best_score = score;
	}
	/* ctx holds what the last file read said: let the winner say it */
	if (best && best != last)
		match(pid, best, ctx);
	if (best) {
		*found = *best;
		found->path = xstrdup(best->path);
	}
	proc_maps_free(&pm);
	return best ? 0 : -1;
}

static int is_heap(const struct mapping *m)
{
	return !strcmp(m->path, "[heap]");
}

static const struct mapping *heap_of(const struct proc_maps *pm)
{
	for (size_t i = 0; i < pm->n; i++)
		if (is_heap(&pm->m[i]))
			return &pm->m[i];
	return NULL;
}

/* Writable private memory without a file: the heap and anonymous mappings. */
static int scannable(const struct mapping *m)
{
	return m->writable && !m->exec && (m->path[0] == 0 || is_heap(m));
}

uint64_t proc_scan_memory(pid_t pid, size_t overlap, uint64_t max_bytes, const int *found,
			  int (*chunk)(uint64_t base, const unsigned char *buf, size_t len, void *ctx), void *ctx)
{
	struct proc_maps pm;
	if (proc_read_maps(pid, &pm))
		return 0;
	unsigned char *buf = xmalloc(SCAN_CHUNK + overlap);
	uint64_t scanned = 0;
	int done = 0;
	/* The oldest blocks first, where a VM's state is made at start-up: the brk heap from its
	 * start, then the anonymous mappings from the top down (mmap hands out addresses
	 * downwards, and LuaJIT's allocator takes its memory so). */
	for (size_t k = 0; k <= pm.n && !done; k++) {
		const struct mapping *m = k == 0 ? heap_of(&pm) : &pm.m[pm.n - k];
		if (!m || !scannable(m) || (k > 0 && is_heap(m)))
			continue;
		for (uint64_t a = m->start; a < m->end && scanned < max_bytes && !done; a += SCAN_CHUNK) {
			size_t want = m->end - a < SCAN_CHUNK + overlap ? (size_t)(m->end - a) : SCAN_CHUNK + overlap;
			ssize_t got = proc_read_mem(pid, a, buf, want);
			if (got <= 0)
				continue;
			scanned += (uint64_t)got;
			done = chunk(a, buf, (size_t)got, ctx) || (found && *found && scanned >= SCAN_QUICK);
		}
	}
	free(buf);
	proc_maps_free(&pm);
	return scanned;
}
