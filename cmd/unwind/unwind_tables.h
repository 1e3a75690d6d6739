/* Builds the tables the BPF unwinder reads: per-file rows from .eh_frame/.debug_frame
 * (built once per file and shared by every process mapping it), deduplicated rules, and
 * each process's executable mappings with their file and load bias, and where it keeps data. */
#ifndef LF_UNWIND_TABLES_H
#define LF_UNWIND_TABLES_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "proc.h"
#include "unwind.h"

struct unwind_tables;

struct unwind_tables *ut_new(void);
void ut_free(struct unwind_tables *t);
/* Reads the maps of pid and builds tables for files not seen yet (in memory). */
int ut_add_pid(struct unwind_tables *t, pid_t pid);
/* fn is called with each process's maps as ut_add_pid reads them, so that whoever names
 * the frames knows the same mappings as the unwinder. */
typedef void ut_maps_fn(void *arg, pid_t pid, const struct proc_maps *pm);
void ut_on_maps(struct unwind_tables *t, ut_maps_fn *fn, void *arg);
/* Reads the maps of pid (added before) again for where it keeps data, which changes as it
 * allocates; marks its entry for upload if that changed. 1 changed, 0 not, -1 unreadable. */
int ut_refresh_data(struct unwind_tables *t, pid_t pid);
/* While tables are built for a start: says once, when a file is done after the moment at
 * (now_sec() time; 0 stops it), that they are still being read. */
void ut_say_if_slow(struct unwind_tables *t, double at);
/* At start-up, on: files met are registered with their mappings at once and their rows left
 * for ut_build_pending, which can then run while the BPF program loads; off: built as met. */
void ut_defer_rows(struct unwind_tables *t, int on);
/* The most rows built and pending files can give, from the size of their CFI sections. */
size_t ut_rows_bound(const struct unwind_tables *t);
void ut_build_pending(struct unwind_tables *t);
/* Files whose rows are still to be built. */
size_t ut_pending(const struct unwind_tables *t);
/* The tables whole (rows, rules, each file's place) through fd, from a process forked once
 * the files were registered, which built their rows (ms: the time it took), to this one:
 * 0, or -1 with nothing changed (the files still pending). */
int ut_send_tables(const struct unwind_tables *t, int fd, double ms);
int ut_take_tables(struct unwind_tables *t, int fd, double *ms);
/* Rows built so far, to size the BPF maps before load. */
size_t ut_rows(const struct unwind_tables *t);
size_t ut_files(const struct unwind_tables *t);
/* Index of the file with this device and inode, or LF_FILE_NONE. */
uint32_t ut_file_index(const struct unwind_tables *t, uint64_t dev, uint64_t inode);
/* Connects to the loaded maps (rows/rules/files are mmapable arrays) and uploads. */
int ut_attach_maps(struct unwind_tables *t, int rows_fd, size_t rows_cap, int rules_fd, int files_fd,
		   size_t files_cap, int procs_fd);
/* Uploads rows, rules, files and process mappings not uploaded yet. */
int ut_sync(struct unwind_tables *t);
/* Memory of the tables in bytes (rows, rules, files, processes). */
size_t ut_memory(const struct unwind_tables *t);
#endif
