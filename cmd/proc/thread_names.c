/* Thread names for the per-thread roots of folded stacks, cached by (PID, TID): a drain folds
 * every distinct stack of a generation, and a server's threads make thousands of them. An
 * entry is read again after a few seconds, as a thread may rename itself. */
#include "thread_names.h"

#include <stdio.h>
#include <string.h>

#include "../util.h"

#define TN_SLOTS 1024 /* a power of two; a busier process only reads some names more often */
#define TN_TTL   5.0  /* seconds an entry stays valid */

struct tn_entry {
	pid_t pid;
	uint32_t tid;
	double read_at;
	char name[16];
};

static struct tn_entry tn_cache[TN_SLOTS];

static void read_name(struct tn_entry *e)
{
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%u/comm", (int)e->pid, e->tid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		snprintf(buf, sizeof(buf), "thread");
	size_t n = strcspn(buf, "\n"); /* the kernel keeps 15 bytes at most */
	if (n >= sizeof(e->name))
		n = sizeof(e->name) - 1;
	memcpy(e->name, buf, n);
	e->name[n] = 0;
}

const char *thread_name(pid_t pid, uint32_t tid)
{
	uint32_t h = ((uint32_t)pid * 2654435761u) ^ (tid * 40503u);
	struct tn_entry *e = &tn_cache[h & (TN_SLOTS - 1)];
	double now = now_sec();
	if (e->pid != pid || e->tid != tid || now - e->read_at > TN_TTL || !e->name[0]) {
		e->pid = pid;
		e->tid = tid;
		e->read_at = now;
		read_name(e);
	}
	return e->name;
}
