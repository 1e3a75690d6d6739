/* Walks over a target's memory for the runtime finders: its mapped executable files (to
 * recognise a runtime in one) and its heap and anonymous memory in overlapping chunks (to
 * find a VM's state block). */
#ifndef LF_PROC_SCAN_H
#define LF_PROC_SCAN_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "proc.h"

/* Calls match for each executable file mapping of pid; it returns how surely the file
 * holds what is looked for (0: not at all; -1: the file could not be read). Copies the
 * mapping of the surest file, the first of equals, to *found (path included, caller frees
 * with free(found->path)), after calling match on it once more so that ctx describes it.
 * Returns 0 when one matched. A file's score is remembered, by (dev, inode), for every
 * process that maps it; a file that could not be read is tried again next time. */
typedef int (*file_match)(pid_t pid, const struct mapping *m, void *ctx);
int proc_find_file(pid_t pid, file_match match, void *ctx, struct mapping *found);
/* The scores remembered, sent through fd to the process that forked this one, which takes
 * them in as if it had found them itself: 0, or -1 (then nothing was taken). */
int proc_scores_send(int fd);
int proc_scores_take(int fd);

/* A first look at a process (found not NULL) ends after SCAN_QUICK bytes if *found is nonzero
 * by then: a VM's state is made early, low in the heap, and later VMs are for rescans to
 * find. Then lua-flame starts sampling within a fraction of a second whatever the heap's size. */
#define SCAN_QUICK (256ull << 20)

/* Calls chunk for the heap and anonymous writable memory of pid, in chunks read with
 * `overlap` extra bytes so that a block straddling two chunks is seen whole, until chunk
 * returns nonzero, max_bytes were read, or (found not NULL) SCAN_QUICK bytes were read and
 * *found is nonzero. Returns the bytes read. */
uint64_t proc_scan_memory(pid_t pid, size_t overlap, uint64_t max_bytes, const int *found,
			  int (*chunk)(uint64_t base, const unsigned char *buf, size_t len, void *ctx), void *ctx);
#endif
