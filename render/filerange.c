/* A part of a regular file as a FILE of its own (see filerange.h): fopencookie over pread,
 * so the readers of a file's parts share its descriptor but not a position. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "filerange.h"
#include "lines.h"

struct range {
	int fd;
	off_t at, end;
};

static ssize_t range_read(void *cookie, char *buf, size_t n)
{
	struct range *r = cookie;
	if (r->at >= r->end)
		return 0;
	if ((off_t)n > r->end - r->at)
		n = (size_t)(r->end - r->at);
	ssize_t got;
	do
		got = pread(r->fd, buf, n, r->at);
	while (got < 0 && errno == EINTR);
	if (got > 0)
		r->at += got;
	return got;
}

static int range_close(void *cookie)
{
	free(cookie);
	return 0;
}

FILE *filerange_open(int fd, off_t at, off_t end)
{
	struct range *r = malloc(sizeof(*r));
	if (!r)
		return NULL;
	*r = (struct range){ fd, at, end };
	FILE *f = fopencookie(r, "r", (cookie_io_functions_t){ .read = range_read, .close = range_close });
	if (!f)
		free(r);
	return f;
}

off_t filerange_middle_line(int fd, off_t at, off_t end)
{
	enum { CHUNK = 64 << 10 };
	char *buf = malloc(CHUNK);
	off_t pos = at + (end - at) / 2, cut = -1;
	/* a line is at most LINE_MAX_BYTES: a newline comes within that, or the data is not text */
	for (off_t limit = pos + LINE_MAX_BYTES; buf && cut < 0 && pos < end && pos < limit;) {
		ssize_t got = pread(fd, buf, CHUNK, pos);
		if (got <= 0)
			break;
		const char *nl = memchr(buf, '\n', (size_t)got);
		if (nl)
			cut = pos + (nl - buf) + 1;
		pos += got;
	}
	free(buf);
	return cut > at && cut < end ? cut : -1;
}
