/* Reading a target process through /proc: existence and state, its name, and its
 * memory mappings (the executable ones are what native addresses resolve against). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "proc.h"
#include "safe_name.h"
#include "util.h"

#define PF_KTHREAD 0x00200000

/* Fields after the parenthesised comm, which may itself contain spaces and ')'. */
static const char *stat_after_comm(pid_t pid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file(path, buf, size) <= 0)
		return NULL;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p + 2 : NULL;
}

enum proc_state proc_state(pid_t pid)
{
	char buf[1024];
	const char *p = stat_after_comm(pid, buf, sizeof(buf));
	if (!p)
		return PROC_GONE;
	return (*p == 'Z' || *p == 'X') ? PROC_ZOMBIE : PROC_ALIVE;
}

int proc_is_kernel_thread(pid_t pid)
{
	char buf[1024];
	const char *p = stat_after_comm(pid, buf, sizeof(buf));
	if (!p)
		return 0;
	/* state ppid pgrp session tty_nr tpgid flags */
	unsigned long flags = 0;
	if (sscanf(p, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return 0;
	return (flags & PF_KTHREAD) != 0;
}

uint64_t proc_start_brk(pid_t pid)
{
	char buf[1024];
	const char *p = stat_after_comm(pid, buf, sizeof(buf));
	/* start_brk is field 47, the 45th after comm (shown to those who may trace pid) */
	for (int i = 0; p && i < 44; i++)
		p = (p = strchr(p, ' ')) ? p + 1 : NULL;
	unsigned long long v = 0;
	return p && sscanf(p, "%llu", &v) == 1 ? (uint64_t)v : 0;
}

void proc_comm(pid_t pid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (size == 0)
		return;
	if (read_file(path, buf, size) <= 0) {
		buf[0] = 0;
		return;
	}
	buf[strcspn(buf, "\n")] = 0;
	/* The root frame of folded stacks, and shown on terminals. */
	safe_name_fix(buf, size, SAFE_FOLDED_ROOT);
}

int proc_parse_maps_line(const char *line, struct mapping *m)
{
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int pos = 0;
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min,
		   &ino, &pos) < 7 || end <= start)
		return -1;
	m->start = start;
	m->end = end;
	m->pgoff = off;
	m->dev = ((uint64_t)maj << 32) | min;
	m->inode = ino;
	m->exec = perms[2] == 'x';
	m->writable = perms[1] == 'w';
	m->readable = perms[0] == 'r';
	const char *path = pos ? line + pos : "";
	size_t len = strcspn(path, "\n");
	m->path = xstrndup(path, len);
	return 0;
}

int proc_read_maps(pid_t pid, struct proc_maps *out)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	out->m = NULL;
	out->n = 0;
	if (!f)
		return -1;
	size_t cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	while (getline(&line, &lcap, f) > 0 && out->n < 1000000) {
		struct mapping m;
		if (proc_parse_maps_line(line, &m))
			continue;
		if (out->n == cap) {
			cap = cap ? cap * 2 : 64;
			out->m = xrealloc(out->m, cap * sizeof(*out->m));
		}
		out->m[out->n++] = m;
	}
	free(line);
	fclose(f);
	return 0;
}

void proc_maps_free(struct proc_maps *pm)
{
	for (size_t i = 0; i < pm->n; i++)
		free(pm->m[i].path);
	free(pm->m);
	pm->m = NULL;
	pm->n = 0;
}

/* /proc/PID/maps is sorted by address, so a binary search finds the mapping. */
const struct mapping *proc_maps_find(const struct proc_maps *pm, uint64_t addr)
{
	size_t lo = 0, hi = pm->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < pm->m[mid].start)
			hi = mid;
		else if (addr >= pm->m[mid].end)
			lo = mid + 1;
		else
			return &pm->m[mid];
	}
	return NULL;
}

ssize_t proc_read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n >= 0)
		return n;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n;
}

int proc_auxv(pid_t pid, uint64_t type, uint64_t *val)
{
	char path[64];
	uint64_t v[2 * 64]; /* the kernel writes a few dozen pairs */
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	ssize_t n = read_file(path, (char *)v, sizeof(v));
	for (ssize_t i = 0; i + 1 < n / 8 && v[i]; i += 2)
		if (v[i] == type) {
			*val = v[i + 1];
			return 0;
		}
	return -1;
}

/* The file at the target's path must be the one mapped: a file replaced since would give
 * wrong tables and names. Only the inode is compared: overlay filesystems (container images)
 * report another device through the path than /proc/PID/maps does. */
static int same_file(int fd, const struct mapping *m)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_ino == m->inode;
}

int proc_open_mapped(pid_t pid, const struct mapping *m)
{
	char path[4200];
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, m->start, m->end);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	int map_files_errno = errno;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, m->path);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && same_file(fd, m))
		return fd;
	if (fd >= 0)
		close(fd);
	static int warned;
	if (map_files_errno == EPERM && !warned++)
		warnx_lf("PID %d maps %s, which was deleted or replaced; reading it through "
			 "/proc/PID/map_files needs CAP_SYS_ADMIN (or CAP_CHECKPOINT_RESTORE): its frames "
			 "will show as [unwind: no table] and addresses", (int)pid, m->path);
	return -1;
}

void proc_cmdline(pid_t pid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	ssize_t n = size ? read_file(path, buf, size) : -1;
	if (n <= 0) {
		proc_comm(pid, buf, size);
		return;
	}
	while (n > 0 && buf[n - 1] == 0)
		n--;
	buf[n] = 0;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 0 || buf[i] == ';')
			buf[i] = buf[i] ? '_' : ' ';
	safe_name_fix(buf, size, SAFE_TERMINAL);
}
