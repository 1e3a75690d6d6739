/* Output files that a root process can write safely in directories other users can
 * write: the data goes to a temporary file created with O_EXCL under an unpredictable
 * name beside the final one, is flushed to disk and renamed over the final name (a
 * symlink there is replaced, never followed). A terminal, a pipe or /dev/stdout is
 * written directly. Shared by `record` and `render`. */
#ifndef LF_OUTFILE_H
#define LF_OUTFILE_H
#include <stdio.h>
#include <sys/types.h>

struct outfile {
	FILE *f;
	char path[4096];
	char tmp[4096];  /* empty when written directly */
	mode_t mode;
};

/* Whether path can be written, checked before anything is recorded: its directory
 * exists and is writable, and path is not a directory. 0, or -1 with errno and a
 * message in err. */
int outfile_check(const char *path, char *err, size_t errlen);
/* Opens path for writing with the given mode (0600 by default in lua-flame). 0 or -1 with
 * a message in err. */
int outfile_open(struct outfile *o, const char *path, mode_t mode, char *err, size_t errlen);
/* Flushes, syncs and puts the file in place; 0, or -1 with a message in err (the
 * temporary file is removed). */
int outfile_commit(struct outfile *o, char *err, size_t errlen);
/* Gives up: the temporary file is removed, the final name untouched. */
void outfile_abort(struct outfile *o);
#endif
