/* One LuaJIT VM's snapshot from the copy: its objects and their paths folded under the VM's
 * root, its own blocks under [vm], and the total said beside the VM's gc.total. */
#include <inttypes.h>

#include "heap_fold.h"
#include "heap_luajit.h"
#include "heap_report.h"
#include "frame_label.h"
#include "util.h"

/* lh_own's blocks, in the grammar's order */
_Static_assert((int)LH_OWN_N == (int)LF_HEAP_NBLOCKS && (int)LH_STRTAB == (int)LF_HEAP_STRING_TABLE, "lh_own follows lf_heap_blocks");

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
		heap_fold_vm(p, root, lf_heap_blocks[j], h->own[j]);
		total += h->own[j];
	}
	struct heap_tally t = { "gc.total, collectgarbage(\"count\") * 1024", total, h->vm_count, h->g->n,
				 h->bad, h->cut, h->g->dropped };
	heap_say(pid, vm_name, k, &t);
}
