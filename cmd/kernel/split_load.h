/* Loading a BPF object's programs in two halves side by side (split_load.c). */
#ifndef LF_SPLIT_LOAD_H
#define LF_SPLIT_LOAD_H

#include <bpf/libbpf.h>

/* Before any object is opened: the hook on program loads that starts the second half. 0 or
 * libbpf's negative error. */
int split_load_init(void);

/* Loads a's programs but apart while b, opened from the same ELF, loads apart alone with
 * a's maps; 0 or the first negative error (a's, else b's). */
int split_load(struct bpf_object_skeleton *a, struct bpf_object *b, const char *apart);

#endif
