/* Unit tests for the ELF symbolizer: builds a small shared object with known functions
 * and checks that addresses inside them resolve to their names, and that maps lines parse. */
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include "check.h"
#include "elffile.h"
#include "elfsym.h"
#include "proc.h"

static const char *so = "tests/out/unit_syms.so";

static void build_so(void)
{
	FILE *f = fopen("tests/out/unit_syms.c", "w");
	fputs("int alpha(int x){return x*3+1;}\nint beta(int x){return alpha(x)*7;}\n"
	      "static int gamma_(int x){return x-1;}\nint (*keep)(int) = gamma_;\n", f);
	fclose(f);
	CHECK(system("mkdir -p tests/out && cc -O1 -shared -fPIC -o tests/out/unit_syms.so "
		     "tests/out/unit_syms.c") == 0);
}

/* Address of a symbol as nm prints it, to compare with our lookup. */
static unsigned long nm_addr(const char *sym)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "nm %s | awk '$3==\"%s\"{print $1}'", so, sym);
	FILE *p = popen(cmd, "r");
	unsigned long a = 0;
	if (fscanf(p, "%lx", &a) != 1)
		a = 0;
	pclose(p);
	return a;
}

static void resolves_known_functions(void)
{
	build_so();
	int fd = open(so, O_RDONLY);
	struct elf_file *ef = elf_file_open_fd(fd);
	CHECK(ef != NULL);
	if (!ef)
		return;
	struct elf_syms s = { 0 };
	elfsyms_add_file(&s, ef);
	elfsyms_finish(&s);
	unsigned long a = nm_addr("alpha"), b = nm_addr("beta"), g = nm_addr("gamma_");
	CHECK(a && b && g);
	CHECK_STR(elfsyms_lookup(&s, a), "alpha");
	CHECK_STR(elfsyms_lookup(&s, a + 2), "alpha");
	CHECK_STR(elfsyms_lookup(&s, b + 1), "beta");
	CHECK_STR(elfsyms_lookup(&s, g), "gamma_");
	CHECK(elfsyms_lookup(&s, 1) == NULL);
	CHECK(ef->build_id[0] != 0);
	uint64_t v = 0;
	CHECK(elf_file_off_to_vaddr(ef, a, &v) == 0 && v == a); /* text maps 1:1 in small .so */
	elfsyms_free(&s);
	elf_file_close(ef);
}

static void rejects_non_elf(void)
{
	FILE *f = fopen("tests/out/not_elf", "w");
	fputs("#!/bin/sh\necho hi\n", f);
	fclose(f);
	int fd = open("tests/out/not_elf", O_RDONLY);
	CHECK(elf_file_open_fd(fd) == NULL);
	char junk[64] = "\177ELF\002\001\001";
	CHECK(elf_file_open_mem(junk, sizeof(junk)) == NULL);
}

static void parses_maps_lines(void)
{
	struct mapping m;
	CHECK(proc_parse_maps_line("7f00a000-7f00b000 r-xp 00002000 fd:01 1234   /usr/lib/libx.so (deleted)\n", &m) == 0);
	CHECK_INT(m.start, 0x7f00a000);
	CHECK_INT(m.end, 0x7f00b000);
	CHECK_INT(m.pgoff, 0x2000);
	CHECK_INT(m.inode, 1234);
	CHECK(m.exec);
	CHECK_STR(m.path, "/usr/lib/libx.so (deleted)");
	free(m.path);
	CHECK(proc_parse_maps_line("7ffd000-7ffe000 r-xp 00000000 00:00 0 [vdso]", &m) == 0);
	CHECK_STR(m.path, "[vdso]");
	free(m.path);
	CHECK(proc_parse_maps_line("garbage", &m) != 0);
	CHECK(proc_parse_maps_line("2000-1000 r-xp 0 0:0 0", &m) != 0);
}

int main(void)
{
	RUN(resolves_known_functions);
	RUN(rejects_non_elf);
	RUN(parses_maps_lines);
	CHECK_EXIT();
}
