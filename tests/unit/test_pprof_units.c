/* Unit tests for the units `lua-flame diff` reads from pprof files: a heap snapshot's values
 * are its inuse_space bytes (not the inuse_objects before them), a recording's its samples. */
#include <stdlib.h>

#include "aggregate.h"
#include "check.h"
#include "diff.h"
#include "out_formats.h"

static void heap_pprof_bytes(void)
{
	struct profile p;
	profile_init(&p);
	p.heap = 1;
	profile_add_objects(&p, "lua5.4;growing;[n];[string]", 27, 102500, 100);
	profile_add_objects(&p, "lua5.4;flat;[table]", 19, 8248, 1);
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	CHECK_INT(write_pprof(m, &p), 0);
	fclose(m);
	struct flame *f = flame_new();
	char unit[32] = "x", err[256] = "";
	FILE *in = fmemopen(s, len, "rb");
	CHECK_INT(pprof_read_unit(f, in, unit, sizeof(unit), err, sizeof(err)), 0);
	fclose(in);
	CHECK_INT(flame_total(f), 102500 + 8248);
	CHECK_STR(unit, "bytes");
	flame_free(f);
	free(s);
	profile_free(&p);
}

/* A recording's pprof: samples, counted. */
static void recording_pprof_count(void)
{
	struct profile p;
	profile_init(&p);
	p.hz = 99;
	profile_add(&p, "app;main", 8, 42);
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	CHECK_INT(write_pprof(m, &p), 0);
	fclose(m);
	struct flame *f = flame_new();
	char unit[32] = "", err[256] = "";
	FILE *in = fmemopen(s, len, "rb");
	CHECK_INT(pprof_read_unit(f, in, unit, sizeof(unit), err, sizeof(err)), 0);
	fclose(in);
	CHECK_INT(flame_total(f), 42);
	CHECK_STR(unit, "count");
	flame_free(f);
	free(s);
	profile_free(&p);
}

int main(void)
{
	RUN(heap_pprof_bytes);
	RUN(recording_pprof_count);
	CHECK_EXIT();
}
