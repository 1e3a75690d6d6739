/* The pprof writer: profile.proto (github.com/google/pprof/proto/profile.proto),
 * gzip-compressed as pprof expects on disk. One Location per distinct frame label, one
 * Function per distinct (name, file, line); samples hold locations leaf first. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "stack_strings.h"
#include "out_formats.h"
#include "protobuf.h"

/* Field numbers from profile.proto. */
enum { PROF_SAMPLE_TYPE = 1, PROF_SAMPLE, PROF_MAPPING, PROF_LOCATION, PROF_FUNCTION,
       PROF_STRING_TABLE, PROF_TIME_NANOS = 9, PROF_DURATION_NANOS, PROF_PERIOD_TYPE,
       PROF_PERIOD, PROF_COMMENT, PROF_DEFAULT_SAMPLE_TYPE };
enum { VT_TYPE = 1, VT_UNIT };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE };
enum { MAP_ID = 1, MAP_FILENAME = 5, MAP_HAS_FUNCTIONS = 7, MAP_HAS_FILENAMES, MAP_HAS_LINE_NUMBERS };
enum { LOC_ID = 1, LOC_MAPPING_ID, LOC_ADDRESS, LOC_LINE };
enum { LINE_FUNCTION_ID = 1, LINE_LINE };
enum { FN_ID = 1, FN_NAME, FN_SYSTEM_NAME, FN_FILENAME, FN_START_LINE };

struct gz {
	z_stream z;
	FILE *f;
	int err;
	unsigned char out[65536];
};

struct func { uint32_t name, file; long line; };
struct loc { uint32_t func; long line; };

struct pprof {
	struct gz gz;
	struct pbuf hdr, msg, sub, packed;
	struct intern strings, locs, funcs;
	struct loc *loc;
	struct func *func;
	size_t loc_cap, func_cap;
	struct frame_span *fr;
	size_t fr_cap;
	struct sbuf name, key;
	int hz, heap; /* heap: the values are objects and bytes (a heap snapshot, an allocation profile) */
	int64_t period;
};

static void gz_pump(struct gz *g, int flush)
{
	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		int rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR)
			g->err = 1;
		size_t n = sizeof(g->out) - g->z.avail_out;
		if (n && fwrite(g->out, 1, n, g->f) != n)
			g->err = 1;
	} while (g->z.avail_out == 0 && !g->err);
}

static void gz_write(struct gz *g, const void *data, size_t len)
{
	g->z.next_in = (unsigned char *)(uintptr_t)data;
	g->z.avail_in = (uInt)len;
	gz_pump(g, Z_NO_FLUSH);
}

/* Writes one top-level Profile field; top-level fields may come in any order and
 * repeated ones may interleave, so the profile streams out without being held whole. */
static void put_top(struct pprof *pp, uint32_t num, const struct pbuf *m)
{
	pb_reset(&pp->hdr);
	pb_len_prefix(&pp->hdr, num, m->len);
	gz_write(&pp->gz, pp->hdr.b, pp->hdr.len);
	gz_write(&pp->gz, m->b, m->len);
}

static void put_top_int(struct pprof *pp, uint32_t num, int64_t v)
{
	pb_reset(&pp->hdr);
	pb_int(&pp->hdr, num, v);
	gz_write(&pp->gz, pp->hdr.b, pp->hdr.len);
}

static uint32_t str(struct pprof *pp, const char *s, size_t len)
{
	return intern_add(&pp->strings, s, len, NULL);
}

static void put_value_type(struct pprof *pp, uint32_t field, const char *type, const char *unit)
{
	pb_reset(&pp->msg);
	pb_int(&pp->msg, VT_TYPE, str(pp, type, strlen(type)));
	pb_int(&pp->msg, VT_UNIT, str(pp, unit, strlen(unit)));
	put_top(pp, field, &pp->msg);
}

static uint32_t func_of(struct pprof *pp, const struct frame_label *fl)
{
	frame_label_func_name(fl, &pp->name);
	sb_reset(&pp->key);
	sb_add(&pp->key, pp->name.s, pp->name.len + 1);
	sb_add(&pp->key, fl->file, fl->file_len);
	sb_printf(&pp->key, "%c%ld", 0, fl->line);
	int added;
	uint32_t id = intern_add(&pp->funcs, pp->key.s, pp->key.len, &added);
	if (added) {
		if (id == pp->func_cap) {
			pp->func_cap = pp->func_cap ? pp->func_cap * 2 : 256;
			pp->func = xrealloc(pp->func, pp->func_cap * sizeof(*pp->func));
		}
		pp->func[id] = (struct func){ str(pp, pp->name.s, pp->name.len),
					      str(pp, fl->file, fl->file_len), fl->line };
	}
	return id;
}

static uint32_t loc_of(struct pprof *pp, const struct frame_span *s)
{
	int added;
	uint32_t id = intern_add(&pp->locs, s->s, s->len, &added);
	if (added) {
		struct frame_label fl;
		frame_label_parse(s->s, s->len, &fl);
		if (id == pp->loc_cap) {
			pp->loc_cap = pp->loc_cap ? pp->loc_cap * 2 : 256;
			pp->loc = xrealloc(pp->loc, pp->loc_cap * sizeof(*pp->loc));
		}
		pp->loc[id] = (struct loc){ func_of(pp, &fl), fl.line };
	}
	return id;
}

static int64_t nanos(const struct pprof *pp, uint64_t count)
{
	double v = (double)count * 1e9 / pp->hz;
	return v >= 9.2e18 ? INT64_MAX : (int64_t)v;
}

static void put_sample(struct pprof *pp, const struct prof_entry *e)
{
	size_t n = stack_frames(e->stack, e->len, &pp->fr, &pp->fr_cap);
	pb_reset(&pp->msg);
	pb_reset(&pp->packed);
	for (size_t i = n; i-- > 0;)
		pb_varint(&pp->packed, loc_of(pp, &pp->fr[i]) + 1);
	pb_bytes(&pp->msg, SAMPLE_LOCATION_ID, pp->packed.b, pp->packed.len);
	pb_reset(&pp->packed);
	pb_varint(&pp->packed, pp->heap ? e->objects : e->count);
	pb_varint(&pp->packed, pp->heap ? e->count : (uint64_t)nanos(pp, e->count));
	pb_bytes(&pp->msg, SAMPLE_VALUE, pp->packed.b, pp->packed.len);
	put_top(pp, PROF_SAMPLE, &pp->msg);
}

static void put_locations(struct pprof *pp)
{
	for (size_t i = 0; i < pp->locs.n; i++) {
		pb_reset(&pp->sub);
		pb_uint(&pp->sub, LINE_FUNCTION_ID, pp->loc[i].func + 1);
		pb_int(&pp->sub, LINE_LINE, pp->loc[i].line);
		pb_reset(&pp->msg);
		pb_uint(&pp->msg, LOC_ID, i + 1);
		pb_uint(&pp->msg, LOC_MAPPING_ID, 1);
		pb_msg(&pp->msg, LOC_LINE, &pp->sub);
		put_top(pp, PROF_LOCATION, &pp->msg);
	}
}

static void put_functions(struct pprof *pp)
{
	for (size_t i = 0; i < pp->funcs.n; i++) {
		const struct func *fn = &pp->func[i];
		pb_reset(&pp->msg);
		pb_uint(&pp->msg, FN_ID, i + 1);
		pb_int(&pp->msg, FN_NAME, fn->name);
		pb_int(&pp->msg, FN_SYSTEM_NAME, fn->name);
		pb_int(&pp->msg, FN_FILENAME, fn->file);
		pb_int(&pp->msg, FN_START_LINE, fn->line);
		put_top(pp, PROF_FUNCTION, &pp->msg);
	}
}

/* One mapping that says every location is already symbolized, so pprof neither tries
 * to symbolize addresses nor complains that the main binary is unknown. */
static void put_mapping(struct pprof *pp, const struct profile *p)
{
	size_t n = strnlen(p->command, sizeof(p->command));
	pb_reset(&pp->msg);
	pb_uint(&pp->msg, MAP_ID, 1);
	pb_int(&pp->msg, MAP_FILENAME, n ? str(pp, p->command, n) : str(pp, "lua-flame", 9));
	pb_uint(&pp->msg, MAP_HAS_FUNCTIONS, 1);
	pb_uint(&pp->msg, MAP_HAS_FILENAMES, 1);
	pb_uint(&pp->msg, MAP_HAS_LINE_NUMBERS, 1);
	put_top(pp, PROF_MAPPING, &pp->msg);
}

static void put_comment(struct pprof *pp, struct sbuf *b)
{
	put_top_int(pp, PROF_COMMENT, str(pp, b->s, b->len));
	sb_reset(b);
}

/* Run facts as comments (`pprof -comments`); time_nanos only for a real recording,
 * which ends now: a converted file has no start time to tell. */
static void put_run_facts(struct pprof *pp, const struct profile *p)
{
	struct sbuf b;
	sb_init(&b);
	sb_printf(&b, "lua-flame %s", LUA_FLAME_VERSION);
	put_comment(pp, &b);
	if (p->command[0]) {
		sb_printf(&b, "command: %.*s", (int)strnlen(p->command, sizeof(p->command)), p->command);
		put_comment(pp, &b);
	}
	if (p->pids[0]) {
		sb_printf(&b, "pids: %.*s", (int)strnlen(p->pids, sizeof(p->pids)), p->pids);
		put_comment(pp, &b);
	}
	if (p->lost) {
		sb_printf(&b, "lost samples: %llu", (unsigned long long)p->lost);
		put_comment(pp, &b);
	}
	sb_free(&b);
	if (p->duration > 0 && p->duration < 1e9) {
		put_top_int(pp, PROF_DURATION_NANOS, (int64_t)(p->duration * 1e9));
		put_top_int(pp, PROF_TIME_NANOS, (int64_t)time(NULL) * 1000000000 -
			    (int64_t)(p->duration * 1e9));
	}
}

static void put_string_table(struct pprof *pp)
{
	/* New strings may not appear while the table is written: everything is interned. */
	for (size_t i = 0; i < pp->strings.n; i++) {
		pb_reset(&pp->hdr);
		pb_len_prefix(&pp->hdr, PROF_STRING_TABLE, pp->strings.len[i]);
		gz_write(&pp->gz, pp->hdr.b, pp->hdr.len);
		gz_write(&pp->gz, pp->strings.str[i], pp->strings.len[i]);
	}
}

static void pprof_free(struct pprof *pp)
{
	deflateEnd(&pp->gz.z);
	pb_free(&pp->hdr);
	pb_free(&pp->msg);
	pb_free(&pp->sub);
	pb_free(&pp->packed);
	intern_free(&pp->strings);
	intern_free(&pp->locs);
	intern_free(&pp->funcs);
	free(pp->loc);
	free(pp->func);
	free(pp->fr);
	sb_free(&pp->name);
	sb_free(&pp->key);
}

/* A recording's samples and time, a heap snapshot's objects and bytes, or an allocation
 * profile's allocations and bytes (named as Go's heap profiles name them, so
 * -sample_index=inuse_space or alloc_space reads them). */
static void put_byte_types(struct pprof *pp, const char *objects, const char *space)
{
	pp->heap = 1;
	put_value_type(pp, PROF_SAMPLE_TYPE, objects, "count");
	put_value_type(pp, PROF_SAMPLE_TYPE, space, "bytes");
	put_top_int(pp, PROF_DEFAULT_SAMPLE_TYPE, str(pp, space, strlen(space)));
	put_value_type(pp, PROF_PERIOD_TYPE, "space", "bytes");
	put_top_int(pp, PROF_PERIOD, 1);
}

static void put_sample_types(struct pprof *pp, const struct profile *p)
{
	if (p->heap || p->alloc) {
		put_byte_types(pp, p->heap ? "inuse_objects" : "alloc_objects", p->heap ? "inuse_space" : "alloc_space");
		return;
	}
	pp->hz = p->hz > 0 ? p->hz : 99;
	pp->period = 1000000000 / pp->hz;
	put_value_type(pp, PROF_SAMPLE_TYPE, "samples", "count");
	const char *time = p->wall ? "wall" : "cpu"; /* as pprof's Go profiles name them */
	put_value_type(pp, PROF_SAMPLE_TYPE, time, "nanoseconds");
	put_top_int(pp, PROF_DEFAULT_SAMPLE_TYPE, str(pp, time, strlen(time)));
	put_value_type(pp, PROF_PERIOD_TYPE, time, "nanoseconds");
	put_top_int(pp, PROF_PERIOD, pp->period);
}

int write_pprof(FILE *f, const struct profile *p)
{
	struct pprof *pp = xcalloc(1, sizeof(*pp));
	pp->gz.f = f;
	/* windowBits 15 + 16: a gzip wrapper, which is what pprof reads. */
	if (deflateInit2(&pp->gz.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(pp);
		return -1;
	}
	str(pp, "", 0);   /* string_table[0] must be "" */
	put_sample_types(pp, p);
	put_run_facts(pp, p);
	put_mapping(pp, p);
	struct prof_entry **v = profile_sorted(p);
	for (size_t i = 0; v[i]; i++)
		put_sample(pp, v[i]);
	free(v);
	put_locations(pp);
	put_functions(pp);
	put_string_table(pp);
	pp->gz.z.avail_in = 0;
	gz_pump(&pp->gz, Z_FINISH);
	int err = pp->gz.err || ferror(f);
	pprof_free(pp);
	free(pp);
	return err ? -1 : 0;
}
