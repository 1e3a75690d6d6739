/* Defined dynamic symbols of an ELF file (see elfdyn.h). */
#include <gelf.h>
#include <string.h>

#include "elfdyn.h"
#include "util.h"

#define MAX_DYNSYMS 200000

size_t elf_defined_dynsyms(struct elf_file *ef, const char ***out)
{
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	for (int guard = 0; (scn = elf_nextscn(ef->elf, scn)) && guard < 65536; guard++) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_file_symbols(ef, scn);
		size_t cnt = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; d && i < cnt && n < MAX_DYNSYMS; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			const char *name = elf_strptr(ef->elf, sh.sh_link, sym.st_name);
			if (!name)
				continue;
			if (n == cap)
				*out = xrealloc(*out, (cap = cap ? cap * 2 : 256) * sizeof(**out));
			(*out)[n++] = name;
		}
	}
	return n;
}

int elf_names_have(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}
