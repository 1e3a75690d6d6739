/* Unit tests for the ELF symbolizer: builds a small shared object with known functions
 * and checks that addresses inside them resolve to their names, that function starts
 * (the FDE covering an address) agree with `readelf --debug-dump=frames`, that frames
 * without a symbol are labelled by their function's start, that maps lines parse, and that
 * C++ names come out demangled. */
#include <inttypes.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch.h"
#include "check.h"
#include "demangle.h"
#include "elffile.h"
#include "elfsym.h"
#include "proc.h"
#include "symbolize.h"

/* elffile reads only objects of the architecture it is built for: the objects here are built
 * with that architecture's compilers, into a directory of their own when cross-built (the tests
 * then run under qemu-aarch64-static, beside the x86-64 ones). */
#ifdef LF_ARCH_ARM64
#define OUT "tests/out/aarch64"
#define TOOL "aarch64-linux-gnu-"
#define TOOL_CC TOOL "gcc"
#define LIBC "/usr/aarch64-linux-gnu/lib/libc.so.6"   /* libc6-arm64-cross, with the cross gcc */
#else
#define OUT "tests/out"
#define TOOL ""
#define TOOL_CC "cc"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#endif

static const char *so = OUT "/unit_syms.so";

static void build_so(void)
{
	CHECK(system("mkdir -p " OUT) == 0);
	FILE *f = fopen(OUT "/unit_syms.c", "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("int alpha(int x){return x*3+1;}\nint beta(int x){return alpha(x)*7;}\n"
	      "static int gamma_(int x){return x-1;}\nint (*keep)(int) = gamma_;\n", f);
	fclose(f);
	CHECK(system(TOOL_CC " -O1 -shared -fPIC -o " OUT "/unit_syms.so "
		     OUT "/unit_syms.c") == 0);
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
	FILE *f = fopen(OUT "/not_elf", "w");
	fputs("#!/bin/sh\necho hi\n", f);
	fclose(f);
	int fd = open(OUT "/not_elf", O_RDONLY);
	CHECK(elf_file_open_fd(fd) == NULL);
	char junk[64] = "\177ELF\002\001\001";
	CHECK(elf_file_open_mem(junk, sizeof(junk)) == NULL);
}

/* A stripped object whose static functions are known to the FDEs alone. ends_in_call ends
 * in a call that does not return, so its return address is the first byte of after. */
static const char *fs_so = OUT "/unit_fstart.so";

static void build_fstart_so(void)
{
	FILE *f = fopen(OUT "/unit_fstart.c", "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("#include <stdlib.h>\n"
	      "static __attribute__((noinline)) int work(int x)\n"
	      "{ int s = 0; for (int i = 0; i < x; i++) s += (i * x) ^ (s >> 3); return s; }\n"
	      "static __attribute__((noinline, noreturn)) void ends_in_call(int x)\n"
	      "{ if (work(x) == 42) exit(1); abort(); }\n"
	      "static __attribute__((noinline)) int after(int x) { return work(x) + 1; }\n"
	      "void *lf_funcs[] = { (void *)work, (void *)ends_in_call, (void *)after };\n", f);
	fclose(f);
	CHECK(system(TOOL_CC " -O2 -shared -fPIC -falign-functions=1 -fno-reorder-blocks-and-partition "
		     "-fno-toplevel-reorder -o " OUT "/unit_fstart.full.so " OUT "/unit_fstart.c && "
		     TOOL "strip -o " OUT "/unit_fstart.so " OUT "/unit_fstart.full.so") == 0);
}

/* Address of a symbol of the unstripped copy, as nm prints it. */
static uint64_t fs_addr(const char *sym)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "nm " OUT "/unit_fstart.full.so | awk '$3==\"%s\"{print $1}'", sym);
	FILE *p = popen(cmd, "r");
	unsigned long a = 0;
	if (!p || fscanf(p, "%lx", &a) != 1)
		a = 0;
	if (p)
		pclose(p);
	return a;
}

struct fde_range { uint64_t start, end; };

/* Every FDE's [start, end) as `readelf --debug-dump=frames` prints it ("pc=START..END"). */
static size_t readelf_fdes(const char *path, struct fde_range **out)
{
	char cmd[512], line[512];
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	size_t n = 0, cap = 0;
	*out = NULL;
	while (p && fgets(line, sizeof(line), p)) {
		const char *pc = strstr(line, " FDE ") ? strstr(line, "pc=") : NULL;
		uint64_t a, b;
		if (!pc || sscanf(pc, "pc=%" SCNx64 "..%" SCNx64, &a, &b) != 2)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			*out = realloc(*out, cap * sizeof(**out));
		}
		(*out)[n++] = (struct fde_range){ a, b };
	}
	if (p)
		pclose(p);
	return n;
}

static int covered(const struct fde_range *v, size_t n, uint64_t a)
{
	for (size_t i = 0; i < n; i++)
		if (a >= v[i].start && a < v[i].end)
			return 1;
	return 0;
}

/* The start of the function covering start, middle and last byte of every FDE is the FDE's
 * own start; the first byte after an FDE that no other FDE covers has none. */
static void func_starts_match_readelf_in(const char *path)
{
	struct fde_range *v;
	size_t n = readelf_fdes(path, &v), bad = 0, gaps = 0;
	int fd = open(path, O_RDONLY);
	struct elf_file *ef = fd >= 0 ? elf_file_open_fd(fd) : NULL;
	CHECK(n > 0 && ef != NULL);
	for (size_t i = 0; ef && i < n; i++) {
		const struct fde_range *f = &v[i];
		uint64_t probes[] = { f->start, f->start + (f->end - f->start) / 2, f->end - 1 }, s;
		for (size_t k = 0; k < 3 && f->end > f->start; k++)
			if (elf_file_func_start(ef, probes[k], &s) || s != f->start) {
				if (bad++ < 5)
					printf("  %s: %#" PRIx64 " in FDE %#" PRIx64 "..%#" PRIx64 " gave %#" PRIx64 "\n",
					       path, probes[k], f->start, f->end, s);
			}
		if (!covered(v, n, f->end)) {
			gaps++;
			if (elf_file_func_start(ef, f->end, &s) == 0 && bad++ < 5)
				printf("  %s: %#" PRIx64 " is in no FDE but gave %#" PRIx64 "\n", path, f->end, s);
		}
	}
	printf("  %s: %zu FDEs, %zu gaps after one, %zu wrong\n", path, n, gaps, bad);
	CHECK(bad == 0);
	CHECK(gaps > 0);
	elf_file_close(ef);
	free(v);
}

static void func_starts_match_readelf(void)
{
	build_fstart_so();
	func_starts_match_readelf_in(fs_so);
	func_starts_match_readelf_in(LIBC);
}

/* Our own process maps the stripped object: its frames get FILE+0xSTART labels, a return
 * address is looked up one byte back (in the caller, even when it is the next function's
 * first byte), and --addresses keeps the address itself. */
static void labels_name_the_function_start(void)
{
	uint64_t work = fs_addr("work"), eic = fs_addr("ends_in_call"), after = fs_addr("after");
	CHECK(work && eic && after);
	struct fde_range *v;
	size_t n = readelf_fdes(fs_so, &v);
	uint64_t eic_end = 0;
	int after_fde = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].start == eic)
			eic_end = v[i].end;
		after_fde |= v[i].start == after;
	}
	free(v);
	/* the layout this case is about: the noreturn call is ends_in_call's last instruction */
	CHECK(eic_end == after && after_fde);
	int fd = open(fs_so, O_RDONLY);
	struct stat st;
	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	if (fd < 0)
		return;
	uint8_t *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	CHECK(base != MAP_FAILED);
	if (base == MAP_FAILED)
		return;
	struct symbolizer *s = symbolizer_new();
	symbolizer_add_pid(s, getpid());
	struct sbuf b;
	char want[64];
	sb_init(&b);
#define LABEL_IS(addr, is_return, start) do { sb_reset(&b); \
	symbolize_user(s, getpid(), (uint64_t)(uintptr_t)base + (addr), is_return, &b); \
	snprintf(want, sizeof(want), "unit_fstart.so+0x%" PRIx64, (uint64_t)(start)); \
	CHECK_STR(b.s, want); } while (0)
	LABEL_IS(work, 0, work);
	LABEL_IS(work + 5, 0, work);
	LABEL_IS(work + 5, 1, work);
	LABEL_IS(after, 1, eic);      /* the return address of ends_in_call's call to abort */
	LABEL_IS(after, 0, after);    /* the exact pc of a leaf frame */
	LABEL_IS(after + 1, 1, after);
	symbolizer_set_addresses(s, 1);
	LABEL_IS(work + 5, 0, work + 5);
	LABEL_IS(work + 5, 1, work + 4);
	LABEL_IS(after, 1, after - 1);
#undef LABEL_IS
	sb_free(&b);
	symbolizer_free(s);
	munmap(base, (size_t)st.st_size);
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

/* C++ names read as people read them, without parameters; anything else is left alone. */
static void demangles_cxx_names(void)
{
	static const char *const cases[][2] = {
		{ "_Z9nmap_mainiPPc", "nmap_main" },
		{ "_ZN9tarantool5fiber3runEv", "tarantool::fiber::run" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back" },
		{ "_ZNK3foo3barEv", "foo::bar" },              /* const method */
		{ "_ZNKR3foo3bazEv", "foo::baz" },             /* const & method */
		{ "_ZN3fooclEv", "foo::operator()" },
		{ "_Z3fooi.cold", "foo [clone .cold]" },
		{ "_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo" },
		{ "_Z3maxIiET_S0_S0_", "int max<int>" },       /* a template's return type stays */
		{ "_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()" },
	};
	char out[256];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = demangle(cases[i][0], strlen(cases[i][0]), out, sizeof(out));
		CHECK(n == strlen(cases[i][1]));
		CHECK_STR(n ? out : "", cases[i][1]);
	}
	CHECK(demangle("main", 4, out, sizeof(out)) == 0);
	CHECK(demangle("_Zbogus", 7, out, sizeof(out)) == 0);
	CHECK(demangle("_Z9nmap_mainiPPc@@V1", 16, out, sizeof(out)) == 9); /* len excludes the version */
	CHECK(demangle("_ZN9tarantool5fiber3runEv", 25, out, 8) == 0);    /* does not fit */
}

/* Symbols of a C++ library come out demangled from the symbol table. */
static void symbols_of_cxx_are_demangled(void)
{
	FILE *f = fopen(OUT "/unit_cxx.cc", "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("namespace shop { struct cart { int add(int x); int add(double x); }; }\n"
	      "int shop::cart::add(int x) { return x * 3 + 1; }\n"
	      "int shop::cart::add(double x) { return (int)x * 5; }\n", f);
	fclose(f);
	CHECK(system(TOOL "g++ -O1 -shared -fPIC -o " OUT "/unit_cxx.so " OUT "/unit_cxx.cc") == 0);
	int fd = open(OUT "/unit_cxx.so", O_RDONLY);
	struct elf_file *ef = elf_file_open_fd(fd);
	CHECK(ef != NULL);
	if (!ef)
		return;
	struct elf_syms s = { 0 };
	elfsyms_add_file(&s, ef);
	elfsyms_finish(&s);
	FILE *p = popen("nm " OUT "/unit_cxx.so | awk '$3 ~ /^_ZN4shop4cart3add/ {print $1}'", "r");
	unsigned long a;
	int seen = 0;
	while (p && fscanf(p, "%lx", &a) == 1) {
		CHECK_STR(elfsyms_lookup(&s, a), "shop::cart::add");
		seen++;
	}
	if (p)
		pclose(p);
	CHECK(seen == 2); /* both overloads, one name */
	elfsyms_free(&s);
	elf_file_close(ef);
}

/* Between two consecutive bounds elfsyms_bounds gives, elfsyms_lookup names every address
 * alike (the unwinder counts a leaf's pcs there as one stack): checked at both ends of each
 * span, for the small object and for libc (with its debug file, when one is installed). */
static void bounds_hold_every_label_change(void)
{
	const char *files[] = { so, LIBC };
	build_so();
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		int fd = open(files[f], O_RDONLY);
		struct elf_file *ef = fd >= 0 ? elf_file_open_fd(fd) : NULL;
		CHECK(ef != NULL);
		if (!ef)
			continue;
		struct elf_syms s = { 0 };
		elfsyms_load(&s, ef, getpid(), files[f]);
		uint64_t *b;
		size_t nb = elfsyms_bounds(ef, getpid(), files[f], &b), bad = 0, unsorted = 0;
		CHECK(nb >= s.n && nb > 0); /* a start and an end for each symbol kept */
		for (size_t i = 0; i + 1 < nb; i++) {
			unsorted += b[i] > b[i + 1];
			if (b[i] < b[i + 1] && elfsyms_lookup(&s, b[i]) != elfsyms_lookup(&s, b[i + 1] - 1))
				bad++;
		}
		CHECK(unsorted == 0);
		CHECK(bad == 0);
		CHECK(elfsyms_lookup(&s, b[0] - 1) == NULL || b[0] == 0);
		free(b);
		elfsyms_free(&s);
		elf_file_close(ef);
	}
}

int main(void)
{
	RUN(resolves_known_functions);
	RUN(rejects_non_elf);
	RUN(func_starts_match_readelf);
	RUN(labels_name_the_function_start);
	RUN(parses_maps_lines);
	RUN(demangles_cxx_names);
	RUN(symbols_of_cxx_are_demangled);
	RUN(bounds_hold_every_label_change);
	CHECK_EXIT();
}
