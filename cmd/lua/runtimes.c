/* The families of Lua runtimes lua-flame knows, in the order a process is searched for them,
 * and what is done with any of them without knowing which. */
#include <stdlib.h>

#include "label_cache.h"
#include "lua_merge.h"
#include "runtime.h"
#include "util.h"

extern const struct runtime_ops puc_runtime_ops, luajit_runtime_ops;

/* A new family: its folder, and one line here. PUC Lua comes first: a LuaJIT host may
 * carry a PUC version string, never a PUC VM's exported API. */
const struct runtime_ops *const runtime_families[] = {
	&puc_runtime_ops,
	&luajit_runtime_ops,
	NULL,
};

struct runtime *runtime_detect(pid_t pid, int *seen)
{
	if (seen)
		*seen = 0;
	for (int i = 0; runtime_families[i]; i++) {
		struct runtime *rt = calloc(1, sizeof(*rt));
		if (!rt)
			return NULL;
		rt->ops = runtime_families[i];
		rt->pid = pid;
		int rc = rt->ops->detect(pid, rt);
		if (rc == 0)
			return rt;
		runtime_free(rt);
		if (rc == -2) { /* a runtime too new for this build: not another family's either */
			if (seen)
				*seen = 1;
			return NULL;
		}
	}
	return NULL;
}

int runtime_ready(pid_t pid)
{
	struct runtime *rt = runtime_detect(pid, NULL);
	int ready = !rt ? 0 : rt->ops->scan(rt) > 0 ? 2 : rt->keep_without_vm ? 1 : 0;
	runtime_free(rt);
	return ready;
}

void runtime_free(struct runtime *rt)
{
	if (!rt)
		return;
	if (rt->vm)
		rt->ops->free(rt->vm);
	free(rt);
}

int runtime_frame_label(const struct runtime *rt, struct symbolizer *sym, const struct lm_thread *th, int j,
			int lines, struct sbuf *out)
{
	label_cache_lock();
	int gone = rt->ops->frame_label(rt, sym, th, j, lines, out);
	label_cache_unlock();
	return gone;
}

void runtime_name_frames(const struct runtime *rt, const struct lm_thread *th, int lines)
{
	static struct sbuf scratch;
	for (int j = 0; j < th->n; j++)
		if (!th->f[j].c && th->f[j].ptr) {
			sb_reset(&scratch);
			label_cache_lock();
			rt->ops->function_label(rt, th, j, lines, &scratch);
			label_cache_unlock();
		}
}
