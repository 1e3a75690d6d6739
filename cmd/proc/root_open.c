/* Debug files are found by paths the target controls (its directories, its .gnu_debuglink):
 * opened naively as root, a link could aim lua-flame at any file of the host (its names
 * then land in the profile) and a FIFO would block the open for ever. The rule: resolve
 * inside the target's root; a path without symbolic links is the target's own file; one
 * with links is taken only when everyone could read the file it leads to. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "root_open.h"

#define OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

static int open_how2(int dir, const char *path, uint64_t resolve)
{
	struct open_how how = { .flags = OPEN_FLAGS, .resolve = resolve };
	return (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));
}

/* Without openat2 (kernels before 5.6, or a seccomp filter refusing it): O_NOFOLLOW guards
 * only the last component, so the file is treated as reached through links. */
static int open_plain(const char *root, const char *path)
{
	char full[4200];
	if ((size_t)snprintf(full, sizeof(full), "%s/%s", root, path) >= sizeof(full)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(full, OPEN_FLAGS | O_NOFOLLOW);
}

/* Everyone may read the file and search every directory above it. */
static int public_file(int fd, const struct stat *st)
{
	char link[64], path[4096];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	if (!(st->st_mode & S_IROTH) || n <= 0 || path[0] != '/')
		return 0;
	path[n] = 0;
	for (char *slash = strrchr(path, '/'); slash; slash = strrchr(path, '/')) {
		*slash = 0;
		struct stat d;
		if (stat(path[0] ? path : "/", &d) || !(d.st_mode & S_IXOTH))
			return 0;
	}
	return 1;
}

int root_open(const char *root, const char *path)
{
	int dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	while (*path == '/')
		path++;
	int linked = 0;
	int fd = open_how2(dir, path, RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0 && errno == ELOOP) {
		linked = 1;
		fd = open_how2(dir, path, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
	} else if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
		linked = 1;
		fd = open_plain(root, path);
	}
	close(dir);
	if (fd < 0)
		return -1;
	struct stat st;
	int err = fstat(fd, &st) ? errno : !S_ISREG(st.st_mode) ? EINVAL : linked && !public_file(fd, &st) ? EACCES : 0;
	if (err) {
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}
