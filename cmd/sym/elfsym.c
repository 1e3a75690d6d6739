/* Function symbols of one ELF file (from .symtab, .dynsym and a separate debug file when
 * one is installed), sorted for address lookup. */
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "demangle.h"
#include "elfsym.h"
#include "root_open.h"
#include "safe_name.h"
#include "util.h"

#define MAX_SYMS 4000000
#define MAX_NAME 1024

/* Names are stored as offsets while the block grows, fixed up in elfsyms_finish. */
static void add_sym(struct elf_syms *s, uint64_t addr, uint64_t size, const char *name)
{
	size_t len = strcspn(name, "@"); /* symbol versions: foo@@GLIBC_2.34 is foo */
	char readable[MAX_NAME + 1];
	size_t dlen = demangle(name, len, readable, sizeof(readable));
	if (dlen) {
		name = readable;
		len = dlen;
	}
	if (len > MAX_NAME)
		len = MAX_NAME;
	if (len == 0 || s->n >= MAX_SYMS)
		return;
	if (s->names_len + 4 * len + 1 > s->names_cap) {
		s->names_cap = (s->names_cap + 4 * len + 1) * 2;
		s->names = xrealloc(s->names, s->names_cap);
	}
	/* The file is the target's: its names are made safe once, here, for every output. */
	len = safe_name_write(s->names + s->names_len, 4 * len + 1, name, len, SAFE_FOLDED);
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->sym = xrealloc(s->sym, s->cap * sizeof(*s->sym));
	}
	s->sym[s->n++] = (struct elf_sym){ addr, size, (const char *)(uintptr_t)s->names_len };
	s->names_len += len + 1;
}

/* Whether section idx holds code: an untyped symbol there is a label of hand-written
 * assembly (arm64's vdso has __kernel_rt_sigreturn so). */
static int in_code(struct elf_file *ef, size_t idx)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(ef->elf, idx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* Each symbol of ef's table that names code, as the lookups take it, to cb; without names
 * (0), the string table is not read, cb gets NULL, and a symbol whose name could not be read
 * is passed too. */
typedef void (*sym_cb)(void *ctx, uint64_t addr, uint64_t size, const char *name);

static void scan_table(struct elf_file *ef, Elf_Scn *scn, const GElf_Shdr *sh, int names, sym_cb cb, void *ctx)
{
	Elf_Data *d = names ? elf_file_symbols(ef, scn) : sh->sh_entsize ? elf_file_data(ef, scn) : NULL;
	if (!d)
		return;
	size_t n = d->d_size / sh->sh_entsize;   /* inflated, when it was compressed */
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			break;
		int t = GELF_ST_TYPE(sym.st_info);
		if (sym.st_value == 0 || sym.st_shndx == SHN_UNDEF)
			continue;
		if (t != STT_FUNC && t != STT_GNU_IFUNC &&
		    (t != STT_NOTYPE || !sym.st_size || sym.st_shndx >= SHN_LORESERVE || !in_code(ef, sym.st_shndx)))
			continue;
		const char *name = names ? elf_strptr(ef->elf, sh->sh_link, sym.st_name) : NULL;
		if (name || !names)
			cb(ctx, sym.st_value, sym.st_size, name);
	}
}

/* Every symbol of ef the lookups take, both tables, to cb (names: as scan_table). */
static void scan_file(struct elf_file *ef, int names, sym_cb cb, void *ctx)
{
	/* Stripped executables keep their entry point: name it as the toolchain does. A real
	 * symbol at the same address wins in elfsyms_finish (it has a size). */
	GElf_Ehdr eh;
	if (gelf_getehdr(ef->elf, &eh) && eh.e_entry && elf_file_section(ef, ".interp", NULL, NULL))
		cb(ctx, eh.e_entry, LF_START_SIZE, "_start");
	Elf_Scn *scn = NULL;
	for (int guard = 0; (scn = elf_nextscn(ef->elf, scn)) && guard < 65536; guard++) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			scan_table(ef, scn, &sh, names, cb, ctx);
	}
}

static void add_cb(void *ctx, uint64_t addr, uint64_t size, const char *name)
{
	add_sym(ctx, addr, size, name);
}

void elfsyms_add_file(struct elf_syms *s, struct elf_file *ef)
{
	scan_file(ef, 1, add_cb, s);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Among aliases prefer sized symbols, then fewer leading underscores (the public
	 * name), then the shortest, so the choice does not depend on table order. */
	if ((x->size == 0) != (y->size == 0))
		return x->size == 0 ? 1 : -1;
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	size_t lx = strlen(x->name), ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

void elfsyms_finish(struct elf_syms *s)
{
	for (size_t i = 0; i < s->n; i++)
		s->sym[i].name = s->names + (uintptr_t)s->sym[i].name;
	qsort(s->sym, s->n, sizeof(*s->sym), cmp_sym);
	size_t out = 0;
	for (size_t i = 0; i < s->n; i++)
		if (out == 0 || s->sym[out - 1].addr != s->sym[i].addr)
			s->sym[out++] = s->sym[i];
	s->n = out;
}

long elfsyms_floor(const struct elf_sym *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

const char *elfsyms_lookup(const struct elf_syms *s, uint64_t vaddr)
{
	long i = elfsyms_floor(s->sym, s->n, vaddr);
	if (i < 0)
		return NULL;
	const struct elf_sym *e = &s->sym[i];
	/* A sized symbol covers only its range; an unsized one reaches to the next symbol,
	 * but not arbitrarily far (4 KiB) so that gaps of unknown code stay unknown. */
	if (e->size ? vaddr >= e->addr + e->size : vaddr - e->addr > 4096)
		return NULL;
	return e->name;
}

int elfsyms_range(const struct elf_syms *s, const char *name, uint64_t *lo, uint64_t *hi)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct elf_sym *e = &s->sym[i];
		if (strcmp(e->name, name))
			continue;
		/* The range elfsyms_lookup gives the name: an unsized symbol's ends at the next
		 * symbol, 4 KiB on at most. */
		uint64_t end = e->addr + 4097;
		if (i + 1 < s->n && s->sym[i + 1].addr < end)
			end = s->sym[i + 1].addr;
		*lo = e->addr;
		*hi = e->size ? e->addr + e->size : end;
		return 0;
	}
	return -1;
}

/* The separate debug file of ef mapped at path in pid: below the process's root, else the
 * host's by build-id (a container rarely has debug files; the host's are safe when the
 * build-id matches, and the directory given cannot exist, so only that path is tried). */
static struct elf_file *debug_file(const struct elf_file *ef, pid_t pid, const char *path)
{
	struct elf_file *dbg = NULL;
	if (path) {
		char root[64], dir[4096];
		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
		snprintf(dir, sizeof(dir), "%s", path);
		dbg = elfsyms_open_debug(ef, root, dirname(dir));
	}
	if (!dbg && ef->build_id[0])
		dbg = elfsyms_open_debug(ef, "", "/nonexistent");
	return dbg;
}

void elfsyms_load(struct elf_syms *s, struct elf_file *ef, pid_t pid, const char *path)
{
	elfsyms_add_file(s, ef);
	struct elf_file *dbg = debug_file(ef, pid, path);
	if (dbg) {
		elfsyms_add_file(s, dbg);
		elf_file_close(dbg);
	}
	elfsyms_finish(s);
}

struct bounds { uint64_t *v; size_t n, cap; };

static void push_bound(struct bounds *b, uint64_t a)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->v = xrealloc(b->v, b->cap * sizeof(*b->v));
	}
	b->v[b->n++] = a;
}

/* A symbol's start and the end of what elfsyms_lookup names by it: its size, or 4 KiB on
 * for an unsized one (the next symbol's start ends it too, and is a bound of its own). */
static void bound_cb(void *ctx, uint64_t addr, uint64_t size, const char *name)
{
	(void)name;
	if (((struct bounds *)ctx)->n < MAX_SYMS * 2) {
		push_bound(ctx, addr);
		push_bound(ctx, addr + (size ? size : 4097));
	}
}

/* v[0..n) into order, a byte at a time from the lowest (tmp: room for n): a library's
 * tens of thousands of bounds are sorted in a fraction of the time qsort's calls take. */
static void sort_u64(uint64_t *v, uint64_t *tmp, size_t n)
{
	for (int shift = 0; shift < 64; shift += 8) {
		size_t at[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			at[((v[i] >> shift) & 0xff) + 1]++;
		if (at[((v[0] >> shift) & 0xff) + 1] == n)
			continue; /* every value has this byte alike */
		for (int d = 0; d < 256; d++)
			at[d + 1] += at[d];
		for (size_t i = 0; i < n; i++)
			tmp[at[(v[i] >> shift) & 0xff]++] = v[i];
		memcpy(v, tmp, n * sizeof(*v));
	}
}

size_t elfsyms_bounds(struct elf_file *ef, pid_t pid, const char *path, uint64_t **out)
{
	/* The symbolizer reads the same tables and says what it cannot read; the names, which
	 * it reads too, are not needed here. */
	struct bounds b = { 0 };
	int quiet = ef->quiet;
	ef->quiet = 1;
	scan_file(ef, 0, bound_cb, &b);
	ef->quiet = quiet;
	struct elf_file *dbg = debug_file(ef, pid, path);
	if (dbg) {
		dbg->quiet = 1;
		scan_file(dbg, 0, bound_cb, &b);
		elf_file_close(dbg);
	}
	if (b.n) {
		uint64_t *tmp = xmalloc(b.n * sizeof(*tmp));
		sort_u64(b.v, tmp, b.n);
		free(tmp);
	}
	*out = b.v;
	return b.n;
}

void elfsyms_free(struct elf_syms *s)
{
	free(s->sym);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

static struct elf_file *try_open(const char *root, const char *path, const struct elf_file *orig)
{
	int fd = root_open(root[0] ? root : "/", path);
	if (fd < 0)
		return NULL;
	struct elf_file *d = elf_file_open_fd(fd);
	/* A debug file for another build would give wrong names: require the same build-id. */
	if (d && orig->build_id[0] && d->build_id[0] && strcmp(d->build_id, orig->build_id)) {
		elf_file_close(d);
		return NULL;
	}
	return d;
}

struct elf_file *elfsyms_open_debug(const struct elf_file *ef, const char *root, const char *dir)
{
	char path[4096];
	struct elf_file *d;
	if (ef->build_id[0]) {
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", ef->build_id,
			 ef->build_id + 2);
		if ((d = try_open(root, path, ef)))
			return d;
	}
	if (!ef->debuglink[0])
		return NULL;
	const char *fmts[] = { "%s/.debug/%s", "/usr/lib/debug%s/%s" };
	for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
		snprintf(path, sizeof(path), fmts[i], dir, ef->debuglink);
		if ((d = try_open(root, path, ef)))
			return d;
	}
	return NULL;
}
