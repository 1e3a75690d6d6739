/* Unit tests for `lua-flame diff`: matching two trees (changes, frames on one side only),
 * the `stack before after` text, the --top table (recursion counted once), and reading
 * back the pprof files lua-flame writes, intact and damaged. */
#include <stdlib.h>
#include <zlib.h>

#include "aggregate.h"
#include "check.h"
#include "diff.h"
#include "out_formats.h"
#include "output.h"

static struct flame *tree(const char *const *stacks, const uint64_t *counts, size_t n)
{
	struct flame *f = flame_new();
	for (size_t i = 0; i < n; i++)
		CHECK_INT(flame_add(f, stacks[i], strlen(stacks[i]), counts[i]), 0);
	return f;
}

/* What a writer puts in memory, as a NUL-terminated string. */
struct mem { char *s; size_t len; FILE *f; };
static void mem_open(struct mem *m) { m->s = NULL; m->len = 0; m->f = open_memstream(&m->s, &m->len); }
static void mem_close(struct mem *m) { fclose(m->f); }

static const char *const before_stacks[] = { "app;main;hot", "app;main;cold", "app;main;gone;x", "app;main" };
static const uint64_t before_counts[] = { 10, 30, 10, 50 };
static const char *const after_stacks[] = { "app;main;hot", "app;main;cold", "app;main;new;x", "app;main" };
static const uint64_t after_counts[] = { 120, 60, 10, 10 };

static void matching(void)
{
	struct flame *b = tree(before_stacks, before_counts, 4), *a = tree(after_stacks, after_counts, 4);
	struct flame_diff d;
	CHECK_INT(diff_build(&d, b, a, 0), 0);
	const struct fnode *main_ = flame_find(a, flame_find(a, &a->root, "app", 3), "main", 4);
	const struct fnode *hot = flame_find(a, main_, "hot", 3), *fresh = flame_find(a, main_, "new", 3);
	CHECK(main_ && hot && fresh);
	CHECK_INT(diff_lookup(&d, hot)->total, 10);
	CHECK_INT(diff_lookup(&d, hot)->found, 1);
	CHECK_INT(diff_lookup(&d, fresh)->found, 0);
	CHECK_INT(diff_lookup(&d, flame_find(a, fresh, "x", 1))->found, 0);
	CHECK_INT(diff_lookup(&d, main_)->self, 50);
	CHECK_INT(diff_lookup(&d, main_)->gone, 10);
	CHECK_INT(diff_lookup(&d, &a->root)->total, 100);
	CHECK_INT(d.gone_frames, 1);
	CHECK_INT(d.gone_samples, 10);
	/* hot: 10% of 100 before, 60% of 200 after: +50 points, the largest change */
	CHECK(d.max_change > 0.4999 && d.max_change < 0.5001);
	CHECK(diff_change(&d, 30, 60) == 0);
	diff_free(&d);
	CHECK_INT(diff_build(&d, b, a, 1), 0);   /* raw counts: hot +110 */
	CHECK(d.max_change == 110);
	diff_free(&d);
	flame_free(a);
	flame_free(b);
}

static void folded_text(void)
{
	struct flame *b = tree(before_stacks, before_counts, 4), *a = tree(after_stacks, after_counts, 4);
	struct flame_diff d;
	struct mem m;
	CHECK_INT(diff_build(&d, b, a, 0), 0);
	mem_open(&m);
	CHECK_INT(diff_write_folded(&d, m.f), 0);
	mem_close(&m);
	CHECK_STR(m.s, "app;main 50 10\napp;main;cold 30 60\napp;main;gone;x 10 0\napp;main;hot 10 120\n"
		  "app;main;new;x 0 10\n");
	free(m.s);
	diff_free(&d);
	flame_free(a);
	flame_free(b);
}

static void top_counts_recursion_once(void)
{
	static const char *const bs[] = { "app;f;g;f", "app;h" };
	static const uint64_t bc[] = { 10, 90 };
	static const char *const as[] = { "app;f;g;f", "app;h" };
	static const uint64_t ac[] = { 40, 60 };
	struct flame *b = tree(bs, bc, 2), *a = tree(as, ac, 2);
	struct flame_diff d;
	struct mem m;
	CHECK_INT(diff_build(&d, b, a, 1), 0);
	mem_open(&m);
	CHECK_INT(diff_write_top(&d, 2, m.f), 0);
	mem_close(&m);
	/* f: self 10 -> 40, total 10 -> 40 (not 20 -> 80); h -30; g total +30 ranks after f by name */
	const char *row = strchr(m.s, '\n');
	CHECK_STR(row, "\n          10         40        +30            10         40        +30  C        f\n"
		  "           0          0         +0            10         40        +30  C        g\n");
	free(m.s);
	diff_free(&d);
	flame_free(a);
	flame_free(b);
}

static void sample_profile(struct profile *p)
{
	profile_init(p);
	p->hz = 99;
	static const char *const s[] = {
		"nginx;main;handle (app.lua:42);render (view.lua:7)_[j]",
		"nginx;main;handle (app.lua:42);string.format",
		"nginx;main;main chunk (init.lua:0);handle (app.lua:42)",
		"nginx;main;epoll_wait;do_epoll_wait_[k]",
		"nginx;main;libfoo.so+0x1a2b;[unwind: no table]",
		"nginx;[GC]",
		"nginx;? ([string \"f (x:1)\"]:3)",
	};
	for (size_t i = 0; i < sizeof(s) / sizeof(*s); i++)
		profile_add(p, s[i], strlen(s[i]), 10 + i);
}

/* lua-flame's pprof, read back: every stack the same, with the same count. */
static void pprof_round_trip(void)
{
	struct profile p;
	sample_profile(&p);
	struct mem m;
	mem_open(&m);
	CHECK_INT(write_pprof(m.f, &p), 0);
	mem_close(&m);
	struct flame *back = flame_new(), *ref = flame_new();
	char err[256] = "";
	FILE *in = fmemopen(m.s, m.len, "rb");
	CHECK_INT(pprof_read(back, in, err, sizeof(err)), 0);
	fclose(in);
	struct mem folded;
	mem_open(&folded);
	CHECK_INT(write_folded(folded.f, &p), 0);
	mem_close(&folded);
	in = fmemopen(folded.s, folded.len, "r");
	CHECK_INT(flame_read_folded(ref, in, NULL), 0);
	fclose(in);
	CHECK_INT(flame_total(back), flame_total(ref));
	struct flame_diff d;
	struct mem out;
	CHECK_INT(diff_build(&d, ref, back, 1), 0);
	CHECK_INT(d.gone_frames, 0);
	CHECK(d.max_change == 0);
	mem_open(&out);
	CHECK_INT(diff_write_folded(&d, out.f), 0);
	mem_close(&out);
	CHECK(strstr(out.s, "nginx;main;main chunk (init.lua:0);handle (app.lua:42) 12 12\n") != NULL);
	CHECK(strstr(out.s, "nginx;main;libfoo.so+0x1a2b;[unwind: no table] 14 14\n") != NULL);
	CHECK(strstr(out.s, "nginx;main;handle (app.lua:42);render (view.lua:7)_[j] 10 10\n") != NULL);
	CHECK(strstr(out.s, "nginx;? ([string \"f (x:1)\"]:3) 16 16\n") != NULL);
	diff_free(&d);
	free(out.s);
	free(folded.s);
	free(m.s);
	flame_free(back);
	flame_free(ref);
	profile_free(&p);
}

static size_t gzip_mem(const uint8_t *raw, size_t len, uint8_t *out, size_t cap)
{
	z_stream z = { 0 };
	deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (uint8_t *)raw;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	CHECK_INT(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t n = cap - z.avail_out;
	deflateEnd(&z);
	return n;
}

/* Damaged profile.proto (bytes flipped, cut short) is refused or read, never a crash. */
static void pprof_damaged(void)
{
	struct profile p;
	sample_profile(&p);
	struct mem m;
	mem_open(&m);
	CHECK_INT(write_pprof(m.f, &p), 0);
	mem_close(&m);
	static uint8_t raw[1 << 16], mutated[1 << 16], packed[1 << 17];
	z_stream z = { 0 };
	inflateInit2(&z, 31);
	z.next_in = (uint8_t *)m.s;
	z.avail_in = (uInt)m.len;
	z.next_out = raw;
	z.avail_out = sizeof(raw);
	CHECK_INT(inflate(&z, Z_FINISH), Z_STREAM_END);
	size_t len = sizeof(raw) - z.avail_out;
	inflateEnd(&z);
	uint32_t seed = 12345;
	int refused = 0;
	for (int round = 0; round < 3000; round++) {
		memcpy(mutated, raw, len);
		size_t n = round % 10 == 0 ? (size_t)round % len : len;
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			mutated[(seed >> 8) % len] ^= (uint8_t)(1u << ((seed >> 4) % 8));
		}
		size_t plen = gzip_mem(mutated, n, packed, sizeof(packed));
		FILE *in = fmemopen(packed, plen, "rb");
		struct flame *f = flame_new();
		char err[256];
		refused += pprof_read(f, in, err, sizeof(err)) < 0;
		flame_free(f);
		fclose(in);
	}
	CHECK(refused > 0);
	free(m.s);
	profile_free(&p);
}

int main(void)
{
	RUN(matching);
	RUN(folded_text);
	RUN(top_counts_recursion_once);
	RUN(pprof_round_trip);
	RUN(pprof_damaged);
	CHECK_EXIT();
}
