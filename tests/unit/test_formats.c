/* Unit tests for frame-label parsing and the pprof, speedscope and callgrind writers:
 * each writes small profiles to memory that are decoded and checked here. With
 * `--convert IN.folded OUT.ext` it instead converts a folded file by extension, for
 * tests/integ/formats.sh, which checks the files with the ecosystem's own tools. */
#include <stdlib.h>
#include <zlib.h>

#include "aggregate.h"
#include "check.h"
#include "stack_strings.h"
#include "out_formats.h"
#include "output.h"
#include "util.h"

/* ---- frame labels ---- */

static void check_label(const char *s, enum frame_kind kind, const char *name, const char *file, long line)
{
	struct frame_label fl;
	frame_label_parse(s, strlen(s), &fl);
	char n[256], f[256];
	snprintf(n, sizeof(n), "%.*s", (int)fl.name_len, fl.name);
	snprintf(f, sizeof(f), "%.*s", (int)fl.file_len, fl.file);
	if ((int)fl.kind != (int)kind)
		printf("  label \"%s\": kind %d, expected %d\n", s, (int)fl.kind, (int)kind);
	CHECK_INT(fl.kind, kind);
	CHECK_STR(n, name);
	CHECK_STR(f, file);
	CHECK_INT(fl.line, line);
}

static void labels_of_each_kind(void)
{
	check_label("handle_request (app.lua:42)", KIND_LUA, "handle_request", "app.lua", 42);
	check_label("handle_request (app.lua:42)_[j]", KIND_JIT, "handle_request", "app.lua", 42);
	check_label("main chunk (/srv/x y.lua:0)", KIND_LUA, "main chunk", "/srv/x y.lua", 0);
	check_label("obj:method (lib/a.lua:7)", KIND_LUA, "obj:method", "lib/a.lua", 7);
	check_label("? ([string \"f (x:1)\"]:3)", KIND_LUA, "?", "[string \"f (x:1)\"]", 3);
	check_label("do_syscall_64_[k]", KIND_KERNEL, "do_syscall_64", "", 0);
	check_label("ngx_http_lua_content_handler", KIND_NATIVE, "ngx_http_lua_content_handler", "", 0);
	check_label("string.format", KIND_NATIVE, "string.format", "", 0);
	check_label("libfoo.so+0x1a2b", KIND_NATIVE, "libfoo.so+0x1a2b", "libfoo.so", 0);
	check_label("/usr/lib/libc.so.6+0xdeadBEEF", KIND_NATIVE, "/usr/lib/libc.so.6+0xdeadBEEF",
		    "/usr/lib/libc.so.6", 0);
	check_label("[GC]", KIND_VM, "[GC]", "", 0);
	check_label("[trace 17]", KIND_VM, "[trace 17]", "", 0);
	check_label("[unknown]", KIND_MARKER, "[unknown]", "", 0);
	check_label("[unwind: no table]", KIND_MARKER, "[unwind: no table]", "", 0);
}

static void hostile_labels(void)
{
	check_label("", KIND_NATIVE, "", "", 0);
	check_label("_[k]", KIND_NATIVE, "_[k]", "", 0);
	check_label("_[j]", KIND_NATIVE, "_[j]", "", 0);
	check_label(" (a.lua:1)", KIND_NATIVE, " (a.lua:1)", "", 0);
	check_label("f (:1)", KIND_NATIVE, "f (:1)", "", 0);
	check_label("f (a.lua:)", KIND_NATIVE, "f (a.lua:)", "", 0);
	check_label("f (a.lua:1234567890)", KIND_NATIVE, "f (a.lua:1234567890)", "", 0);
	check_label("f (a.lua:123456789)", KIND_LUA, "f", "a.lua", 123456789);
	check_label("(a.lua:1)", KIND_NATIVE, "(a.lua:1)", "", 0);
	check_label("f (a.lua:12", KIND_NATIVE, "f (a.lua:12", "", 0);
	check_label("f (a.lua:-1)", KIND_NATIVE, "f (a.lua:-1)", "", 0);
	check_label("f (a.lua:1)_[j]_[j]", KIND_NATIVE, "f (a.lua:1)_[j]_[j]", "", 0);
	check_label("f (a.lua:1)_[k]", KIND_KERNEL, "f (a.lua:1)", "", 0);
	check_label("+0x12", KIND_NATIVE, "+0x12", "", 0);
	check_label("lib+0x", KIND_NATIVE, "lib+0x", "", 0);
	check_label("lib+0xzz", KIND_NATIVE, "lib+0xzz", "", 0);
	check_label("[", KIND_NATIVE, "[", "", 0);
	check_label("[]", KIND_VM, "[]", "", 0);
	/* Lengths, not NULs, bound a label. */
	struct frame_label fl;
	frame_label_parse("a\0b (c:1)", 9, &fl);
	CHECK_INT(fl.kind, KIND_LUA);
	CHECK_INT(fl.name_len, 3);
	frame_label_parse("x (y.lua:5)", 4, &fl);
	CHECK_INT(fl.kind, KIND_NATIVE);
	CHECK_INT(fl.name_len, 4);
}

static void function_names_keep_kind(void)
{
	const char *in[] = { "f (a.lua:1)", "f (a.lua:1)_[j]", "sys_read_[k]", "[GC]", "lib.so+0x10" };
	const char *out[] = { "f", "f_[j]", "sys_read_[k]", "[GC]", "lib.so+0x10" };
	struct sbuf b;
	sb_init(&b);
	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		struct frame_label fl;
		frame_label_parse(in[i], strlen(in[i]), &fl);
		frame_label_func_name(&fl, &b);
		CHECK_STR(b.s, out[i]);
	}
	sb_free(&b);
}

static void splits_stacks(void)
{
	struct frame_span *v = NULL;
	size_t cap = 0, n = stack_frames("a;;b c;", 7, &v, &cap);
	CHECK_INT(n, 2);
	CHECK(v[0].len == 1 && !memcmp(v[0].s, "a", 1));
	CHECK(v[1].len == 3 && !memcmp(v[1].s, "b c", 3));
	n = stack_frames(";;", 2, &v, &cap);
	CHECK_INT(n, 1);
	CHECK(v[0].len == 9 && !memcmp(v[0].s, "[unknown]", 9));
	CHECK_INT(stack_frames("", 0, &v, &cap), 1);
	free(v);
}

static void interns_in_first_seen_order(void)
{
	struct intern t;
	intern_init(&t);
	int added;
	char buf[32];
	for (int i = 0; i < 3000; i++) {
		int n = snprintf(buf, sizeof(buf), "s%d", i);
		CHECK_INT(intern_add(&t, buf, (size_t)n, &added), i);
		CHECK_INT(added, 1);
	}
	CHECK_INT(intern_add(&t, "s1234", 5, &added), 1234);
	CHECK_INT(added, 0);
	CHECK_INT(intern_add(&t, "s1\0x", 4, &added), 3000);
	CHECK_INT(intern_add(&t, "s1", 2, &added), 1);
	CHECK_INT(t.n, 3001);
	intern_free(&t);
}

static void formats_from_names(void)
{
	CHECK_INT(output_format_for("out/x.pb.gz", NULL), OUT_PPROF);
	CHECK_INT(output_format_for("x.gz", NULL), OUT_UNKNOWN);
	CHECK_INT(output_format_for("x.speedscope.json", NULL), OUT_SPEEDSCOPE);
	CHECK_INT(output_format_for("x.json", NULL), OUT_UNKNOWN);
	CHECK_INT(output_format_for("x.callgrind", NULL), OUT_CALLGRIND);
	CHECK_INT(output_format_for("callgrind.out", NULL), OUT_CALLGRIND);
	CHECK_INT(output_format_for("/tmp/callgrind.out.4242", NULL), OUT_CALLGRIND);
	CHECK_INT(output_format_for("callgrind.out.d/x.txt", NULL), OUT_UNKNOWN);
	CHECK_INT(output_format_for("my.callgrind.out", NULL), OUT_UNKNOWN);
	CHECK_INT(output_format_for("x.txt", "pprof"), OUT_PPROF);
	CHECK_INT(output_format_for("x.txt", "speedscope"), OUT_SPEEDSCOPE);
	CHECK_INT(output_format_for("x.txt", "callgrind"), OUT_CALLGRIND);
	CHECK_STR(output_format_name(OUT_PPROF), "pprof");
	CHECK_STR(output_format_name(OUT_SPEEDSCOPE), "speedscope");
	CHECK_STR(output_format_name(OUT_CALLGRIND), "callgrind");
}

/* ---- writing to memory ---- */

struct mem { char *s; size_t len; };

static struct mem write_mem(int (*writer)(FILE *, const struct profile *), const struct profile *p)
{
	struct mem m = { NULL, 0 };
	FILE *f = open_memstream(&m.s, &m.len);
	CHECK_INT(writer(f, p), 0);
	fclose(f);
	return m;
}

static void add(struct profile *p, const char *stack, uint64_t count)
{
	profile_add(p, stack, strlen(stack), count);
}

static void sample_profile(struct profile *p)
{
	profile_init(p);
	p->hz = 100;
	p->duration = 2.5;
	snprintf(p->command, sizeof(p->command), "nginx: worker");
	snprintf(p->pids, sizeof(p->pids), "4242");
	add(p, "nginx;main;handle (app.lua:42);render (view.lua:7)_[j]", 30);
	add(p, "nginx;main;handle (app.lua:42);string.format", 25);
	add(p, "nginx;main;handle (app.lua:42)", 12);
	add(p, "nginx;main;epoll_wait;do_epoll_wait_[k]", 40);
	add(p, "nginx;main;libfoo.so+0x1a2b", 3);
	add(p, "nginx;[GC]", 8);
}

/* ---- a minimal protobuf reader, independent of the encoder ---- */

struct pbr { const uint8_t *p, *end; int err; };

static uint64_t rd_varint(struct pbr *r)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->err = 1;
			return 0;
		}
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->err = 1;
	return 0;
}

/* Next field: number, wire type, and either the varint or the bytes. */
static int rd_field(struct pbr *r, uint32_t *num, uint64_t *v, struct pbr *sub)
{
	if (r->p >= r->end || r->err)
		return 0;
	uint64_t tag = rd_varint(r);
	*num = (uint32_t)(tag >> 3);
	if ((tag & 7) == 0) {
		*v = rd_varint(r);
		sub->p = sub->end = NULL;
	} else if ((tag & 7) == 2) {
		uint64_t len = rd_varint(r);
		if (len > (uint64_t)(r->end - r->p)) {
			r->err = 1;
			return 0;
		}
		*sub = (struct pbr){ r->p, r->p + len, 0 };
		r->p += len;
	} else {
		r->err = 1;
		return 0;
	}
	return !r->err;
}

#define MAXN 64
struct decoded {
	char *str[MAXN];
	size_t nstr;
	uint64_t vt[3][2];          /* sample_type x2, period_type */
	size_t nvt;
	uint64_t period, duration, default_type;
	uint64_t loc_id[MAXN], loc_fn[MAXN], loc_line[MAXN], loc_map[MAXN];
	uint64_t map_id, map_file, map_flags;
	size_t nmap;
	size_t nloc;
	uint64_t fn_id[MAXN], fn_name[MAXN], fn_file[MAXN], fn_start[MAXN];
	size_t nfn;
	uint64_t smp_locs[MAXN][16], smp_val[MAXN][2];
	size_t smp_nloc[MAXN], nsmp;
	int err;
};

/* Reads a repeated integer field, packed or not. */
static size_t rd_ints(struct pbr *sub, uint64_t v, uint64_t *out, size_t n, size_t max)
{
	if (!sub->p) {
		if (n < max)
			out[n++] = v;
		return n;
	}
	while (sub->p < sub->end && !sub->err && n < max)
		out[n++] = rd_varint(sub);
	return n;
}

static void rd_sample(struct decoded *d, struct pbr *m)
{
	uint32_t num;
	uint64_t v;
	struct pbr sub;
	size_t i = d->nsmp++, nval = 0;
	while (rd_field(m, &num, &v, &sub)) {
		if (num == 1)
			d->smp_nloc[i] = rd_ints(&sub, v, d->smp_locs[i], d->smp_nloc[i], 16);
		else if (num == 2)
			nval = rd_ints(&sub, v, d->smp_val[i], nval, 2);
	}
	d->err |= m->err || nval != 2;
}

static void rd_location(struct decoded *d, struct pbr *m)
{
	uint32_t num, n2;
	uint64_t v, v2;
	struct pbr sub, sub2;
	size_t i = d->nloc++, nlines = 0;
	while (rd_field(m, &num, &v, &sub)) {
		if (num == 1)
			d->loc_id[i] = v;
		else if (num == 4 && sub.p) {
			nlines++;
			while (rd_field(&sub, &n2, &v2, &sub2)) {
				if (n2 == 1)
					d->loc_fn[i] = v2;
				else if (n2 == 2)
					d->loc_line[i] = v2;
			}
		} else if (num == 2)
			d->loc_map[i] = v;
		else if (num == 3)
			d->err = 1;   /* no addresses are written */
	}
	d->err |= m->err || nlines != 1;
}

static void rd_function(struct decoded *d, struct pbr *m)
{
	uint32_t num;
	uint64_t v;
	struct pbr sub;
	size_t i = d->nfn++;
	while (rd_field(m, &num, &v, &sub)) {
		if (num == 1) d->fn_id[i] = v;
		else if (num == 2) d->fn_name[i] = v;
		else if (num == 4) d->fn_file[i] = v;
		else if (num == 5) d->fn_start[i] = v;
	}
	d->err |= m->err;
}

static void rd_mapping(struct decoded *d, struct pbr *m)
{
	uint32_t num;
	uint64_t v;
	struct pbr sub;
	d->nmap++;
	while (rd_field(m, &num, &v, &sub)) {
		if (num == 1) d->map_id = v;
		else if (num == 5) d->map_file = v;
		else if (num >= 7 && num <= 9 && v == 1) d->map_flags |= 1u << (num - 7);
	}
	d->err |= m->err;
}

static void rd_value_type(struct decoded *d, struct pbr *m)
{
	uint32_t num;
	uint64_t v;
	struct pbr sub;
	size_t i = d->nvt++;
	while (rd_field(m, &num, &v, &sub))
		if (num == 1 || num == 2)
			d->vt[i][num - 1] = v;
}

static void rd_profile(struct decoded *d, const uint8_t *buf, size_t len)
{
	struct pbr r = { buf, buf + len, 0 }, sub;
	uint32_t num;
	uint64_t v;
	while (rd_field(&r, &num, &v, &sub)) {
		int full = (num == 2 && d->nsmp == MAXN) || (num == 4 && d->nloc == MAXN) ||
			   (num == 5 && d->nfn == MAXN) || (num == 6 && d->nstr == MAXN) ||
			   ((num == 1 || num == 11) && d->nvt == 3);
		if (full) {
			d->err = 1;
			break;
		}
		switch (num) {
		case 1: case 11: rd_value_type(d, &sub); break;
		case 2: rd_sample(d, &sub); break;
		case 3: rd_mapping(d, &sub); break;
		case 4: rd_location(d, &sub); break;
		case 5: rd_function(d, &sub); break;
		case 6: d->str[d->nstr++] = xstrndup((const char *)sub.p, (size_t)(sub.end - sub.p)); break;
		case 10: d->duration = v; break;
		case 12: d->period = v; break;
		case 14: d->default_type = v; break;
		}
	}
	d->err |= r.err;
}

static uint8_t *gunzip(const struct mem *m, size_t *out_len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	size_t cap = 1 << 20;
	uint8_t *out = xmalloc(cap);
	inflateInit2(&z, 31);
	z.next_in = (uint8_t *)m->s;
	z.avail_in = (uInt)m->len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	int rc = inflate(&z, Z_FINISH);
	*out_len = cap - z.avail_out;
	inflateEnd(&z);
	CHECK_INT(rc, Z_STREAM_END);
	return out;
}

static const char *s_at(const struct decoded *d, uint64_t i)
{
	return i < d->nstr ? d->str[i] : "(bad string index)";
}

/* The folded stack of sample i, rebuilt from function names (root first). */
static void stack_of(const struct decoded *d, size_t i, struct sbuf *b)
{
	sb_reset(b);
	for (size_t k = d->smp_nloc[i]; k-- > 0;) {
		uint64_t id = d->smp_locs[i][k];
		uint64_t fn = id >= 1 && id <= d->nloc ? d->loc_fn[id - 1] : 0;
		sb_puts(b, fn >= 1 && fn <= d->nfn ? s_at(d, d->fn_name[fn - 1]) : "(bad id)");
		if (k)
			sb_puts(b, ";");
	}
}

static void decode_pprof(const struct profile *p, struct decoded *d)
{
	struct mem m = write_mem(write_pprof, p);
	CHECK(m.len > 2 && (uint8_t)m.s[0] == 0x1f && (uint8_t)m.s[1] == 0x8b);
	size_t len;
	uint8_t *raw = gunzip(&m, &len);
	memset(d, 0, sizeof(*d));
	rd_profile(d, raw, len);
	CHECK_INT(d->err, 0);
	free(raw);
	free(m.s);
}

static void free_decoded(struct decoded *d)
{
	for (size_t i = 0; i < d->nstr; i++)
		free(d->str[i]);
}

static void pprof_tables(void)
{
	struct profile p;
	sample_profile(&p);
	struct decoded d;
	decode_pprof(&p, &d);
	CHECK(d.nstr > 0 && !strcmp(d.str[0], ""));
	CHECK_INT(d.nvt, 3);
	CHECK_STR(s_at(&d, d.vt[0][0]), "samples");
	CHECK_STR(s_at(&d, d.vt[0][1]), "count");
	CHECK_STR(s_at(&d, d.vt[1][0]), "cpu");
	CHECK_STR(s_at(&d, d.vt[1][1]), "nanoseconds");
	CHECK_STR(s_at(&d, d.vt[2][0]), "cpu");
	CHECK_STR(s_at(&d, d.default_type), "cpu");
	CHECK_INT(d.period, 10000000);
	CHECK_INT(d.duration, 2500000000LL);
	/* 9 distinct labels, each its own function. */
	CHECK_INT(d.nloc, 9);
	CHECK_INT(d.nfn, 9);
	/* One mapping, "already symbolized": functions, files, lines. */
	CHECK_INT(d.nmap, 1);
	CHECK_INT(d.map_id, 1);
	CHECK_STR(s_at(&d, d.map_file), "nginx: worker");
	CHECK_INT(d.map_flags, 7);
	for (size_t i = 0; i < d.nloc; i++) {
		CHECK_INT(d.loc_id[i], i + 1);
		CHECK_INT(d.loc_map[i], 1);
	}
	for (size_t i = 0; i < d.nfn; i++)
		CHECK_INT(d.fn_id[i], i + 1);
	int lua = 0, lib = 0, jit = 0;
	for (size_t i = 0; i < d.nloc; i++) {
		uint64_t fn = d.loc_fn[i] - 1;
		const char *name = s_at(&d, d.fn_name[fn]), *file = s_at(&d, d.fn_file[fn]);
		if (!strcmp(name, "handle")) {
			lua++;
			CHECK_STR(file, "app.lua");
			CHECK_INT(d.fn_start[fn], 42);
			CHECK_INT(d.loc_line[i], 42);
		} else if (!strcmp(name, "render_[j]")) {
			jit++;
			CHECK_STR(file, "view.lua");
			CHECK_INT(d.loc_line[i], 7);
		} else if (!strcmp(name, "libfoo.so+0x1a2b")) {
			lib++;
			CHECK_STR(file, "libfoo.so");
		} else {
			CHECK_INT(d.fn_start[fn], 0);
		}
	}
	CHECK(lua == 1 && jit == 1 && lib == 1);
	free_decoded(&d);
	profile_free(&p);
}

static void pprof_samples_leaf_first(void)
{
	struct profile p;
	sample_profile(&p);
	struct decoded d;
	decode_pprof(&p, &d);
	CHECK_INT(d.nsmp, p.n);
	struct sbuf b;
	sb_init(&b);
	uint64_t total = 0, ns = 0;
	int found = 0;
	for (size_t i = 0; i < d.nsmp; i++) {
		stack_of(&d, i, &b);
		total += d.smp_val[i][0];
		ns += d.smp_val[i][1];
		CHECK_INT(d.smp_val[i][1], d.smp_val[i][0] * 10000000);
		if (!strcmp(b.s, "nginx;main;handle;render_[j]")) {
			found++;
			CHECK_INT(d.smp_val[i][0], 30);
			/* location_id[0] is the leaf */
			uint64_t leaf = d.smp_locs[i][0];
			CHECK_STR(s_at(&d, d.fn_name[d.loc_fn[leaf - 1] - 1]), "render_[j]");
		}
		if (!strcmp(b.s, "nginx;main;epoll_wait;do_epoll_wait_[k]"))
			found++;
	}
	CHECK_INT(found, 2);
	CHECK_INT(total, 118);
	CHECK_INT(ns, 1180000000);
	sb_free(&b);
	free_decoded(&d);
	profile_free(&p);
}

static void pprof_default_hz_and_empty(void)
{
	struct profile p;
	profile_init(&p);
	struct decoded d;
	decode_pprof(&p, &d);
	CHECK_INT(d.period, 1000000000 / 99);
	CHECK_INT(d.nsmp, 0);
	CHECK_INT(d.duration, 0);
	free_decoded(&d);
	add(&p, "a;b", 1000);
	decode_pprof(&p, &d);
	CHECK_INT(d.smp_val[0][1], 10101010101LL);
	free_decoded(&d);
	profile_free(&p);
}

/* ---- a minimal JSON validator (RFC 8259 syntax, UTF-8 strings) ---- */

struct js { const char *p, *end; int depth; };

static void ws(struct js *j)
{
	while (j->p < j->end && strchr(" \t\r\n", *j->p) && *j->p)
		j->p++;
}

static int js_value(struct js *j);

/* Decodes one UTF-8 sequence into a code point and rejects overlong forms,
 * surrogates and values past U+10FFFF. */
static int js_utf8(struct js *j, unsigned char c)
{
	int n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : -1;
	if (n < 0 || c >= 0xf8)
		return 0;
	unsigned long cp = c & (0x3f >> n);
	for (int k = 0; k < n; k++) {
		if (j->p >= j->end || ((unsigned char)*j->p & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | ((unsigned char)*j->p++ & 0x3f);
	}
	unsigned long min[] = { 0, 0x80, 0x800, 0x10000 };
	return cp >= min[n] && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);
}

static int js_string(struct js *j)
{
	if (j->p >= j->end || *j->p++ != '"')
		return 0;
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p++;
		if (c < 0x20 || (c >= 0x80 && !js_utf8(j, c)))
			return 0;
		if (c == '\\') {
			if (j->p >= j->end || !strchr("\"\\/bfnrtu", *j->p) || !*j->p)
				return 0;
			if (*j->p++ == 'u') {
				for (int k = 0; k < 4; k++, j->p++)
					if (j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p) || !*j->p)
						return 0;
			}
		}
	}
	return j->p++ < j->end;
}

static int js_number(struct js *j)
{
	const char *s = j->p;
	if (j->p < j->end && *j->p == '-')
		j->p++;
	while (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') || strchr(".eE+-", *j->p)) && *j->p)
		j->p++;
	return j->p > s;
}

static int js_container(struct js *j, char close, int object)
{
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close)
		return j->p++, 1;
	for (;;) {
		if (object) {
			ws(j);
			if (!js_string(j))
				return 0;
			ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return 0;
		}
		if (!js_value(j))
			return 0;
		ws(j);
		if (j->p >= j->end)
			return 0;
		char c = *j->p++;
		if (c == close)
			return 1;
		if (c != ',')
			return 0;
	}
}

static int js_value(struct js *j)
{
	ws(j);
	if (j->p >= j->end || ++j->depth > 64)
		return 0;
	int ok;
	if (*j->p == '{')
		ok = js_container(j, '}', 1);
	else if (*j->p == '[')
		ok = js_container(j, ']', 0);
	else if (*j->p == '"')
		ok = js_string(j);
	else
		ok = js_number(j);
	j->depth--;
	return ok;
}

static int json_valid(const struct mem *m)
{
	struct js j = { m->s, m->s + m->len, 0 };
	if (!js_value(&j))
		return 0;
	ws(&j);
	return j.p == j.end;
}

static void speedscope_document(void)
{
	struct profile p;
	sample_profile(&p);
	struct mem m = write_mem(write_speedscope, &p);
	CHECK(json_valid(&m));
	CHECK(strstr(m.s, "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""));
	CHECK(strstr(m.s, "\"type\":\"sampled\""));
	CHECK(strstr(m.s, "\"unit\":\"nanoseconds\""));
	CHECK(strstr(m.s, "\"endValue\":1180000000,"));
	CHECK(strstr(m.s, "\"name\":\"nginx: worker (pid 4242)\""));
	/* Sorted stacks ("nginx;[GC]" first); frames numbered as met. */
	CHECK(strstr(m.s, "\"samples\":[\n[0,1],\n[0,2,3,4],\n[0,2,5],\n[0,2,5,6],\n[0,2,5,7],\n[0,2,8]]"));
	CHECK(strstr(m.s, "\"weights\":[80000000,400000000,120000000,300000000,250000000,30000000]"));
	CHECK(strstr(m.s, "{\"name\":\"handle\",\"file\":\"app.lua\",\"line\":42}"));
	CHECK(strstr(m.s, "{\"name\":\"render_[j]\",\"file\":\"view.lua\",\"line\":7}"));
	CHECK(strstr(m.s, "{\"name\":\"libfoo.so+0x1a2b\",\"file\":\"libfoo.so\"}"));
	CHECK(strstr(m.s, "{\"name\":\"do_epoll_wait_[k]\"}"));
	free(m.s);
	profile_free(&p);
}

static void speedscope_escapes_hostile_names(void)
{
	struct profile p;
	profile_init(&p);
	snprintf(p.command, sizeof(p.command), "cmd \"quoted\"\n");
	add(&p, "a\"b\\c;\x01\x1f\x7f;\xff\xfe bad;\xc0\x80 overlong;\xed\xa0\x80 surrogate;"
		"\xf4\x90\x80\x80 big;\xe2\x82 cut;ok \xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5", 1);
	add(&p, "x (\"y\\z\":3)", 1);
	/* The validator itself refuses what the writer must never produce. */
	const char *bad[] = { "\"\xff\"", "\"a\x01\"", "\"\xed\xa0\x80\"", "\"\xc0\x80\"", "\"a\\x\"", "[1,]" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct mem b = { (char *)bad[i], strlen(bad[i]) };
		CHECK(!json_valid(&b));
	}
	struct mem m = write_mem(write_speedscope, &p);
	CHECK(json_valid(&m));
	CHECK(strstr(m.s, "\"name\":\"a\\\"b\\\\c\""));
	CHECK(strstr(m.s, "\"name\":\"\\u0001\\u001f\\u007f\""));
	CHECK(strstr(m.s, "\"name\":\"\\ufffd\\ufffd bad\""));
	CHECK(strstr(m.s, "\"name\":\"\\ufffd\\ufffd overlong\""));
	CHECK(strstr(m.s, "\"name\":\"\\ufffd\\ufffd\\ufffd surrogate\""));
	CHECK(strstr(m.s, "\"name\":\"\\ufffd\\ufffd\\ufffd\\ufffd big\""));
	CHECK(strstr(m.s, "\"name\":\"\\ufffd\\ufffd cut\""));
	CHECK(strstr(m.s, "\"name\":\"ok \xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5\""));
	CHECK(strstr(m.s, "{\"name\":\"x\",\"file\":\"\\\"y\\\\z\\\"\",\"line\":3}"));
	CHECK(strstr(m.s, "\"cmd \\\"quoted\\\"\\u000a\""));
	free(m.s);
	profile_free(&p);
	profile_init(&p);
	m = write_mem(write_speedscope, &p);
	CHECK(json_valid(&m));
	CHECK(strstr(m.s, "\"samples\":[],\n\"weights\":[]"));
	free(m.s);
	profile_free(&p);
}

/* ---- callgrind, read back the way callgrind_annotate reads it ---- */

struct cg_read {
	uint64_t self_total, totals, calls_cost;
	char names[MAXN][128];   /* fn/cfn compression table */
	uint64_t self[MAXN], incl_in[MAXN];
	int events_ok, bad;
};

/* "(id) name" or "(id)": returns id and records the name on first sight. */
static int cg_ref(struct cg_read *c, const char *s)
{
	int id = atoi(s + 1);
	const char *sp = strchr(s, ' ');
	if (s[0] != '(' || id <= 0 || id >= MAXN)
		return c->bad++, 0;
	if (sp)
		snprintf(c->names[id], sizeof(c->names[id]), "%s", sp + 1);
	else if (!c->names[id][0])
		c->bad++;
	return id;
}

static void read_callgrind(const struct mem *m, struct cg_read *c)
{
	memset(c, 0, sizeof(*c));
	char *text = xstrndup(m->s, m->len), *save = NULL;
	int fn = 0, cfn = 0, in_call = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b;
		if (!strcmp(l, "events: Samples"))
			c->events_ok = 1;
		else if (!strncmp(l, "fn=", 3))
			fn = cg_ref(c, l + 3);
		else if (!strncmp(l, "cfn=", 4))
			cfn = cg_ref(c, l + 4);
		else if (!strncmp(l, "calls=", 6))
			in_call = 1;
		else if (!strncmp(l, "totals: ", 8))
			c->totals = strtoull(l + 8, NULL, 10);
		else if (l[0] >= '0' && l[0] <= '9' && sscanf(l, "%llu %llu", &a, &b) == 2) {
			if (in_call) {
				c->incl_in[cfn] += b;
				c->calls_cost += b;
			} else {
				c->self[fn] += b;
				c->self_total += b;
			}
			in_call = 0;
		}
	}
	free(text);
}

static int cg_find(const struct cg_read *c, const char *name)
{
	for (int i = 1; i < MAXN; i++)
		if (!strcmp(c->names[i], name))
			return i;
	return 0;
}

static void callgrind_costs(void)
{
	struct profile p;
	sample_profile(&p);
	struct mem m = write_mem(write_callgrind, &p);
	struct cg_read c;
	read_callgrind(&m, &c);
	CHECK(!strncmp(m.s, "# callgrind format\nversion: 1\n", 30));
	CHECK(strstr(m.s, "\npid: 4242\n"));
	CHECK(strstr(m.s, "\ncmd: nginx: worker\n"));
	CHECK(strstr(m.s, "\npositions: line\nevents: Samples\n"));
	CHECK(c.events_ok);
	CHECK_INT(c.bad, 0);
	CHECK_INT(c.totals, 118);
	CHECK_INT(c.self_total, 118);
	int h = cg_find(&c, "handle (app.lua:42)"), main_ = cg_find(&c, "main");
	CHECK(h && main_);
	CHECK_INT(c.self[h], 12);
	CHECK_INT(c.incl_in[h], 67);
	CHECK_INT(c.incl_in[main_], 110);
	CHECK(strstr(m.s, "fl=(2) app.lua\n"));
	CHECK(strstr(m.s, "calls=67 42\n0 67\n"));   /* main (native, line 0) -> handle at line 42 */
	CHECK(strstr(m.s, "fl=(1) ???\n"));
	free(m.s);
	profile_free(&p);
}

static void callgrind_recursion_counts_once(void)
{
	struct profile p;
	profile_init(&p);
	add(&p, "lua;f (a.lua:1);g (a.lua:5);f (a.lua:1);g (a.lua:5)", 5);
	add(&p, "lua;f (a.lua:1);f (a.lua:1);f (a.lua:1)", 3);
	add(&p, "lua;weird\nname\r;x", 2);
	struct mem m = write_mem(write_callgrind, &p);
	struct cg_read c;
	read_callgrind(&m, &c);
	CHECK_INT(c.bad, 0);
	CHECK_INT(c.totals, 10);
	CHECK_INT(c.self_total, 10);
	int f = cg_find(&c, "f (a.lua:1)"), g = cg_find(&c, "g (a.lua:5)");
	CHECK(f && g);
	/* f is entered from lua (8) and from g (5) and from itself (3); each once per stack */
	CHECK_INT(c.incl_in[f], 16);
	CHECK_INT(c.incl_in[g], 5);
	CHECK(strstr(m.s, "calls=3 1\n1 3\n"));     /* f -> f */
	CHECK(cg_find(&c, "weird?name?"));
	CHECK(!strstr(m.s, "weird\n"));
	free(m.s);
	profile_free(&p);
}

static void callgrind_empty(void)
{
	struct profile p;
	profile_init(&p);
	struct mem m = write_mem(write_callgrind, &p);
	CHECK(strstr(m.s, "events: Samples\n\ntotals: 0\n"));
	free(m.s);
	profile_free(&p);
}

/* ---- --convert: folded file to any format, for the integration test ---- */

static int read_folded(const char *path, struct profile *p)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return perror(path), -1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		ssize_t sp = n;
		while (sp > 0 && line[sp - 1] != ' ')
			sp--;
		char *end;
		unsigned long long count = sp > 1 ? strtoull(line + sp, &end, 10) : 0;
		if (sp > 1 && end == line + n && count)
			profile_add(p, line, (size_t)(sp - 1), count);
	}
	free(line);
	fclose(f);
	return 0;
}

static int convert(int argc, char **argv)
{
	struct profile p;
	profile_init(&p);
	p.hz = argc > 4 ? atoi(argv[4]) : 99;
	snprintf(p.command, sizeof(p.command), "%s", argv[2]);
	if (read_folded(argv[2], &p))
		return 1;
	struct output o = { argv[3], output_format_for(argv[3], NULL) };
	int rc = o.fmt == OUT_UNKNOWN || output_write(&o, &p, 0644);
	profile_free(&p);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "--convert"))
		return convert(argc, argv);
	RUN(labels_of_each_kind);
	RUN(hostile_labels);
	RUN(function_names_keep_kind);
	RUN(splits_stacks);
	RUN(interns_in_first_seen_order);
	RUN(formats_from_names);
	RUN(pprof_tables);
	RUN(pprof_samples_leaf_first);
	RUN(pprof_default_hz_and_empty);
	RUN(speedscope_document);
	RUN(speedscope_escapes_hostile_names);
	RUN(callgrind_costs);
	RUN(callgrind_recursion_counts_once);
	RUN(callgrind_empty);
	CHECK_EXIT();
}
