/* Turns native addresses of target processes into frame labels: the function symbol,
 * else `file+0xSTART` (the start of the function from .eh_frame; `file+0xVADDR` with
 * --addresses, or where no FDE covers the address), else `[unknown]`. ELF files are
 * loaded once per (device, inode) and shared by every process that maps them; each
 * process keeps its mapping list. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elffile.h"
#include "elfsym.h"
#include "ksyms.h"
#include "safe_name.h"
#include "symbolize.h"

struct sym_file {
	uint64_t dev, inode;
	struct elf_file *ef;   /* NULL when the file could not be read */
	struct elf_syms syms;
	int syms_loaded;       /* symbols are read at the first lookup, the file when it is mapped */
	pid_t pid;             /* where it was first seen, and its path there (its debug file) */
	char *path;
	struct sym_file *next;
};

struct sym_proc {
	pid_t pid;
	struct proc_maps maps;
	int refreshed;         /* maps re-read during this epoch */
	struct sym_file *vdso;
	struct sym_proc *next;
};

struct symbolizer {
	struct sym_file *files;
	struct sym_proc *procs;
	struct ksyms *ksyms;
	pthread_t ksyms_loader; /* reads them while sampling starts (symbolizer_load_kernel) */
	int ksyms_loading;
	int addresses;         /* label unsymbolized frames by their own address */
};

struct symbolizer *symbolizer_new(void)
{
	return xcalloc(1, sizeof(struct symbolizer));
}

static void *load_kernel(void *arg)
{
	struct symbolizer *s = arg;
	s->ksyms = ksyms_load();
	return NULL;
}

/* Reading the kernel's symbols costs a tenth of a second of CPU: on a thread of its own,
 * started once sampling is on, so that the first sample does not wait for it. (Not at a
 * low priority: beside busy targets it would then hold up the end of a short recording.) */
void symbolizer_load_kernel(struct symbolizer *s)
{
	if (s->ksyms || s->ksyms_loading)
		return;
	s->ksyms_loading = start_helper(&s->ksyms_loader, load_kernel, s);
}

/* Waits for the loading thread, if there is one. */
static void kernel_loaded(struct symbolizer *s)
{
	if (s->ksyms_loading)
		pthread_join(s->ksyms_loader, NULL);
	s->ksyms_loading = 0;
}

void symbolizer_set_addresses(struct symbolizer *s, int on)
{
	s->addresses = on;
}

static void file_free(struct sym_file *f)
{
	elf_file_close(f->ef);
	elfsyms_free(&f->syms);
	free(f->path);
	free(f);
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (struct sym_file *f = s->files, *n; f; f = n) {
		n = f->next;
		file_free(f);
	}
	for (struct sym_proc *p = s->procs, *n; p; p = n) {
		n = p->next;
		proc_maps_free(&p->maps);
		if (p->vdso)
			file_free(p->vdso);
		free(p);
	}
	kernel_loaded(s);
	ksyms_free(s->ksyms);
	free(s);
}

static struct sym_proc *find_proc(struct symbolizer *s, pid_t pid)
{
	for (struct sym_proc *p = s->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static struct sym_file *get_file(struct symbolizer *s, pid_t pid, const struct mapping *m);
static struct sym_file *get_vdso(struct sym_proc *p, const struct mapping *m);

static struct sym_proc *add_proc(struct symbolizer *s, pid_t pid)
{
	struct sym_proc *p = find_proc(s, pid);
	if (p)
		return p;
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->next = s->procs;
	s->procs = p;
	return p;
}

void symbolizer_add_pid(struct symbolizer *s, pid_t pid)
{
	if (find_proc(s, pid))
		return;
	struct proc_maps pm;
	if (proc_read_maps(pid, &pm) == 0)
		symbolizer_take_maps(s, pid, &pm);
	proc_maps_free(&pm);
	add_proc(s, pid);
}

/* The files are opened now, while the process is there to open them through: a process
 * that exits before its stacks are named (a short command) still has them named. */
void symbolizer_take_maps(struct symbolizer *s, pid_t pid, const struct proc_maps *pm)
{
	struct sym_proc *p = add_proc(s, pid);
	proc_maps_free(&p->maps);
	p->maps.m = xcalloc(pm->n ? pm->n : 1, sizeof(*pm->m));
	p->maps.n = pm->n;
	for (size_t i = 0; i < pm->n; i++) {
		p->maps.m[i] = pm->m[i];
		p->maps.m[i].path = xstrdup(pm->m[i].path);
	}
	for (size_t i = 0; i < pm->n; i++) {
		const struct mapping *m = &p->maps.m[i];
		if (m->exec && m->path[0] == '/')
			get_file(s, pid, m);
		else if (m->exec && !strcmp(m->path, "[vdso]"))
			get_vdso(p, m);
	}
}

void symbolizer_new_epoch(struct symbolizer *s)
{
	for (struct sym_proc *p = s->procs; p; p = p->next)
		p->refreshed = 0;
}

static struct sym_file *get_file(struct symbolizer *s, pid_t pid, const struct mapping *m)
{
	for (struct sym_file *f = s->files; f; f = f->next)
		if (f->dev == m->dev && f->inode == m->inode)
			return f;
	struct sym_file *f = xcalloc(1, sizeof(*f));
	f->dev = m->dev;
	f->inode = m->inode;
	int fd = proc_open_mapped(pid, m);
	f->ef = fd >= 0 ? elf_file_open_fd(fd) : NULL;
	f->pid = pid;
	f->path = xstrdup(m->path);
	f->next = s->files;
	s->files = f;
	return f;
}

static struct sym_file *get_vdso(struct sym_proc *p, const struct mapping *m)
{
	if (p->vdso)
		return p->vdso;
	p->vdso = xcalloc(1, sizeof(*p->vdso));
	p->vdso->syms_loaded = 1;
	size_t len = m->end - m->start;
	if (len <= (1 << 20)) {
		void *buf = xmalloc(len);
		if (proc_read_mem(p->pid, m->start, buf, len) == (ssize_t)len)
			p->vdso->ef = elf_file_open_mem(buf, len);
		free(buf);
	}
	if (p->vdso->ef) {
		elfsyms_add_file(&p->vdso->syms, p->vdso->ef);
		elfsyms_finish(&p->vdso->syms);
	}
	return p->vdso;
}

static const struct mapping *find_mapping(struct sym_proc *p, uint64_t addr)
{
	const struct mapping *m = proc_maps_find(&p->maps, addr);
	if (m || p->refreshed)
		return m;
	/* A library loaded after the last read: re-read once per epoch. */
	p->refreshed = 1;
	struct proc_maps fresh;
	if (proc_read_maps(p->pid, &fresh) == 0 && fresh.n) {
		proc_maps_free(&p->maps);
		p->maps = fresh;
	}
	return proc_maps_find(&p->maps, addr);
}

static int addr_is_anon_exec(struct symbolizer *s, pid_t pid, uint64_t a)
{
	struct sym_proc *p = find_proc(s, pid);
	const struct mapping *m = p ? proc_maps_find(&p->maps, a) : NULL;
	return m && m->exec && (m->path[0] == 0 || !strncmp(m->path, "[anon", 5));
}

static void base_name(const char *path, struct sbuf *out)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strcspn(b, " "); /* " (deleted)" */
	sb_add_safe(out, b, n, SAFE_FOLDED);
}

/* Resolves a (already adjusted) user address: its file, ELF vaddr and symbol name. */
struct resolved { const struct mapping *m; struct sym_file *f; uint64_t vaddr; const char *name; };

static int resolve(struct symbolizer *s, pid_t pid, uint64_t a, struct resolved *r)
{
	memset(r, 0, sizeof(*r));
	struct sym_proc *p = find_proc(s, pid);
	const struct mapping *m = p ? find_mapping(p, a) : NULL;
	if (!m || (m->path[0] != '/' && strcmp(m->path, "[vdso]")))
		return -1;
	int vdso = m->path[0] == '[';
	struct sym_file *f = vdso ? get_vdso(p, m) : get_file(s, pid, m);
	r->m = m;
	r->f = f;
	r->vaddr = a - m->start + m->pgoff;
	if (!f->ef)
		return 0;
	if (!f->syms_loaded) {
		f->syms_loaded = 1;
		elfsyms_load(&f->syms, f->ef, f->pid, f->path);
	}
	if (vdso)
		r->vaddr = a - m->start + f->ef->seg[0].vaddr;
	else
		elf_file_off_to_vaddr(f->ef, a - m->start + m->pgoff, &r->vaddr);
	r->name = elfsyms_lookup(&f->syms, r->vaddr);
	return 0;
}

enum sym_result symbolize_user(struct symbolizer *s, pid_t pid, uint64_t addr, int is_return, struct sbuf *out)
{
	uint64_t a = is_return && addr ? addr - 1 : addr;
	struct resolved r;
	if (resolve(s, pid, a, &r)) {
		int jit = addr_is_anon_exec(s, pid, a);
		sb_puts(out, jit ? LF_LABEL_JIT : LF_LABEL_UNKNOWN);
		return jit ? SYM_JIT : SYM_UNKNOWN;
	}
	if (r.name) {
		sb_puts(out, r.name);   /* made safe when read */
		return SYM_NAMED;
	}
	/* One label per function, so that its samples share one box: the start of the FDE
	 * covering the address (a return address's caller: a was moved back into the call). */
	uint64_t start;
	if (!s->addresses && r.f->ef && elf_file_func_start(r.f->ef, r.vaddr, &start) == 0)
		r.vaddr = start;
	base_name(r.m->path, out);
	sb_printf(out, "+0x%" PRIx64, r.vaddr);
	return SYM_NAMED;
}

const char *symbolize_name(struct symbolizer *s, pid_t pid, uint64_t addr)
{
	struct resolved r;
	return resolve(s, pid, addr, &r) ? NULL : r.name;
}

int symbolize_func_start(struct symbolizer *s, pid_t pid, uint64_t addr, uint64_t *start)
{
	struct resolved r;
	uint64_t fs;
	if (resolve(s, pid, addr, &r) || !r.f->ef || elf_file_func_start(r.f->ef, r.vaddr, &fs))
		return -1;
	*start = addr - (r.vaddr - fs);
	return 0;
}

const char *symbolize_kernel_name(struct symbolizer *s, uint64_t addr)
{
	kernel_loaded(s);
	if (!s->ksyms)
		s->ksyms = ksyms_load();
	return ksyms_lookup(s->ksyms, addr);
}

void symbolize_kernel(struct symbolizer *s, uint64_t addr, struct sbuf *out)
{
	const char *name = symbolize_kernel_name(s, addr);
	sb_puts(out, name ? name : LF_LABEL_UNKNOWN);
	sb_puts(out, "_[k]");
}
