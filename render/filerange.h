/* A part of a regular file as a FILE of its own, read with pread: readers of different
 * parts of one file each get one, and none moves the others' position. */
#ifndef LF_FILERANGE_H
#define LF_FILERANGE_H
#include <stdio.h>
#include <sys/types.h>

/* Bytes [AT, END) of the file open as FD (which stays open), or NULL with errno. */
FILE *filerange_open(int fd, off_t at, off_t end);
/* Where to cut bytes [AT, END) of FD in two at a line's end, near their middle: the offset
 * after a newline, or -1 when there is none near it (or the read fails). */
off_t filerange_middle_line(int fd, off_t at, off_t end);

#endif
