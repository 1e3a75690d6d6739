/* Finding PUC Lua in a target process: which mapped file holds the Lua core and its
 * version (from the version string in its read-only data), and where its VMs' global
 * states are (a scan of writable memory for the block lua_newstate allocates). */
#include <stdlib.h>
#include <string.h>

#include "elfdyn.h"
#include "elffile.h"
#include "puc_frames.h"
#include "puc_runtime.h"
#include "proc.h"
#include "proc_scan.h"
#include "util.h"

#define SCAN_MAX   (1ULL << 31) /* bytes of memory scanned per process and pass */

/* Version string in the file's read-only data; 0 without one, else 1, or 3 when the file
 * also exports lua_newstate: the library that holds the VM ranks above a host that calls
 * it and merely contains a copy of the version string. */
static int file_version(pid_t pid, const struct mapping *m, int *maj, int *min, int *patch)
{
	int fd = proc_open_mapped(pid, m);
	struct elf_file *ef = fd >= 0 ? elf_file_open_fd(fd) : NULL;
	if (!ef)
		return 0;
	Elf_Data *d = elf_file_section(ef, ".rodata", NULL, NULL);
	int score = d && lua_version_from_bytes(d->d_buf, d->d_size, maj, min, patch) ? 1 : 0;
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
	struct lua_runtime *rt = ctx;
	return file_version(pid, m, &rt->major, &rt->minor, &rt->patch);
}

int lua_runtime_detect(pid_t pid, struct lua_runtime *rt)
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
	free(m.path);
	rt->lay = lua_layout_for(rt->major, rt->minor, rt->patch);
	return rt->lay ? 0 : -1;
}

/* Checks one candidate main thread at L given a window of memory around it. */
static int lua_is_main_state(const struct lua_layout *l, uint64_t L, uint64_t l_G, uint64_t mainthread)
{
	return l_G == L + (uint64_t)(l->lg_g - l->lg_l) && mainthread == L;
}

static void add_state(struct lua_runtime *rt, uint64_t g)
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

/* One chunk: a main lua_State at L has l_G = L + delta, and the global_State there
 * points back to L. Both fields are inside the LG block, so chunks overlap by its size. */
static int scan_chunk(uint64_t base, const unsigned char *buf, size_t len, void *ctx)
{
	struct lua_runtime *rt = ctx;
	const struct lua_layout *l = rt->lay;
	uint64_t delta = (uint64_t)(l->lg_g - l->lg_l);
	size_t need = (size_t)(delta + l->g_mainthread + 8);
	for (size_t off = 0; off + need <= len; off += 8) {
		uint64_t L = base + off;
		if (load64(buf + off + l->l_l_G) != L + delta)
			continue;
		if (lua_is_main_state(l, L, L + delta, load64(buf + off + delta + l->g_mainthread)))
			add_state(rt, L + delta);
	}
	return 0;
}

int lua_runtime_scan_states(struct lua_runtime *rt)
{
	if (!rt->lay)
		return 0;
	rt->scanned_bytes = proc_scan_memory(rt->pid, (size_t)rt->lay->lg_sizeof + 64, SCAN_MAX, scan_chunk, rt);
	return rt->ngs;
}

void lua_runtime_cfg(const struct lua_runtime *rt, uint32_t core_file, struct lf_lua_cfg *c)
{
	const struct lua_layout *l = rt->lay;
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
	c->ci_callstatus = l->ci_callstatus;
	c->ci_callstatus_size = l->ci_callstatus == LUA_OFF_NONE ? 0 : l->ci_callstatus_size;
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
	c->cist_fresh = l->cist_fresh;
	c->cist_tail = l->cist_tail;
	c->cist_c = l->cist_c;
	c->ci_tailcalls = l->ci_tailcalls;
	c->l_reg_hint = (__u8)rt->reg_hint;
	lua_fp_cfg(l, &c->fp);
}
