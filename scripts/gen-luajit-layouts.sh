#!/bin/sh
# Generates cmd/lua/luajit/luajit_layouts_table.c, the LuaJIT struct layout table, whole, from the sources
# of each supported LuaJIT 2.1 variant (upstream, its 2.1.0-beta3 release of 2017, OpenResty,
# Tarantool; GC64 and not), by compiling a probe against each tree's own headers; the list of
# built-ins is probed again with Lua 5.2 compatibility, which inserts some.
#
# Usage: scripts/gen-luajit-layouts.sh [--check | --build-vms | --build-option NAME DIR]
# With no argument it rewrites the file. --check leaves it alone: it diffs the committed file with
# the one it would write (every tree comes from Debian, so the file can always be made whole),
# and when they agree checks the arm64 build's table (x86-64's as cmd/lua/luajit/luajit_arch.c
# patches it) against the same probe compiled for aarch64 and run under qemu-aarch64-static.
# --build-vms also builds non-GC64 upstream and OpenResty interpreters in .cache (for
# tests/integ/luajit_detect.sh; Debian ships GC64 builds only). --build-option builds an
# interpreter with other build options in DIR (tests/integ/luajit_build_options.sh).
# Sources come from Debian (`apt-get source luajit luajit2 tarantool`) under .cache/src; the
# 2.1.0-beta3 release is the copy texlive-bin carries for LuaJITTeX (libs/luajit/LuaJIT-src);
# OpenResty's 2025 tree is Debian unstable's luajit (scripts/build-lua-sources.sh, .cache/lua-sid).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=${LUAJIT_SRC_DIR:-$ROOT/.cache/src}
WORK=$ROOT/.cache/luajit-layouts
TARGET=$ROOT/cmd/lua/luajit/luajit_layouts_table.c
HOSTCC=${HOSTCC:-gcc}
A64CC=${A64CC:-aarch64-linux-gnu-gcc}
MODE=${1:-write}

die() { echo "gen-luajit-layouts: $*" >&2; exit 1; }

# fetch_beta3: LuaJIT 2.1.0-beta3 from texlive-bin's source, with the one file its Makefile adds
# (lbitlib.c, a library without built-ins) beside the others.
fetch_beta3() {
	[ -f "$SRC/luajit-2.1.0-beta3-texlive/src/lj_obj.h" ] && return 0
	tmp=$SRC/texlive-bin.tmp
	rm -rf "$tmp" && mkdir -p "$tmp"
	(cd "$tmp" && apt-get source --download-only -qq texlive-bin >/dev/null) || die "apt-get source texlive-bin failed"
	tar -C "$tmp" -xJf "$tmp"/texlive-bin_*.orig.tar.xz --wildcards '*/libs/luajit/LuaJIT-src' '*/libs/luajit/lbitlib.c' \
		|| die "unpacking texlive-bin's LuaJIT failed"
	lj=$(ls -d "$tmp"/texlive-bin-*/libs/luajit | head -1)
	grep -q '"LuaJIT 2.1.0-beta3"' "$lj/LuaJIT-src/src/luajit.h" || die "texlive-bin's LuaJIT is not 2.1.0-beta3"
	cp "$lj/lbitlib.c" "$lj/LuaJIT-src/src/"
	mv "$lj/LuaJIT-src" "$SRC/luajit-2.1.0-beta3-texlive"
	rm -rf "$tmp"
}

# fetch_sources: unpacks Debian's source packages when they are not there yet.
fetch_sources() {
	mkdir -p "$SRC"
	fetch_beta3
	for pkg in luajit luajit2 tarantool; do
		case $pkg in
		luajit) pat='luajit-2.1*+dfsg' ;;
		luajit2) pat='luajit2-2.1*' ;;
		tarantool) pat='tarantool-*' ;;
		esac
		# shellcheck disable=SC2086
		if ! ls -d "$SRC"/$pat >/dev/null 2>&1; then
			(cd "$SRC" && apt-get source -qq "$pkg" >/dev/null) || die "apt-get source $pkg failed"
		fi
	done
}

# sid_luajit: OpenResty's LuaJIT of 2025 (Debian unstable's luajit), which grew global_State by
# a word; scripts/build-lua-sources.sh fetches it into .cache/lua-sid.
sid_luajit() {
	d=$(ls -d "$ROOT"/.cache/lua-sid/luajit-2.1.0+openresty2025*/ 2>/dev/null | tail -1)
	if [ -z "$d" ]; then
		LUA_SID_PKGS=luajit "$ROOT/scripts/build-lua-sources.sh" >&2 || die "scripts/build-lua-sources.sh failed"
		d=$(ls -d "$ROOT"/.cache/lua-sid/luajit-2.1.0+openresty2025*/ 2>/dev/null | tail -1)
	fi
	echo "$d"
}

# tree_of FORK: the LuaJIT source tree (directory holding src/) of a fork.
tree_of() {
	case $1 in
	upstream) d=$(ls -d "$SRC"/luajit-2.1*+dfsg/ 2>/dev/null | head -1) ;;
	beta3) d=$SRC/luajit-2.1.0-beta3-texlive/ ;;
	openresty25) d=$(sid_luajit) ;;
	openresty) d=$(ls -d "$SRC"/luajit2-2.1*/ 2>/dev/null | head -1) ;;
	tarantool) d=$(ls -d "$SRC"/tarantool-*/third_party/luajit/ 2>/dev/null | head -1) ;;
	esac
	[ -n "${d:-}" ] && [ -f "$d/src/lj_obj.h" ] || die "no $1 source tree under $SRC"
	echo "${d%/}"
}

# defines_of FORK GC64: the compiler flags the distribution's build uses for that variant.
defines_of() {
	case $1/$2 in
	tarantool/1) echo "-DLUAJIT_SMART_STRINGS=1 -DLUAJIT_ENABLE_GC64=1" ;;
	tarantool/0) echo "-DLUAJIT_SMART_STRINGS=1" ;;
	beta3/1) echo "-DLUAJIT_ENABLE_GC64" ;;
	beta3/0) echo "" ;;
	*/1) echo "" ;;
	*/0) echo "-DLUAJIT_DISABLE_GC64" ;;
	esac
}

write_probe() {
	cat >"$1" <<'PROBE'
/* Prints one LuaJIT variant's layout as a C initialiser (generated probe). */
#include <stdio.h>
#include <stddef.h>
#include "lj_obj.h"
#include "lj_state.h"
#include "lj_frame.h"
#include "lj_bc.h"
#include "lj_jit.h"
#include "lj_trace.h"
#include "lj_dispatch.h"
#include "lj_debug.h"

#define P(name, val) printf("\t\t.%s = %lld,\n", name, (long long)(val))
#define OFS(name, type, field) P(name, offsetof(type, field))
#define BCMODE_(name, ma, mb, mc, mm) (BCM##ma|(BCM##mb<<3)|(BCM##mc<<7)|(MM_##mm<<11)),
#define BCNAME_(name, ma, mb, mc, mm) #name,
#define MMNAME_(name) #name,

static const unsigned short modes[] = { BCDEF(BCMODE_) };
static const char *const bcnames[] = { BCDEF(BCNAME_) };
static const char *const mmnames[] = { MMDEF(MMNAME_) };
#define FFDEF(name) #name,
static const char *const ffnames[] = { "lua", "C",
#include "lj_ffdef.h"
};
#undef FFDEF

static void names(const char *field, const char *const *v, size_t n)
{
	printf("\t\t.%s =\n\t\t\t\"", field);
	for (size_t i = 0, col = 0; i < n; i++) {
		col += printf("%s\\0", v[i]);
		if (col > 80 && i + 1 < n) { printf("\"\n\t\t\t\""); col = 0; }
	}
	printf("\",\n");
	printf("\t\t.%s_count = %zu,\n", field, n);
}

int main(void)
{
	P("fr2", LJ_FR2);
	P("gc64", LJ_GC64);
	P("gcref_size", sizeof(GCRef));
	P("mref_size", sizeof(MRef));
	P("tvalue_size", sizeof(TValue));
	P("gcv_bits", LJ_GC64 ? 47 : 32);
	/* lua_State */
	OFS("L_gct", lua_State, gct);
	OFS("L_dummy_ffid", lua_State, dummy_ffid);
	OFS("L_status", lua_State, status);
	OFS("L_glref", lua_State, glref);
	OFS("L_base", lua_State, base);
	OFS("L_top", lua_State, top);
	OFS("L_maxstack", lua_State, maxstack);
	OFS("L_stack", lua_State, stack);
	OFS("L_cframe", lua_State, cframe);
	OFS("L_stacksize", lua_State, stacksize);
	P("L_size", sizeof(lua_State));
	/* global_State */
	OFS("g_hookmask", global_State, hookmask);
	OFS("g_vmstate", global_State, vmstate);
	OFS("g_mainthref", global_State, mainthref);
	OFS("g_cur_L", global_State, cur_L);
	OFS("g_jit_base", global_State, jit_base);
#ifdef PROBE_SAVED_JIT_BASE
	OFS("g_saved_jit_base", global_State, saved_jit_base);
#else
	P("g_saved_jit_base", -1);
#endif
	OFS("g_registrytv", global_State, registrytv);
	P("g_size", sizeof(global_State));
	/* GG_State: main thread, global state, JIT state and dispatch table in one block */
	OFS("gg_L", GG_State, L);
	OFS("gg_g", GG_State, g);
#if LJ_HASJIT
	OFS("gg_J", GG_State, J);
#else
	P("gg_J", -1);
#endif
	OFS("gg_dispatch", GG_State, dispatch);
	P("gg_size", sizeof(GG_State));
#if LJ_HASJIT
	OFS("J_trace", jit_State, trace);
	OFS("J_sizetrace", jit_State, sizetrace);
#else
	P("J_trace", -1);
	P("J_sizetrace", -1);
#endif
	/* GCtrace */
	OFS("T_gct", GCtrace, gct);
	OFS("T_startpt", GCtrace, startpt);
	OFS("T_startpc", GCtrace, startpc);
	OFS("T_szmcode", GCtrace, szmcode);
	OFS("T_mcode", GCtrace, mcode);
	OFS("T_spadjust", GCtrace, spadjust);
	OFS("T_traceno", GCtrace, traceno);
	OFS("T_link", GCtrace, link);
	OFS("T_root", GCtrace, root);
	P("traceno_size", sizeof(TraceNo1));
	/* GCfunc */
	OFS("fn_gct", GCfuncL, gct);
	OFS("fn_ffid", GCfuncL, ffid);
	OFS("fn_nupvalues", GCfuncL, nupvalues);
	OFS("fn_env", GCfuncL, env);
	OFS("fn_pc", GCfuncL, pc);
	OFS("fn_c_f", GCfuncC, f);
	OFS("fn_c_upvalue", GCfuncC, upvalue);
	OFS("fn_l_uvptr", GCfuncL, uvptr);
	/* GCproto; the bytecode follows the header */
	P("pt_size", sizeof(GCproto));
	OFS("pt_gct", GCproto, gct);
	OFS("pt_numparams", GCproto, numparams);
	OFS("pt_framesize", GCproto, framesize);
	OFS("pt_sizebc", GCproto, sizebc);
	OFS("pt_k", GCproto, k);
	OFS("pt_uv", GCproto, uv);
	OFS("pt_sizekgc", GCproto, sizekgc);
	OFS("pt_sizekn", GCproto, sizekn);
	OFS("pt_sizept", GCproto, sizept);
	OFS("pt_sizeuv", GCproto, sizeuv);
	OFS("pt_flags", GCproto, flags);
	OFS("pt_trace", GCproto, trace);
	OFS("pt_chunkname", GCproto, chunkname);
	OFS("pt_firstline", GCproto, firstline);
	OFS("pt_numline", GCproto, numline);
	OFS("pt_lineinfo", GCproto, lineinfo);
	OFS("pt_uvinfo", GCproto, uvinfo);
	OFS("pt_varinfo", GCproto, varinfo);
	P("varname_max", VARNAME__MAX);
	/* GCstr; the characters follow the header */
	P("str_size", sizeof(GCstr));
	OFS("str_gct", GCstr, gct);
	OFS("str_len", GCstr, len);
	/* GCtab's hash part: hmask + 1 Nodes at node */
	OFS("tab_node", GCtab, node);
	OFS("tab_hmask", GCtab, hmask);
	P("node_size", sizeof(Node));
	OFS("node_val", Node, val);
	OFS("node_key", Node, key);
	/* A TValue's type, as itype() reads it (the top 17 bits in GC64, sign-extended) */
	P("it_str", (int32_t)LJ_TSTR);
	P("it_tab", (int32_t)LJ_TTAB);
	P("it_func", (int32_t)LJ_TFUNC);
	/* GC object type tags as stored in gct */
	P("gct_str", (unsigned char)~LJ_TSTR);
	P("gct_thread", (unsigned char)~LJ_TTHREAD);
	P("gct_proto", (unsigned char)~LJ_TPROTO);
	P("gct_func", (unsigned char)~LJ_TFUNC);
	P("gct_trace", (unsigned char)~LJ_TTRACE);
	/* Lua frames */
	P("frame_type", FRAME_TYPE);
	P("frame_p", FRAME_P);
	P("frame_typep", FRAME_TYPEP);
	P("frame_lua", FRAME_LUA);
	P("frame_c", FRAME_C);
	P("frame_cont", FRAME_CONT);
	P("frame_varg", FRAME_VARG);
	P("frame_luap", FRAME_LUAP);
	P("frame_cp", FRAME_CP);
	P("frame_pcall", FRAME_PCALL);
	P("frame_pcallh", FRAME_PCALLH);
	/* C frames (offsets from the cframe pointer, the VM's stack pointer) */
	P("cframe_ofs_prev", CFRAME_OFS_PREV);
	P("cframe_ofs_pc", CFRAME_OFS_PC);
	P("cframe_ofs_l", CFRAME_OFS_L);
	P("cframe_ofs_errf", CFRAME_OFS_ERRF);
	P("cframe_ofs_nres", CFRAME_OFS_NRES);
	P("cframe_ofs_multres", CFRAME_OFS_MULTRES);
	P("cframe_size", CFRAME_SIZE);
	P("cframe_size_jit", CFRAME_SIZE_JIT);
	P("cframe_resume", CFRAME_RESUME);
	P("cframe_unwind_ff", CFRAME_UNWIND_FF);
	P("cframe_rawmask", CFRAME_RAWMASK);
	/* VM states (g->vmstate holds ~state, or a trace number >= 0) */
	P("vmst_interp", LJ_VMST_INTERP);
	P("vmst_c", LJ_VMST_C);
	P("vmst_gc", LJ_VMST_GC);
	P("vmst_exit", LJ_VMST_EXIT);
	P("vmst_record", LJ_VMST_RECORD);
	P("vmst_opt", LJ_VMST_OPT);
	P("vmst_asm", LJ_VMST_ASM);
	P("vmst_max", LJ_VMST__MAX);
	/* Fast functions */
	P("ff_lua", FF_LUA);
	P("ff_c", FF_C);
	/* Bytecode */
	P("bc_max", BC__MAX);
	P("bc_isnext", BC_ISNEXT);
	P("bc_mov", BC_MOV);
	P("bc_kstr", BC_KSTR);
	P("bc_knil", BC_KNIL);
	P("bc_uget", BC_UGET);
	P("bc_fnew", BC_FNEW);
	P("bc_gget", BC_GGET);
	P("bc_gset", BC_GSET);
	P("bc_tgetv", BC_TGETV);
	P("bc_tgets", BC_TGETS);
	P("bc_tgetb", BC_TGETB);
	P("bc_tgetr", BC_TGETR);
	P("bc_tsetv", BC_TSETV);
	P("bc_tsets", BC_TSETS);
	P("bc_tsetb", BC_TSETB);
	P("bc_tsetm", BC_TSETM);
	P("bc_tsetr", BC_TSETR);
	P("bc_callm", BC_CALLM);
	P("bc_call", BC_CALL);
	P("bc_callmt", BC_CALLMT);
	P("bc_callt", BC_CALLT);
	P("bc_iterc", BC_ITERC);
	P("bc_itern", BC_ITERN);
	P("bc_varg", BC_VARG);
	P("bc_retm", BC_RETM);
	P("bc_ret", BC_RET);
	P("bc_ret0", BC_RET0);
	P("bc_ret1", BC_RET1);
	P("bc_jloop", BC_JLOOP);
	P("bc_funcf", BC_FUNCF);
	P("bc_ifuncf", BC_IFUNCF);
	P("bc_jfuncf", BC_JFUNCF);
	P("bc_funcv", BC_FUNCV);
	P("bc_ifuncv", BC_IFUNCV);
	P("bc_jfuncv", BC_JFUNCV);
	P("bc_funcc", BC_FUNCC);
	P("bc_funccw", BC_FUNCCW);
	P("bcm_base", BCMbase);
	P("bcm_dst", BCMdst);
	P("mm_index", MM_index);
	P("mm_newindex", MM_newindex);
	P("mm_call", MM_call);
	P("mm_max", MM__MAX);
	printf("\t\t.bcmode = {");
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		printf("%s%u,", i % 12 ? " " : "\n\t\t\t", modes[i]);
	printf("\n\t\t},\n");
	names("bc_names", bcnames, sizeof(bcnames) / sizeof(bcnames[0]));
	names("mm_names", mmnames, sizeof(mmnames) / sizeof(mmnames[0]));
	names("ff_names", ffnames, sizeof(ffnames) / sizeof(ffnames[0]));
	return 0;
}
PROBE
}

# probe_defs FORK GC64: the flags the probe of a variant is compiled with (its tree prepared by probe).
probe_defs() {
	echo "$(defines_of "$1" "$2")$(grep -q saved_jit_base "$WORK/$1-$2/src/lj_obj.h" && echo ' -DPROBE_SAVED_JIT_BASE')"
}

# probe_52 FORK GC64 TREE DEFS: the variant's built-ins with Lua 5.2 compatibility, whose
# rawlen, table.pack and debug.[gs]etuservalue move the numbers of those after them.
probe_52() {
	d52=$WORK/$1-$2-52
	if [ ! -f "$d52/src/lj_ffdef.h" ]; then
		rm -rf "$d52" && mkdir -p "$d52"
		cp -a "$3/src" "$3/dynasm" "$d52/"
		# a tree built already (Debian unstable's) holds a list made without these flags
		rm -f "$d52/src/lj_ffdef.h" "$d52/src/host/buildvm" "$d52"/src/host/*.o
		make -s -C "$d52/src" XCFLAGS="$4 -DLUAJIT_ENABLE_LUA52COMPAT" lj_ffdef.h >"$d52/make.log" 2>&1 \
			|| die "building lj_ffdef.h for $1 with Lua 5.2 compatibility failed, see $d52/make.log"
	fi
	# shellcheck disable=SC2086
	$HOSTCC -O0 -w $4 -DLUAJIT_ENABLE_LUA52COMPAT -I"$d52/src" -o "$d52/probe" "$WORK/$1-$2/probe.c" \
		|| die "probe for $1 with Lua 5.2 compatibility failed"
	"$d52/probe" | sed -n '/^\t\t\.ff_names =/,/^\t\t\.ff_names_count/p' | sed 's/\.ff_names/.ff_names52/' \
		>"$WORK/$1-$2/probe52.out"
}

# probe FORK GC64: prints the initialiser of one variant.
probe() {
	fork=$1; gc=$2
	tree=$(tree_of "$fork")
	dir=$WORK/$fork-$gc
	defs=$(defines_of "$fork" "$gc")
	if [ ! -f "$dir/src/lj_ffdef.h" ]; then
		rm -rf "$dir" && mkdir -p "$dir"
		cp -a "$tree/src" "$tree/dynasm" "$dir/"
		# Only the generated fast-function list is needed; buildvm makes it.
		make -s -C "$dir/src" XCFLAGS="$defs" lj_ffdef.h >"$dir/make.log" 2>&1 \
			|| die "building lj_ffdef.h for $fork failed, see $dir/make.log"
	fi
	defs=$(probe_defs "$fork" "$gc")
	write_probe "$dir/probe.c"
	# shellcheck disable=SC2086
	$HOSTCC -O0 -w $defs -I"$dir/src" -o "$dir/probe" "$dir/probe.c" || die "probe for $fork failed"
	"$dir/probe" >"$dir/probe.out" || die "running the probe for $fork failed"
	[ "$(grep -c "\.gc64 = $gc," "$dir/probe.out")" = 1 ] || die "$fork: GC64 mode is not $gc"
	probe_52 "$fork" "$gc" "$tree" "$defs"
	up=$(echo "$fork" | tr a-z A-Z)
	suffix=$([ "$gc" = 1 ] && echo GC64 || echo NOGC64)
	# OpenResty's 2025 tree is a second layout of its fork, told from the first by the live VM
	family=$up name=$fork
	[ "$fork" = openresty25 ] && family=OPENRESTY name="openresty 2025"
	echo "	{"
	echo "		.variant = LUAJIT_${up}_$suffix,"
	echo "		.fork = LUAJIT_FORK_$family,"
	echo "		.name = \"$name$([ "$gc" = 1 ] && echo ' GC64' || echo ' non-GC64')\","
	case $tree in "$SRC"/*) src=${tree#"$SRC"/} ;; *) src=${tree##*/} ;; esac
	echo "		.source = \"$src\","
	cat "$dir/probe.out" "$dir/probe52.out"
	heap_probe "$fork" "$gc"
	echo "	},"
}

# ---- heap snapshot fields (cmd/heap/heap_luajit_*.c) ----
# write_heap_probe FILE: a second probe, for what lua-flame heap reads: the collector's lists and
# counter, every object's size as the free functions of lj_gc.c's table give it back, the
# references the collector follows, and the VM's own blocks that gc.total counts.
write_heap_probe() {
	cat >"$1" <<'PROBE'
/* Prints the fields a heap snapshot of one LuaJIT variant reads (generated probe). */
#include <stdio.h>
#include <stddef.h>
#include "lj_obj.h"
#include "lj_str.h"
#include "lj_state.h"
#include "lj_ir.h"
#include "lj_jit.h"
#include "lj_ctype.h"
#if defined(LJ_HASBUFFER) && LJ_HASBUFFER
#include "lj_buf.h"
#endif

#define P(name, val) printf("\t\t.%s = %lld,\n", name, (long long)(val))
#define OFS(name, type, field) P(name, offsetof(type, field))
#define FSIZE(name, type, field) P(name, sizeof(((type *)0)->field))

int main(void)
{
	P("hp_ok", 1);
	OFS("gch_marked", GChead, marked);
	OFS("g_gc_total", global_State, gc.total);
	FSIZE("gcsize_size", global_State, gc.total);
	OFS("g_gc_root", global_State, gc.root);
	OFS("g_gc_mmudata", global_State, gc.mmudata);
#ifdef PROBE_STR_INTERN
	OFS("g_strtab", global_State, str.tab);
	OFS("g_strmask", global_State, str.mask);
	P("g_str_tagged", 1);  /* bit 0 of a chain's anchor marks secondary hashing */
#else
	OFS("g_strtab", global_State, strhash);
	OFS("g_strmask", global_State, strmask);
	P("g_str_tagged", 0);
#endif
	OFS("g_tmpbuf_b", global_State, tmpbuf.b);
	OFS("g_tmpbuf_e", global_State, tmpbuf.e);
	FSIZE("sbuf_ptr_size", global_State, tmpbuf.b);
	OFS("g_gcroot", global_State, gcroot);
	P("gcroot_max", GCROOT_MAX);
	P("gcroot_basemt", GCROOT_BASEMT);
	P("gcroot_basemt_num", GCROOT_BASEMT_NUM);
	OFS("g_ctype_state", global_State, ctype_state);
#ifdef PROBE_LIGHTUDSEG
	OFS("g_lightudseg", global_State, gc.lightudseg);
	OFS("g_lightudnum", global_State, gc.lightudnum);
#else
	P("g_lightudseg", -1);
	P("g_lightudnum", -1);
#endif
	OFS("L_env", lua_State, env);
	OFS("L_openupval", lua_State, openupval);
	P("tab_size", sizeof(GCtab));
	OFS("tab_colo", GCtab, colo);
	OFS("tab_array", GCtab, array);
	OFS("tab_metatable", GCtab, metatable);
	OFS("tab_asize", GCtab, asize);
#ifdef lj_str_size
	P("str_round4", 1);  /* lj_str_size: the characters and NUL rounded up to 4 bytes */
#else
	P("str_round4", 0);  /* sizestring: the characters and NUL */
#endif
	P("ud_size", sizeof(GCudata));
	OFS("ud_udtype", GCudata, udtype);
	OFS("ud_env", GCudata, env);
	OFS("ud_len", GCudata, len);
	OFS("ud_metatable", GCudata, metatable);
	P("fn_c_size0", sizeCfunc(0));
	P("fn_l_size0", sizeLfunc(0));
	P("uv_size", sizeof(GCupval));
	OFS("uv_closed", GCupval, closed);
	OFS("uv_tv", GCupval, tv);
	OFS("uv_v", GCupval, v);
	P("T_size", (sizeof(GCtrace) + 7) & ~7);
	OFS("T_nins", GCtrace, nins);
	OFS("T_nk", GCtrace, nk);
	OFS("T_nsnap", GCtrace, nsnap);
	FSIZE("nsnap_size", GCtrace, nsnap);
	OFS("T_nsnapmap", GCtrace, nsnapmap);
	OFS("T_ir", GCtrace, ir);
	OFS("T_nextroot", GCtrace, nextroot);
	OFS("T_nextside", GCtrace, nextside);
	P("irins_size", sizeof(IRIns));
	P("snap_size", sizeof(SnapShot));
	P("snapentry_size", sizeof(SnapEntry));
	OFS("ir_o", IRIns, o);
	OFS("ir_t", IRIns, t);
	P("ir_kgc", IR_KGC);
	P("ir_knull", IR_KNULL);
	P("irt_type_mask", IRT_TYPE);
	P("irt_is64", IRT_IS64);
	P("ref_true", REF_TRUE);
	OFS("J_irbuf", jit_State, irbuf);
	OFS("J_irtoplim", jit_State, irtoplim);
	OFS("J_irbotlim", jit_State, irbotlim);
	OFS("J_sizesnap", jit_State, sizesnap);
	OFS("J_sizesnapmap", jit_State, sizesnapmap);
	P("cd_size", sizeof(GCcdata));
	OFS("cd_ctypeid", GCcdata, ctypeid);
	{
		GCcdata cd = { 0 };
		int bit = -1;
		for (int i = 0; i < 8 && bit < 0; i++) {
			cd.marked = (uint8_t)(1u << i);
			if (cdataisv(&cd))
				bit = i;
		}
		P("cd_varmark", bit < 0 ? 0 : 1 << bit);
	}
	P("cdv_size", sizeof(GCcdataVar));
	OFS("cdv_extra", GCcdataVar, extra);
	OFS("cdv_len", GCcdataVar, len);
#if LJ_HASFFI
	P("cts_size", sizeof(CTState));
	OFS("cts_tab", CTState, tab);
	OFS("cts_sizetab", CTState, sizetab);
	OFS("cts_cbid", CTState, cb.cbid);
	OFS("cts_sizeid", CTState, cb.sizeid);
	P("ctype_size", sizeof(CType));
	OFS("ctype_info", CType, info);
	OFS("ctype_sizefield", CType, size);
	P("ct_shift_num", CTSHIFT_NUM);
	P("ct_hassize", CT_HASSIZE);
	P("ct_attrib", CT_ATTRIB);
	P("ct_cidmask", CTMASK_CID);
	P("ctsize_ptr", CTSIZE_PTR);
#else
	P("cts_size", -1);
#endif
	P("gct_upval", (unsigned char)~LJ_TUPVAL);
	P("gct_cdata", (unsigned char)~LJ_TCDATA);
	P("gct_tab", (unsigned char)~LJ_TTAB);
	P("gct_udata", (unsigned char)~LJ_TUDATA);
	P("it_udata", (int32_t)LJ_TUDATA);
	P("it_isnum", (int32_t)LJ_TISNUM);
	/* string.buffer objects: userdata whose payload owns a buffer unless it borrows one */
#if defined(LJ_HASBUFFER) && LJ_HASBUFFER
	P("udtype_buffer", UDTYPE_BUFFER);
	OFS("sbx_b", SBufExt, b);
	OFS("sbx_e", SBufExt, e);
	OFS("sbx_flags", SBufExt, L);
	P("sbx_notowned", SBUF_FLAG_COW | SBUF_FLAG_BORROW);
	OFS("sbx_cowref", SBufExt, cowref);
	OFS("sbx_dict_str", SBufExt, dict_str);
	OFS("sbx_dict_mt", SBufExt, dict_mt);
#else
	P("udtype_buffer", -1);
	P("sbx_b", -1);
	P("sbx_e", -1);
	P("sbx_flags", -1);
	P("sbx_notowned", -1);
	P("sbx_cowref", -1);
	P("sbx_dict_str", -1);
	P("sbx_dict_mt", -1);
#endif
	return 0;
}
PROBE
}

# heap_probe_defs LJ_OBJ_H: the flags that tell the heap probe which fields a tree has.
heap_probe_defs() {
	grep -q 'StrInternState str;' "$1" && printf ' -DPROBE_STR_INTERN'
	grep -q 'lightudseg;' "$1" && printf ' -DPROBE_LIGHTUDSEG'
	return 0
}

# heap_probe FORK GC64: the heap fields of a variant whose tree probe prepared.
heap_probe() {
	dir=$WORK/$1-$2
	defs="$(probe_defs "$1" "$2") $(heap_probe_defs "$dir/src/lj_obj.h")"
	write_heap_probe "$dir/heap_probe.c"
	# shellcheck disable=SC2086
	$HOSTCC -O0 -w $defs -I"$dir/src" -o "$dir/heap_probe" "$dir/heap_probe.c" || die "heap probe for $1 failed"
	"$dir/heap_probe" >"$dir/heap_probe.out" || die "running the heap probe for $1 failed"
	cat "$dir/heap_probe.out"
}
# heap_probe_arm64 FORK: the heap fields of a fork's GC64 variant on aarch64, under qemu.
heap_probe_arm64() {
	src=$WORK/$1-1
	# shellcheck disable=SC2046
	$A64CC -static -O0 -w $(probe_defs "$1" 1) $(heap_probe_defs "$src/src/lj_obj.h") -I"$src/src" \
		-o "$WORK/arm64/heap_probe-$1" "$src/heap_probe.c" || die "compiling the $1 heap probe for aarch64 failed"
	qemu-aarch64-static "$WORK/arm64/heap_probe-$1" || die "running the $1 aarch64 heap probe failed"
}
# ---- end of the heap snapshot fields ----

# The numeric lines of a probe's output or of the arm64 table's. The name lists and bcmode are
# checked apart: the table holds one set for both architectures.
NUMBER='^		\.[A-Za-z0-9_]+ = -?[0-9]+,$'
numbers() { grep -E "$NUMBER" "$1"; }

# write_table_dump FILE: a program that prints the arm64 build's own layout of a fork's GC64
# variant, field by field as the probe prints it, so the two outputs diff line by line.
write_table_dump() {
	{
		cat <<'DUMP'
/* Prints the layout lua-flame uses on this architecture for a fork's GC64 variant (generated). */
#include <stdio.h>
#include <string.h>
#include "luajit_layouts.h"

#define P(name, val) printf("\t\t.%s = %lld,\n", name, (long long)(val))

int main(int argc, char **argv)
{
	const struct luajit_layout *l = NULL;
	for (int f = LUAJIT_FORK_UPSTREAM; f <= LUAJIT_FORK_TARANTOOL && argc > 1; f++)
		if (!strcmp(argv[1], luajit_fork_name((enum luajit_fork)f)))
			l = luajit_layout_get(luajit_variant_of((enum luajit_fork)f, 1));
	if (!l)
		return 1;
DUMP
		# Every number the probe prints, once (g_saved_jit_base has a line on each side of an
		# #if), then the lengths of its name lists.
		{
			sed -n 's/^[[:space:]]*\(P\|OFS\)("\([A-Za-z0-9_]*\)".*/\2/p' "$WORK/upstream-1/probe.c"
			printf '%s\n' bc_names_count mm_names_count ff_names_count
			sed -n 's/^[[:space:]]*\(P\|OFS\|FSIZE\)("\([A-Za-z0-9_]*\)".*/\2/p' "$WORK/upstream-1/heap_probe.c"
		} | awk '!seen[$0]++ { printf "\tP(\"%s\", l->%s);\n", $0, $0 }'
		printf '\treturn 0;\n}\n'
	} >"$1"
}

# check_arm64: arm64 is always GC64 (lj_arch.h sets LJ_TARGET_GC64 for it unconditionally), so
# each fork's GC64 variant is probed for aarch64 and compared with the table lua-flame's arm64
# build holds; the fields where arm64 differs from x86-64 are listed.
check_arm64() {
	for tool in "$A64CC" qemu-aarch64-static; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			echo "luajit layouts: arm64 not checked: $tool is missing (sh scripts/install-packages.sh --arm64 installs it)"
			return 0
		fi
	done
	dir=$WORK/arm64
	mkdir -p "$dir"
	write_table_dump "$dir/table.c"
	# util.c takes its arena and short copies from render/
	$A64CC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -static -I"$ROOT/bpf" -I"$ROOT/cmd" -I"$ROOT/cmd/lua/luajit" \
		-I"$ROOT/render" -o "$dir/table" "$dir/table.c" "$ROOT/cmd/lua/luajit/luajit_layouts.c" \
		"$ROOT/cmd/lua/luajit/luajit_layouts_table.c" "$ROOT/cmd/lua/luajit/luajit_arch.c" "$ROOT/cmd/util.c" "$ROOT/cmd/safe_name.c" \
		"$ROOT/render/arena.c" -lpthread || die "compiling the arm64 table dump failed"
	bad=0
	for fork in upstream openresty tarantool; do
		src=$WORK/$fork-1
		# shellcheck disable=SC2046
		$A64CC -static -O0 -w $(probe_defs "$fork" 1) -I"$src/src" -o "$dir/probe-$fork" "$src/probe.c" \
			|| die "compiling the $fork probe for aarch64 failed"
		qemu-aarch64-static "$dir/probe-$fork" >"$dir/probe-$fork.out" \
			|| die "running the $fork aarch64 probe under qemu-aarch64-static failed"
		grep -q '^		\.gc64 = 1,$' "$dir/probe-$fork.out" || die "$fork: the aarch64 probe is not GC64"
		heap_probe_arm64 "$fork" >>"$dir/probe-$fork.out"
		qemu-aarch64-static "$dir/table" "$fork" >"$dir/table-$fork.out" \
			|| die "the arm64 table has no $fork GC64 layout"
		grep -v -E "$NUMBER" "$src/probe.out" >"$dir/x86-$fork.rest"
		grep -v -E "$NUMBER" "$dir/probe-$fork.out" >"$dir/arm64-$fork.rest"
		cmp -s "$dir/x86-$fork.rest" "$dir/arm64-$fork.rest" \
			|| die "$fork: name lists or bcmode differ on arm64 (diff $dir/x86-$fork.rest $dir/arm64-$fork.rest); the table holds one set for both"
		numbers "$src/probe.out" >"$dir/x86-$fork.num"
		numbers "$src/heap_probe.out" >>"$dir/x86-$fork.num"
		numbers "$dir/probe-$fork.out" >"$dir/arm64-$fork.num"
		# The same probe prints the same fields in the same order on both architectures.
		moved=$(paste -d' ' "$dir/x86-$fork.num" "$dir/arm64-$fork.num" | awk '
			$3 != $6 { sub(/^\./, "", $1); sub(/,$/, "", $3); sub(/,$/, "", $6); printf " %s %s>%s", $1, $3, $6 }')
		if numbers "$dir/table-$fork.out" | diff -u "$dir/arm64-$fork.num" - >"$dir/$fork.diff"; then
			echo "luajit layouts: arm64 $fork GC64 matches luajit_arch.c (x86-64>arm64:$moved)"
		else
			echo "luajit layouts: arm64 $fork GC64: the table as luajit_arch.c patches it (+) differs from the aarch64 probe (-):" >&2
			cat "$dir/$fork.diff" >&2
			bad=1
		fi
	done
	echo "luajit layouts: arm64 has no non-GC64 variants (lj_arch.h makes every arm64 build GC64)"
	[ "$bad" = 0 ] || die "cmd/lua/luajit/luajit_arch.c does not give arm64's layout; fix luajit_layout_arch"
}

# The lines around the table are generated too, so that --check can compare the whole file and no
# hand edit to it survives a rerun. The first line warns off such edits.
emit_header() {
	echo "/* Generated by scripts/gen-luajit-layouts.sh from each variant's own headers: do not edit, rerun the script. */"
	echo '#include "luajit_layouts.h"'
	echo
}

emit_trailer() {
	echo
	echo 'const size_t luajit_layout_count = sizeof luajit_layout_table / sizeof luajit_layout_table[0];'
}

generate() {
	emit_header
	echo "const struct luajit_layout luajit_layout_table[] = {"
	for fork in upstream beta3 openresty openresty25 tarantool; do
		probe "$fork" 1
		probe "$fork" 0
	done
	echo "};"
	emit_trailer
}

# option_of NAME: the fork and compiler flags of a build made by --build-option NAME.
option_of() {
	case $1 in
	upstream-lua52) echo "upstream -DLUAJIT_ENABLE_LUA52COMPAT" ;;
	upstream-nogc64-lua52) echo "upstream -DLUAJIT_DISABLE_GC64 -DLUAJIT_ENABLE_LUA52COMPAT" ;;
	upstream-nummode2) echo "upstream -DLUAJIT_NUMMODE=2" ;;
	upstream-sysmalloc) echo "upstream -DLUAJIT_USE_SYSMALLOC" ;;
	upstream-noffi) echo "upstream -DLUAJIT_DISABLE_FFI" ;;
	upstream-nojit) echo "upstream -DLUAJIT_DISABLE_JIT" ;;
	openresty-lua52) echo "openresty -DLUAJIT_ENABLE_LUA52COMPAT" ;;
	beta3) echo "beta3" ;;
	beta3-gc64) echo "beta3 -DLUAJIT_ENABLE_GC64" ;;
	beta3-lua52) echo "beta3 -DLUAJIT_ENABLE_LUA52COMPAT -DLUAI_HASHLIMIT=6" ;; # LuaJITTeX's flags
	*) die "unknown build option set $1" ;;
	esac
}

# build_option NAME DIR: an interpreter (DIR/src/luajit) built with the flags of NAME.
build_option() {
	set -- "$1" "$2" $(option_of "$1")
	name=$1 dir=$2 tree=$(tree_of "$3")
	shift 3
	[ -x "$dir/src/luajit" ] && [ "$(cat "$dir/flags" 2>/dev/null)" = "$*" ] && return 0
	rm -rf "$dir" && mkdir -p "$dir"
	cp -a "$tree/src" "$tree/dynasm" "$dir/"
	make -s -C "$dir/src" clean >/dev/null 2>&1 || true
	make -s -C "$dir/src" -j2 XCFLAGS="$*" >"$dir/build.log" 2>&1 \
		|| die "building LuaJIT with $name's flags ($*) failed, see $dir/build.log"
	echo "$*" >"$dir/flags"
	echo "luajit layouts: built $dir/src/luajit ($name: ${*:-default flags})"
}

fetch_sources
mkdir -p "$WORK"
if [ "$MODE" = --build-option ]; then
	[ $# = 3 ] || die "usage: $0 --build-option NAME DIR"
	build_option "$2" "$3"
	exit 0
fi
if [ "$MODE" = --build-vms ]; then
	for fork in upstream openresty; do
		probe "$fork" 0 >/dev/null
		make -s -C "$WORK/$fork-0/src" -j2 XCFLAGS="$(defines_of "$fork" 0)" >"$WORK/$fork-0/vm.log" 2>&1 \
			|| die "building the $fork non-GC64 VM failed, see $WORK/$fork-0/vm.log"
		echo "luajit layouts: built $WORK/$fork-0/src/luajit"
	done
	exit 0
fi
generate >"$WORK/table.c.new"
if [ "$MODE" = --check ]; then
	if diff -u "$TARGET" "$WORK/table.c.new"; then
		echo "luajit layouts: up to date"
		check_arm64
	else
		die "cmd/lua/luajit/luajit_layouts_table.c differs from the sources; run $0"
	fi
else
	cp "$WORK/table.c.new" "$TARGET"
	echo "luajit layouts: wrote $TARGET"
fi
