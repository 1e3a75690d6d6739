/* Whether a LuaJIT VM found in memory is of the build its layout was taken from. Build options
 * change what the version string does not say: LUAJIT_DISABLE_JIT and LUAJIT_DISABLE_FFI move
 * GG_State's dispatch table (and renumber the built-ins), LUAJIT_ENABLE_LUA52COMPAT inserts
 * built-ins. So the live VM is asked: its dispatch table where the layout puts it, its running
 * thread one of its threads, and the built-ins its libraries hold named as one of the layout's
 * lists names them. */
#include <stdio.h>
#include <string.h>

#include "luajit_frames.h"
#include "luajit_tables.h"
#include "luajit_vmcheck.h"
#include "proc.h"

#define CODE_MAPS 8         /* executable mappings of the core file kept */
#define DISPATCH_WORDS 16   /* handlers checked at the dispatch table's start */
#define FIELD_MAX 64        /* longest library or field name compared */
#define NODES_READ 64       /* nodes per read of a table */
#define NODE_MAX 64         /* bytes of a node, at most */
#define TABLE_NODES 4096    /* nodes of one table looked at */
#define FITS_MIN 8          /* built-ins a list must name right to be taken, and wrong to be left */

static long read_target(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return (long)proc_read_mem((pid_t)(intptr_t)ctx, addr, buf, len);
}

struct code { uint64_t lo[CODE_MAPS], hi[CODE_MAPS]; int n; };

/* The core file's executable mappings, where the VM's handlers are. */
static int code_of(const struct luajit_runtime *rt, struct code *c)
{
	struct proc_maps pm;
	c->n = 0;
	if (proc_read_maps(rt->pid, &pm))
		return -1;
	for (size_t i = 0; i < pm.n && c->n < CODE_MAPS; i++)
		if (pm.m[i].exec && pm.m[i].dev == rt->core_dev && pm.m[i].inode == rt->core_inode) {
			c->lo[c->n] = pm.m[i].start;
			c->hi[c->n++] = pm.m[i].end;
		}
	proc_maps_free(&pm);
	return c->n ? 0 : -1;
}

static int in_code(const struct code *c, uint64_t a)
{
	for (int i = 0; i < c->n; i++)
		if (a >= c->lo[i] && a < c->hi[i])
			return 1;
	return 0;
}

/* The dispatch table starts where the layout says: handlers from there on, and none in the
 * word before it (the hot counters, or global_State's end without a JIT). A table moved by a
 * build option fails one of the two. */
static const char *check_dispatch(const struct luajit_runtime *rt, const struct luajit_layout *l,
				  const struct luajit_mem *m, uint64_t g)
{
	uint64_t w[DISPATCH_WORDS + 1];
	struct code c;
	if (code_of(rt, &c))
		return "its code is not mapped";
	if (l->gg_dispatch < 8 || luajit_rd(m, g - (uint64_t)l->gg_g + (uint64_t)l->gg_dispatch - 8, w, sizeof w))
		return "its dispatch table cannot be read";
	if (in_code(&c, w[0]))
		return "its dispatch table starts before this layout's";
	for (int i = 1; i <= DISPATCH_WORDS; i++)
		if (!in_code(&c, w[i]))
			return "its dispatch table is not where this layout puts it";
	return NULL;
}

/* g->cur_L is none, or a thread of this VM. */
static const char *check_cur_L(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t g)
{
	uint64_t L, glref;
	uint8_t gct;
	if (luajit_rd_ref(m, g + (uint64_t)l->g_cur_L, l->gcref_size, &L))
		return "its running thread cannot be read";
	if (!L)
		return NULL;
	if (luajit_rd(m, L + (uint64_t)l->L_gct, &gct, 1) || gct != (uint8_t)l->gct_thread ||
	    luajit_rd_ref(m, L + (uint64_t)l->L_glref, l->mref_size, &glref) || glref != g)
		return "its running thread is not one of its threads";
	return NULL;
}

/* ---- the built-ins of the standard libraries ---- */

static const char *const libs[] = { "_G", "string", "table", "coroutine", "math", "os", "io", "debug", "bit", "jit" };

struct tally { struct luajit_layout as[2]; int good[2], bad[2]; };

static int is_lib(const char *name)
{
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (!strcmp(libs[i], name))
			return 1;
	return 0;
}

/* A string key's text: 0, or -1 when unreadable, too long or holding a NUL. */
static int key_text(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t s, char *out)
{
	uint32_t full = 0;
	long n = luajit_gcstr(l, m, s, out, FIELD_MAX, &full);
	return n < 0 || full >= FIELD_MAX || (uint32_t)n != full ? -1 : 0;
}

/* Whether a list names built-in ffid as lib.key holds it: by that name, or by the same field
 * name in another library (table.unpack is the base library's unpack), or string.gfind, the
 * old name Lua 5.1 builds keep for string.gmatch, or with a '_' before it (where a host
 * keeps the original it replaced). */
static int names_field(const struct luajit_layout *as, int ffid, const char *lib, const char *key)
{
	char got[2 * FIELD_MAX], want[2 * FIELD_MAX];
	if (!luajit_ff_name(as, ffid, got, sizeof got))
		return 0;
	snprintf(want, sizeof want, strcmp(lib, "_G") ? "%s.%s" : "%s%s", strcmp(lib, "_G") ? lib : "", key);
	const char *tail = strrchr(got, '.');
	tail = tail ? tail + 1 : got;
	return !strcmp(got, want) || !strcmp(tail, key) || (key[0] == '_' && !strcmp(tail, key + 1)) ||
	       (!strcmp(want, "string.gfind") && !strcmp(got, "string.gmatch"));
}

/* Calls visit for each node of table t whose key is a string and whose value is of kind want,
 * reading TABLE_NODES nodes at most; 0, or -1 when the table cannot be read. */
typedef void (*visit_fn)(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t key, uint64_t val,
			 void *ctx);
static int each_field(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t t, enum gn_kind want,
		      visit_fn visit, void *ctx)
{
	uint8_t buf[NODES_READ * NODE_MAX];
	uint64_t nodes;
	uint32_t count;
	size_t ns = (size_t)l->node_size;
	if (ns == 0 || ns > NODE_MAX || luajit_hash_part(l, m, t, &nodes, &count))
		return -1;
	count = count < TABLE_NODES ? count : TABLE_NODES;
	for (uint32_t i = 0; i < count; i += NODES_READ) {
		uint32_t n = count - i < NODES_READ ? count - i : NODES_READ;
		if (luajit_rd(m, nodes + (uint64_t)i * ns, buf, n * ns))
			return -1;
		for (uint32_t j = 0; j < n; j++) {
			uint64_t key = 0, val = 0;
			enum gn_kind kind = GN_OTHER;
			luajit_node(l, buf + j * ns, &key, &kind, &val);
			if (key && val && kind == want)
				visit(l, m, key, val, ctx);
		}
	}
	return 0;
}

struct lib_walk { struct tally *t; const char *lib; uint64_t found; };

static void tally_field(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t key, uint64_t fn,
			void *ctx)
{
	struct lib_walk *w = ctx;
	char name[FIELD_MAX];
	uint64_t p;
	int ffid = 0;
	if (key_text(l, m, key, name) || luajit_func_info(l, m, fn, &p, &ffid) != LJ_FN_FAST)
		return;
	for (int k = 0; k < 2; k++) {
		int ok = names_field(&w->t->as[k], ffid, w->lib, name);
		w->t->good[k] += ok;
		w->t->bad[k] += !ok;
	}
}

static void tally_lib(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t key, uint64_t t, void *ctx)
{
	struct lib_walk *w = ctx;
	char name[FIELD_MAX];
	if (key_text(l, m, key, name) || !is_lib(name))
		return;
	struct lib_walk fw = { w->t, name, 0 };
	each_field(l, m, t, GN_FUNC, tally_field, &fw);
}

static void find_loaded(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t key, uint64_t t,
			void *ctx)
{
	struct lib_walk *w = ctx;
	char name[FIELD_MAX];
	if (!key_text(l, m, key, name) && !strcmp(name, "_LOADED"))
		w->found = t;
}

/* Whether list k names the libraries' built-ins: all of them, but for a few a host keeps
 * under other names (nginx's Lua module keeps coroutine.resume as coroutine._resume beside its
 * own), and far more of them than the other list does. */
static int fits(const struct tally *t, int k)
{
	return t->good[k] >= FITS_MIN && t->bad[k] * 16 <= t->good[k] && t->bad[!k] >= 4 * t->bad[k] + FITS_MIN;
}

/* Which of the layout's two lists of built-ins (0: as built by default, 1: with Lua 5.2
 * compatibility) names those of the VM's standard libraries, all of them right; -1 when
 * neither or both do; -2 when the libraries are not there yet (a VM just made, whose host
 * has not opened them: a command lua-flame starts is seen that early). */
static int builtins_list(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t g, const char **why)
{
	struct tally t = { { *l, *l }, { 0, 0 }, { 0, 0 } };
	t.as[1].ff_names = l->ff_names52;
	t.as[1].ff_names_count = l->ff_names52_count;
	uint64_t L = g - (uint64_t)l->gg_g + (uint64_t)l->gg_L, gg, reg;
	struct lib_walk w = { &t, NULL, 0 };
	if (luajit_registry(l, m, L, &gg, &reg) || gg != g || each_field(l, m, reg, GN_TABLE, find_loaded, &w) ||
	    !w.found || each_field(l, m, w.found, GN_TABLE, tally_lib, &w)) {
		*why = "its libraries cannot be read";
		return -2;
	}
	if (t.good[0] + t.bad[0] < FITS_MIN && t.good[1] + t.bad[1] < FITS_MIN)
		return -2;
	int fits0 = fits(&t, 0), fits1 = fits(&t, 1);
	if (fits0 != fits1)
		return fits1;
	*why = fits0 ? "its libraries do not tell how its built-ins are numbered"
		     : "its built-ins are numbered as in no build this lua-flame knows";
	return -1;
}

const char *luajit_vm_check(const struct luajit_runtime *rt, const struct luajit_layout *l, uint64_t g,
			    struct luajit_layout *out, int *undecided)
{
	struct luajit_mem m = { read_target, (void *)(intptr_t)rt->pid };
	const char *why = check_dispatch(rt, l, &m, g);
	if (!why)
		why = check_cur_L(l, &m, g);
	if (why)
		return why;
	int list = builtins_list(l, &m, g, &why);
	*undecided = list == -2;
	if (list == -1)
		return why;
	*out = *l;
	if (list == 1) {
		out->ff_names = l->ff_names52;
		out->ff_names_count = l->ff_names52_count;
	}
	return NULL;
}
