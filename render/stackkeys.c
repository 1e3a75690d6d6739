/* Unsorted input through sorted keys (see stackkeys.h). A key is a line's frames, each
 * the number of its interned name plus one (LEB128, so no byte of it is 0 and no number
 * is the start of another), a 0 byte, then the line's count: a million lines of 700
 * bytes make about 70 MB of keys, a small part of what a tree of all their frames would take.
 * Sorting the keys bytewise puts the lines that share their first frames together, which
 * is all the walk needs: it never comes back into a frame it has left. A big regular file
 * is read in two parts at once, each into keys of its own, sorted there, then merged. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "filerange.h"
#include "framenames.h"
#include "keysort.h"
#include "lines.h"
#include "stackkeys.h"

#define KEY_BLOCK (4u << 20)                        /* keys are carved from blocks this big */
#define KEY_MAX   (FLAME_MAX_DEPTH * 5 + 1 + 10)    /* 2048 numbers, the 0, a count */
struct keys {
	struct keyrec *recs;
	size_t n, cap;
	unsigned char **blocks;
	size_t nblocks, used;                          /* USED: bytes of the last block */
	const struct name_rec **byid;                  /* interned names by number */
	size_t nids;
	/* the previous line's frames, so that those it shares are not looked up again */
	size_t prev_end[FLAME_MAX_DEPTH];              /* offset of each frame's ';' */
	uint32_t prev_id[FLAME_MAX_DEPTH];
	size_t prev_n;
	size_t cut;                                    /* lines with frames beyond FLAME_MAX_DEPTH */
	struct frame_names names;                      /* the input's frames as they stand */
};

static size_t put_num(unsigned char *out, uint64_t v)
{
	size_t n = 0;
	for (; v >= 0x80; v >>= 7)
		out[n++] = (unsigned char)(v | 0x80);
	out[n++] = (unsigned char)v;
	return n;
}

/* The number at *P, which moves past it; a corrupt key stops after 10 bytes. */
static uint64_t get_num(const unsigned char **p)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		unsigned char b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* Remembers R by its number, for reading keys back into names. */
static int know(struct keys *k, const struct name_rec *r)
{
	if (r->id >= k->nids) {
		size_t n = k->nids ? k->nids : 1024;
		while (n <= r->id)
			n *= 2;
		const struct name_rec **v = realloc(k->byid, n * sizeof(*v));
		if (!v)
			return -1;
		memset(v + k->nids, 0, (n - k->nids) * sizeof(*v));
		k->byid = v;
		k->nids = n;
	}
	k->byid[r->id] = r;
	return 0;
}

/* A copy of KEY (LEN bytes) in the blocks, and its record: 0, or -1 when out of memory. */
static int store(struct keys *k, const unsigned char *key, size_t len)
{
	if (!k->nblocks || KEY_BLOCK - k->used < len) {
		unsigned char **b = realloc(k->blocks, (k->nblocks + 1) * sizeof(*b));
		if (!b)
			return -1;
		k->blocks = b;
		if (!(b[k->nblocks] = malloc(KEY_BLOCK)))
			return -1;
		k->nblocks++;
		k->used = 0;
	}
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 4096;
		struct keyrec *r = cap < SIZE_MAX / sizeof(*r) ? realloc(k->recs, cap * sizeof(*r)) : NULL;
		if (!r)
			return -1;
		k->recs = r;
		k->cap = cap;
	}
	unsigned char *at = k->blocks[k->nblocks - 1] + k->used;
	memcpy(at, key, len);
	k->used += len;
	k->recs[k->n++] = (struct keyrec){ keysort_chunk(at, 0), at };
	return 0;
}

/* The frames of line L, by number, into K->prev_id; those it shares with the previous
 * line are taken from there. Returns how many, or -1 when out of memory. */
static long frames_of(struct keys *k, struct flame *f, const struct folded_line *l)
{
	const struct name_rec *names[FLAME_MAX_DEPTH];
	size_t n = 0;
	int cut;
	while (n < k->prev_n && k->prev_end[n] < l->same)
		n++;   /* frame n and its ';' are the same bytes in both lines */
	long got = frame_names_line(&k->names, f, l->stack, l->len, n ? k->prev_end[n - 1] + 1 : 0,
				    FLAME_MAX_DEPTH - n, names, k->prev_end + n, &cut);
	if (got < 0)
		return -1;
	for (size_t i = 0; i < (size_t)got; i++) {
		if (know(k, names[i]) < 0)
			return -1;
		k->prev_id[n + i] = names[i]->id;
	}
	n += (size_t)got;
	k->cut += (size_t)cut;   /* said at the end, as walk_line says it */
	k->prev_n = n;
	return (long)n;
}

/* Line L as a key: 0 stored, 1 no frames, -1 out of memory. */
static int add_line(struct keys *k, struct flame *f, const struct folded_line *l)
{
	unsigned char key[KEY_MAX];
	long n = frames_of(k, f, l);
	if (n <= 0)
		return n < 0 ? -1 : 1;
	size_t len = 0;
	for (long i = 0; i < n; i++)
		len += put_num(key + len, (uint64_t)k->prev_id[i] + 1);
	key[len++] = 0;
	len += put_num(key + len, l->count);
	return store(k, key, len);
}

/* Key REC back into names (at most FLAME_MAX_DEPTH) and its count: how many names. */
static size_t names_of(const struct keys *k, const struct keyrec *rec, const struct name_rec **names,
		       uint64_t *count)
{
	const unsigned char *p = rec->key;
	size_t n = 0;
	while (*p && n < FLAME_MAX_DEPTH) {
		uint64_t id = get_num(&p) - 1;
		names[n++] = id < k->nids ? k->byid[id] : NULL;
	}
	p++;   /* the 0 after the numbers */
	*count = get_num(&p);
	return n;
}

/* The sorted keys into the tree, each from where it parts from the one before. */
static int feed(struct keys *k, struct loader *ld)
{
	const struct name_rec **buf = malloc(2 * FLAME_MAX_DEPTH * sizeof(*buf));
	const struct name_rec **cur = buf, **prev = buf + (buf ? FLAME_MAX_DEPTH : 0);
	size_t nprev = 0;
	int rc = buf ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < k->n; i++) {
		uint64_t count;
		if (i + 16 < k->n)
			__builtin_prefetch(k->recs[i + 16].key);   /* keys lie in input order */
		size_t n = names_of(k, &k->recs[i], cur, &count), same = 0;
		for (size_t d = 0; d < n; d++)
			if (!cur[d])
				n = 0;   /* cannot be: every number was given to a name */
		while (same < n && same < nprev && cur[same] == prev[same])
			same++;
		rc = n ? walk_names(ld, cur, n, same, count) : -1;
		if (rc == 0 && ld->unsafe)
			rc = 1;
		const struct name_rec **t = prev;
		prev = cur;
		cur = t;
		nprev = n;
	}
	free(buf);
	return rc == 0 ? walk_finish(ld) : rc;
}

static void keys_free(struct keys *k)
{
	for (size_t i = 0; i < k->nblocks; i++)
		free(k->blocks[i]);
	free(k->blocks);
	free(k->recs);
	free(k->byid);
	frame_names_free(&k->names);
	free(k);
}

/* Every line of IN into K, its keys then sorted: 0, or -1 on a read error or lack of memory
 * (errno tells). */
static int read_keys(struct keys *k, struct flame *f, FILE *in, size_t *ignored)
{
	struct line_reader r;
	struct folded_line l;
	int rc;
	if (lines_open(&r, in, NULL, NULL) < 0) {
		errno = ENOMEM;
		return -1;
	}
	while ((rc = lines_next(&r, &l)) > 0) {
		int t = add_line(k, f, &l);
		if (t < 0) {
			rc = -1;
			break;
		}
		r.ignored += (size_t)t;
	}
	*ignored += r.ignored;
	lines_close(&r);
	return rc == 0 ? keysort(k->recs, k->n) : rc;
}

/* The sorted keys of O join K's sorted ones (both numbered from the one name table); O
 * keeps only its frames. */
static int absorb(struct keys *k, struct keys *o)
{
	size_t n = k->n + o->n;
	struct keyrec *r = n < SIZE_MAX / sizeof(*r) ? malloc((n + 1) * sizeof(*r)) : NULL;
	unsigned char **b = realloc(k->blocks, (k->nblocks + o->nblocks + 1) * sizeof(*b));
	if (b)
		k->blocks = b;
	if (!r || !b) {
		free(r);
		return -1;
	}
	keysort_merge(k->recs, k->n, o->recs, o->n, r);
	free(k->recs);
	k->recs = r;
	k->n = n;
	k->cap = n + 1;
	memcpy(b + k->nblocks, o->blocks, o->nblocks * sizeof(*b));
	k->nblocks += o->nblocks;
	k->used = KEY_BLOCK;   /* the last block may be O's: nothing more is stored */
	o->n = o->nblocks = 0;
	for (size_t i = 0; i < o->nids; i++)
		if (o->byid[i] && know(k, o->byid[i]) < 0)
			return -1;
	k->cut += o->cut;
	return 0;
}

/* A reader of one part of the file, on a thread of its own. */
struct part {
	struct keys *k;
	struct flame *f;
	FILE *in;
	size_t ignored;
	int rc;
};

static void *read_part(void *arg)
{
	struct part *p = arg;
	p->rc = read_keys(p->k, p->f, p->in, &p->ignored);
	return NULL;
}

#define SPLIT_MIN (1 << 20) /* below this, a second reader saves next to nothing */

/* Reads IN from its position in two parts at once, the second on a thread, when it is a
 * big enough regular file and there is a second CPU: K gets both parts' keys, sorted. 1
 * when it cannot be split (nothing read), else read_keys's answer. */
static int read_split(struct keys *k, struct flame *f, FILE *in, size_t *ignored)
{
	struct stat st;
	int fd = fileno(in);
	off_t at = ftello(in), cut;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || at < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size - at < SPLIT_MIN || (cut = filerange_middle_line(fd, at, st.st_size)) < 0)
		return 1;
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct keys *k2 = calloc(1, sizeof(*k2));
	FILE *first = filerange_open(fd, at, cut);
	struct part p = { k2, f, filerange_open(fd, cut, st.st_size), 0, -1 };
	int rc = -1;
	if (k2 && first && p.in) {
		pthread_t t;
		k->names.lock = k2->names.lock = &lock;
		int threaded = pthread_create(&t, NULL, read_part, &p) == 0;
		rc = read_keys(k, f, first, ignored);
		if (threaded)
			pthread_join(t, NULL);
		else
			read_part(&p);
		k->names.lock = NULL;
		*ignored += p.ignored;
		if (rc == 0 && p.rc != 0)
			rc = p.rc;
		if (rc == 0)
			rc = absorb(k, k2);
	} else {
		errno = ENOMEM;
	}
	if (first)
		fclose(first);
	if (p.in)
		fclose(p.in);
	if (k2)
		keys_free(k2);
	return rc;
}

int stackkeys_read(struct loader *ld, FILE *in, size_t *ignored)
{
	struct keys *k = calloc(1, sizeof(*k));
	if (!k) {
		errno = ENOMEM;
		return -1;
	}
	*ignored = 0;
	int rc = read_split(k, ld->f, in, ignored);
	if (rc == 1)
		rc = read_keys(k, ld->f, in, ignored);
	ld->f->cut_stacks += k->cut;
	if (rc == 0)
		rc = feed(k, ld);
	keys_free(k);
	return rc;
}
