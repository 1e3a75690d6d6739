/* Builds the tables the BPF unwinder reads: per-file rows from .eh_frame/.debug_frame
 * (built once per file and shared by every process mapping it), deduplicated rules, and
 * each process's executable mappings with their file and load bias. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "cfi.h"
#include "data_ranges.h"
#include "elffile.h"
#include "elfsym.h"
#include "unwind_tables.h"
#include "util.h"

struct ut_file {
	uint64_t dev, inode;
	char build_id[41];
	uint32_t index;
	struct elf_seg seg[16];
	int nseg;
	struct elf_file *pending; /* open until ut_build_pending builds its rows */
	int interp;
	pid_t pid;                /* a process that maps it, and where (NULL: the vdso): for its symbols */
	char *path;
	struct ut_file *next;
};

struct ut_proc {
	pid_t pid;
	struct lf_proc *p;
	uint64_t brk;  /* where its brk heap starts: set at exec, read with its maps in ut_add_pid */
	int dirty;
};

#define REFUSED_MAX 16

struct unwind_tables {
	struct lf_row *rows;
	size_t nrows, caprows, rows_synced;
	struct lf_rule *rules;
	size_t nrules, rules_synced;
	uint64_t *rule_keys;     /* open addressing: key+1 (0 = empty) -> rules index in rule_ids */
	uint32_t *rule_ids;
	size_t rule_cap;
	struct lf_file *finfo;
	size_t nfiles, capfiles, files_synced;
	__u32 proc_gen; /* the last lf_proc.gen written */
	struct ut_file *files;
	struct ut_proc *procs;
	size_t nprocs;
	/* Loaded maps. */
	int procs_fd;
	struct lf_row *m_rows;
	size_t m_rows_cap;
	struct lf_rule *m_rules;
	struct lf_file *m_files;
	size_t m_files_cap;
	int full_warned;
	double say_slow_at;      /* ut_say_if_slow's moment, 0: not asked */
	uint64_t refused[REFUSED_MAX][2]; /* (dev, inode) of files refused, each said once */
	size_t nrefused;
	int defer;               /* ut_defer_rows */
	ut_maps_fn *on_maps;     /* ut_on_maps */
	void *on_maps_arg;
	size_t npending, pending_bytes;
};

struct unwind_tables *ut_new(void)
{
	struct unwind_tables *t = xcalloc(1, sizeof(*t));
	t->rule_cap = 1 << 17;
	t->rule_keys = xcalloc(t->rule_cap, sizeof(*t->rule_keys));
	t->rule_ids = xcalloc(t->rule_cap, sizeof(*t->rule_ids));
	t->rules = xcalloc(LF_MAX_RULES, sizeof(*t->rules));
	t->procs_fd = -1;
	return t;
}

static uint64_t rule_key(const struct lf_rule *r)
{
	return hash_bytes(r, sizeof(*r), 0);
}

/* Enters rule i of t->rules in the hash, which has no identical rule yet. */
static void index_rule(struct unwind_tables *t, uint32_t i)
{
	uint64_t k = rule_key(&t->rules[i]) | 1;
	size_t h = (size_t)(k & (t->rule_cap - 1));
	while (t->rule_keys[h])
		h = (h + 1) & (t->rule_cap - 1);
	t->rule_keys[h] = k;
	t->rule_ids[h] = i;
}

/* Index of an identical rule, adding it when new; LF_MAX_RULES-1 when the table is full
 * (that slot holds an INVALID rule, so the unwinder stops with a marker). */
static uint32_t intern_rule(struct unwind_tables *t, const struct lf_rule *r)
{
	uint64_t k = rule_key(r) | 1;
	for (size_t h = (size_t)(k & (t->rule_cap - 1)); t->rule_keys[h]; h = (h + 1) & (t->rule_cap - 1))
		if (t->rule_keys[h] == k && !memcmp(&t->rules[t->rule_ids[h]], r, sizeof(*r)))
			return t->rule_ids[h];
	if (t->nrules >= LF_MAX_RULES - 1) {
		t->rules[LF_MAX_RULES - 1] = (struct lf_rule){ .kind = LF_RULE_INVALID };
		return LF_MAX_RULES - 1;
	}
	t->rules[t->nrules] = *r;
	index_rule(t, (uint32_t)t->nrules);
	return (uint32_t)t->nrules++;
}

static struct lf_rule rule_of(const struct cfi_row *c)
{
	struct lf_rule r = { .cfa_off = c->cfa_off, .fp_off = c->fp_off, .ra_off = c->ra_off };
	switch (c->kind) {
	case CFI_ROW_NORMAL: r.kind = LF_RULE_NORMAL; break;
	case CFI_ROW_PLT1: case CFI_ROW_PLT2: case CFI_ROW_PLT3: case CFI_ROW_PLT4:
		r.kind = LF_RULE_PLT;
		break;
	case CFI_ROW_END: r.kind = LF_RULE_END; break;
	case CFI_ROW_STOP: r.kind = LF_RULE_STOP; break;
	default: r.kind = LF_RULE_INVALID; break;
	}
	if (c->cfa_reg == CFI_REG_FP)
		r.flags |= LF_RULE_CFA_FP;
	else if (c->cfa_reg >= CFI_REG_SAVED)
		r.cfa_saved = (__u8)(1 + c->cfa_reg - CFI_REG_SAVED);
	if (c->fp_rule == CFI_FP_OFFSET)
		r.flags |= LF_RULE_FP_SAVED;
	if (c->signal)
		r.flags |= LF_RULE_SIGNAL;
	if (r.kind != LF_RULE_NORMAL)
		r.cfa_off = r.fp_off = r.ra_off = 0, r.cfa_saved = 0, r.flags &= LF_RULE_SIGNAL;
	if (r.kind == LF_RULE_PLT)
		r.cfa_off = c->plt_at; /* the threshold of the stub's CFA expression */
	_Static_assert(CFI_NSAVED == LF_NSAVED, "rows and rules record the same registers");
	if (r.kind == LF_RULE_NORMAL)
		memcpy(r.saved, c->saved, sizeof(c->saved));
	return r;
}

static void parse_section(struct cfi_table *ct, struct elf_file *ef, const char *name, int debug)
{
	uint64_t addr = 0;
	Elf_Data *d = elf_file_section(ef, name, &addr, NULL);
	if (d && d->d_size)
		cfi_parse(ct, d->d_buf, d->d_size, addr, debug);
}

/* The crti/crtn frames of .init and .fini, which no FDE covers (see cfi_describe_crt). */
static void describe_crt(struct cfi_table *ct, struct elf_file *ef)
{
	static const char *const names[] = { ".init", ".fini" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t addr = 0;
		int type = 0;
		Elf_Data *d = elf_file_section(ef, names[i], &addr, &type);
		if (d && d->d_buf && type == SHT_PROGBITS)
			cfi_describe_crt(ct, addr, d->d_buf, d->d_size);
	}
}

/* Whether the row [lo, hi) may be in a label run (unwind.h): a NORMAL rule, inside the FDE
 * [*fs, *fe) (looked up again when lo is outside the last one) by which user space names a
 * function, and no symbol starting or ending inside it (b[*k] is the first bound above lo). */
static int run_row(struct elf_file *ef, const struct lf_rule *rule, uint64_t lo, uint64_t hi, uint64_t *fs,
		   uint64_t *fe, const uint64_t *b, size_t nb, size_t *k)
{
	while (*k < nb && b[*k] <= lo)
		(*k)++;
	if (rule->kind != LF_RULE_NORMAL || (*k < nb && b[*k] < hi))
		return 0;
	if ((lo < *fs || lo >= *fe) && elf_file_func_range(ef, lo, fs, fe))
		*fs = 1, *fe = 0;
	return lo >= *fs && hi <= *fe;
}

/* Sets each row's place in its label run: runs are rows of one FDE, none starting at a
 * symbol's bound but the first. */
static void mark_runs(struct unwind_tables *t, const struct lf_file *fi, struct elf_file *ef, const struct ut_file *f)
{
	uint64_t *b, fs = 1, fe = 0, run_fs = 0;
	size_t nb = elfsyms_bounds(ef, f->pid, f->path, &b), k = 0;
	uint32_t first = 0, end = fi->row_start + fi->row_count;
	int in_run = 0;
	for (uint32_t i = fi->row_start; i + 1 < end; i++) {
		struct lf_row *r = &t->rows[i];
		size_t k0 = k;
		if (!run_row(ef, &t->rules[r->rule & LF_ROW_RULE], r->pc, t->rows[i + 1].pc, &fs, &fe, b, nb, &k)) {
			in_run = 0;
			continue;
		}
		int at_bound = k > k0 && b[k - 1] == r->pc;
		if (!in_run || fs != run_fs || at_bound || i - first >= LF_ROW_RUN_MAX - 1)
			first = i, run_fs = fs, in_run = 1;
		r->rule |= (i - first + 1) << LF_ROW_RUN_SHIFT;
	}
	free(b);
}

static void add_rows(struct unwind_tables *t, struct cfi_table *ct, struct lf_file *fi)
{
	fi->row_start = (uint32_t)t->nrows;
	for (size_t i = 0; i < ct->n; i++) {
		const struct cfi_row *c = &ct->rows[i];
		if (c->pc > 0xffffffffu)
			break;
		if (t->nrows == t->caprows) {
			t->caprows = t->caprows ? t->caprows * 2 : 65536;
			t->rows = xrealloc(t->rows, t->caprows * sizeof(*t->rows));
		}
		struct lf_rule r = rule_of(c);
		t->rows[t->nrows++] = (struct lf_row){ (uint32_t)c->pc, intern_rule(t, &r) };
	}
	fi->row_count = (uint32_t)(t->nrows - fi->row_start);
}

/* The code bytes padding checks ask for, read a window at a time: the gaps come in address
 * order, and a large program's code is never read whole. */
#define CODE_WINDOW 65536
struct code_window {
	const struct elf_file *ef;
	uint64_t base;
	size_t len;
	uint8_t *buf;    /* allocated on first use */
};

static int read_code(void *ctx, uint64_t addr, uint8_t *out, size_t n)
{
	struct code_window *w = ctx;
	if (addr < w->base || addr - w->base + n > w->len) {
		if (!w->buf)
			w->buf = xmalloc(CODE_WINDOW);
		w->base = addr;
		w->len = elf_file_read_vaddr(w->ef, addr, w->buf, CODE_WINDOW);
	}
	if (addr - w->base + n > w->len)
		return 0;
	memcpy(out, w->buf + (addr - w->base), n);
	return 1;
}

static void build_rows(struct unwind_tables *t, struct ut_file *f, struct elf_file *ef, int interp)
{
	struct cfi_table ct;
	memset(&ct, 0, sizeof(ct));
	parse_section(&ct, ef, ".eh_frame", 0);
	parse_section(&ct, ef, ".debug_frame", 1);
	if (cfi_finish(&ct) == 0 && (!interp || cfi_mark_entry(&ct, ef->entry) == 0)) {
		struct code_window w = { .ef = ef };
		cfi_fill_padding(&ct, read_code, &w);
		free(w.buf);
		describe_crt(&ct, ef);
		add_rows(t, &ct, &t->finfo[f->index]);
		mark_runs(t, &t->finfo[f->index], ef, f);
		if (t->say_slow_at && now_sec() >= t->say_slow_at) {
			info_lf("still reading unwind tables (%zu files, %zu rows so far); sampling starts once "
				"they are built", t->nfiles, t->nrows);
			t->say_slow_at = 0;
		}
	}
	cfi_free(&ct);
}

/* Files whose rows wait for ut_build_pending keep their ELF open: bounded, for descriptors. */
#define PENDING_MAX 256

/* Registers one ELF image and builds its rows, or leaves them for ut_build_pending when
 * may_defer and ut_defer_rows asked for it; 1 when it kept ef (the caller must not close it).
 * interp: the image is a process's dynamic loader, whose entry point is where its first
 * thread starts. */
static int add_file(struct unwind_tables *t, struct elf_file *ef, uint64_t dev, uint64_t inode, int interp,
		    int may_defer, pid_t pid, const char *path)
{
	struct ut_file *f = xcalloc(1, sizeof(*f));
	f->dev = dev;
	f->inode = inode;
	f->pid = pid;
	f->path = path ? xstrdup(path) : NULL;
	memcpy(f->build_id, ef->build_id, sizeof(f->build_id));
	memcpy(f->seg, ef->seg, sizeof(f->seg));
	f->nseg = ef->nseg;
	if (t->nfiles == t->capfiles) {
		t->capfiles = t->capfiles ? t->capfiles * 2 : 64;
		t->finfo = xrealloc(t->finfo, t->capfiles * sizeof(*t->finfo));
	}
	f->index = (uint32_t)t->nfiles++;
	t->finfo[f->index] = (struct lf_file){ 0, 0 };
	f->next = t->files;
	t->files = f;
	if (may_defer && t->defer && t->npending < PENDING_MAX) {
		f->pending = ef;
		f->interp = interp;
		t->npending++;
		t->pending_bytes += elf_file_section_size(ef, ".eh_frame") + elf_file_section_size(ef, ".debug_frame");
		return 1;
	}
	build_rows(t, f, ef, interp);
	return 0;
}

void ut_defer_rows(struct unwind_tables *t, int on) { t->defer = on; }

/* The most rows one byte of CFI gave in Debian 12's libraries and programs was 0.26 (0.2 on
 * average over 118 MB of .eh_frame); half a row per byte leaves room beyond that. */
size_t ut_rows_bound(const struct unwind_tables *t) { return t->nrows + t->pending_bytes / 2; }

/* Closes the pending files; with build, builds their rows first. */
static void end_pending(struct unwind_tables *t, int build)
{
	for (struct ut_file *f = t->files; f && t->npending; f = f->next) {
		if (!f->pending)
			continue;
		if (build)
			build_rows(t, f, f->pending, f->interp);
		elf_file_close(f->pending);
		f->pending = NULL;
		t->npending--;
	}
	t->pending_bytes = 0;
}

void ut_build_pending(struct unwind_tables *t) { end_pending(t, 1); }
size_t ut_pending(const struct unwind_tables *t) { return t->npending; }

/* What ut_send_tables sends: these counts, then every row and rule, the rule of the full
 * table's slot, and every file's place in the rows. */
struct tables_head {
	uint64_t nrows, nrules, nfiles;
	double ms;
};

int ut_send_tables(const struct unwind_tables *t, int fd, double ms)
{
	struct tables_head h = { t->nrows, t->nrules, t->nfiles, ms };
	return write_all(fd, &h, sizeof(h)) || write_all(fd, t->rows, t->nrows * sizeof(*t->rows)) ||
	       write_all(fd, t->rules, t->nrules * sizeof(*t->rules)) ||
	       write_all(fd, &t->rules[LF_MAX_RULES - 1], sizeof(*t->rules)) ||
	       write_all(fd, t->finfo, t->nfiles * sizeof(*t->finfo)) ? -1 : 0;
}

/* Every rule in the hash again, for rules that came whole from another process. */
static void index_rules(struct unwind_tables *t)
{
	memset(t->rule_keys, 0, t->rule_cap * sizeof(*t->rule_keys));
	for (size_t i = 0; i < t->nrules; i++)
		index_rule(t, (uint32_t)i);
}

int ut_take_tables(struct unwind_tables *t, int fd, double *ms)
{
	struct tables_head h;
	if (read_all(fd, &h, sizeof(h)) || h.nrows < t->nrows || h.nrows > UINT32_MAX || h.nrules < t->nrules ||
	    h.nrules > LF_MAX_RULES - 1 || h.nfiles != t->nfiles)
		return -1;
	struct lf_row *rows = xmalloc(h.nrows * sizeof(*rows) + 1);
	struct lf_rule *rules = xcalloc(LF_MAX_RULES, sizeof(*rules));
	struct lf_file *finfo = xmalloc((t->capfiles + 1) * sizeof(*finfo));
	int bad = read_all(fd, rows, h.nrows * sizeof(*rows)) || read_all(fd, rules, h.nrules * sizeof(*rules)) ||
		  read_all(fd, &rules[LF_MAX_RULES - 1], sizeof(*rules)) ||
		  read_all(fd, finfo, t->nfiles * sizeof(*finfo));
	if (bad) {
		free(rows), free(rules), free(finfo);
		return -1;
	}
	free(t->rows), free(t->rules), free(t->finfo);
	t->rows = rows, t->rules = rules, t->finfo = finfo;
	t->nrows = t->caprows = h.nrows;
	t->nrules = h.nrules;
	index_rules(t);
	end_pending(t, 0);
	*ms = h.ms;
	return 0;
}

static struct ut_file *find_file(struct unwind_tables *t, uint64_t dev, uint64_t inode, const char *build_id)
{
	for (struct ut_file *f = t->files; f; f = f->next)
		if (build_id ? !strcmp(f->build_id, build_id) && f->dev == 0 : f->dev == dev && f->inode == inode)
			return f;
	return NULL;
}

/* Load bias of a file mapping: the PT_LOAD segment holding the mapped file offset. */
static int bias_of(const struct ut_file *f, const struct mapping *m, uint64_t *bias)
{
	for (int i = 0; i < f->nseg; i++) {
		const struct elf_seg *s = &f->seg[i];
		if (m->pgoff >= (s->offset & ~0xfffULL) && m->pgoff < s->offset + s->filesz) {
			*bias = m->start - m->pgoff - (s->vaddr - s->offset);
			return 0;
		}
	}
	return -1;
}

/* A file of the target refused as malformed: said once, so that its frames shown by
 * address and stacks ending at it have a reason. */
static void say_refused(struct unwind_tables *t, pid_t pid, const struct mapping *m, const char *why)
{
	for (size_t i = 0; i < t->nrefused; i++)
		if (t->refused[i][0] == m->dev && t->refused[i][1] == m->inode)
			return;
	if (t->nrefused < REFUSED_MAX) {
		t->refused[t->nrefused][0] = m->dev;
		t->refused[t->nrefused++][1] = m->inode;
	}
	warnx_lf("PID %d: %s is not read: %s; its frames are shown by address and stacks through it end "
		 "in [unwind: no table]", (int)pid, m->path, why);
}

static struct ut_file *file_for(struct unwind_tables *t, pid_t pid, const struct mapping *m, int interp)
{
	struct ut_file *f = find_file(t, m->dev, m->inode, NULL);
	if (f)
		return f;
	int fd = proc_open_mapped(pid, m);
	const char *why = NULL;
	struct elf_file *ef = fd >= 0 ? elf_file_open_checked(fd, &why) : NULL;
	if (!ef) {
		if (why)
			say_refused(t, pid, m, why);
		return NULL;
	}
	if (!add_file(t, ef, m->dev, m->inode, interp, 1, pid, m->path))
		elf_file_close(ef);
	return t->files;
}

/* The vdso is not a file: read it from the process and key it by build-id. */
static struct ut_file *vdso_for(struct unwind_tables *t, pid_t pid, const struct mapping *m)
{
	size_t len = m->end - m->start;
	if (len > (1 << 20))
		return NULL;
	void *buf = xmalloc(len);
	struct elf_file *ef = NULL;
	if (proc_read_mem(pid, m->start, buf, len) == (ssize_t)len)
		ef = elf_file_open_mem(buf, len);
	free(buf);
	if (!ef)
		return NULL;
	struct ut_file *f = find_file(t, 0, 0, ef->build_id);
	if (!f) {
		add_file(t, ef, 0, 0, 0, 0, pid, NULL);
		f = t->files;
	}
	elf_file_close(ef);
	return f;
}

/* at_base: where the process's dynamic loader is loaded (AT_BASE), 0 if none. */
static void map_entry(struct unwind_tables *t, pid_t pid, const struct mapping *m, uint64_t at_base,
		      struct lf_map_ent *e)
{
	e->start = m->start;
	e->end = m->end;
	e->file = LF_FILE_NONE;
	if (m->path[0] == 0 || !strncmp(m->path, "[anon", 5) || !strncmp(m->path, "/memfd:", 7)) {
		e->file = LF_FILE_JIT;
		return;
	}
	struct ut_file *f = NULL;
	if (m->path[0] == '/')
		f = file_for(t, pid, m, at_base && m->start - m->pgoff == at_base);
	else if (!strcmp(m->path, "[vdso]"))
		f = vdso_for(t, pid, m);
	uint64_t bias;
	if (!f)
		return;
	if (!strcmp(m->path, "[vdso]"))
		bias = m->start - (f->nseg ? f->seg[0].vaddr : 0);
	else if (bias_of(f, m, &bias))
		return;
	e->file = f->index;
	e->bias = bias;
}

static void ut_build_proc(struct unwind_tables *t, pid_t pid, const struct proc_maps *pm, uint64_t brk,
			  struct lf_proc *out)
{
	uint64_t at_base = 0;
	memset(out, 0, sizeof(*out));
	if (proc_auxv(pid, AT_BASE, &at_base))
		at_base = 0;
	for (size_t i = 0; i < pm->n && out->n < LF_MAX_PROC_MAPS; i++)
		if (pm->m[i].exec)
			map_entry(t, pid, &pm->m[i], at_base, &out->m[out->n++]);
	out->ndata = (__u32)data_ranges(pm, brk, out->data, LF_MAX_DATA);
	out->nstacks = (__u32)stack_ranges(pm, out->stacks, LF_MAX_STACKS);
}

static struct ut_proc *find_proc(struct unwind_tables *t, pid_t pid)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	return NULL;
}

int ut_add_pid(struct unwind_tables *t, pid_t pid)
{
	struct proc_maps pm;
	if (proc_read_maps(pid, &pm))
		return -1;
	struct ut_proc *up = find_proc(t, pid);
	if (!up) {
		t->procs = xrealloc(t->procs, (t->nprocs + 1) * sizeof(*t->procs));
		up = &t->procs[t->nprocs++];
		up->pid = pid;
		up->p = xmalloc(sizeof(*up->p));
	}
	up->brk = proc_start_brk(pid);
	ut_build_proc(t, pid, &pm, up->brk, up->p);
	up->dirty = 1;
	if (t->on_maps)
		t->on_maps(t->on_maps_arg, pid, &pm);
	proc_maps_free(&pm);
	return 0;
}

void ut_on_maps(struct unwind_tables *t, ut_maps_fn *fn, void *arg)
{
	t->on_maps = fn;
	t->on_maps_arg = arg;
}

int ut_refresh_data(struct unwind_tables *t, pid_t pid)
{
	struct ut_proc *up = find_proc(t, pid);
	struct proc_maps pm;
	if (!up || proc_read_maps(pid, &pm))
		return -1;
	struct lf_range r[LF_MAX_DATA], st[LF_MAX_STACKS];
	__u32 n = (__u32)data_ranges(&pm, up->brk, r, LF_MAX_DATA);
	__u32 ns = (__u32)stack_ranges(&pm, st, LF_MAX_STACKS);
	proc_maps_free(&pm);
	if (n == up->p->ndata && !memcmp(r, up->p->data, n * sizeof(*r)) && ns == up->p->nstacks &&
	    !memcmp(st, up->p->stacks, ns * sizeof(*st)))
		return 0;
	memcpy(up->p->data, r, n * sizeof(*r));
	up->p->ndata = n;
	memcpy(up->p->stacks, st, ns * sizeof(*st));
	up->p->nstacks = ns;
	up->dirty = 1;
	return 1;
}

void ut_say_if_slow(struct unwind_tables *t, double at) { t->say_slow_at = at; }

size_t ut_rows(const struct unwind_tables *t) { return t->nrows; }
size_t ut_files(const struct unwind_tables *t) { return t->nfiles; }

uint32_t ut_file_index(const struct unwind_tables *t, uint64_t dev, uint64_t inode)
{
	for (const struct ut_file *f = t->files; f; f = f->next)
		if (f->dev == dev && f->inode == inode)
			return f->index;
	return LF_FILE_NONE;
}

static void *map_mmap(int fd, size_t bytes)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (bytes + pg - 1) / pg * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

int ut_attach_maps(struct unwind_tables *t, int rows_fd, size_t rows_cap, int rules_fd, int files_fd,
		   size_t files_cap, int procs_fd)
{
	t->m_rows = map_mmap(rows_fd, rows_cap * sizeof(struct lf_row));
	t->m_rules = map_mmap(rules_fd, LF_MAX_RULES * sizeof(struct lf_rule));
	t->m_files = map_mmap(files_fd, files_cap * sizeof(struct lf_file));
	if (!t->m_rows || !t->m_rules || !t->m_files) {
		warnx_lf("cannot map the unwind tables: %s", strerror(errno));
		return -1;
	}
	t->m_rows_cap = rows_cap;
	t->m_files_cap = files_cap;
	t->procs_fd = procs_fd;
	return ut_sync(t);
}

/* Files whose rows do not fit any more are uploaded without rows: their frames end in
 * an "[unwind: no table]" marker rather than being lost. */
static void sync_files(struct unwind_tables *t)
{
	for (size_t i = t->files_synced; i < t->nfiles && i < t->m_files_cap; i++) {
		struct lf_file fi = t->finfo[i];
		if ((size_t)fi.row_start + fi.row_count > t->m_rows_cap) {
			if (!t->full_warned++)
				warnx_lf("unwind table space full (%zu rows); some libraries will show "
					 "[unwind: no table]", t->m_rows_cap);
			fi.row_count = 0;
		}
		t->m_files[i] = fi;
	}
	t->files_synced = t->nfiles < t->m_files_cap ? t->nfiles : t->m_files_cap;
}

int ut_sync(struct unwind_tables *t)
{
	if (!t->m_rows)
		return 0;
	size_t n = t->nrows < t->m_rows_cap ? t->nrows : t->m_rows_cap;
	if (n > t->rows_synced)
		memcpy(t->m_rows + t->rows_synced, t->rows + t->rows_synced, (n - t->rows_synced) * sizeof(*t->rows));
	t->rows_synced = n;
	memcpy(t->m_rules + t->rules_synced, t->rules + t->rules_synced,
	       (t->nrules - t->rules_synced) * sizeof(*t->rules));
	t->m_rules[LF_MAX_RULES - 1] = t->rules[LF_MAX_RULES - 1];
	t->rules_synced = t->nrules;
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* rows and rules before files point at them */
	sync_files(t);
	int rc = 0;
	for (size_t i = 0; i < t->nprocs; i++) {
		if (!t->procs[i].dirty)
			continue;
		__u32 key = (__u32)t->procs[i].pid;
		t->procs[i].p->gen = ++t->proc_gen;
		if (bpf_map_update_elem(t->procs_fd, &key, t->procs[i].p, BPF_ANY))
			rc = -1;
		t->procs[i].dirty = 0;
	}
	return rc;
}

size_t ut_memory(const struct unwind_tables *t)
{
	return t->m_rows_cap * sizeof(struct lf_row) + LF_MAX_RULES * sizeof(struct lf_rule) +
	       t->m_files_cap * sizeof(struct lf_file) + t->nprocs * sizeof(struct lf_proc);
}

void ut_free(struct unwind_tables *t)
{
	if (!t)
		return;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	if (t->m_rows)
		munmap(t->m_rows, (t->m_rows_cap * sizeof(struct lf_row) + pg - 1) / pg * pg);
	if (t->m_rules)
		munmap(t->m_rules, (LF_MAX_RULES * sizeof(struct lf_rule) + pg - 1) / pg * pg);
	if (t->m_files)
		munmap(t->m_files, (t->m_files_cap * sizeof(struct lf_file) + pg - 1) / pg * pg);
	for (struct ut_file *f = t->files, *n; f; f = n) {
		n = f->next;
		if (f->pending)
			elf_file_close(f->pending);
		free(f->path);
		free(f);
	}
	for (size_t i = 0; i < t->nprocs; i++)
		free(t->procs[i].p);
	free(t->procs);
	free(t->rows);
	free(t->rules);
	free(t->rule_keys);
	free(t->rule_ids);
	free(t->finfo);
	free(t);
}
