/* Namespace facts of a target process, read from /proc: the container-side PID (last
 * NSpid field of /proc/PID/status) and whether /proc/PID/ns/{pid,mnt} differ from ours. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proc_ns.h"
#include "util.h"

int proc_ns_parse_nspid(const char *status, pid_t *inner)
{
	const char *p = status;
	while (p && *p) {
		if (!strncmp(p, "NSpid:", 6)) {
			p += 6;
			long last = -1;
			for (;;) {
				while (*p == ' ' || *p == '\t')
					p++;
				if (*p < '0' || *p > '9')
					break;
				char *end;
				last = strtol(p, &end, 10);
				p = end;
			}
			if (last <= 0 || (*p != '\n' && *p != 0))
				return -1;
			*inner = (pid_t)last;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int proc_ns_pid(pid_t host_pid, pid_t *inner)
{
	char path[64], buf[8192];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)host_pid);
	if (host_pid <= 0 || read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return proc_ns_parse_nspid(buf, inner);
}

/* Namespaces are the same when their nsfs inodes are (device and inode number). */
static int other_ns(pid_t pid, const char *kind)
{
	char path[64];
	struct stat mine, theirs;
	snprintf(path, sizeof(path), "/proc/self/ns/%s", kind);
	if (stat(path, &mine))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, kind);
	if (pid <= 0 || stat(path, &theirs))
		return -1;
	return mine.st_dev != theirs.st_dev || mine.st_ino != theirs.st_ino;
}

int proc_in_other_pidns(pid_t pid)
{
	return other_ns(pid, "pid");
}

int proc_in_other_mntns(pid_t pid)
{
	return other_ns(pid, "mnt");
}

/* The initial PID namespace has a fixed nsfs inode number (PROC_PID_INIT_INO in the kernel's
 * include/linux/proc_ns.h, unchanged since namespaces got inodes in 3.8). */
#define PID_INIT_INO 0xEFFFFFFCu

int proc_self_in_child_pidns(void)
{
	struct stat st;
	if (stat("/proc/self/ns/pid", &st))
		return -1;
	return st.st_ino != PID_INIT_INO;
}

int proc_ns_self_pidns(uint64_t *dev, uint64_t *ino)
{
	struct stat st;
	if (stat("/proc/self/ns/pid", &st))
		return -1;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}
