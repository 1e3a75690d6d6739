/* Kernel symbols from /proc/kallsyms, for labelling kernel frames. */
#ifndef LF_KSYMS_H
#define LF_KSYMS_H
#include <stdint.h>

struct ksyms;
struct ksyms *ksyms_load(void);
/* Name of the kernel function containing addr, or NULL. */
const char *ksyms_lookup(const struct ksyms *k, uint64_t addr);
void ksyms_free(struct ksyms *k);
#endif
