/* Reading pprof profiles (gzipped profile.proto, as `lua-flame -o x.pb.gz` writes them)
 * back into folded stacks for `lua-flame diff`. Each location's function name, file and
 * line become the frame label again ("NAME (CHUNK:LINE)" for Lua). The file is untrusted:
 * every length and index is checked, sizes are capped. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "diff.h"

#define MAX_PACKED  (64u << 20)    /* compressed bytes read */
#define MAX_PROFILE (1u << 30)     /* decompressed bytes */
#define MAX_COUNT   1000000000000000ull

struct span { const uint8_t *p; size_t len; };
struct func { uint64_t id, name, file; };
struct loc { uint64_t id; struct span msg; };

struct prof {
	struct span *str, *samples;
	struct func *fn;
	struct loc *loc;
	size_t nstr, nsamples, nfn, nloc, cap[4];
	uint64_t types[16], units[16];  /* sample_type[i].type and .unit, string indexes */
	size_t ntypes;
	uint64_t default_type;    /* default_sample_type, a string index (0: none) */
	struct { char *s; size_t len, cap; } buf;
	size_t frames;            /* in buf: the tree keeps FLAME_MAX_DEPTH, so do we */
};

static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* Next field of [*P, END): its number, wire type, and value or bytes. */
static int field(const uint8_t **p, const uint8_t *end, uint64_t *num, int *wt, uint64_t *v, struct span *s)
{
	uint64_t tag;
	if (varint(p, end, &tag) < 0)
		return -1;
	*num = tag >> 3;
	*wt = (int)(tag & 7);
	switch (*wt) {
	case 0: return varint(p, end, v);
	case 1: if (end - *p < 8) return -1; *p += 8; return 0;
	case 5: if (end - *p < 4) return -1; *p += 4; return 0;
	case 2:
		if (varint(p, end, v) < 0 || *v > (uint64_t)(end - *p))
			return -1;
		*s = (struct span){ *p, (size_t)*v };
		*p += *v;
		return 0;
	default: return -1;
	}
}

static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	size_t c = *cap ? *cap * 2 : 256;
	void *w = realloc(v, c * size);
	if (w)
		*cap = c;
	return w;
}

#define PUSH(pr, arr, n, capi, val) do { \
	void *w_ = grow((pr)->arr, (pr)->n, &(pr)->cap[capi], sizeof(*(pr)->arr)); \
	if (!w_) return -1; \
	(pr)->arr = w_; \
	(pr)->arr[(pr)->n++] = (val); \
} while (0)

static int take_function(struct prof *pr, struct span m)
{
	struct func f = { 0 };
	const uint8_t *p = m.p, *end = m.p + m.len;
	while (p < end) {
		uint64_t num, v = 0;
		int wt;
		struct span s;
		if (field(&p, end, &num, &wt, &v, &s) < 0)
			return -1;
		if (wt != 0)
			continue;
		if (num == 1) f.id = v;
		else if (num == 2) f.name = v;
		else if (num == 4) f.file = v;
	}
	PUSH(pr, fn, nfn, 0, f);
	return 0;
}

static int take_location(struct prof *pr, struct span m)
{
	struct loc l = { 0, m };
	const uint8_t *p = m.p, *end = m.p + m.len;
	while (p < end) {
		uint64_t num, v = 0;
		int wt;
		struct span s;
		if (field(&p, end, &num, &wt, &v, &s) < 0)
			return -1;
		if (num == 1 && wt == 0)
			l.id = v;
	}
	PUSH(pr, loc, nloc, 1, l);
	return 0;
}

static int take_sample_type(struct prof *pr, struct span m)
{
	const uint8_t *p = m.p, *end = m.p + m.len;
	uint64_t type = 0, unit = 0;
	while (p < end) {
		uint64_t num, v = 0;
		int wt;
		struct span s;
		if (field(&p, end, &num, &wt, &v, &s) < 0)
			return -1;
		if (num == 1 && wt == 0)
			type = v;
		else if (num == 2 && wt == 0)
			unit = v;
	}
	if (pr->ntypes < sizeof(pr->types) / sizeof(*pr->types)) {
		pr->units[pr->ntypes] = unit;
		pr->types[pr->ntypes++] = type;
	}
	return 0;
}

/* One pass over the Profile: tables are collected, samples kept for later since the
 * tables they refer to may come after them. */
static int scan(struct prof *pr, const uint8_t *p, const uint8_t *end)
{
	while (p < end) {
		uint64_t num, v = 0;
		int wt, rc = 0;
		struct span s;
		if (field(&p, end, &num, &wt, &v, &s) < 0)
			return -1;
		if (num == 14 && wt == 0)
			pr->default_type = v;
		if (wt != 2)
			continue;
		switch (num) {
		case 1: rc = take_sample_type(pr, s); break;
		case 2: PUSH(pr, samples, nsamples, 2, s); break;
		case 4: rc = take_location(pr, s); break;
		case 5: rc = take_function(pr, s); break;
		case 6: PUSH(pr, str, nstr, 3, s); break;
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int by_fn_id(const void *a, const void *b)
{
	uint64_t x = ((const struct func *)a)->id, y = ((const struct func *)b)->id;
	return x < y ? -1 : x > y;
}

static int by_loc_id(const void *a, const void *b)
{
	uint64_t x = ((const struct loc *)a)->id, y = ((const struct loc *)b)->id;
	return x < y ? -1 : x > y;
}

static const struct loc *find_loc(const struct prof *pr, uint64_t id)
{
	struct loc key = { .id = id };
	if (!pr->nloc)
		return NULL;
	return bsearch(&key, pr->loc, pr->nloc, sizeof(*pr->loc), by_loc_id);
}

static const struct func *find_fn(const struct prof *pr, uint64_t id)
{
	struct func key = { .id = id };
	if (!pr->nfn)
		return NULL;
	return bsearch(&key, pr->fn, pr->nfn, sizeof(*pr->fn), by_fn_id);
}

static struct span string_at(const struct prof *pr, uint64_t i)
{
	return i < pr->nstr ? pr->str[i] : (struct span){ (const uint8_t *)"", 0 };
}

static int put(struct prof *pr, const void *s, size_t len)
{
	if (pr->buf.len + len + 1 > pr->buf.cap) {
		size_t cap = (pr->buf.len + len + 1) * 2;
		char *b = realloc(pr->buf.s, cap);
		if (!b)
			return -1;
		pr->buf.s = b;
		pr->buf.cap = cap;
	}
	memcpy(pr->buf.s + pr->buf.len, s, len);
	pr->buf.len += len;
	return 0;
}

/* A name's ';' would split the frame in two: it becomes ','. Names are cut where the
 * tree would cut them anyway, so a huge string repeated in every frame stays cheap. */
static int put_name(struct prof *pr, struct span s)
{
	size_t at = pr->buf.len;
	if (s.len > FLAME_MAX_NAME)
		s.len = FLAME_MAX_NAME;
	if (put(pr, s.p, s.len) < 0)
		return -1;
	for (size_t i = at; i < pr->buf.len; i++)
		if (pr->buf.s[i] == ';')
			pr->buf.s[i] = ',';
	return 0;
}

static int ends_with(struct span s, const char *suffix)
{
	size_t n = strlen(suffix);
	return s.len >= n && !memcmp(s.p + s.len - n, suffix, n);
}

/* `FILE+0x...` names a native address in FILE, and its function's file is FILE. */
static int is_offset(struct span name, struct span file)
{
	return name.len > file.len + 3 && !memcmp(name.p, file.p, file.len) &&
	       !memcmp(name.p + file.len, "+0x", 3);
}

/* The label lua-flame wrote: "NAME (FILE:LINE)" for Lua ("..._[j]" after it for a trace;
 * LINE 0 for a main chunk), the plain name for everything else (those have no file, or
 * are FILE+0xOFFSET). */
static int put_label(struct prof *pr, const struct func *f, uint64_t line)
{
	struct span name = f ? string_at(pr, f->name) : (struct span){ 0 };
	struct span file = f ? string_at(pr, f->file) : (struct span){ 0 };
	if (!name.len)
		return put(pr, "[unknown]", 9);
	if (!file.len || is_offset(name, file) || line > 999999999 || ends_with(name, "_[k]"))
		return put_name(pr, name);
	int jit = ends_with(name, "_[j]");
	char tail[32];
	if (jit)
		name.len -= 4;
	int n = snprintf(tail, sizeof(tail), ":%" PRIu64 ")%s", line, jit ? "_[j]" : "");
	if (put_name(pr, name) < 0 || put(pr, " (", 2) < 0 || put_name(pr, file) < 0)
		return -1;
	return put(pr, tail, (size_t)n);
}

/* Frames of one location, caller first: pprof lists inlined callees before their caller. */
static int put_location(struct prof *pr, uint64_t id)
{
	const struct loc *l = find_loc(pr, id);
	struct span lines[64];
	size_t n = 0;
	const uint8_t *p = l ? l->msg.p : NULL, *end = l ? l->msg.p + l->msg.len : NULL;
	while (p < end && n < 64) {
		uint64_t num, v = 0;
		int wt;
		if (field(&p, end, &num, &wt, &v, &lines[n]) < 0)
			return -1;
		if (num == 4 && wt == 2)
			n++;
	}
	if (!n && pr->frames++ < FLAME_MAX_DEPTH)
		return put(pr, "[unknown];", 10);
	for (size_t i = n; i-- > 0 && pr->frames < FLAME_MAX_DEPTH; pr->frames++) {
		uint64_t fid = 0, line = 0, num, v = 0;
		int wt;
		struct span s;
		for (p = lines[i].p, end = p + lines[i].len; p < end;) {
			if (field(&p, end, &num, &wt, &v, &s) < 0)
				return -1;
			if (num == 1 && wt == 0) fid = v;
			else if (num == 2 && wt == 0) line = v;
		}
		if (put_label(pr, find_fn(pr, fid), line) < 0 || put(pr, ";", 1) < 0)
			return -1;
	}
	return 0;
}

/* Repeated integers come packed (wire type 2) or one per field (wire type 0). */
static size_t ints(const uint8_t *p, const uint8_t *end, uint64_t want, uint64_t *v, size_t cap)
{
	size_t n = 0;
	while (p < end) {
		uint64_t num, x = 0;
		int wt;
		struct span s;
		if (field(&p, end, &num, &wt, &x, &s) < 0)
			return (size_t)-1;
		if (num != want)
			continue;
		if (wt == 0 && n < cap)
			v[n++] = x;
		for (const uint8_t *q = s.p; wt == 2 && q < s.p + s.len && n < cap;)
			if (varint(&q, s.p + s.len, &v[n++]) < 0)
				return (size_t)-1;
	}
	return n;
}

static int span_eq(struct span a, struct span b)
{
	return a.len == b.len && (!a.len || !memcmp(a.p, b.p, a.len));
}

/* The values a flame graph draws: a recording's samples; else those the file names as its
 * default (a heap profile's inuse_space, bytes, rather than the inuse_objects before it);
 * else the first. */
static size_t value_index(const struct prof *pr)
{
	static const struct span samples = { (const uint8_t *)"samples", 7 };
	for (size_t i = 0; i < pr->ntypes; i++)
		if (span_eq(string_at(pr, pr->types[i]), samples))
			return i;
	for (size_t i = 0; pr->default_type && i < pr->ntypes; i++)
		if (span_eq(string_at(pr, pr->types[i]), string_at(pr, pr->default_type)))
			return i;
	return 0;
}

static int take_sample(struct prof *pr, struct flame *f, struct span m, size_t vi)
{
	static uint64_t ids[FLAME_MAX_DEPTH];
	uint64_t vals[16];
	size_t nv = ints(m.p, m.p + m.len, 2, vals, 16);
	size_t n = ints(m.p, m.p + m.len, 1, ids, FLAME_MAX_DEPTH);
	if (nv == (size_t)-1 || n == (size_t)-1)
		return -1;
	if (vi >= nv || vals[vi] == 0 || vals[vi] > MAX_COUNT)
		return 0;   /* negative values (as uint64) and zero are not samples */
	pr->buf.len = 0;
	pr->frames = 0;
	for (size_t i = n; i-- > 0 && pr->frames < FLAME_MAX_DEPTH;)
		if (put_location(pr, ids[i]) < 0)
			return -1;
	return flame_add_stack(f, pr->buf.s ? pr->buf.s : "", pr->buf.len, vals[vi]) < 0 ? -2 : 0;
}

/* The whole decompressed profile (the tables may come after the samples that use them). */
static uint8_t *inflate_all(FILE *in, size_t *len, char *err, size_t errlen)
{
	size_t cap = 1u << 20, got = 0;
	uint8_t *packed = malloc(MAX_PACKED + 1), *out = malloc(cap);
	size_t plen = packed ? fread(packed, 1, MAX_PACKED + 1, in) : 0;
	z_stream z = { 0 };
	int rc = Z_DATA_ERROR;
	if (!packed || !out || ferror(in) || plen > MAX_PACKED || inflateInit2(&z, 15 + 32) != Z_OK) {
		snprintf(err, errlen, "%s", !packed || !out ? "out of memory" : ferror(in) ? strerror(errno)
			 : plen > MAX_PACKED ? "larger than 64 MiB compressed" : "zlib failed to start");
		free(packed);
		free(out);
		return NULL;
	}
	z.next_in = packed;
	z.avail_in = (uInt)plen;
	while (out) {
		z.next_out = out + got;
		z.avail_out = (uInt)(cap - got);
		rc = inflate(&z, Z_NO_FLUSH);
		got = cap - z.avail_out;
		if (rc != Z_OK || got < cap)
			break;
		uint8_t *w = cap < MAX_PROFILE ? realloc(out, cap * 2) : NULL;
		if (!w) {
			rc = Z_MEM_ERROR;
			break;
		}
		out = w;
		cap *= 2;
	}
	inflateEnd(&z);
	free(packed);
	if (rc != Z_STREAM_END) {
		snprintf(err, errlen, "%s", rc == Z_MEM_ERROR ? "larger than 1 GiB decompressed, or out of memory"
			 : "not a complete gzip stream (a pprof file is gzipped profile.proto)");
		free(out);
		return NULL;
	}
	*len = got;
	return out;
}

static void prof_free(struct prof *pr)
{
	free(pr->str);
	free(pr->samples);
	free(pr->fn);
	free(pr->loc);
	free(pr->buf.s);
}

/* The unit of the values read, as the file names it; "" when it names none, or one that is
 * not a plain word (it goes into the SVG's text). */
static void put_unit(const struct prof *pr, size_t vi, char *unit, size_t unitlen)
{
	struct span u = vi < pr->ntypes ? string_at(pr, pr->units[vi]) : (struct span){ 0 };
	if (!unit || !unitlen)
		return;
	unit[0] = 0;
	if (u.len >= unitlen)
		return;
	for (size_t i = 0; i < u.len; i++)
		if (!(u.p[i] >= 'a' && u.p[i] <= 'z') && !(u.p[i] >= 'A' && u.p[i] <= 'Z') && u.p[i] != '_')
			return;
	memcpy(unit, u.p, u.len);
	unit[u.len] = 0;
}

int pprof_parse_unit(struct flame *f, const uint8_t *data, size_t len, char *unit, size_t unitlen, char *err,
		     size_t errlen)
{
	struct prof pr = { 0 };
	int rc = scan(&pr, data, data + len);
	if (rc == 0) {
		if (pr.nfn)
			qsort(pr.fn, pr.nfn, sizeof(*pr.fn), by_fn_id);
		if (pr.nloc)
			qsort(pr.loc, pr.nloc, sizeof(*pr.loc), by_loc_id);
		size_t vi = value_index(&pr);
		put_unit(&pr, vi, unit, unitlen);
		for (size_t i = 0; i < pr.nsamples && rc == 0; i++)
			rc = take_sample(&pr, f, pr.samples[i], vi);
	}
	if (rc < 0)
		snprintf(err, errlen, "%s", rc == -2 ? "out of memory" : "malformed profile.proto data");
	prof_free(&pr);
	return rc < 0 ? -1 : 0;
}

int pprof_parse(struct flame *f, const uint8_t *data, size_t len, char *err, size_t errlen)
{
	return pprof_parse_unit(f, data, len, NULL, 0, err, errlen);
}

int pprof_read_unit(struct flame *f, FILE *in, char *unit, size_t unitlen, char *err, size_t errlen)
{
	size_t len;
	uint8_t *data = inflate_all(in, &len, err, errlen);
	if (!data)
		return -1;
	int rc = pprof_parse_unit(f, data, len, unit, unitlen, err, errlen);
	free(data);
	return rc;
}

int pprof_read(struct flame *f, FILE *in, char *err, size_t errlen)
{
	return pprof_read_unit(f, in, NULL, 0, err, errlen);
}
