/* One ELF file opened with libelf: its build-id, loadable segments (to turn file
 * offsets into virtual addresses), debug link, and access to named sections. Used by
 * the symbolizer and the unwind-table builder; every field read is bounds-checked. */
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfi.h"
#include "elffile.h"
#include "safe_name.h"
#include "util.h"

/* Bytes of one section, as stored or inflated, past which it counts as missing: libelf reads
 * and allocates a section whole at the size the file claims, and a sparse file claims
 * gigabytes at no cost to its owner. The largest seen in real files: .rodata 100 MiB (a big Go
 * program), .strtab 20 MiB, .eh_frame 8 MiB. */
#define MAX_SECTION (256u << 20)
#define TOLD_MAX 64

static void read_segments(struct elf_file *ef)
{
	size_t n = 0;
	if (elf_getphdrnum(ef->elf, &n))
		return;
	for (size_t i = 0; i < n && ef->nseg < (int)ARRAY_SIZE(ef->seg); i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(ef->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		ef->seg[ef->nseg++] = (struct elf_seg){
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz, .offset = ph.p_offset,
			.filesz = ph.p_filesz, .exec = (ph.p_flags & PF_X) != 0,
		};
	}
}

static void hex(char *out, const unsigned char *b, size_t n)
{
	static const char d[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = 0;
}

static void read_build_id(struct elf_file *ef)
{
	int type;
	Elf_Data *d = elf_file_section(ef, ".note.gnu.build-id", NULL, &type);
	if (!d || d->d_size < 16)
		return;
	const unsigned char *p = d->d_buf;
	uint32_t namesz, descsz, ntype;
	memcpy(&namesz, p, 4);
	memcpy(&descsz, p + 4, 4);
	memcpy(&ntype, p + 8, 4);
	size_t desc = 12 + ((namesz + 3) & ~3u);
	if (ntype != 3 || descsz == 0 || descsz > 20 || namesz > 16 || desc + descsz > d->d_size)
		return;
	hex(ef->build_id, p + desc, descsz);
}

static void read_debuglink(struct elf_file *ef)
{
	int type;
	Elf_Data *d = elf_file_section(ef, ".gnu_debuglink", NULL, &type);
	if (!d || d->d_size < 5)
		return;
	size_t n = strnlen(d->d_buf, d->d_size);
	if (n == 0 || n >= sizeof(ef->debuglink) || n == d->d_size || memchr(d->d_buf, '/', n))
		return;
	memcpy(ef->debuglink, d->d_buf, n + 1);
}

/* libelf inflates a compressed string table while holding its own lock and then waits for
 * that lock again: a file with one (no toolchain writes such a file) would hang for ever. */
static int compressed_strtab(Elf *elf)
{
	size_t n;
	if (elf_getshdrnum(elf, &n))
		return 1;
	for (size_t i = 1; i < n; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(elf, i);
		if (scn && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_STRTAB && (sh.sh_flags & SHF_COMPRESSED))
			return 1;
	}
	return 0;
}

static struct elf_file *finish_open(struct elf_file *ef, const char **why)
{
	GElf_Ehdr eh;
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF || !gelf_getehdr(ef->elf, &eh)
	    || gelf_getclass(ef->elf) != ELFCLASS64 || eh.e_machine != LF_ARCH_EM) {
		elf_file_close(ef);
		return NULL;
	}
	if (compressed_strtab(ef->elf)) {
		if (why)
			*why = "a string table of its section headers is compressed, which no toolchain writes "
			       "and which libelf cannot read without hanging";
		elf_file_close(ef);
		return NULL;
	}
	ef->type = eh.e_type;
	ef->entry = eh.e_entry;
	read_segments(ef);
	read_build_id(ef);
	read_debuglink(ef);
	return ef;
}

struct elf_file *elf_file_open_fd(int fd)
{
	return elf_file_open_checked(fd, NULL);
}

struct elf_file *elf_file_open_checked(int fd, const char **why)
{
	elf_version(EV_CURRENT);
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {   /* a FIFO or a device could block or act */
		close(fd);
		return NULL;
	}
	struct elf_file *ef = xcalloc(1, sizeof(*ef));
	ef->fd = fd;
	/* Read, not mapped: the target may truncate or rewrite its files while lua-flame holds
	 * them, and a mapping would then fault (SIGBUS) instead of failing a read. */
	ef->elf = elf_begin(fd, ELF_C_READ, NULL);
	return finish_open(ef, why);
}

struct elf_file *elf_file_open_mem(const void *buf, size_t len)
{
	elf_version(EV_CURRENT);
	struct elf_file *ef = xcalloc(1, sizeof(*ef));
	ef->fd = -1;
	ef->mem = xmalloc(len);
	memcpy(ef->mem, buf, len);
	ef->elf = elf_memory(ef->mem, len);
	return finish_open(ef, NULL);
}

void elf_file_close(struct elf_file *ef)
{
	if (!ef)
		return;
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
	free(ef->mem);
	free(ef->fde_len);
	free(ef->spans);
	free(ef);
}

int elf_file_off_to_vaddr(const struct elf_file *ef, uint64_t off, uint64_t *vaddr)
{
	for (int i = 0; i < ef->nseg; i++) {
		const struct elf_seg *s = &ef->seg[i];
		if (off >= s->offset && off < s->offset + s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return 0;
		}
	}
	return -1;
}

size_t elf_file_read_vaddr(const struct elf_file *ef, uint64_t vaddr, void *buf, size_t n)
{
	for (int i = 0; i < ef->nseg; i++) {
		const struct elf_seg *s = &ef->seg[i];
		if (vaddr < s->vaddr || vaddr - s->vaddr >= s->filesz)
			continue;
		uint64_t off = s->offset + (vaddr - s->vaddr), left = s->filesz - (vaddr - s->vaddr);
		size_t want = n < left ? n : (size_t)left;
		if (ef->fd < 0)
			return 0;   /* in-memory images (the vdso) have no padding worth reading */
		ssize_t got = pread(ef->fd, buf, want, (off_t)off);
		return got > 0 ? (size_t)got : 0;
	}
	return 0;
}

/* Each file refused a section is named once, however often it is opened (the symbolizer,
 * the unwind tables and each Lua detection pass open their own); past TOLD_MAX files, no
 * more are named. */
static int first_told(int fd)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct { dev_t dev; ino_t ino; } told[TOLD_MAX];
	static size_t n;
	struct stat st;
	if (fstat(fd, &st))
		return 0;
	pthread_mutex_lock(&lock);
	int first = n < TOLD_MAX;
	for (size_t i = 0; first && i < n; i++)
		first = told[i].dev != st.st_dev || told[i].ino != st.st_ino;
	if (first) {
		told[n].dev = st.st_dev;
		told[n++].ino = st.st_ino;
	}
	pthread_mutex_unlock(&lock);
	return first;
}

static void file_name(int fd, char *out, size_t size)
{
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t len = readlink(link, out, size - 1);
	if (len > 0)
		out[len] = 0;
	else
		snprintf(out, size, "a file");
	safe_name_fix(out, size, SAFE_TERMINAL);
}

/* The section's name, unless reading the names would cost more than the cap allows. */
static void section_name(Elf *elf, Elf_Scn *scn, char *out, size_t size)
{
	size_t shstrndx;
	GElf_Shdr names, sh;
	const char *n = NULL;
	if (!elf_getshdrstrndx(elf, &shstrndx) && gelf_getshdr(elf_getscn(elf, shstrndx), &names)
	    && names.sh_size <= MAX_SECTION && gelf_getshdr(scn, &sh))
		n = elf_strptr(elf, shstrndx, sh.sh_name);
	if (n)
		snprintf(out, size, "%s", n);
	else
		snprintf(out, size, "number %zu", elf_ndxscn(scn));
	safe_name_fix(out, size, SAFE_TERMINAL);
}

/* An image in memory (the vdso, at most 1 MiB) has no section past the cap: nothing to name. */
static void say_too_big(const struct elf_file *ef, Elf_Scn *scn, const char *what, uint64_t size)
{
	if (ef->fd < 0 || ef->quiet || !first_told(ef->fd))
		return;
	char path[4096], name[256];
	file_name(ef->fd, path, sizeof(path));
	section_name(ef->elf, scn, name, sizeof(name));
	warnx_lf("%s: section %s is not read: %s %" PRIu64 " MiB, more than the %u MiB no real file's "
		 "section reaches; the file is read as if it had none", path, name, what, size >> 20,
		 MAX_SECTION >> 20);
}

/* Whether the bytes the section stores are within the cap; said once when not. */
static int stored_fits(const struct elf_file *ef, Elf_Scn *scn, const GElf_Shdr *sh)
{
	if (sh->sh_size <= MAX_SECTION)
		return 1;
	say_too_big(ef, scn, "it holds", sh->sh_size);
	return 0;
}

/* The check comes before any byte is read: even a compressed section's header is only read
 * with the whole section. */
static int section_fits(const struct elf_file *ef, Elf_Scn *scn)
{
	GElf_Shdr sh;
	GElf_Chdr ch;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !stored_fits(ef, scn, &sh))
		return 0;
	if (!(sh.sh_flags & SHF_COMPRESSED))
		return 1;
	if (!gelf_getchdr(scn, &ch))
		return 0;
	if (ch.ch_size > MAX_SECTION)
		say_too_big(ef, scn, "it inflates to", ch.ch_size);
	return ch.ch_size <= MAX_SECTION;
}

Elf_Data *elf_file_data(struct elf_file *ef, Elf_Scn *scn)
{
	GElf_Shdr sh;
	if (!section_fits(ef, scn) || !gelf_getshdr(scn, &sh))
		return NULL;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return NULL;
	Elf_Data *d = elf_getdata(scn, NULL);
	return d && d->d_buf ? d : NULL;
}

/* elf_strptr reads the table of names whole: it passes the same check. */
Elf_Data *elf_file_symbols(struct elf_file *ef, Elf_Scn *scn)
{
	GElf_Shdr sh;
	Elf_Data *d = gelf_getshdr(scn, &sh) && sh.sh_entsize ? elf_file_data(ef, scn) : NULL;
	return d && elf_file_data(ef, elf_getscn(ef->elf, sh.sh_link)) ? d : NULL;
}

/* The section named name and its header, or NULL. */
static Elf_Scn *find_section(struct elf_file *ef, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(ef->elf, &shstrndx) || !elf_file_data(ef, elf_getscn(ef->elf, shstrndx)))
		return NULL;
	Elf_Scn *scn = NULL;
	for (int guard = 0; (scn = elf_nextscn(ef->elf, scn)) && guard < 65536; guard++) {
		if (!gelf_getshdr(scn, sh))
			continue;
		const char *n = elf_strptr(ef->elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

Elf_Data *elf_file_section(struct elf_file *ef, const char *name, uint64_t *addr, int *type)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(ef, name, &sh);
	Elf_Data *d = scn ? elf_file_data(ef, scn) : NULL;
	if (d && addr)
		*addr = sh.sh_addr;
	if (d && type)
		*type = (int)sh.sh_type;
	return d;
}

size_t elf_file_section_size(struct elf_file *ef, const char *name)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(ef, name, &sh);
	if (!scn || sh.sh_type == SHT_NOBITS || !stored_fits(ef, scn, &sh))
		return 0;
	/* a compressed section's own size is in a header read only with the whole section */
	return (sh.sh_flags & SHF_COMPRESSED) ? 8 * sh.sh_size : sh.sh_size;
}

/* Looked up once: the merge and the labels ask for function starts of many frames. A file
 * without .eh_frame_hdr (a static executable) gets its FDEs' ranges listed instead. */
static void find_eh_sections(struct elf_file *ef)
{
	Elf_Data *d = elf_file_section(ef, ".eh_frame_hdr", &ef->ehhdr_addr, NULL);
	Elf_Data *f = elf_file_section(ef, ".eh_frame", &ef->ehframe_addr, NULL);
	ef->ehframe = f ? f->d_buf : NULL;
	ef->ehframe_len = f ? f->d_size : 0;
	ef->ehhdr_state = d && d->d_size >= 12 && f ? 1 : -1;
	ef->ehhdr = ef->ehhdr_state > 0 ? d->d_buf : NULL;
	ef->ehhdr_len = ef->ehhdr_state > 0 ? d->d_size : 0;
	if (ef->ehhdr_state < 0 && f)
		ef->nspans = cfi_fde_spans(ef->ehframe, ef->ehframe_len, ef->ehframe_addr, &ef->spans);
}

static int span_func_range(const struct elf_file *ef, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	size_t lo = 0, hi = ef->nspans;
	while (lo < hi) {   /* lo: the first span starting after vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (ef->spans[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || vaddr >= ef->spans[lo - 1].end)
		return -1;
	*start = ef->spans[lo - 1].start;
	*end = ef->spans[lo - 1].end;
	return 0;
}

/* .eh_frame_hdr: version 1, then encoded eh_frame_ptr and fde_count, then a table of
 * (initial location, FDE address) pairs sorted by location; GCC and lld write it as
 * 4-byte values relative to the header (DW_EH_PE_datarel | sdata4). The FDE itself says
 * where the function ends (read by the CFI parser). */
int elf_file_func_start(struct elf_file *ef, uint64_t vaddr, uint64_t *start)
{
	uint64_t end;
	return elf_file_func_range(ef, vaddr, start, &end);
}

int elf_file_func_range(struct elf_file *ef, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	if (!ef->ehhdr_state)
		find_eh_sections(ef);
	if (ef->ehhdr_state < 0)
		return span_func_range(ef, vaddr, start, end);
	uint64_t hdr = ef->ehhdr_addr;
	const unsigned char *p = ef->ehhdr;
	if (p[0] != 1 || p[2] != 0x03 || p[3] != 0x3b) /* fde_count udata4, table datarel sdata4 */
		return -1;
	size_t ptr_len = p[1] == 0x1b || p[1] == 0x03 ? 4 : p[1] == 0x04 ? 8 : 0;
	if (!ptr_len || 4 + ptr_len + 4 > ef->ehhdr_len)
		return -1;
	uint32_t count;
	memcpy(&count, p + 4 + ptr_len, 4);
	size_t table = 4 + ptr_len + 4;
	if (count == 0 || count > (ef->ehhdr_len - table) / 8)
		return -1;
	size_t lo = 0, hi = count;
	while (lo < hi) {   /* lo: the first entry starting after vaddr */
		size_t mid = lo + (hi - lo) / 2;
		int32_t rel;
		memcpy(&rel, p + table + 8 * mid, 4);
		if ((uint64_t)((int64_t)hdr + rel) <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	size_t i = lo - 1;
	int32_t rel[2];
	memcpy(rel, p + table + 8 * i, 8);
	uint64_t loc = (uint64_t)((int64_t)hdr + rel[0]);
	if (!ef->fde_len)
		ef->fde_len = xcalloc(count, sizeof(*ef->fde_len));
	if (!ef->fde_len[i]) {
		uint64_t fde = (uint64_t)((int64_t)hdr + rel[1]), s, e;
		int ok = fde >= ef->ehframe_addr &&
			 cfi_fde_range(ef->ehframe, ef->ehframe_len, ef->ehframe_addr, fde - ef->ehframe_addr,
				       &s, &e) == 0 &&
			 s == loc && e - s < UINT32_MAX;   /* the table and its FDE agree */
		ef->fde_len[i] = ok ? (uint32_t)(e - s) : UINT32_MAX;
	}
	if (ef->fde_len[i] == UINT32_MAX || vaddr - loc >= ef->fde_len[i])
		return -1;   /* in a gap between functions */
	*start = loc;
	*end = loc + ef->fde_len[i];
	return 0;
}
