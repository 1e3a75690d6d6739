/* Alloc mode's sampling: a uprobe on each VM's allocation function, on every thread of its
 * process, switched on for short windows at random moments (a hit costs the target a trap
 * into the kernel, far more than an allocation), so that the target pays for a small,
 * bounded share of its allocations. The BPF program (profile.bpf.c, built with LF_ALLOC)
 * counts each allocation that grows a block for its bytes. */
#ifndef LF_ALLOC_WINDOWS_H
#define LF_ALLOC_WINDOWS_H
#include <stdint.h>
#include <sys/types.h>

struct alloc_windows;

/* Windows of window seconds, on average one every period seconds; prog_fd: the program the
 * probes run. NULL with a message when the kernel has no uprobe events. */
struct alloc_windows *aw_open(int prog_fd, double window, double period);
/* Probes the function at addr in pid (a VM's allocator) on its threads, new ones too; a pair
 * already probed is left. 0, or -1 with a message (which PID, what failed). */
int aw_probe(struct alloc_windows *w, pid_t pid, uint64_t addr);
/* Starts the windows (a thread of their own). */
void aw_start(struct alloc_windows *w);

struct aw_result {
	double elapsed, open;  /* seconds from start to stop, and of them with the probes on */
	double held;           /* seconds the probes were in the code, their opening and freeing too */
	int probes, threads, windows;
};
/* Stops the windows (the probes stay off) and says what they saw. */
void aw_stop(struct alloc_windows *w, struct aw_result *r);
void aw_close(struct alloc_windows *w);
#endif
