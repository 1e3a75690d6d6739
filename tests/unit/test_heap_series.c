/* Unit tests for heap snapshot series (`lua-flame heap --every`): the numbered names of each
 * snapshot's files. */
#include "check.h"
#include "heap_series.h"

static const char *named(const char *path, unsigned k)
{
	static char buf[256];
	return heap_series_name(path, k, buf, sizeof(buf)) ? "(too long)" : buf;
}

static void names(void)
{
	CHECK_STR(named("heap.svg", 1), "heap-001.svg");
	CHECK_STR(named("heap.folded", 12), "heap-012.folded");
	CHECK_STR(named("x.pb.gz", 3), "x-003.pb.gz");
	CHECK_STR(named("out/heap.speedscope.json", 7), "out/heap-007.speedscope.json");
	CHECK_STR(named("heap", 2), "heap-002");
	CHECK_STR(named("dir.d/heap", 2), "dir.d/heap-002");
	CHECK_STR(named("/tmp/.hidden", 1), "/tmp/.hidden-001");
	CHECK_STR(named("a.b.svg", 1000), "a.b-1000.svg");
	char small[8];
	CHECK_INT(heap_series_name("heap.svg", 1, small, sizeof(small)), -1);
}

int main(void)
{
	RUN(names);
	CHECK_EXIT();
}
