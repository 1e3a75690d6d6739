/* What one VM's snapshot says on stderr, for every runtime family alike: its total beside the
 * VM's own count, and, when the two part, what could not be placed and why. */
#ifndef LF_HEAP_REPORT_H
#define LF_HEAP_REPORT_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct heap_tally {
	const char *count_name; /* how the VM's count is known, e.g. "gc.total, collectgarbage(\"count\") * 1024" */
	uint64_t total;         /* bytes the snapshot placed */
	uint64_t vm_count;      /* bytes the VM counts */
	size_t objects;
	uint64_t bad, cut, dropped; /* unreadable headers, lists or arrays cut short, objects past the limit */
};

void heap_say(pid_t pid, const char *vm_name, int k, const struct heap_tally *t);
#endif
