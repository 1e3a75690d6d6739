/* Finding LuaJIT in a target process: the mapped file holding it and its variant (fork,
 * GC64 or not, from exported symbols and read-only data), and its VM's global_State (a
 * scan of writable memory for the GG_State block). */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "elffile.h"
#include "luajit_runtime.h"
#include "proc.h"
#include "util.h"

#define SCAN_CHUNK (1 << 20)
#define SCAN_MAX   (1ULL << 31)
#define MAX_DYNSYMS 200000

/* Names of the defined dynamic symbols, for the fork's marker functions. */
static size_t dynsym_names(struct elf_file *ef, const char ***out)
{
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	for (int guard = 0; (scn = elf_nextscn(ef->elf, scn)) && guard < 65536; guard++) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t cnt = sh.sh_size / sh.sh_entsize;
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

static int file_facts(pid_t pid, const struct mapping *m, struct luajit_file_facts *f, enum luajit_variant *v)
{
	int fd = proc_open_mapped(pid, m);
	struct elf_file *ef = fd >= 0 ? elf_file_open_fd(fd) : NULL;
	if (!ef)
		return 0;
	const char **syms;
	size_t n = dynsym_names(ef, &syms);
	Elf_Data *ro = elf_file_section(ef, ".rodata", NULL, NULL);
	*v = luajit_detect_file(syms, n, ro ? ro->d_buf : NULL, ro ? ro->d_size : 0, f);
	free(syms);
	elf_file_close(ef);
	return f->is_luajit;
}

int luajit_runtime_detect(pid_t pid, struct luajit_runtime *rt)
{
	memset(rt, 0, sizeof(*rt));
	rt->pid = pid;
	struct proc_maps pm;
	if (proc_read_maps(pid, &pm))
		return -1;
	int rc = -1;
	for (size_t i = 0; i < pm.n && rc; i++) {
		const struct mapping *m = &pm.m[i];
		enum luajit_variant v;
		if (!m->exec || m->path[0] != '/' || !file_facts(pid, m, &rt->facts, &v))
			continue;
		snprintf(rt->core_path, sizeof(rt->core_path), "%s", m->path);
		rt->core_dev = m->dev;
		rt->core_inode = m->inode;
		rt->gc64_known = rt->facts.gc64 >= 0;
		rt->lay = rt->gc64_known ? luajit_layout_get(luajit_variant_of(rt->facts.fork, rt->facts.gc64)) : NULL;
		rc = 0;
	}
	proc_maps_free(&pm);
	return rc;
}

static void scan_layout(struct luajit_runtime *rt, const struct luajit_layout *l, const struct proc_maps *pm)
{
	unsigned char *buf = xmalloc(SCAN_CHUNK + (size_t)l->gg_size);
	uint64_t scanned = 0;
	for (size_t i = 0; i < pm->n && !rt->ngs; i++) {
		const struct mapping *m = &pm->m[i];
		if (!m->writable || m->exec || (m->path[0] && strcmp(m->path, "[heap]")))
			continue;
		for (uint64_t a = m->start; a < m->end && scanned < SCAN_MAX; a += SCAN_CHUNK) {
			size_t want = m->end - a < SCAN_CHUNK + (uint64_t)l->gg_size ? (size_t)(m->end - a)
										 : SCAN_CHUNK + (size_t)l->gg_size;
			ssize_t got = proc_read_mem(rt->pid, a, buf, want);
			if (got <= 0)
				continue;
			scanned += (uint64_t)got;
			rt->ngs += (int)luajit_scan_gg(l, buf, (size_t)got, a, rt->gs + rt->ngs,
						       (size_t)(LF_MAX_GS - rt->ngs));
			if (rt->ngs)
				break;
		}
	}
	free(buf);
	if (rt->ngs)
		rt->lay = l;
}

int luajit_runtime_scan(struct luajit_runtime *rt)
{
	struct proc_maps pm;
	if (proc_read_maps(rt->pid, &pm))
		return 0;
	rt->ngs = 0;
	for (int gc64 = 1; gc64 >= 0 && !rt->ngs; gc64--) {
		if (rt->gc64_known && gc64 != rt->facts.gc64)
			continue;
		const struct luajit_layout *l = luajit_layout_get(luajit_variant_of(rt->facts.fork, gc64));
		if (l)
			scan_layout(rt, l, &pm);
	}
	proc_maps_free(&pm);
	return rt->ngs;
}

void luajit_runtime_cfg(const struct luajit_runtime *rt, uint32_t core_file, struct lf_lj_cfg *c)
{
	const struct luajit_layout *l = rt->lay;
	memset(c, 0, sizeof(*c));
	c->g = rt->gs[0];
	c->core_file = core_file;
	c->gc64 = (__u8)l->gc64;
	c->fr2 = (__u8)l->fr2;
	c->g_cur_L = (__u16)l->g_cur_L;
	c->g_jit_base = (__u16)l->g_jit_base;
	c->g_vmstate = (__u16)l->g_vmstate;
	c->L_base = (__u16)l->L_base;
	c->L_stack = (__u16)l->L_stack;
	c->L_cframe = (__u16)l->L_cframe;
	c->cframe_size = (__u16)l->cframe_size;
	c->vmst_interp = (__u16)l->vmst_interp;
	c->vmst_c = (__u16)l->vmst_c;
	c->frame_typep = (__u16)l->frame_typep;
	c->frame_lua = (__u16)l->frame_lua;
	c->frame_c = (__u16)l->frame_c;
	c->frame_cp = (__u16)l->frame_cp;
	c->frame_varg = (__u16)l->frame_varg;
	c->cframe_rawmask = (__u64)l->cframe_rawmask;
	c->saved_rbp = LUAJIT_X64_CFRAME_SAVED_RBP;
	c->saved_rbx = LUAJIT_X64_CFRAME_SAVED_RBX;
	c->saved_r15 = LUAJIT_X64_CFRAME_SAVED_R15;
	c->saved_r14 = LUAJIT_X64_CFRAME_SAVED_R14;
	c->cframe_ofs_prev = (__u16)l->cframe_ofs_prev;
	c->cframe_ofs_l = (__u16)l->cframe_ofs_l;
	c->L_glref = (__u16)l->L_glref;
}
