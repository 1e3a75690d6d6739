/* One ELF file opened with libelf: its build-id, loadable segments (to turn file
 * offsets into virtual addresses), debug link, and access to named sections. Used by
 * the symbolizer and the unwind-table builder; every field read is bounds-checked. */
#ifndef LF_ELFFILE_H
#define LF_ELFFILE_H
#include <stddef.h>
#include <stdint.h>
#include "cfi.h"
#include <libelf.h>

struct elf_seg { uint64_t vaddr, memsz, offset, filesz; int exec; };

struct elf_file {
	int fd;          /* -1 for in-memory images */
	Elf *elf;
	void *mem;       /* owned copy for in-memory images */
	int type;        /* ET_EXEC, ET_DYN */
	uint64_t entry;  /* e_entry: where the kernel starts a program (the loader's, for ld.so) */
	char build_id[41];
	char debuglink[256];
	int quiet;       /* a section past the cap is skipped without a word: another reader says it */
	struct elf_seg seg[16];
	int nseg;
	/* .eh_frame_hdr and .eh_frame, found on first use (0: not looked up, 1: present,
	 * -1: absent) */
	int ehhdr_state;
	const unsigned char *ehhdr, *ehframe;
	size_t ehhdr_len, ehframe_len;
	uint64_t ehhdr_addr, ehframe_addr;
	/* Length of the function of each search-table entry, read from its FDE on first use:
	 * 0 not read yet, UINT32_MAX no usable FDE. */
	uint32_t *fde_len;
	/* Without a search table: every FDE's range, sorted (cfi_fde_spans). */
	struct cfi_span *spans;
	size_t nspans;
};

/* Takes ownership of fd. Returns NULL (and closes fd) when it is not a usable ELF64 file of the architecture lua-flame is built for (arch.h). */
struct elf_file *elf_file_open_fd(int fd);
/* The same; when the file is such an ELF file refused as malformed, *why (may be NULL)
 * says why, for a message naming it. */
struct elf_file *elf_file_open_checked(int fd, const char **why);
/* Copies the image; for the vdso read from process memory. */
struct elf_file *elf_file_open_mem(const void *buf, size_t len);
void elf_file_close(struct elf_file *ef);
/* File offset of a mapped address -> ELF virtual address; returns 0 on success. */
int elf_file_off_to_vaddr(const struct elf_file *ef, uint64_t off, uint64_t *vaddr);
/* Up to n bytes of the file's image at vaddr (within one segment's file bytes), read now;
 * returns how many, 0 when vaddr is in none. */
size_t elf_file_read_vaddr(const struct elf_file *ef, uint64_t vaddr, void *buf, size_t n);
/* Start of the function covering vaddr: the initial location of the FDE whose range holds it,
 * found through the .eh_frame_hdr search table. 0, or -1 when no FDE covers vaddr. */
int elf_file_func_start(struct elf_file *ef, uint64_t vaddr, uint64_t *start);
/* The same, with the function's end (its FDE's). */
int elf_file_func_range(struct elf_file *ef, uint64_t vaddr, uint64_t *start, uint64_t *end);
/* Section data by name (decompressed if needed); NULL when absent, unreadable or refused
 * (see elf_file_data). */
Elf_Data *elf_file_section(struct elf_file *ef, const char *name, uint64_t *addr, int *type);
/* Bytes section name holds, from its header alone: 0 when missing or past the size any
 * section is read at (said once, as elf_file_data says it); a compressed one is taken to
 * inflate to 8 times its stored size. */
size_t elf_file_section_size(struct elf_file *ef, const char *name);
/* The one way to a section's bytes (inflated if compressed). NULL when it has none in the
 * file, is unreadable, or is refused: bigger than 256 MiB stored or inflated, which no real
 * file reaches (said once per file). */
Elf_Data *elf_file_data(struct elf_file *ef, Elf_Scn *scn);
/* A symbol table's entries, NULL unless both they and its names pass elf_file_data. */
Elf_Data *elf_file_symbols(struct elf_file *ef, Elf_Scn *scn);
#endif
