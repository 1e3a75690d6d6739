/* Test host for cmd/lua/luajit/luajit_frames.c: runs a Lua script that calls the C function probe(TAG) from
 * known places; probe walks its own LuaJIT frames from L->base through the layout offsets (as
 * the BPF walker does, reading its own memory), labels every frame with the luajit_frames API
 * and checks each against lua_getinfo(L, "nSlf") for the same level. ffcheck(F, NAME) checks
 * that F is a built-in LuaJIT calls NAME. Built against a LuaJIT's headers and library:
 *   gcc $(find cmd -type d -printf "-I%p ") -I/usr/include/luajit-2.1 tests/progs/luajit_frames_host.c cmd/lua/luajit/luajit_frames.c \
 *       cmd/lua/luajit/luajit_names.c cmd/lua/luajit/luajit_layouts.c -lluajit-5.1
 * Prints "probe TAG: frame;frame;..." (outermost first) per probe, "MISMATCH ..." per
 * disagreement, and a summary; exits 1 when there was a mismatch. Usage: HOST SCRIPT.lua */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <luajit.h>
#include "luajit_frames.h"
#include "lua_global_ref.h"

#define MAX_FRAMES 200
#define LABEL_MAX (LJ_CHUNK_MAX + LJ_IDENT_MAX + 64)

static const struct luajit_layout *lay;
static int mismatches, probes, ffchecks;

/* Reads our own memory the way the profiler reads a target's: a bad address fails, no crash. */
static long self_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	(void)ctx;
	return (long)process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
}
static const struct luajit_mem mem = { self_read, NULL };
static int self_read0(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return self_read(ctx, addr, buf, len) == (long)len ? 0 : -1;
}

static uint64_t u64_at(uint64_t a) { uint64_t v; memcpy(&v, (void *)(uintptr_t)a, 8); return v; }
static uint32_t u32_at(uint64_t a) { uint32_t v; memcpy(&v, (void *)(uintptr_t)a, 4); return v; }
static uint64_t ref_at(uint64_t a, int size) { return size == 8 ? u64_at(a) : u32_at(a); }

/* One frame as the profiler's stack walker sees it: the GCfunc and the frame link that says
 * how it was called (a Lua frame's link is the caller's return pc). */
struct frame {
	uint64_t fn, link, contpc;
	enum luajit_fn_kind kind;
	uint64_t proto;
	int ffid;
};

/* Slot i below base: func at base-2 slots (GC64, 47-bit pointer) or the low half of base-1;
 * the link at base-1 (GC64) or the high half of base-1. */
static void read_link(uint64_t base, uint64_t *fn, uint64_t *link)
{
	if (lay->fr2) {
		*fn = u64_at(base - 16) & ((1ULL << lay->gcv_bits) - 1);
		*link = u64_at(base - 8);
	} else {
		*fn = u32_at(base - 8);
		*link = (uint64_t)(int64_t)(int32_t)u32_at(base - 4);
	}
}

/* A continuation frame keeps the caller's pc one frame slot further down (frame_contpc). */
static uint64_t cont_pc(uint64_t base)
{
	return lay->fr2 ? u64_at(base - 24) : u32_at(base - 12);
}

/* Innermost first, from L->base down to the bottom of the stack, as lj_debug_frame counts
 * levels: a vararg function's pseudo-frame is one level with the link of the frame below. */
static int walk(lua_State *L, struct frame *fr)
{
	uint64_t l = (uint64_t)(uintptr_t)L;
	uint64_t base = ref_at(l + lay->L_base, lay->mref_size);
	uint64_t bot = ref_at(l + lay->L_stack, lay->mref_size) + 8 * (uint64_t)lay->fr2;
	uint64_t slot = 8 * (uint64_t)(1 + lay->fr2);
	int n = 0;
	while (base - 8 > bot && n < MAX_FRAMES) {
		struct frame *f = &fr[n];
		memset(f, 0, sizeof *f);
		read_link(base, &f->fn, &f->link);
		if ((f->link & lay->frame_typep) == (uint64_t)lay->frame_varg) {
			base -= f->link & ~(uint64_t)lay->frame_typep;
			uint64_t fn2;
			read_link(base, &fn2, &f->link);
		}
		if ((f->link & lay->frame_typep) == (uint64_t)lay->frame_cont)
			f->contpc = cont_pc(base);
		f->kind = luajit_func_info(lay, &mem, f->fn, &f->proto, &f->ffid);
		if (f->fn != l)  /* dummy frames (lj_err_optype_call) are no level */
			n++;
		if ((f->link & lay->frame_type) == (uint64_t)lay->frame_lua) {
			uint32_t ins = u32_at(f->link - 4);
			base -= slot + 8 * (uint64_t)LUAJIT_BC_A(ins);
		} else {
			base -= f->link & ~(uint64_t)lay->frame_typep;
		}
	}
	return n;
}

/* The pc frame j's caller (frame j + 1) was at when it called: a Lua link or a continuation. */
static uint64_t caller_pc(const struct frame *f)
{
	if ((f->link & lay->frame_type) == (uint64_t)lay->frame_lua)
		return f->link;
	if ((f->link & lay->frame_typep) == (uint64_t)lay->frame_cont)
		return f->contpc;
	return 0;
}

static void mismatch(const char *tag, int j, const char *what, const char *mine, const char *lua)
{
	printf("MISMATCH probe %s frame %d %s: luajit_frames '%s', lua_getinfo '%s'\n", tag, j,
	       what, mine, lua);
	mismatches++;
}

static void mismatch_int(const char *tag, int j, const char *what, long mine, long lua)
{
	char a[32], b[32];
	snprintf(a, sizeof a, "%ld", mine);
	snprintf(b, sizeof b, "%ld", lua);
	mismatch(tag, j, what, a, b);
}

/* Our name for frame j: only when its caller is a Lua function that left a pc. */
static int our_name(const struct frame *fr, int n, int j, char *out, size_t size)
{
	uint64_t pc = caller_pc(&fr[j]);
	if (j + 1 >= n || fr[j + 1].kind != LJ_FN_LUA || !pc)
		return -1;
	return luajit_call_name(lay, &mem, fr[j + 1].proto, 0, pc, out, size);
}

/* What lua_getinfo's source becomes in our chunk names: '@'/'=' stripped, else short_src. */
static const char *want_chunk(const lua_Debug *ar)
{
	if (ar->source[0] == '@' || ar->source[0] == '=')
		return ar->source + 1;
	return ar->short_src;
}

static void check_lua(const char *tag, const struct frame *fr, int j, const lua_Debug *ar,
		      const char *name, char *label, size_t size)
{
	char chunk[LJ_CHUNK_MAX];
	int first = -2, line = -1;
	if (luajit_proto_info(lay, &mem, fr[j].proto, 0, chunk, sizeof chunk, &first) < 0)
		snprintf(chunk, sizeof chunk, "(failed)");
	if (strcmp(chunk, want_chunk(ar)) != 0)
		mismatch(tag, j, "chunk", chunk, want_chunk(ar));
	if (first != ar->linedefined)
		mismatch_int(tag, j, "linedefined", first, ar->linedefined);
	uint64_t pc = j > 0 ? caller_pc(&fr[j - 1]) : 0;
	if (pc)
		line = luajit_proto_line(lay, &mem, fr[j].proto, 0, pc);
	if (line != ar->currentline)
		mismatch_int(tag, j, "currentline", line, ar->currentline);
	snprintf(label, size, "%s (%s:%d)@%d", name ? name : first == 0 ? "main chunk" : "?",
		 chunk, first, line);
}

/* A Lua function called from C (or a built-in) has no name in code: the profiler names it as
 * PUC Lua 5.3+'s traceback does, by the module field holding it (on top of L's stack). */
static int global_name(lua_State *L, const char *tag, const struct frame *fr, int n, int j,
		       const lua_Debug *ar, char *out, size_t size)
{
	char want[LJ_IDENT_MAX];
	if (fr[j].kind != LJ_FN_LUA || ar->linedefined == 0 || (j + 1 < n && fr[j + 1].kind == LJ_FN_LUA))
		return -1;
	int rc = luajit_global_call_name(lay, &mem, fr[j].proto, 0, (uint64_t)(uintptr_t)L, out, size);
	int lrc = ref_global_name(L, want, sizeof want);
	if (rc != lrc || (rc == 0 && strcmp(out, want)))
		mismatch(tag, j, "global name", rc == 0 ? out : "(none)", lrc == 0 ? want : "(none)");
	return rc;
}

static void check_frame(lua_State *L, const char *tag, const struct frame *fr, int n, int j,
			const lua_Debug *ar, char *label, size_t size)
{
	char name[LJ_IDENT_MAX], ff[64];
	int rc = our_name(fr, n, j, name, sizeof name);
	if ((rc == 0) != (ar->name != NULL) || (ar->name && strcmp(name, ar->name) != 0))
		mismatch(tag, j, "name", rc == 0 ? name : "(none)", ar->name ? ar->name : "(none)");
	if (rc)
		rc = global_name(L, tag, fr, n, j, ar, name, sizeof name);
	const void *want_fn = lua_topointer(L, -1);
	if ((uint64_t)(uintptr_t)want_fn != fr[j].fn)
		mismatch(tag, j, "function", "walked", "another");
	int is_c = strcmp(ar->what, "C") == 0;
	if (fr[j].kind == LJ_FN_BAD || (fr[j].kind == LJ_FN_LUA) == is_c)
		mismatch(tag, j, "kind", fr[j].kind == LJ_FN_LUA ? "Lua" : "C", ar->what);
	if (fr[j].kind == LJ_FN_LUA) {
		check_lua(tag, fr, j, ar, rc == 0 ? name : NULL, label, size);
	} else if (fr[j].kind == LJ_FN_FAST) {
		const char *f = luajit_fast_name(lay, fr[j].ffid, ff, sizeof ff);
		snprintf(label, size, "%s [builtin %s]", rc == 0 ? name : "?", f ? f : "?");
	} else {
		snprintf(label, size, "%s [C]", rc == 0 ? name : "?");
	}
}

static int probe(lua_State *L)
{
	static struct frame fr[MAX_FRAMES];
	static char labels[MAX_FRAMES][LABEL_MAX];
	const char *tag = luaL_checkstring(L, 1);
	int n = walk(L, fr), j;
	probes++;
	for (j = 0; j < n; j++) {
		lua_Debug ar;
		if (!lua_getstack(L, j, &ar) || !lua_getinfo(L, "nSlf", &ar)) {
			mismatch(tag, j, "depth", "frame", "no frame");
			break;
		}
		check_frame(L, tag, fr, n, j, &ar, labels[j], sizeof labels[j]);
		lua_pop(L, 1);
	}
	n = j;
	lua_Debug ar;
	if (n < MAX_FRAMES && lua_getstack(L, n, &ar))
		mismatch(tag, n, "depth", "no frame", "frame");
	printf("probe %s: ", tag);
	for (j = n - 1; j >= 0; j--)
		printf("%s%s", labels[j], j ? ";" : "\n");
	fflush(stdout);
	return 0;
}

/* callf(f): calls f from C (a FRAME_C link: no caller pc, no name). */
static int callf(lua_State *L)
{
	lua_pushvalue(L, 1);
	lua_call(L, 0, 0);
	return 0;
}

/* ffcheck(f, name): f must be a built-in whose Lua name is name. */
static int ffcheck(lua_State *L)
{
	uint64_t fn = (uint64_t)(uintptr_t)lua_topointer(L, 1), h = 0;
	const char *want = luaL_checkstring(L, 2);
	char buf[64];
	int ffid = -1;
	enum luajit_fn_kind k = luajit_func_info(lay, &mem, fn, &h, &ffid);
	const char *got = k == LJ_FN_FAST ? luajit_fast_name(lay, ffid, buf, sizeof buf) : NULL;
	ffchecks++;
	if (!got || strcmp(got, want) != 0)
		mismatch(want, 0, "builtin", got ? got : "(not a built-in)", want);
	else
		printf("builtin %s: ffid %d\n", got, ffid);
	return 0;
}

/* The layout whose global_State validates for this very VM, among this fork's GC modes. */
static const struct luajit_layout *find_layout(lua_State *L)
{
#if defined(OPENRESTY_LUAJIT)
	enum luajit_fork fork = LUAJIT_FORK_OPENRESTY;
#else
	enum luajit_fork fork = LUAJIT_FORK_UPSTREAM;
#endif
	for (int gc64 = 1; gc64 >= 0; gc64--) {
		const struct luajit_layout *l = luajit_layout_get(luajit_variant_of(fork, gc64));
		if (!l)
			continue;
		uint64_t g = ref_at((uint64_t)(uintptr_t)L + l->L_glref, l->gcref_size);
		if (g && luajit_validate_g(l, self_read0, NULL, g))
			return l;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SCRIPT.lua\n", argv[0]);
		return 2;
	}
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	lay = find_layout(L);
	if (!lay) {
		fprintf(stderr, "no layout validates this VM (%s)\n", LUAJIT_VERSION);
		return 2;
	}
	printf("layout: %s\n", lay->name);
	lua_pushcfunction(L, probe);
	lua_setglobal(L, "probe");
	lua_pushcfunction(L, callf);
	lua_setglobal(L, "callf");
	lua_pushcfunction(L, ffcheck);
	lua_setglobal(L, "ffcheck");
	if (luaL_loadfile(L, argv[1]) || lua_pcall(L, 0, 0, 0)) {
		fprintf(stderr, "%s: %s\n", argv[1], lua_tostring(L, -1));
		return 2;
	}
	lua_close(L);
	luajit_frames_cache_free();
	printf("%s: %d probes, %d builtins, %d mismatches\n", lay->name, probes, ffchecks,
	       mismatches);
	return mismatches ? 1 : 0;
}
