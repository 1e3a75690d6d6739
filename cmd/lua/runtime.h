/* The interface each family of Lua runtimes implements (PUC Lua, LuaJIT): finding it in a
 * process, telling the BPF side how to walk its VMs, and labelling its frames. A family is
 * one folder under cmd/lua/ plus one line in runtimes.c; nothing else names it. */
#ifndef LF_RUNTIME_H
#define LF_RUNTIME_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lm_rules;
struct lm_stack;
struct lm_thread;
struct sampler;
struct sbuf;
struct symbolizer;

/* One runtime found in one process: what every family knows of it, and the family's own
 * state (vm). */
struct runtime {
	const struct runtime_ops *ops;
	void *vm;
	pid_t pid;
	int nvms;              /* VMs (global states) found by the last scan */
	char name[64];         /* "Lua 5.4.6", "LuaJIT 2.1.0-beta3" */
	char variant[64];      /* the layout chosen ("upstream GC64"), "" when the name says it all */
	char core_path[256];   /* the mapped file holding the VM */
	uint64_t core_dev, core_inode;
	/* Set by detect when the BPF side can be told of the runtime before its first VM exists
	 * (it knows that VM by its shape until a scan finds it); then it stays attached and is
	 * refreshed. Else attach is retried until a VM exists. */
	int keep_without_vm;
	/* Set by scan or refresh when the VM found is of a build this lua-flame cannot read (the
	 * family has said so): the runtime is dropped and the process's stacks are native only. */
	int refused;
};

/* The VM state a thread was in when sampled, as its label says (LF_LABEL_GC, ...). */
enum rt_state { RT_STATE_NONE, RT_STATE_GC, RT_STATE_OTHER };

struct runtime_ops {
	const char *family;    /* "PUC Lua", "LuaJIT" */
	const char *cfg_map;   /* the BPF map of per-process walk configurations, keyed by PID */
	/* 0 with rt filled (rt->vm allocated) when pid holds this family's runtime in a layout
	 * this build knows; -1 when it holds none; -2 when it holds one this build cannot read
	 * (the family has said why and what to do). */
	int (*detect)(pid_t pid, struct runtime *rt);
	/* Looks for VMs in memory now; returns how many (also in rt->nvms). */
	int (*scan)(struct runtime *rt);
	/* The BPF side's configuration for cfg_map; core_file: the unwind-table index of the
	 * file holding the VM. Returns its size. */
	size_t (*bpf_cfg)(const struct runtime *rt, uint32_t core_file, void *out, size_t max);
	/* Called while recording (NULL: never): rescans; returns whether the BPF side must be told again. */
	int (*refresh)(struct runtime *rt, struct sampler *smp, int full);
	/* Each time the BPF side was given the configuration (NULL: nothing more): what else it
	 * needs of the runtime from the start. */
	void (*pushed)(const struct runtime *rt, struct sampler *smp);
	/* How its VM runs Lua code, where the merge must follow it (lua_merge.h; NULL: PUC Lua's way). */
	const struct lm_rules *merge;
	/* Before a merge, what the record holds turned into what the labels need (NULL: as is). */
	void (*resolve)(const struct runtime *rt, struct lm_stack *st);
	/* The label of Lua function frame j of th, read from the target into the label caches
	 * (runtime_name_frames calls it while the function exists). */
	int (*function_label)(const struct runtime *rt, const struct lm_thread *th, int j, int lines,
			       struct sbuf *out);
	/* The label of frame j (innermost first) of th, from the caches or the target; returns
	 * 1 when the function could not be named (LF_LABEL_GONE), else 0. The two are called
	 * with the label caches' lock held. */
	int (*frame_label)(const struct runtime *rt, struct symbolizer *sym, const struct lm_thread *th, int j,
			    int lines, struct sbuf *out);
	/* Alloc mode: the addresses of the allocation functions of the VMs found (each VM's own,
	 * read from its global state), at most max; returns how many. */
	size_t (*allocators)(const struct runtime *rt, uint64_t *fn, size_t max);
	/* Appended after the innermost frame of th (LuaJIT's VM states); NULL: nothing. Returns
	 * which state it wrote. */
	enum rt_state (*thread_label)(const struct lm_thread *th, struct sbuf *out);
	void (*free)(void *vm);
};

/* The pointer at g + off for each global state g of gs[n] (an allocator each keeps), at most
 * max, those that cannot be read left out; returns how many. */
size_t runtime_read_pointers(pid_t pid, const uint64_t *gs, int n, unsigned off, uint64_t *out, size_t max);

/* Every family, in the order they are tried (runtimes.c). */
extern const struct runtime_ops *const runtime_families[];

/* The runtime of pid, or NULL; *seen (if given) tells a runtime this build cannot read. */
struct runtime *runtime_detect(pid_t pid, int *seen);
/* Whether pid can be attached now, without a word: 2 a runtime with at least one VM, 1 a
 * runtime whose family is attached before its first VM (the BPF side knows that VM by its
 * shape until a scan finds it), 0 neither. */
int runtime_ready(pid_t pid);
void runtime_free(struct runtime *rt);
/* The label of frame j of th (rt's ops->frame_label under the label caches' lock); 1 when
 * the function could not be named. */
int runtime_frame_label(const struct runtime *rt, struct symbolizer *sym, const struct lm_thread *th, int j,
			 int lines, struct sbuf *out);
/* Reads the labels of th's Lua functions into the label caches now, while they exist, for
 * runtime_frame_label to find later without reading the target. */
void runtime_name_frames(const struct runtime *rt, const struct lm_thread *th, int lines);
#endif
