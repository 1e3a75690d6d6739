/* Reader for folded stacks ("root;...;leaf COUNT" per line), as written by lua-flame,
 * stackcollapse-perf.pl or py-spy --format raw. Any line that is not that shape is
 * skipped and counted; lines are capped so binary junk cannot exhaust memory.
 * Identical stacks are summed in a staging table first: walking the tree costs a cache
 * miss per frame, hashing a whole line is cheap, and big files repeat their stacks. */
#include <stdlib.h>
#include <string.h>
#include "tree.h"

#define STAGE_MAX_BYTES (64u << 20)   /* staged stack text before it goes into the tree */

#define LINE_MAX_BYTES (1u << 20)
#define READ_CHUNK     (1u << 20)
#define COUNT_MAX      1000000000000000ull   /* 1e15: totals stay exact in a double */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Parses the trailing count of LINE[0..*LEN); on success shortens *LEN to the stack. */
static int split_count(const char *line, size_t *len, uint64_t *count)
{
	size_t n = *len, end, start;
	while (n && is_space(line[n - 1]))
		n--;
	end = n;
	while (n && line[n - 1] >= '0' && line[n - 1] <= '9')
		n--;
	start = n;
	if (start == end || end - start > 16 || start == 0 || !is_space(line[start - 1]))
		return -1;
	uint64_t v = 0;
	for (size_t i = start; i < end; i++)
		v = v * 10 + (uint64_t)(line[i] - '0');
	if (v > COUNT_MAX)
		return -1;
	while (n && is_space(line[n - 1]))
		n--;
	*len = n;
	*count = v;
	return 0;
}

struct staged {
	uint64_t count;
	size_t len;
	char bytes[];
};

struct stage_slot {
	uint64_t hash;
	struct staged *e;
};

struct stage {
	struct arena arena;
	struct stage_slot *slots;
	size_t nslots, n;
	size_t ignored;   /* stacks that turned out to have no frames */
};

static uint64_t hash_line(const char *s, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ len;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xFF51AFD7ED558CCDull;
		h ^= h >> 32;
	}
	if (i < len) {
		uint64_t w = 0;
		memcpy(&w, s + i, len - i);
		h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
	}
	h ^= h >> 29;
	return h * 0xBF58476D1CE4E5B9ull ^ (h >> 31);
}

/* Moves every staged stack into the tree and empties the stage. */
static int stage_flush(struct stage *st, struct flame *f)
{
	int rc = 0;
	for (size_t i = 0; i < st->nslots && rc == 0; i++) {
		struct staged *e = st->slots[i].e;
		if (!e)
			continue;
		int t = flame_add_stack(f, e->bytes, e->len, e->count);
		if (t < 0)
			rc = -1;
		else
			st->ignored += (size_t)t;
	}
	arena_free(&st->arena);
	if (st->slots)
		memset(st->slots, 0, st->nslots * sizeof(*st->slots));
	st->n = 0;
	return rc;
}

static int stage_grow(struct stage *st)
{
	size_t n = st->nslots ? st->nslots * 2 : 1u << 14;
	struct stage_slot *s = calloc(n, sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; i < st->nslots; i++) {
		if (!st->slots[i].e)
			continue;
		size_t j = st->slots[i].hash & (n - 1);
		while (s[j].e)
			j = (j + 1) & (n - 1);
		s[j] = st->slots[i];
	}
	free(st->slots);
	st->slots = s;
	st->nslots = n;
	return 0;
}

static int stage_add(struct stage *st, struct flame *f, const char *stack, size_t len, uint64_t count)
{
	if (st->arena.total > STAGE_MAX_BYTES && stage_flush(st, f) < 0)
		return -1;
	if ((st->n + 1) * 2 > st->nslots && stage_grow(st) < 0)
		return -1;
	uint64_t h = hash_line(stack, len);
	size_t j = h & (st->nslots - 1);
	for (; st->slots[j].e; j = (j + 1) & (st->nslots - 1)) {
		struct staged *e = st->slots[j].e;
		if (st->slots[j].hash == h && e->len == len && !memcmp(e->bytes, stack, len)) {
			e->count = sat_add(e->count, count);
			return 0;
		}
	}
	struct staged *e = arena_alloc(&st->arena, sizeof(*e) + len + 1);
	if (!e)
		return -1;
	e->count = count;
	e->len = len;
	memcpy(e->bytes, stack, len);
	st->slots[j] = (struct stage_slot){ h, e };
	st->n++;
	return 0;
}

/* 0 used or skipped as empty-count, 1 ignored, -1 out of memory */
static int take_line(struct stage *st, struct flame *f, const char *line, size_t len)
{
	uint64_t count;
	if (split_count(line, &len, &count) < 0)
		return 1;
	if (count == 0)
		return 0;
	size_t semis = 0;
	while (semis < len && line[semis] == ';')
		semis++;
	if (semis == len)
		return 1;   /* no frames at all */
	return stage_add(st, f, line, len, count);
}

struct reader {
	FILE *in;
	char *buf;
	size_t start, end;
	int eof, skipping;
};

/* Makes room and reads more. Returns 0, or -1 on a read error. */
static int refill(struct reader *r)
{
	if (r->start) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	size_t got = fread(r->buf + r->end, 1, LINE_MAX_BYTES + READ_CHUNK - r->end, r->in);
	r->end += got;
	if (got == 0) {
		if (ferror(r->in))
			return -1;
		r->eof = 1;
	}
	return 0;
}

int flame_read_folded(struct flame *f, FILE *in, size_t *ignored_lines)
{
	struct reader r = { .in = in };
	struct stage st = { 0 };
	size_t ignored = 0;
	int rc = 0;
	if (!f || !in)
		return -1;
	r.buf = malloc(LINE_MAX_BYTES + READ_CHUNK);
	if (!r.buf)
		return -1;
	for (;;) {
		char *s = r.buf + r.start;
		char *nl = memchr(s, '\n', r.end - r.start);
		size_t len = nl ? (size_t)(nl - s) : r.end - r.start;
		if (!nl && !r.eof && len < LINE_MAX_BYTES) {
			if (refill(&r) < 0) { rc = -1; break; }
			continue;
		}
		if (!nl && !r.eof) {
			/* over-long line: drop what we have and keep dropping up to its newline */
			if (!r.skipping)
				ignored++;
			r.skipping = 1;
			r.start = r.end;
			continue;
		}
		if (!nl && len == 0)
			break;   /* clean end of input */
		if (r.skipping) {
			r.skipping = 0;
		} else {
			int t = take_line(&st, f, s, len);
			if (t < 0) { rc = -1; break; }
			ignored += (size_t)t;
		}
		r.start += len + (nl != NULL);
		if (!nl)
			break;
	}
	free(r.buf);
	if (stage_flush(&st, f) < 0)
		rc = -1;
	free(st.slots);
	ignored += st.ignored;   /* counts whole stacks, each at least one line */
	if (ignored_lines)
		*ignored_lines = ignored;
	return rc;
}
