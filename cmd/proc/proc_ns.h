/* Namespace facts of a target process: its PID as its own container sees it (NSpid in
 * /proc/PID/status) and whether it lives in another PID or mount namespace than lua-flame. */
#ifndef LF_PROC_NS_H
#define LF_PROC_NS_H
#include <stdint.h>
#include <sys/types.h>

/* Sets *inner to the PID that host_pid has in its innermost PID namespace (the last
 * NSpid field; equal to host_pid outside containers). Returns 0, or -1 when the process
 * is gone or its status has no NSpid line (kernels before 4.1). */
int proc_ns_pid(pid_t host_pid, pid_t *inner);
/* 1 when pid is in a PID namespace other than lua-flame's, 0 when in the same one,
 * -1 when unknown (process gone, no permission). */
int proc_in_other_pidns(pid_t pid);
/* The same for the mount namespace: 1 means paths in /proc/PID/maps are the target's
 * paths, to be reached through /proc/PID/root or /proc/PID/map_files. */
int proc_in_other_mntns(pid_t pid);
/* 1 when lua-flame itself runs in a PID namespace below the initial one (a container, a
 * sidecar sharing the target's PID namespace): the PIDs it sees in /proc are then not the
 * ones bpf_get_current_pid_tgid() returns, and BPF has to translate with
 * bpf_get_ns_current_pid_tgid() and proc_ns_self_pidns(). 0 in the initial one, -1 unknown. */
int proc_self_in_child_pidns(void);
/* Device and inode of lua-flame's own PID namespace (/proc/self/ns/pid), the two numbers
 * bpf_get_ns_current_pid_tgid() takes. Returns 0, or -1. */
int proc_ns_self_pidns(uint64_t *dev, uint64_t *ino);
/* Parses the text of a /proc/PID/status file; the part of proc_ns_pid that tests use. */
int proc_ns_parse_nspid(const char *status, pid_t *inner);
#endif
