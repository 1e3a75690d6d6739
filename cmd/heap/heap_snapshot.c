/* One process's heap snapshot: its Lua runtime and VMs found as the recorder finds them, its
 * memory copied during one short pause, then each VM walked from the copy by its family's walk
 * (PUC Lua here, LuaJIT in heap_luajit_walk.c) and folded, with the VM's own count beside the
 * snapshot's total. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "heap_copy.h"
#include "heap_fold.h"
#include "heap_luajit.h"
#include "heap_puc.h"
#include "heap_report.h"
#include "frame_label.h"
#include "heap_snapshot.h"
#include "luajit_runtime.h"
#include "proc.h"
#include "puc_runtime.h"
#include "runtime.h"
#include "safe_name.h"
#include "util.h"

static int is_luajit(const struct runtime *rt)
{
	return !strcmp(rt->ops->family, "LuaJIT");
}

/* Whether this build knows the heap of rt's layout. A LuaJIT file that does not say GC64 or
 * not gets its layout from the scan; then both variants of its fork must know it. */
static int heap_supported(const struct runtime *rt)
{
	if (is_luajit(rt)) {
		const struct luajit_runtime *vm = rt->vm;
		if (vm->lay)
			return vm->lay->hp_ok;
		const struct luajit_layout *a = luajit_layout_get(luajit_variant_of(vm->facts.fork, 1));
		const struct luajit_layout *b = luajit_layout_get(luajit_variant_of(vm->facts.fork, 0));
		return a && b && a->hp_ok && b->hp_ok;
	}
	return !strcmp(rt->ops->family, "PUC Lua") && ((struct puc_runtime *)rt->vm)->lay->hp_ok;
}

/* The VMs of pid's runtime, or NULL (told why: exit status in *rc). */
static struct runtime *find_vms(pid_t pid, int *rc)
{
	int seen = 0;
	*rc = 2;
	if (proc_state(pid) != PROC_ALIVE) {
		warnx_lf("PID %d: no such process", (int)pid);
		return NULL;
	}
	struct runtime *rt = runtime_detect(pid, &seen);
	if (!rt) {
		if (!seen)
			warnx_lf("PID %d: no Lua runtime found in it (no PUC Lua or LuaJIT core is mapped): check "
				 "the PID (with --children, the workers of a server)", (int)pid);
		return NULL;
	}
	if (!heap_supported(rt)) {
		warnx_lf("PID %d: heap snapshots of %s%s%s are not supported yet (PUC Lua 5.1-5.5 and LuaJIT 2.1 "
			 "are)", (int)pid, rt->name, rt->variant[0] ? " " : "", rt->variant);
	} else if (rt->ops->scan(rt) <= 0) {
		warnx_lf("PID %d: %s is mapped but no VM (lua_State) exists in its memory yet", (int)pid, rt->name);
	} else {
		*rc = 0;
		return rt;
	}
	runtime_free(rt);
	return NULL;
}

static void vm_root(pid_t pid, const struct heap_opts *o, int k, int n, char *out, size_t size)
{
	char comm[64], safe[256];
	proc_comm(pid, comm, sizeof(comm));
	safe_name_write(safe, sizeof(safe), comm, strlen(comm), SAFE_FOLDED_ROOT);
	int len = o->pid_roots ? snprintf(out, size, "%s-%d", safe, (int)pid) : snprintf(out, size, "%s", safe);
	if (n > 1 && len > 0 && (size_t)len < size)
		snprintf(out + len, size - (size_t)len, ";[VM %d]", k + 1);
}

/* One VM walked from the copy, kept until it is folded. */
struct walked {
	struct hgraph g;
	struct puc_heap puc;
	struct lj_heap lj;
	int rc;
};

/* Walks the PUC Lua VM at G into w; 0, or -1 when G cannot be read from the copy. */
static int walk_puc(pid_t pid, const struct runtime *rt, const struct heap_copy *c, uint64_t G, int k,
		    struct walked *w)
{
	hg_init(&w->g);
	w->puc = (struct puc_heap){ .l = ((struct puc_runtime *)rt->vm)->lay, .c = c,
				    .m = { heap_copy_read, (void *)c }, .g = &w->g };
	int rc = puc_heap_objects(&w->puc, G);
	if (rc) {
		warnx_lf("PID %d: VM %d: its global state at 0x%" PRIx64 " is not in the copied memory", (int)pid,
			 k + 1, G);
	} else if (puc_heap_misfit(&w->puc)) {
		warnx_lf("PID %d: VM %d: %" PRIu64 " of its %" PRIu64 " tables do not fit %s's layout (a copy of Lua "
			 "patched beyond its release, as Redis 7 patches 5.1's tables): heap snapshots of this build "
			 "are not supported yet, and none is written for it", (int)pid, k + 1, w->puc.misfit_tables,
			 w->puc.tables, rt->name);
		rc = -1;
	} else {
		puc_heap_refs(&w->puc);
	}
	w->puc.c = NULL;
	w->puc.m = (struct puc_mem){ 0 };
	hg_drop_index(&w->g);
	return rc;
}

static void fold_puc(pid_t pid, const struct runtime *rt, int k, struct walked *w, const char *root,
		     struct profile *p)
{
	struct puc_heap *h = &w->puc;
	uint64_t total = heap_fold(&w->g, root, p) + h->vm_own;
	heap_fold_vm(p, root, lf_heap_blocks[LF_HEAP_GLOBAL_STATE], h->l->lg_sizeof);
	heap_fold_vm(p, root, lf_heap_blocks[LF_HEAP_STRING_TABLE], h->vm_own - h->l->lg_sizeof);
	struct heap_tally t = { "collectgarbage(\"count\") * 1024", total, h->vm_count, w->g.n, h->bad, h->cut,
				 w->g.dropped };
	heap_say(pid, rt->name, k, &t);
}

/* Every VM is walked before any is folded: the copy is freed first, as folding needs as
 * much memory again for the stacks' text. */
static int walk_all(pid_t pid, const struct heap_opts *o, const struct runtime *rt, struct heap_copy *c,
		    struct profile *p)
{
	const struct luajit_runtime *lj = is_luajit(rt) ? rt->vm : NULL;
	const struct puc_runtime *vm = lj ? NULL : rt->vm;
	int ngs = lj ? lj->ngs : vm->ngs, rc = 0;
	struct walked *w = xcalloc(ngs > 0 ? (size_t)ngs : 1, sizeof(*w));
	for (int k = 0; k < ngs; k++)
		w[k].rc = lj ? lj_heap_walk(pid, lj->lay, c, lj->gs[k], k, &w[k].lj, &w[k].g) :
			       walk_puc(pid, rt, c, vm->gs[k], k, &w[k]);
	heap_copy_free(c);
	for (int k = 0; k < ngs; k++) {
		char root[300];
		vm_root(pid, o, k, ngs, root, sizeof(root));
		if (w[k].rc)
			rc = 1;
		else if (lj)
			lj_heap_fold(pid, rt->name, k, &w[k].lj, root, p);
		else
			fold_puc(pid, rt, k, &w[k], root, p);
		hg_free(&w[k].g);
	}
	free(w);
	return rc;
}

int heap_snapshot(pid_t pid, const struct heap_opts *o, struct profile *p)
{
	int rc;
	struct runtime *rt = find_vms(pid, &rc);
	if (!rt)
		return rc;
	struct heap_copy c;
	rc = heap_copy_take(pid, o->max_pause, &c);
	if (!rc) {
		info_lf("PID %d: held %d thread%s for %.1f ms to copy %.1f MB of memory", (int)pid, c.threads,
			c.threads == 1 ? "" : "s", c.pause * 1e3, (double)c.bytes / 1e6);
		double t0 = now_sec();
		rc = walk_all(pid, o, rt, &c, p);
		info_lf("PID %d: heap walked in %.2f s", (int)pid, now_sec() - t0);
	}
	heap_copy_free(&c);
	runtime_free(rt);
	return rc;
}
