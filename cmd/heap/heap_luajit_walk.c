/* One LuaJIT VM's snapshot from the copy: its objects and their paths folded under the VM's
 * root, its own blocks under [vm], and the total said beside the VM's gc.total. */
#include <inttypes.h>

#include "heap_fold.h"
#include "heap_luajit.h"
#include "util.h"

static const char *const own_names[LH_OWN_N] = { "[global state]", "[string table]", "[buffers]",
						 "[JIT state]", "[C types]" };

static void say(pid_t pid, const char *vm_name, int k, const struct lj_heap *h, uint64_t total, size_t objects)
{
	int64_t diff = (int64_t)total - (int64_t)h->vm_count;
	info_lf("PID %d: %s VM %d: snapshot %" PRIu64 " bytes in %zu objects; the VM counts %" PRIu64
		" bytes (gc.total, collectgarbage(\"count\") * 1024): difference %+" PRId64 " bytes (%+.2f%%)",
		(int)pid, vm_name, k + 1, total, objects, h->vm_count, diff,
		h->vm_count ? 100.0 * (double)diff / (double)h->vm_count : 0.0);
	if (h->bad || h->cut || h->g->dropped)
		warnx_lf("PID %d: VM %d: %" PRIu64 " objects with an unreadable header, %" PRIu64 " lists or arrays "
			 "outside the copied memory, %" PRIu64 " objects past the limit were not placed",
			 (int)pid, k + 1, h->bad, h->cut, h->g->dropped);
}

int lj_heap_walk(pid_t pid, const struct luajit_layout *l, const struct heap_copy *c, uint64_t G, int k,
		 struct lj_heap *h, struct hgraph *g)
{
	hg_init(g);
	*h = (struct lj_heap){ .l = l, .c = c, .g = g };
	int rc = lj_heap_objects(h, G);
	if (rc)
		warnx_lf("PID %d: VM %d: its global state at 0x%" PRIx64 " is not in the copied memory", (int)pid,
			 k + 1, G);
	else
		lj_heap_refs(h);
	h->c = NULL;
	hg_drop_index(g);
	return rc;
}

void lj_heap_fold(pid_t pid, const char *vm_name, int k, struct lj_heap *h, const char *root, struct profile *p)
{
	uint64_t total = heap_fold(h->g, root, p);
	for (int j = 0; j < LH_OWN_N; j++) {
		heap_fold_vm(p, root, own_names[j], h->own[j]);
		total += h->own[j];
	}
	say(pid, vm_name, k, h, total, h->g->n);
}
