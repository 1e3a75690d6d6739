/* Safe output files (see outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* The directory part of path ("." without one), in buf. */
static void dir_of(const char *path, char *buf, size_t n)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(buf, n, ".");
	else if (slash == path)
		snprintf(buf, n, "/");
	else
		snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

/* Written in place: an existing file that is not a regular file (a terminal, a pipe,
 * /dev/null), and the names of open descriptors (/dev/stdout, /dev/fd/N), whatever they
 * lead to: replacing those links would break the system. */
static int is_special(const char *path)
{
	static const char *const fds[] = { "/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/" };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (!strncmp(path, fds[i], strlen(fds[i])))
			return 1;
	struct stat st;
	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static int make_tmp(const char *path, char *tmp, size_t n)
{
	const char *base = strrchr(path, '/');
	char dir[4096];
	dir_of(path, dir, sizeof(dir));
	base = base ? base + 1 : path;
	if ((size_t)snprintf(tmp, n, "%s/.%.200s.XXXXXX", dir, base) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkostemp(tmp, O_CLOEXEC); /* O_CREAT|O_EXCL: no existing file or link is used */
}

int outfile_check(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is a directory; give a file name, e.g. -o %s/perf.svg", path, path);
		errno = EISDIR;
		return -1;
	}
	if (is_special(path))
		return access(path, W_OK) ? snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno)), -1 : 0;
	char tmp[4096];
	int fd = make_tmp(path, tmp, sizeof(tmp));
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s; choose a writable place with -o DIR/FILE", path,
			 strerror(errno));
		return -1;
	}
	close(fd);
	unlink(tmp);
	return 0;
}

int outfile_open(struct outfile *o, const char *path, mode_t mode, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->path, sizeof(o->path), "%s", path);
	o->mode = mode;
	int fd;
	if (is_special(path)) {
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	} else {
		fd = make_tmp(path, o->tmp, sizeof(o->tmp));
		if (fd >= 0 && fchmod(fd, mode)) {
			close(fd), unlink(o->tmp);
			fd = -1;
		}
	}
	if (fd >= 0 && !(o->f = fdopen(fd, "w"))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		if (o->tmp[0])
			unlink(o->tmp);
		return -1;
	}
	return 0;
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	int bad = fflush(o->f) != 0;
	if (!bad && o->tmp[0] && fsync(fileno(o->f)) && errno != EINVAL)
		bad = 1;
	int e = errno;
	if (fclose(o->f) && !bad)
		bad = 1, e = errno;
	o->f = NULL;
	if (bad) {
		snprintf(err, errlen, "writing %s failed: %s (disk full?)", o->path, strerror(e));
		outfile_abort(o);
		return -1;
	}
	if (o->tmp[0] && rename(o->tmp, o->path)) {
		snprintf(err, errlen, "cannot put %s in place: %s", o->path, strerror(errno));
		outfile_abort(o);
		return -1;
	}
	o->tmp[0] = 0;
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
}
