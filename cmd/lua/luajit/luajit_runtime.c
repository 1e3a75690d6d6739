/* Finding LuaJIT in a target process: the mapped file holding it and its variant (fork,
 * GC64 or not, from exported symbols and read-only data), and its VM's global_State (a
 * scan of writable memory for the GG_State block). */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "elfdyn.h"
#include "elffile.h"
#include "luajit_frames.h"
#include "luajit_runtime.h"
#include "luajit_vmcheck.h"
#include "proc.h"
#include "proc_scan.h"
#include "util.h"

#define SCAN_MAX   (1ULL << 31)

static int file_facts(pid_t pid, const struct mapping *m, struct luajit_file_facts *f, enum luajit_variant *v)
{
	int fd = proc_open_mapped(pid, m);
	struct elf_file *ef = fd >= 0 ? elf_file_open_fd(fd) : NULL;
	if (!ef)
		return -1;
	const char **syms;
	size_t n = elf_defined_dynsyms(ef, &syms);
	Elf_Data *ro = elf_file_section(ef, ".rodata", NULL, NULL);
	*v = luajit_detect_file(syms, n, ro ? ro->d_buf : NULL, ro ? ro->d_size : 0, f);
	/* The file that exports the VM's API holds the VM; a host that calls it, or merely
	 * contains the version string, only comes second. */
	int score = f->is_luajit ? 1 + 2 * elf_names_have(syms, n, "luaJIT_setmode") : 0;
	free(syms);
	elf_file_close(ef);
	return score;
}

static int is_luajit(pid_t pid, const struct mapping *m, void *ctx)
{
	enum luajit_variant v;
	return file_facts(pid, m, ctx, &v);
}

/* Says once per process that its VM cannot be read, and why. */
static void refuse(struct luajit_runtime *rt, const char *why, const char *as)
{
	static pid_t said;
	rt->refused = 1;
	if (said == rt->pid)
		return;
	said = rt->pid;
	warnx_lf("PID %d: %s in %s: this LuaJIT build is not supported yet (%s%s%s); native stacks are profiled only",
		 (int)rt->pid, rt->facts.version[0] ? rt->facts.version : "LuaJIT", rt->core_path, why,
		 as ? ", read as " : "", as ? as : "");
}

int luajit_runtime_detect(pid_t pid, struct luajit_runtime *rt)
{
	memset(rt, 0, sizeof(*rt));
	rt->pid = pid;
	struct mapping m;
	if (proc_find_file(pid, is_luajit, &rt->facts, &m))
		return -1;
	snprintf(rt->core_path, sizeof(rt->core_path), "%s", m.path);
	rt->core_dev = m.dev;
	rt->core_inode = m.inode;
	free(m.path);
	rt->gc64_known = rt->facts.gc64 >= 0;
	rt->lay = rt->gc64_known ? luajit_layout_get(luajit_variant_of(rt->facts.fork, rt->facts.gc64)) : NULL;
	const struct luajit_layout *any = luajit_layout_get(luajit_variant_of(rt->facts.fork, 1));
	const char *why = !rt->facts.has_jit ? "built without its JIT compiler"
		: !rt->facts.has_ffi ? "built without its FFI" : any ? luajit_arch_unknown(any) : NULL;
	if (why) {
		refuse(rt, why, NULL);
		return -2;
	}
	return 0;
}

struct scan_ctx { struct luajit_runtime *rt; const struct luajit_layout *l; };

static int scan_chunk(uint64_t base, const unsigned char *buf, size_t len, void *ctx)
{
	struct scan_ctx *c = ctx;
	struct luajit_runtime *rt = c->rt;
	/* Hosts run a VM per thread: all of them, not the first one found. */
	int before = rt->ngs;
	uint64_t found[LF_MAX_GS];
	size_t n = luajit_scan_gg(c->l, buf, len, base, found, LF_MAX_GS);
	for (size_t i = 0; i < n && rt->ngs < LF_MAX_GS; i++) {
		int dup = 0; /* chunks overlap: a VM near a boundary is seen twice */
		for (int k = 0; k < before; k++)
			dup |= rt->gs[k] == found[i];
		if (!dup)
			rt->gs[rt->ngs++] = found[i];
	}
	return rt->ngs >= LF_MAX_GS;
}

/* The VMs found with layout l, taken with what the first of them says of its build: 0, or -1
 * with what does not fit in *why. */
static int take_layout(struct luajit_runtime *rt, const struct luajit_layout *l, const char **why)
{
	struct luajit_layout own;
	if (rt->checked != l->variant || rt->undecided) {
		int undecided = 0;
		if ((*why = luajit_vm_check(rt, l, rt->gs[0], &own, &undecided)))
			return -1;
		rt->own = own;
		rt->checked = l->variant;
		rt->undecided = undecided;
	}
	rt->lay = &rt->own;
	return 0;
}

/* Whether a scan with a finds what one with b finds: the fields it looks at are the same. */
static int same_scan(const struct luajit_layout *a, const struct luajit_layout *b)
{
	return a && b && a->gg_L == b->gg_L && a->gg_g == b->gg_g && a->g_mainthref == b->g_mainthref &&
	       a->L_gct == b->L_gct && a->L_dummy_ffid == b->L_dummy_ffid && a->L_glref == b->L_glref &&
	       a->gcref_size == b->gcref_size && a->mref_size == b->mref_size && a->gct_thread == b->gct_thread &&
	       a->ff_c == b->ff_c && a->gg_size <= b->gg_size;
}

/* Each layout of the fork in GC mode gc64 is tried, the one a VM was checked to fit first: the
 * first whose scan finds VMs that fit it is taken. A fork has several where its trees differ
 * (OpenResty's global_State grew by a word in 2025) with the same version string. */
static void scan_gc_mode(struct luajit_runtime *rt, int gc64, int first_look, const char **why,
			 const struct luajit_layout **as)
{
	const struct luajit_layout *scanned = NULL, *mine = luajit_layout_get(rt->checked);
	for (int i = -1; !rt->ngs && (i < 0 || luajit_layout_at((size_t)i)); i++) {
		const struct luajit_layout *l = i < 0 ? mine : luajit_layout_at((size_t)i);
		if (!l || l->fork != rt->facts.fork || l->gc64 != gc64 || (i >= 0 && l == mine))
			continue;
		if (!same_scan(l, scanned)) {
			struct scan_ctx c = { rt, l };
			rt->ngs = 0;
			proc_scan_memory(rt->pid, (size_t)l->gg_size, SCAN_MAX, first_look ? &rt->ngs : NULL, scan_chunk, &c);
			scanned = l;
		}
		if (rt->ngs && take_layout(rt, l, why)) {
			*as = l;
			rt->ngs = 0;
			scanned = NULL; /* the next layout scans again: this one's VMs did not fit */
		}
	}
}

int luajit_runtime_scan(struct luajit_runtime *rt, int first_look)
{
	const char *why = NULL;
	const struct luajit_layout *as = NULL;
	rt->ngs = 0;
	for (int gc64 = 1; gc64 >= 0 && !rt->ngs && !rt->refused; gc64--)
		if (!rt->gc64_known || gc64 == rt->facts.gc64)
			scan_gc_mode(rt, gc64, first_look, &why, &as);
	if (!rt->ngs && as) {
		refuse(rt, why, as->name);
		rt->lay = NULL;
	}
	return rt->ngs;
}

/* The core file's mapping holding addr, and addr as a pc of that file. */
static int core_pc(const struct luajit_runtime *rt, uint64_t addr, struct elf_file **ef, uint64_t *pc)
{
	struct proc_maps pm;
	int rc = -1;
	if (proc_read_maps(rt->pid, &pm))
		return -1;
	for (size_t i = 0; i < pm.n && rc; i++) {
		const struct mapping *m = &pm.m[i];
		if (addr < m->start || addr >= m->end || m->dev != rt->core_dev || m->inode != rt->core_inode)
			continue;
		int fd = proc_open_mapped(rt->pid, m);
		*ef = fd >= 0 ? elf_file_open_fd(fd) : NULL;
		if (*ef && elf_file_off_to_vaddr(*ef, addr - m->start + m->pgoff, pc) == 0)
			rc = 0;
		else if (*ef)
			elf_file_close(*ef);
	}
	proc_maps_free(&pm);
	return rc;
}

void luajit_runtime_vm_code(struct luajit_runtime *rt)
{
	uint64_t handler = 0, pc, lo, hi;
	struct elf_file *ef;
	if (rt->vm_hi || !rt->ngs || !rt->lay)
		return;
	uint64_t dispatch = rt->gs[0] - (uint64_t)rt->lay->gg_g + (uint64_t)rt->lay->gg_dispatch;
	if (proc_read_mem(rt->pid, dispatch, &handler, sizeof(handler)) != (ssize_t)sizeof(handler) ||
	    core_pc(rt, handler, &ef, &pc))
		return;
	if (elf_file_func_range(ef, pc, &lo, &hi) == 0 && hi <= UINT32_MAX) {
		rt->vm_lo = (uint32_t)lo;
		rt->vm_hi = (uint32_t)hi;
	}
	elf_file_close(ef);
}

void luajit_runtime_cfg(const struct luajit_runtime *rt, uint32_t core_file, struct lf_lj_cfg *c)
{
	const struct luajit_layout *l = rt->lay;
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < rt->ngs && i < LF_MAX_GS; i++)
		c->gs[c->ngs++] = rt->gs[i];
	c->core_file = core_file;
	c->gc64 = (__u8)l->gc64;
	c->fr2 = (__u8)l->fr2;
	c->g_cur_L = (__u16)l->g_cur_L;
	c->g_jit_base = (__u16)l->g_jit_base;
	c->g_vmstate = (__u16)l->g_vmstate;
	c->L_base = (__u16)l->L_base;
	c->L_stack = (__u16)l->L_stack;
	c->L_cframe = (__u16)l->L_cframe;
	c->vmst_interp = (__u16)l->vmst_interp;
	c->vmst_c = (__u16)l->vmst_c;
	c->frame_typep = (__u16)l->frame_typep;
	c->frame_lua = (__u16)l->frame_lua;
	c->frame_c = (__u16)l->frame_c;
	c->frame_cp = (__u16)l->frame_cp;
	c->frame_varg = (__u16)l->frame_varg;
	c->cframe_rawmask = (__u64)l->cframe_rawmask;
	c->cframe_size = (__u16)l->cframe_size;
	c->cframe_ofs_prev = (__u16)l->cframe_ofs_prev;
	c->cframe_ofs_l = (__u16)l->cframe_ofs_l;
	c->cf_ra = -8;  /* the caller's return address and frame pointer: the C frame's top words, */
	c->cf_fp = -16; /* unless luajit_cframe_saved says otherwise */
	luajit_cframe_saved(c);
	c->L_glref = (__u16)l->L_glref;
	c->fn_gct = (__u16)l->fn_gct;
	c->fn_ffid = (__u16)l->fn_ffid;
	c->fn_pc = (__u16)l->fn_pc;
	c->pt_size = (__u16)l->pt_size;
	c->fn_c_f = (__u16)l->fn_c_f;
	c->gct_func = (__u8)l->gct_func;
	c->ff_lua = (__u8)l->ff_lua;
	c->vm_lo = rt->vm_lo;
	c->vm_hi = rt->vm_hi;
	luajit_fp_cfg(l, &c->fp);
}

int luajit_runtime_recheck(struct luajit_runtime *rt)
{
	const struct luajit_layout *l = luajit_layout_get(rt->checked);
	const char *why = NULL;
	if (!rt->undecided || !rt->ngs || !l)
		return 0;
	if (take_layout(rt, l, &why) == 0)
		return 0;
	warnx_lf("PID %d: LuaJIT in %s: this LuaJIT build is not supported yet (%s, read as %s); native stacks are "
		 "profiled only", (int)rt->pid, rt->core_path, why, l->name);
	rt->refused = 1;
	rt->ngs = 0;
	return 1;
}
