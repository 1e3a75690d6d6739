/* The lines a VM's snapshot prints (heap_report.h): the comparison with the VM's own count is
 * what tells a user whether to trust the graph, so a shortfall is always said, with its causes. */
#include <inttypes.h>

#include "heap_graph.h"
#include "heap_report.h"
#include "util.h"

/* Past this share of the VM's count missing, the snapshot is called incomplete: a target that
 * allocates while its threads are being held may move a few bytes, never this many. */
#define MISSING_PERMILLE 10

void heap_say(pid_t pid, const char *vm_name, int k, const struct heap_tally *t)
{
	int64_t diff = (int64_t)t->total - (int64_t)t->vm_count;
	double pct = t->vm_count ? 100.0 * (double)diff / (double)t->vm_count : 0.0;
	info_lf("PID %d: %s VM %d: snapshot %" PRIu64 " bytes in %zu objects; the VM counts %" PRIu64
		" bytes (%s): difference %+" PRId64 " bytes (%+.2f%%)", (int)pid, vm_name, k + 1, t->total,
		t->objects, t->vm_count, t->count_name, diff, pct);
	if (t->bad || t->cut || t->dropped)
		warnx_lf("PID %d: VM %d: %" PRIu64 " objects with an unreadable header or size, %" PRIu64 " lists cut short or "
			 "arrays outside the copied memory, %" PRIu64 " objects past the limit were not placed",
			 (int)pid, k + 1, t->bad, t->cut, t->dropped);
	if (diff < 0 && (uint64_t)-diff * 1000 > t->vm_count * MISSING_PERMILLE)
		warnx_lf("PID %d: VM %d: %" PRIu64 " bytes the VM counts (%.1f%%) were not found: the graph is "
			 "incomplete. The VM was stopped inside an operation that holds memory no object reaches "
			 "yet (a thread's stack or a table being moved), or its memory is corrupt (a wild write in "
			 "a C module); take another snapshot to tell", (int)pid, k + 1, (uint64_t)-diff, -pct);
}
