/* Reading a target process through /proc: existence and state, its name, and its
 * memory mappings (the executable ones are what native addresses resolve against). */
#ifndef LF_PROC_H
#define LF_PROC_H
#include <stdint.h>
#include <sys/types.h>

struct mapping {
	uint64_t start, end, pgoff;
	uint64_t dev, inode;
	int exec, writable, readable;
	char *path; /* as the target sees it; "[vdso]" etc. for special mappings */
};

struct proc_maps {
	struct mapping *m;
	size_t n;
};

enum proc_state { PROC_GONE, PROC_ZOMBIE, PROC_ALIVE };

enum proc_state proc_state(pid_t pid);
int proc_is_kernel_thread(pid_t pid);
/* Process name from /proc/PID/comm, sanitised; empty string when gone. */
void proc_comm(pid_t pid, char *buf, size_t size);
/* Command line, arguments separated by spaces, capped; the name when unreadable. */
void proc_cmdline(pid_t pid, char *buf, size_t size);
int proc_read_maps(pid_t pid, struct proc_maps *out);
void proc_maps_free(struct proc_maps *pm);
const struct mapping *proc_maps_find(const struct proc_maps *pm, uint64_t addr);
/* Parses one /proc/PID/maps line; returns 0 on success. Exposed for tests. */
int proc_parse_maps_line(const char *line, struct mapping *m);
/* Opens a mapped file through the target's own view: map_files works for deleted and
 * replaced files, root/ for files inside another mount namespace. */
int proc_open_mapped(pid_t pid, const struct mapping *m);
/* Where pid's brk heap starts (set at exec, before the heap is mapped); 0 when unknown. */
uint64_t proc_start_brk(pid_t pid);
/* Value of auxiliary vector entry `type` (AT_BASE, AT_ENTRY...) of pid; 0 when found. */
int proc_auxv(pid_t pid, uint64_t type, uint64_t *val);
/* Reads target memory; returns bytes read or -1. */
ssize_t proc_read_mem(pid_t pid, uint64_t addr, void *buf, size_t len);
#endif
