/* Turns native addresses of target processes into frame labels: the function symbol,
 * else `file+0xSTART` (the start of the function from .eh_frame; `file+0xVADDR` with
 * --addresses, or where no FDE covers the address), else `[unknown]`. ELF files are
 * loaded once per (device, inode) and shared by every process that maps them; each
 * process keeps its mapping list. */
#ifndef LF_SYMBOLIZE_H
#define LF_SYMBOLIZE_H
#include <stdint.h>
#include <sys/types.h>
#include "proc.h"
#include "util.h"

#include "frame_label.h"

struct symbolizer;

struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *s);
/* on: unsymbolized frames keep their own address (`--addresses`) instead of the start of
 * the function holding them. */
void symbolizer_set_addresses(struct symbolizer *s, int on);
/* Starts reading the kernel's symbols in the background (kernel frames will be labelled). */
void symbolizer_load_kernel(struct symbolizer *s);
/* Registers a target (reads its maps now, while it is alive). */
void symbolizer_add_pid(struct symbolizer *s, pid_t pid);
/* pid's maps as just read (a copy is kept), its mapped files opened while it is alive. */
void symbolizer_take_maps(struct symbolizer *s, pid_t pid, const struct proc_maps *pm);
/* What a label of symbolize_user stands for: a function or file offset, an address in no
 * mapping known (LF_LABEL_UNKNOWN), or anonymous executable memory (LF_LABEL_JIT). */
enum sym_result { SYM_NAMED, SYM_UNKNOWN, SYM_JIT };
/* Appends the label of a user address; is_return: addr is a return address, so look up
 * addr-1 to stay inside the calling function. */
enum sym_result symbolize_user(struct symbolizer *s, pid_t pid, uint64_t addr, int is_return, struct sbuf *out);
/* Symbol name of the function holding addr (exact), or NULL. */
const char *symbolize_name(struct symbolizer *s, pid_t pid, uint64_t addr);
/* Start address of the function holding addr, from the file's .eh_frame_hdr; 0 or -1. */
int symbolize_func_start(struct symbolizer *s, pid_t pid, uint64_t addr, uint64_t *start);
/* Appends the label of a kernel address, with perf's `_[k]` suffix. */
void symbolize_kernel(struct symbolizer *s, uint64_t addr, struct sbuf *out);
/* The kernel function holding addr, or NULL. */
const char *symbolize_kernel_name(struct symbolizer *s, uint64_t addr);
/* Forgets cached maps so the next lookup miss re-reads them (new libraries). */
void symbolizer_new_epoch(struct symbolizer *s);
#endif
