/* LuaJIT 2.1 layouts per variant (the table, luajit_layouts_table.c, is generated from each
 * variant's own headers by scripts/gen-luajit-layouts.sh), lookups into it, and detection of the variant from a
 * binary's symbols and read-only data or from the target's memory. */
#include <pthread.h>
#include <string.h>
#include "luajit_layouts.h"
#include "util.h"


#define NLAYOUTS luajit_layout_count

/* The table as it holds on the architecture lua-flame is built for (luajit_arch.c), made
 * once and kept for the life of the process. */
static struct luajit_layout *arch_layouts;
static pthread_once_t arch_once = PTHREAD_ONCE_INIT;

static void fill_arch_layouts(void)
{
	arch_layouts = xcalloc(NLAYOUTS, sizeof(*arch_layouts));
	for (size_t i = 0; i < NLAYOUTS; i++) {
		arch_layouts[i] = luajit_layout_table[i];
		luajit_layout_arch(&arch_layouts[i]);
	}
}

static const struct luajit_layout *table(void)
{
	pthread_once(&arch_once, fill_arch_layouts);
	return arch_layouts;
}
/* Longest name compared against, so a hostile symbol table cannot make us read far. */
#define SYM_CAP 64

const struct luajit_layout *luajit_layout_get(enum luajit_variant v)
{
	const struct luajit_layout *t = table();
	for (size_t i = 0; i < NLAYOUTS; i++)
		if (t[i].variant == v)
			return &t[i];
	return NULL;
}

const struct luajit_layout *luajit_layout_at(size_t i)
{
	return i < NLAYOUTS ? &table()[i] : NULL;
}

enum luajit_variant luajit_variant_of(enum luajit_fork fork, int gc64)
{
	if (gc64 != 0 && gc64 != 1)
		return LUAJIT_VARIANT_UNKNOWN;
	for (size_t i = 0; i < NLAYOUTS; i++)
		if (luajit_layout_table[i].fork == fork && luajit_layout_table[i].gc64 == gc64)
			return luajit_layout_table[i].variant;
	return LUAJIT_VARIANT_UNKNOWN;
}

const char *luajit_fork_name(enum luajit_fork fork)
{
	switch (fork) {
	case LUAJIT_FORK_UPSTREAM: return "upstream";
	case LUAJIT_FORK_BETA3: return "beta3";
	case LUAJIT_FORK_OPENRESTY: return "openresty";
	case LUAJIT_FORK_TARANTOOL: return "tarantool";
	default: return "unknown";
	}
}

const char *luajit_name_at(const char *list, int32_t count, int32_t i)
{
	if (!list || i < 0 || i >= count)
		return NULL;
	for (int32_t k = 0; k < i; k++)
		list += strlen(list) + 1;
	return list;
}

/* Library prefixes of built-in names as Lua shows them; longest first. */
static const struct { const char *from, *to; } ff_prefixes[] = {
	{ "jit_util_", "jit.util." }, { "jit_opt_", "jit.opt." },
	{ "jit_profile_", "jit.profile." }, { "io_method_", "file:" },
	{ "buffer_method_", "buffer:" }, { "ffi_meta_", "cdata:" },
	{ "coroutine_", "coroutine." }, { "string_", "string." }, { "table_", "table." },
	{ "math_", "math." }, { "debug_", "debug." }, { "buffer_", "buffer." },
	{ "thread_", "thread." }, { "bit_", "bit." }, { "jit_", "jit." }, { "ffi_", "ffi." },
	{ "io_", "io." }, { "os_", "os." },
};

/* A built-in's C name ("table_insert") as Lua shows it ("table.insert") in buf, or NULL. */
static const char *display_name(const char *raw, char *buf, size_t n)
{
	const char *to = "";
	for (size_t i = 0; i < sizeof(ff_prefixes) / sizeof(ff_prefixes[0]); i++) {
		size_t len = strlen(ff_prefixes[i].from);
		if (!strncmp(raw, ff_prefixes[i].from, len)) {
			raw += len;
			to = ff_prefixes[i].to;
			break;
		}
	}
	size_t a = strlen(to), b = strlen(raw);
	if (a + b + 1 > n)
		return NULL;
	memcpy(buf, to, a);
	memcpy(buf + a, raw, b + 1);
	return buf;
}

const char *luajit_ff_name(const struct luajit_layout *l, int32_t ffid, char *buf, size_t n)
{
	if (!l || !buf || n == 0 || ffid <= l->ff_c)
		return NULL;
	const char *raw = luajit_name_at(l->ff_names, l->ff_names_count, ffid);
	return raw ? display_name(raw, buf, n) : NULL;
}

/* Built-ins LuaJIT writes in Lua (LJLIB_LUA in lib_math.c, lib_string.c and lib_table.c: the
 * same eight in upstream LuaJIT 2.1, OpenResty's and Tarantool's forks). lj_lib.c loads each
 * as a Lua function whose proto has firstline -1 and the name without its library as chunk
 * name; no two libraries share such a name. */
static const char *const lua_builtins[] = {
	"math_deg", "math_rad", "string_len", "table_foreachi", "table_foreach", "table_getn",
	"table_remove", "table_move",
};

const char *luajit_lua_builtin_name(const char *chunk, char *buf, size_t n)
{
	if (!chunk || !buf || n == 0)
		return NULL;
	for (size_t i = 0; i < sizeof(lua_builtins) / sizeof(lua_builtins[0]); i++) {
		const char *bare = strchr(lua_builtins[i], '_') + 1;
		if (!strcmp(bare, chunk))
			return display_name(lua_builtins[i], buf, n);
	}
	return NULL;
}

/* ---- detection from the file ---- */

static int has_sym(const char *const *syms, size_t nsyms, const char *name)
{
	if (!syms)
		return 0;
	for (size_t i = 0; i < nsyms; i++)
		if (syms[i] && !strncmp(syms[i], name, SYM_CAP))
			return 1;
	return 0;
}

static int has_bytes(const void *buf, size_t len, const char *s, size_t slen)
{
	return buf && len >= slen && memmem(buf, len, s, slen) != NULL;
}
#define HAS_LIT(buf, len, lit) has_bytes(buf, len, lit, sizeof(lit) - 1)

/* Copies the first NUL-delimited "LuaJIT 2.…" string (the VM's LUAJIT_VERSION). */
/* What may follow "LuaJIT 2." in LUAJIT_VERSION: "1.0-beta3", "1.1761786044", "0.5",
 * "1.0-rc1"; anything else (a prompt such as "LuaJIT 2.1.0-beta3> ") is another string. */
static int version_syntax(const char *s, size_t n)
{
	size_t i = 0, digits = 0;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
		digits += s[i++] != '.';
	if (!digits)
		return 0;
	if (i < n && s[i] == '-') {
		size_t j = i + 1;
		while (j < n && s[j] >= 'a' && s[j] <= 'z')
			j++;
		if (j == i + 1 || j == n)
			return 0;
		for (i = j; i < n; i++)
			if (s[i] < '0' || s[i] > '9')
				return 0;
	}
	return i == n;
}

static int find_version(const unsigned char *buf, size_t len, char *out, size_t outlen)
{
	static const char pfx[] = "LuaJIT 2.";
	const size_t plen = sizeof(pfx) - 1;
	size_t pos = 0;
	while (buf && pos + plen <= len) {
		const unsigned char *hit = memmem(buf + pos, len - pos, pfx, plen);
		if (!hit)
			return 0;
		size_t at = (size_t)(hit - buf), end = at;
		while (end < len && end - at < outlen && buf[end] >= 0x20 && buf[end] < 0x7f)
			end++;
		if ((at == 0 || buf[at - 1] == 0) && end < len && buf[end] == 0 && end - at < outlen &&
		    version_syntax((const char *)hit + plen, end - at - plen)) {
			memcpy(out, hit, end - at);
			out[end - at] = 0;
			return 1;
		}
		pos = at + 1;
	}
	return 0;
}

static enum luajit_fork detect_fork(const char *const *syms, size_t nsyms,
				    const void *ro, size_t rolen)
{
	/* OpenResty: its exdata API and thread.exdata built-in. */
	int openresty = has_sym(syms, nsyms, "lua_getexdata") || has_sym(syms, nsyms, "lua_setexdata")
		|| has_sym(syms, nsyms, "lua_resetthread") || HAS_LIT(ro, rolen, "thread.exdata\0");
	/* Tarantool: its re-entrancy error (LJ_ERR_JITCALL) and, in later versions, misc. */
	int tarantool = HAS_LIT(ro, rolen, "Lua VM re-entrancy is detected while executing the trace")
		|| has_sym(syms, nsyms, "luaM_metrics") || has_sym(syms, nsyms, "luaopen_misc");
	if (openresty && tarantool)
		return LUAJIT_FORK_UNKNOWN;
	if (openresty || tarantool)
		return openresty ? LUAJIT_FORK_OPENRESTY : LUAJIT_FORK_TARANTOOL;
	/* Upstream's error list gained this message after 2.1.0-beta3, with the string
	 * interning that changed global_State and GCstr. */
	return HAS_LIT(ro, rolen, "\0number out of range\0") ? LUAJIT_FORK_UPSTREAM : LUAJIT_FORK_BETA3;
}

static int detect_gc64(const void *ro, size_t rolen)
{
	/* Non-GC64 x64 builds replace lua_newstate by a stub printing this. */
	int no = HAS_LIT(ro, rolen, "Must use luaL_newstate() for 64 bit target");
	/* ffi.abi's list ends "\2le\4gc64" in GC64 builds (Tarantool hashes it instead). */
	int yes = HAS_LIT(ro, rolen, "\002le\004gc64");
	return no == yes ? -1 : yes;
}

enum luajit_variant luajit_detect_file(const char *const *syms, size_t nsyms,
				       const void *rodata, size_t rodata_len,
				       struct luajit_file_facts *facts)
{
	struct luajit_file_facts f = { .fork = LUAJIT_FORK_UNKNOWN, .gc64 = -1 };
	int ver = find_version(rodata, rodata_len, f.version, sizeof(f.version));
	f.is_luajit = ver || has_sym(syms, nsyms, "luaJIT_setmode");
	if (f.is_luajit) {
		f.fork = detect_fork(syms, nsyms, rodata, rodata_len);
		f.gc64 = detect_gc64(rodata, rodata_len);
		f.has_jit = HAS_LIT(rodata, rodata_len, "\0runtime code generation failed, restricted kernel?\0");
		f.has_ffi = HAS_LIT(rodata, rodata_len, "\0invalid C type\0");
	}
	if (facts)
		*facts = f;
	return f.is_luajit ? luajit_variant_of(f.fork, f.gc64) : LUAJIT_VARIANT_UNKNOWN;
}

/* ---- detection from memory ---- */

/* Reads a little-endian GCRef/MRef of size bytes (4 or 8). */
static int read_ref(luajit_read_fn rd, void *ctx, uint64_t addr, int32_t size, uint64_t *out)
{
	unsigned char b[8] = { 0 };
	if (size != 4 && size != 8)
		return -1;
	if (rd(ctx, addr, b, (size_t)size))
		return -1;
	uint64_t v = 0;
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | b[i];
	*out = v;
	return 0;
}

int luajit_validate_g(const struct luajit_layout *l, luajit_read_fn rd, void *ctx, uint64_t g)
{
	uint64_t mainth, glref;
	unsigned char gct, ffid;
	if (!l || !rd || g < (uint64_t)l->gg_g || (g & 7))
		return 0;
	uint64_t L = g - (uint64_t)l->gg_g + (uint64_t)l->gg_L;
	if (read_ref(rd, ctx, g + (uint64_t)l->g_mainthref, l->gcref_size, &mainth) || mainth != L)
		return 0;
	if (rd(ctx, L + (uint64_t)l->L_gct, &gct, 1) || gct != l->gct_thread)
		return 0;
	/* lua_newstate marks the main thread's dummy frame as a C function. */
	if (rd(ctx, L + (uint64_t)l->L_dummy_ffid, &ffid, 1) || ffid != l->ff_c)
		return 0;
	return !read_ref(rd, ctx, L + (uint64_t)l->L_glref, l->mref_size, &glref) && glref == g;
}

uint64_t luajit_g_from_dispatch(const struct luajit_layout *l, uint64_t dispatch)
{
	return l ? dispatch - (uint64_t)(l->gg_dispatch - l->gg_g) : 0;
}

enum luajit_variant luajit_detect_by_dispatch(enum luajit_fork fork, int gc64,
					      luajit_read_fn rd, void *ctx,
					      uint64_t dispatch, uint64_t *g_out)
{
	enum luajit_variant found = LUAJIT_VARIANT_UNKNOWN;
	for (size_t i = 0; i < NLAYOUTS; i++) {
		const struct luajit_layout *l = &table()[i];
		if ((fork != LUAJIT_FORK_UNKNOWN && l->fork != fork) || (gc64 >= 0 && l->gc64 != gc64))
			continue;
		uint64_t g = luajit_g_from_dispatch(l, dispatch);
		if (!luajit_validate_g(l, rd, ctx, g))
			continue;
		/* Two layouts validating the same register would make the answer a guess. */
		if (found != LUAJIT_VARIANT_UNKNOWN)
			return LUAJIT_VARIANT_UNKNOWN;
		found = l->variant;
		if (g_out)
			*g_out = g;
	}
	return found;
}

static uint64_t load_le(const unsigned char *p, int32_t size)
{
	uint64_t v = 0;
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

size_t luajit_scan_gg(const struct luajit_layout *l, const void *buf, size_t len,
		      uint64_t base, uint64_t *out, size_t max)
{
	const unsigned char *b = buf;
	size_t n = 0;
	if (!l || !b || !out || (base & 7) || (l->gcref_size != 4 && l->gcref_size != 8)
	    || (l->mref_size != 4 && l->mref_size != 8))
		return 0;
	size_t need = (size_t)l->gg_g + (size_t)l->g_mainthref + (size_t)l->gcref_size;
	if (need < (size_t)l->L_glref + (size_t)l->mref_size)
		need = (size_t)l->L_glref + (size_t)l->mref_size;
	for (size_t p = 0; p + need <= len && n < max; p += 8) {
		uint64_t L = base + p, g = L + (uint64_t)(l->gg_g - l->gg_L);
		if (b[p + (size_t)l->L_gct] != l->gct_thread || b[p + (size_t)l->L_dummy_ffid] != l->ff_c)
			continue;
		if (load_le(b + p + (size_t)l->L_glref, l->mref_size) != g)
			continue;
		if (load_le(b + p + (size_t)l->gg_g + (size_t)l->g_mainthref, l->gcref_size) != L)
			continue;
		out[n++] = g;
	}
	return n;
}
