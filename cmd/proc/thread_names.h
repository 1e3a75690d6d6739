/* Thread names (/proc/PID/task/TID/comm) for the per-thread roots of folded stacks, read once
 * per thread and a few seconds rather than once per stack: a server's drain folds thousands. */
#ifndef LF_THREAD_NAMES_H
#define LF_THREAD_NAMES_H
#include <stdint.h>
#include <sys/types.h>

/* The name of thread tid of pid (at most 15 bytes, as the kernel keeps it), or "thread" when
 * it cannot be read. Valid until the next call. Not thread-safe: the drain's thread only. */
const char *thread_name(pid_t pid, uint32_t tid);
#endif
