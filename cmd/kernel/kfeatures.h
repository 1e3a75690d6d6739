/* What the running kernel's BPF can do, probed rather than inferred from its version:
 * the program and maps lua-flame loads follow from it, and --version and --stats say it. */
#ifndef LF_KFEATURES_H
#define LF_KFEATURES_H

/* bpf_loop (5.17+): native and Lua stacks walked in one program call. Without it, the
 * program built without bpf_loop runs. LUA_FLAME_NO_BPF_LOOP=1 makes lua-flame run as on a
 * kernel before 5.15: no bpf_loop and no bpf_task_pt_regs. */
int kf_bpf_loop(void);
/* bpf_task_pt_regs (5.15+): the user registers of a sample taken in the kernel. Before,
 * they are found at the top of the task's kernel stack. */
int kf_task_pt_regs(void);
/* Hash maps allocated on demand in perf_event programs (6.1+); before, they are
 * preallocated, which costs their full size in memory from the start. */
int kf_nonprealloc_maps(void);
/* One line per feature, for --version and --stats; "unknown" when bpf() is refused. */
void kf_describe(char *buf, unsigned size);
#endif
