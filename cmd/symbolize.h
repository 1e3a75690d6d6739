/* Turns native addresses of target processes into frame labels: the function symbol,
 * else `file+0xVADDR`, else `[unknown]`. ELF files are loaded once per (device, inode)
 * and shared by every process that maps them; each process keeps its mapping list. */
#ifndef LF_SYMBOLIZE_H
#define LF_SYMBOLIZE_H
#include <stdint.h>
#include <sys/types.h>
#include "proc.h"
#include "util.h"

struct symbolizer;

struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *s);
/* Registers a target (reads its maps now, while it is alive). */
void symbolizer_add_pid(struct symbolizer *s, pid_t pid);
/* Appends the label of a user address; is_return: addr is a return address, so look up
 * addr-1 to stay inside the calling function. */
void symbolize_user(struct symbolizer *s, pid_t pid, uint64_t addr, int is_return, struct sbuf *out);
/* Appends the label of a kernel address, with perf's `_[k]` suffix. */
void symbolize_kernel(struct symbolizer *s, uint64_t addr, struct sbuf *out);
/* Forgets cached maps so the next lookup miss re-reads them (new libraries). */
void symbolizer_new_epoch(struct symbolizer *s);
#endif
