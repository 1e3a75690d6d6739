/* Finding PUC Lua in a target process: which mapped file holds the Lua core and its
 * version (from the version string in its read-only data), and where its VMs' global
 * states are (a scan of writable memory for the block lua_newstate allocates). */
#include <stdlib.h>
#include <string.h>

#include "elfdyn.h"
#include "elffile.h"
#include "elfsym.h"
#include "puc_frames.h"
#include "puc_runtime.h"
#include "proc.h"
#include "proc_scan.h"
#include "util.h"

#define SCAN_MAX   (1ULL << 31) /* bytes of memory scanned per process and pass */

/* Version string in the file's read-only data: 0 without one (-1: the file cannot be read),
 * else 1, or 3 when the file also exports lua_newstate: the library that holds the VM ranks
 * above a host that calls it and merely contains a copy of the version string. */
static int file_version(pid_t pid, const struct mapping *m, int *maj, int *min, int *patch)
{
	int fd = proc_open_mapped(pid, m);
	struct elf_file *ef = fd >= 0 ? elf_file_open_fd(fd) : NULL;
	if (!ef)
		return -1;
	Elf_Data *d = elf_file_section(ef, ".rodata", NULL, NULL);
	int score = d && puc_version_from_bytes(d->d_buf, d->d_size, maj, min, patch) ? 1 : 0;
	if (score) {
		const char **syms;
		size_t n = elf_defined_dynsyms(ef, &syms);
		score += 2 * elf_names_have(syms, n, "lua_newstate");
		free(syms);
	}
	elf_file_close(ef);
	return score;
}

static int has_version(pid_t pid, const struct mapping *m, void *ctx)
{
	struct puc_runtime *rt = ctx;
	return file_version(pid, m, &rt->major, &rt->minor, &rt->patch);
}

/* Detection runs again while a late target is awaited: each verdict on a release this build
 * does not know is told once per process. */
static int first_time(pid_t pid, int verdict)
{
	static struct { pid_t pid; int verdict; } told[64];
	static unsigned n;
	for (unsigned i = 0; i < n && i < 64; i++)
		if (told[i].pid == pid && told[i].verdict == verdict)
			return 0;
	told[n % 64].pid = pid;
	told[n % 64].verdict = verdict;
	n++;
	return 1;
}

static int newest_minor(void)
{
	int m = 0;
	for (size_t i = 0; i < puc_layout_count(); i++)
		if (puc_layout_at(i)->minor > m)
			m = puc_layout_at(i)->minor;
	return m;
}

/* A release newer than the tables: its minor's newest layout is used only when the VMs in the
 * process fit it in every check; never frames read through a layout that does not fit. */
static int trust_newer(struct puc_runtime *rt)
{
	const struct puc_layout *l = rt->lay;
	rt->trusted = 1;
	if (puc_runtime_scan_states(rt, 1) > 0) {
		if (first_time(rt->pid, 1))
			warnx_lf("PID %d: Lua %d.%d.%d in %s is newer than this build of lua-flame knows (up to "
				 "%d.%d.%d); its VM matches the %d.%d.%d layout (global state, main thread, stack bounds, "
				 "CallInfo chain checked), so that layout is used", (int)rt->pid, rt->major, rt->minor,
				 rt->patch, rt->core_path, l->major, l->minor, l->patch_hi, l->major, l->minor, l->patch_hi);
		return 0;
	}
	rt->explained = 1;
	if (first_time(rt->pid, 2))
		warnx_lf("PID %d: Lua %d.%d.%d in %s is not supported yet: it is newer than this build of "
			 "lua-flame knows (up to %d.%d.%d) and no VM in its memory matches a known layout, so its "
			 "Lua frames are left out rather than guessed; update lua-flame to a release that knows "
			 "this Lua", (int)rt->pid, rt->major, rt->minor, rt->patch, rt->core_path, l->major,
			 l->minor, l->patch_hi);
	rt->lay = NULL;
	return -1;
}

/* Where a host enters the VM, by the API functions' symbols: nothing in PUC Lua's memory
 * points at the C frame of an unprotected call (lua_call), and in a static build the host
 * function that calls lua_callk holds L as the VM's own functions do. */
static void read_entries(pid_t pid, const struct mapping *m, uint32_t *entry_lo, uint32_t *entry_hi)
{
	static const char *const api[LF_LUA_ENTRIES] = { "lua_pcall", "lua_pcallk", "lua_call", "lua_callk",
							  "lua_resume", "lua_cpcall" };
	int fd = proc_open_mapped(pid, m);
	struct elf_file *ef = fd >= 0 ? elf_file_open_fd(fd) : NULL;
	struct elf_syms syms = { 0 };
	if (!ef)
		return;
	elfsyms_load(&syms, ef, pid, m->path);
	for (int i = 0, k = 0; i < LF_LUA_ENTRIES; i++) {
		uint64_t lo, hi;
		if (elfsyms_range(&syms, api[i], &lo, &hi) == 0 && hi <= UINT32_MAX) {
			entry_lo[k] = (uint32_t)lo;
			entry_hi[k++] = (uint32_t)hi;
		}
	}
	elfsyms_free(&syms);
	elf_file_close(ef);
}

/* The entries of the core file m, read once per file: detection runs again for each process
 * of a server's workers, and before attaching (runtime_ready), and a static host's symbol
 * tables are large. */
static void find_entries(pid_t pid, const struct mapping *m, struct puc_runtime *rt)
{
	static struct { uint64_t dev, inode; uint32_t lo[LF_LUA_ENTRIES], hi[LF_LUA_ENTRIES]; } seen[16];
	static unsigned nseen;
	for (unsigned i = 0; i < nseen && i < 16; i++)
		if (seen[i].dev == m->dev && seen[i].inode == m->inode) {
			memcpy(rt->entry_lo, seen[i].lo, sizeof(rt->entry_lo));
			memcpy(rt->entry_hi, seen[i].hi, sizeof(rt->entry_hi));
			return;
		}
	read_entries(pid, m, rt->entry_lo, rt->entry_hi);
	unsigned k = nseen++ % 16;
	seen[k].dev = m->dev;
	seen[k].inode = m->inode;
	memcpy(seen[k].lo, rt->entry_lo, sizeof(rt->entry_lo));
	memcpy(seen[k].hi, rt->entry_hi, sizeof(rt->entry_hi));
}

int puc_runtime_detect(pid_t pid, struct puc_runtime *rt)
{
	memset(rt, 0, sizeof(*rt));
	rt->pid = pid;
	rt->reg_hint = 0xff;
	struct mapping m;
	if (proc_find_file(pid, has_version, rt, &m))
		return -1;
	snprintf(rt->core_path, sizeof(rt->core_path), "%s", m.path);
	rt->core_dev = m.dev;
	rt->core_inode = m.inode;
	rt->lay = puc_layout_for(rt->major, rt->minor, rt->patch);
	if (rt->lay)
		find_entries(pid, &m, rt);
	free(m.path);
	if (!rt->lay) {
		int newest = newest_minor();
		rt->explained = rt->major == 5 && rt->minor > newest;
		if (rt->explained && first_time(pid, 3))
			warnx_lf("PID %d: Lua %d.%d.%d in %s is not supported yet: this build of lua-flame knows Lua "
				 "5.1 to 5.%d; update lua-flame to a release that knows this Lua", (int)pid, rt->major,
				 rt->minor, rt->patch, rt->core_path, newest);
		return -1;
	}
	if (rt->patch < rt->lay->patch_lo || rt->patch > rt->lay->patch_hi)
		return trust_newer(rt);
	return 0;
}

static void add_state(struct puc_runtime *rt, uint64_t g)
{
	for (int i = 0; i < rt->ngs; i++)
		if (rt->gs[i] == g)
			return;
	if (rt->ngs < LF_MAX_GS)
		rt->gs[rt->ngs++] = g;
}

static uint64_t load64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Bytes of the block lua_newstate allocates that the main-state test below looks at. */
static size_t block_need(const struct puc_layout *l)
{
	size_t a = (size_t)l->lg_l + l->l_l_G + 8, b = (size_t)l->lg_l + l->gch_tt + 1;
	if (a < b)
		a = b;
	if (l->g_mainthread != LUA_OFF_NONE && (size_t)l->lg_g + l->g_mainthread + 8 > a)
		a = (size_t)l->lg_g + l->g_mainthread + 8;
	return a;
}

/* Is there a block from lua_newstate at buf (address B)? Its main thread L = B + lg_l has
 * l_G = B + lg_g and a thread's header tag; up to 5.4 the global_State points back to L.
 * 5.5 has no such pointer: its states are checked further by puc_runtime_state_ok. */
static int is_main_block(const struct puc_layout *l, uint64_t B, const unsigned char *buf)
{
	uint64_t L = B + l->lg_l, g = B + l->lg_g;
	if (load64(buf + l->lg_l + l->l_l_G) != g || buf[l->lg_l + l->gch_tt] != l->gctag_thread)
		return 0;
	return l->g_mainthread == LUA_OFF_NONE || load64(buf + l->lg_g + l->g_mainthread) == L;
}

/* One chunk, scanned for blocks at every 8-byte boundary; chunks overlap by a block's size. */
static int scan_chunk(uint64_t base, const unsigned char *buf, size_t len, void *ctx)
{
	struct puc_runtime *rt = ctx;
	const struct puc_layout *l = rt->lay;
	size_t need = block_need(l);
	for (size_t off = 0; off + need <= len; off += 8) {
		uint64_t B = base + off;
		if (is_main_block(l, B, buf + off) && puc_runtime_state_ok(rt, B + l->lg_g))
			add_state(rt, B + l->lg_g);
	}
	return 0;
}

int puc_runtime_scan_states(struct puc_runtime *rt, int first_look)
{
	if (!rt->lay)
		return 0;
	rt->scanned_bytes = proc_scan_memory(rt->pid, (size_t)rt->lay->lg_sizeof + 64, SCAN_MAX,
					     first_look ? &rt->ngs : NULL, scan_chunk, rt);
	return rt->ngs;
}

/* The walker reads 16 bits of callstatus. 5.5's is 32 bits wide with CIST_FRESH and CIST_TAIL
 * above bit 15 (CIST_C, which the walker does not use, is bit 15): it reads the upper half. */
static void callstatus_window(const struct puc_layout *l, struct lf_puc_cfg *c)
{
	uint32_t fresh = l->cist_fresh, tail = l->cist_tail, cflag = l->cist_c;
	uint16_t off = l->ci_callstatus, size = l->ci_callstatus_size;
	if (off == LUA_OFF_NONE) {
		c->ci_callstatus_size = 0;
		return;
	}
	if (size == 4 && ((fresh | tail) >> 16) && !((fresh | tail) & 0xffff)) {
		off += 2, size = 2;  /* little-endian: bits 16..31 */
		fresh >>= 16, tail >>= 16, cflag >>= 16;
	}
	c->ci_callstatus = off;
	c->ci_callstatus_size = size;
	c->cist_fresh = (uint16_t)fresh;
	c->cist_tail = (uint16_t)tail;
	c->cist_c = (uint16_t)cflag;
}

void puc_runtime_cfg(const struct puc_runtime *rt, uint32_t core_file, struct lf_puc_cfg *c)
{
	const struct puc_layout *l = rt->lay;
	memset(c, 0, sizeof(*c));
	c->core_file = core_file;
	c->ngs = (uint32_t)rt->ngs;
	memcpy(c->gs, rt->gs, sizeof(c->gs));
	c->flags = (l->flags & LUA_LF_CI_ARRAY ? LF_LUA_CI_ARRAY : 0) |
		   (l->flags & LUA_LF_L_SAVEDPC ? LF_LUA_L_SAVEDPC : 0) |
		   (l->flags & LUA_LF_CL_ISC ? LF_LUA_CL_ISC : 0);
	c->l_l_G = l->l_l_G;
	c->l_ci = l->l_ci;
	c->l_base_ci = l->l_base_ci;
	c->l_savedpc = l->l_savedpc;
	c->ci_func = l->ci_func;
	c->ci_savedpc = l->ci_savedpc;
	c->ci_previous = l->ci_previous;
	callstatus_window(l, c);
	c->ci_sizeof = l->ci_sizeof;
	c->tv_value = l->tv_value;
	c->tv_tt = l->tv_tt;
	c->lcl_p = l->lcl_p;
	c->ccl_f = l->ccl_f;
	c->cl_isC = l->cl_isC;
	c->tvtag_lcl = l->tvtag_lcl;
	c->tvtag_ccl = l->tvtag_ccl;
	c->tvtag_lcf = l->tvtag_lcf == LUA_OFF_NONE ? 0 : l->tvtag_lcf;
	c->tvtag_func51 = l->tvtag_lcl; /* 5.1: one function tag for both kinds */
	c->ci_tailcalls = l->ci_tailcalls;
	c->l_reg_hint = (__u8)rt->reg_hint;
	c->gctag_thread = (__u8)l->gctag_thread;
	c->gch_tt = l->gch_tt;
	c->g_mainthread = l->g_mainthread == LUA_OFF_NONE ? 0xffff : l->g_mainthread;
	memcpy(c->entry_lo, rt->entry_lo, sizeof(c->entry_lo));
	memcpy(c->entry_hi, rt->entry_hi, sizeof(c->entry_hi));
	puc_fp_cfg(l, &c->fp);
}
