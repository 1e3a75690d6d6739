/* Opens a file of a target as the target would see it, for its debug files: inside its
 * root directory, never blocking, regular files only, and not through symbolic links into
 * places its user could not read. */
#ifndef LF_ROOT_OPEN_H
#define LF_ROOT_OPEN_H

/* path inside root ("/proc/PID/root", or "/" for lua-flame's own files). Returns a read-only
 * descriptor, or -1 (errno: ENOENT, EACCES for a link to a file not everyone may read,
 * EINVAL for a FIFO, device or directory...). */
int root_open(const char *root, const char *path);
#endif
