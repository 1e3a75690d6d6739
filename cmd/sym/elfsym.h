/* Function symbols of one ELF file (from .symtab, .dynsym and a separate debug file when
 * one is installed), sorted for address lookup. */
#ifndef LF_ELFSYM_H
#define LF_ELFSYM_H
#include <stdint.h>
#include <sys/types.h>
#include "elffile.h"

struct elf_sym { uint64_t addr, size; const char *name; };

struct elf_syms {
	struct elf_sym *sym;
	size_t n, cap;
	char *names;  /* one block holding every name */
	size_t names_len, names_cap;
};

/* Index of the last of the n symbols v, sorted by address, that starts at or below addr;
 * -1 when none does. Kernel symbols (ksyms.c) are looked up the same way. */
long elfsyms_floor(const struct elf_sym *v, size_t n, uint64_t addr);

/* Adds the function symbols of ef (both tables). */
void elfsyms_add_file(struct elf_syms *s, struct elf_file *ef);
/* Sorts and removes duplicates; call after the last add. */
void elfsyms_finish(struct elf_syms *s);
/* Name of the function containing vaddr, or NULL. */
const char *elfsyms_lookup(const struct elf_syms *s, uint64_t vaddr);
/* Every symbol source of ef, the file mapped at path in pid: its own tables and a separate
 * debug file (below the process's root, else the host's by build-id); finished. */
void elfsyms_load(struct elf_syms *s, struct elf_file *ef, pid_t pid, const char *path);
/* The addresses where the name elfsyms_lookup gives may change, from the same sources as
 * elfsyms_load (path may be NULL: ef's own and the host's debug file): each symbol's start
 * and end, sorted, in *out (to free). Returns how many. */
size_t elfsyms_bounds(struct elf_file *ef, pid_t pid, const char *path, uint64_t **out);
/* The address range [lo, hi) elfsyms_lookup names name; 0, or -1 when no symbol is so named. */
int elfsyms_range(const struct elf_syms *s, const char *name, uint64_t *lo, uint64_t *hi);
void elfsyms_free(struct elf_syms *s);

/* Opens the separate debug file for ef below root ("" or "/proc/PID/root"): by build-id
 * under /usr/lib/debug/.build-id, then by .gnu_debuglink next to dir. NULL if none. */
struct elf_file *elfsyms_open_debug(const struct elf_file *ef, const char *root, const char *dir);
#endif
