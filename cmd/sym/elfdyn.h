/* The names of the symbols an ELF file defines in its dynamic symbol table: what it
 * exports, which tells a library that holds a runtime from a host that only calls it. */
#ifndef LF_ELFDYN_H
#define LF_ELFDYN_H
#include <stddef.h>
#include "elffile.h"

/* Sets *out to an array of the defined names (pointing into ef's data, valid while ef is
 * open; free the array only) and returns how many, at most 200,000. */
size_t elf_defined_dynsyms(struct elf_file *ef, const char ***out);
/* Whether name is among them. */
int elf_names_have(const char *const *names, size_t n, const char *name);
#endif
