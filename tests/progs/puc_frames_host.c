/* Test host for cmd/lua/puc/puc_frames.c: runs a Lua script that calls the C function probe(TAG) from
 * known places; probe walks the real CallInfo chain through the layout offsets (reading its own
 * memory), labels every frame with puc_frames.c and checks each label against what
 * lua_getinfo(L, "nSl") says for the same frame, and the global names of functions called from C
 * against package.loaded read through the C API. Built against each Lua version's headers:
 *   gcc $(find cmd -type d -printf "-I%p ") -I/usr/include/lua5.4 tests/progs/puc_frames_host.c cmd/lua/puc/puc_frames.c \
 *       cmd/lua/puc/puc_names.c cmd/lua/puc/puc_layouts.c -llua5.4
 * Prints "probe TAG: frame;frame;..." (outermost first) per probe, "MISMATCH ..." per
 * disagreement, and exits 1 when there was one. Usage: puc_frames_host SCRIPT.lua */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include "puc_frames.h"
#include "lua_global_ref.h"

#define MAX_FRAMES 200

static const struct puc_layout *lay;
static int mismatches, probes;

static long self_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return (long)len;
}
static const struct puc_mem mem = { self_read, NULL };

static uint64_t ptr_at(uint64_t a) { uint64_t v; memcpy(&v, (void *)(uintptr_t)a, 8); return v; }
static unsigned uint_at(uint64_t a, unsigned size)
{
	unsigned v = 0;
	memcpy(&v, (void *)(uintptr_t)a, size < 4 ? size : 4);
	return v;
}

/* One CallInfo as the profiler's stack walker would see it. */
struct frame {
	int lua;
	uint64_t proto, savedpc, cfunc;
	unsigned callstatus;
	int tailcalls;  /* 5.1 */
};

/* Decodes the function of a CallInfo (its stack slot func). */
static void frame_func(uint64_t func, struct frame *f)
{
	unsigned tag = uint_at(func + lay->tv_tt, lay->tv_tt_size);
	uint64_t v = ptr_at(func + lay->tv_value);
	if (lay->flags & LUA_LF_CL_ISC) {  /* 5.1: one function tag, Closure.isC decides */
		f->lua = *(uint8_t *)(uintptr_t)(v + lay->cl_isC) == 0;
	} else {
		f->lua = tag == lay->tvtag_lcl;
		if (tag == lay->tvtag_lcf) {
			f->cfunc = v;
			return;
		}
	}
	if (f->lua)
		f->proto = ptr_at(v + lay->lcl_p);
	else
		f->cfunc = ptr_at(v + lay->ccl_f);
}

/* Innermost first; the base CallInfo (outside every call) is left out, as lua_getstack does. */
static int walk(lua_State *L, struct frame *fr)
{
	uint64_t l = (uint64_t)(uintptr_t)L, ci = ptr_at(l + lay->l_ci);
	int n = 0;
	if (lay->flags & LUA_LF_CI_ARRAY) {
		uint64_t base = ptr_at(l + lay->l_base_ci);
		for (; ci > base && n < MAX_FRAMES; ci -= lay->ci_sizeof, n++) {
			struct frame *f = &fr[n];
			memset(f, 0, sizeof *f);
			frame_func(ptr_at(ci + lay->ci_func), f);
			f->savedpc = ptr_at(ci + lay->ci_savedpc);
			f->tailcalls = (int)uint_at(ci + lay->ci_tailcalls, 4);
		}
		return n;
	}
	uint64_t base = l + lay->l_base_ci;
	for (; ci && ci != base && n < MAX_FRAMES; ci = ptr_at(ci + lay->ci_previous), n++) {
		struct frame *f = &fr[n];
		memset(f, 0, sizeof *f);
		frame_func(ptr_at(ci + lay->ci_func), f);
		f->savedpc = ptr_at(ci + lay->ci_savedpc);
		f->callstatus = uint_at(ci + lay->ci_callstatus, lay->ci_callstatus_size);
	}
	return n;
}

static void mismatch(const char *tag, int j, const char *what, const char *mine, const char *lua)
{
	printf("MISMATCH probe %s frame %d %s: puc_frames '%s', lua_getinfo '%s'\n", tag, j, what,
	       mine, lua);
	mismatches++;
}

/* Our name for frame j (called by frame j + 1), under the rules the walker applies. */
static int our_name(struct frame *fr, int n, int j, char *out, size_t size)
{
	if (j + 1 >= n || !fr[j + 1].lua)
		return -1;
	if (lay->cist_tail && (fr[j].callstatus & lay->cist_tail))
		return -1;
	if (lay->minor == 1 && fr[j].lua && fr[j].tailcalls > 0)
		return -1;
	return puc_call_name(lay, &mem, fr[j + 1].proto, 0, fr[j + 1].savedpc, 0, out, size);
}

/* Lua's name, with 5.4's "index" for a metamethod spelled "__index" like older versions. */
static const char *lua_name(const lua_Debug *ar, char *buf, size_t size)
{
	if (!ar->name)
		return NULL;
	if (strcmp(ar->namewhat, "metamethod") == 0 && strncmp(ar->name, "__", 2) != 0) {
		snprintf(buf, size, "__%s", ar->name);
		return buf;
	}
	return ar->name;
}

/* A Lua function called from C has no name in code: the profiler names it as Lua 5.3+'s
 * traceback does, by the module field holding it. */
static int global_name(lua_State *L, const char *tag, struct frame *fr, int n, int j, lua_Debug *ar,
		       char *out, size_t size)
{
	char want[LUA_IDENT_MAX];
	if (!fr[j].lua || ar->linedefined == 0 || (j + 1 < n && fr[j + 1].lua))
		return -1;
	int rc = puc_global_call_name(lay, &mem, fr[j].proto, 0, (uint64_t)(uintptr_t)L, out, size);
	lua_getinfo(L, "f", ar);
	int lrc = ref_global_name(L, want, sizeof want);
	lua_pop(L, 1);
	if (rc != lrc || (rc == 0 && strcmp(out, want)))
		mismatch(tag, j, "global name", rc == 0 ? out : "(none)", lrc == 0 ? want : "(none)");
	return rc;
}

static void check_frame(lua_State *L, const char *tag, struct frame *fr, int n, int j,
			lua_Debug *ar, char *label, size_t size)
{
	char name[LUA_IDENT_MAX], want[LUA_IDENT_MAX], chunk[LUA_CHUNK_MAX], num[64];
	int rc = our_name(fr, n, j, name, sizeof name);
	const char *lname = lua_name(ar, want, sizeof want);
	if ((rc == 0) != (lname != NULL) || (lname && strcmp(name, lname) != 0))
		mismatch(tag, j, "name", rc == 0 ? name : "(none)", lname ? lname : "(none)");
	if (rc)
		rc = global_name(L, tag, fr, n, j, ar, name, sizeof name);
	if (!fr[j].lua) {
		if (strcmp(ar->what, "C") != 0)
			mismatch(tag, j, "kind", "C", ar->what);
		snprintf(label, size, "%s [C]", rc == 0 ? name : "?");
		return;
	}
	int linedefined = -1;
	if (puc_proto_info(lay, &mem, fr[j].proto, 0, chunk, sizeof chunk, &linedefined) < 0)
		snprintf(chunk, sizeof chunk, "(failed)");
	if (strcmp(chunk, ar->short_src) != 0)
		mismatch(tag, j, "chunk", chunk, ar->short_src);
	if (linedefined != ar->linedefined) {
		char a[32];
		snprintf(num, sizeof num, "%d", linedefined);
		snprintf(a, sizeof a, "%d", ar->linedefined);
		mismatch(tag, j, "linedefined", num, a);
	}
	int line = puc_proto_line(lay, &mem, fr[j].proto, 0, fr[j].savedpc);
	if (line != ar->currentline) {
		char a[32];
		snprintf(num, sizeof num, "%d", line);
		snprintf(a, sizeof a, "%d", ar->currentline);
		mismatch(tag, j, "currentline", num, a);
	}
	snprintf(label, size, "%s (%s:%d)@%d", rc == 0 ? name : linedefined == 0 ? "main chunk" : "?",
		 chunk, linedefined, line);
}

static int probe(lua_State *L)
{
	static struct frame fr[MAX_FRAMES];
	static char labels[MAX_FRAMES][LUA_CHUNK_MAX + LUA_IDENT_MAX + 40];
	const char *tag = luaL_checkstring(L, 1);
	int n = walk(L, fr), level = 0;
	probes++;
	for (int j = 0; j < n; j++) {
		lua_Debug ar;
		if (!lua_getstack(L, level, &ar) || !lua_getinfo(L, "nSl", &ar)) {
			mismatch(tag, j, "depth", "frame", "no frame");
			n = j;
			break;
		}
		check_frame(L, tag, fr, n, j, &ar, labels[j], sizeof labels[j]);
		/* 5.1 shows the frames a tail call replaced as extra levels */
		level += 1 + (lay->minor == 1 && fr[j].lua ? fr[j].tailcalls : 0);
	}
	lua_Debug ar;
	if (n < MAX_FRAMES && lua_getstack(L, level, &ar))
		mismatch(tag, n, "depth", "no frame", "frame");
	printf("probe %s: ", tag);
	for (int j = n - 1; j >= 0; j--)
		printf("%s%s", labels[j], j ? ";" : "\n");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int maj = 0, min = 0, patch = -1;
	if (argc != 2 || sscanf(LUA_RELEASE, "Lua %d.%d.%d", &maj, &min, &patch) < 2) {
		fprintf(stderr, "usage: %s SCRIPT.lua\n", argv[0]);
		return 2;
	}
	lay = puc_layout_for(maj, min, patch);
	if (!lay) {
		fprintf(stderr, "no layout for %s\n", LUA_RELEASE);
		return 2;
	}
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	lua_pushcfunction(L, probe);
	lua_setglobal(L, "probe");
	if (luaL_loadfile(L, argv[1]) || lua_pcall(L, 0, 0, 0)) {
		fprintf(stderr, "%s: %s\n", argv[1], lua_tostring(L, -1));
		return 2;
	}
	lua_close(L);
	puc_frames_cache_free();
	printf("%s: %d probes, %d mismatches\n", LUA_RELEASE, probes, mismatches);
	return mismatches ? 1 : 0;
}
