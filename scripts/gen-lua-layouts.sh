#!/bin/sh
# Generates cmd/lua/puc/puc_layouts_table.c, the PUC Lua 5.1-5.5 layout tables, whole, by compiling offsetof()
# probes against the real sources: Debian's lua5.1..lua5.4 source packages (fetched with apt-get source into
# .cache/src), Debian unstable's lua5.5 and lua5.4 (scripts/build-lua-sources.sh) and, when LUA_GIT
# names a clone of https://github.com/lua/lua (bare or not), every 5.1-5.5 release tag. Patch
# releases with identical output share one table.
#
#   scripts/gen-lua-layouts.sh            rewrite the file (needs LUA_GIT)
#   scripts/gen-lua-layouts.sh --print    print the file it would write (needs LUA_GIT)
#   scripts/gen-lua-layouts.sh --check    compare each release probed with the committed table covering it
#                                         and, with LUA_GIT, diff the whole file with the one it would write
#                                         (without LUA_GIT, Debian lacks most releases the file covers)
# LUA_EXTRA="DIR..." adds source trees (directories holding lstate.h, e.g. an embedder's copy of
# Lua) that --check compares against the committed table of their version.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=${LUA_SRC:-$ROOT/.cache/src}
WORK=$ROOT/.cache/lua-layouts
TARGET=$ROOT/cmd/lua/puc/puc_layouts_table.c
CC_PROBE=${CC_PROBE:-gcc}
MODE=${1:-write}

OPS="MOVE LOADK LOADKX LOADNIL GETUPVAL GETGLOBAL GETTABUP GETTABLE GETI GETFIELD GETVARG SETGLOBAL SETTABUP
SETUPVAL SETTABLE SETI SETFIELD SELF ADD SUB MUL MOD POW DIV IDIV BAND BOR BXOR SHL SHR UNM BNOT NOT
LEN CONCAT JMP EQ LT LE EQK EQI LTI LEI GTI GEI TEST TESTSET CALL TAILCALL RETURN RETURN0 RETURN1
FORLOOP FORPREP TFORPREP TFORCALL TFORLOOP SETLIST CLOSURE VARARG VARARGPREP MMBIN MMBINI MMBINK
CLOSE TBC EXTRAARG"
TMS="INDEX NEWINDEX GC MODE LEN EQ ADD SUB MUL MOD POW DIV IDIV BAND BOR BXOR SHL SHR UNM BNOT LT LE
CONCAT CALL CLOSE N"

die() { echo "gen-lua-layouts: $*" >&2; exit 1; }

# Debian's source trees, fetched on first use.
debian_trees() {
	mkdir -p "$SRC"
	for v in 5.1 5.2 5.3 5.4; do
		d=$(ls -d "$SRC"/lua"$v"-*/src 2>/dev/null | head -1)
		if [ -z "$d" ]; then
			(cd "$SRC" && apt-get source -q "lua$v" >/dev/null) || die "apt-get source lua$v failed"
			d=$(ls -d "$SRC"/lua"$v"-*/src | head -1)
		fi
		echo "$d"
	done
	# newer releases than Debian 12 has, from Debian unstable's source packages
	"$ROOT/scripts/build-lua-sources.sh" || die "building Debian unstable's Lua sources failed"
	ls -d "$("$ROOT/scripts/build-lua-sources.sh" --dir)"/lua5.*-*/src
}

# Release tags v5.1 .. v5.5.N of the upstream repository, unpacked under $WORK/git.
git_trees() {
	[ -n "${LUA_GIT:-}" ] || return 0
	[ -d "$LUA_GIT/.git" ] && LUA_GIT=$LUA_GIT/.git
	for tag in $(git --git-dir="$LUA_GIT" tag -l 'v5.[1-5]*' | grep -E '^v5\.[1-5](\.[0-9]+)?$'); do
		d=$WORK/git/$tag
		if [ ! -f "$d/lstate.h" ]; then
			rm -rf "$d" && mkdir -p "$d"
			git --git-dir="$LUA_GIT" archive "$tag" | tar -x -C "$d"
		fi
		echo "$d"
	done
}

# Writes the opcode and metamethod lists present in tree $1 as probe macro calls.
probe_lists() {
	for o in $OPS; do
		if grep -Eq "^[[:space:]]*OP_$o([[:space:],/]|\$)" "$1/lopcodes.h"; then echo "OPC($o)"; else echo "OPN($o)"; fi
	done
	echo "OPEND()"
	for m in $TMS; do
		if grep -Eq "^[[:space:]]*TM_$m([[:space:],/=]|\$)" "$1/ltm.h"; then echo "TMC($m)"; else echo "TMN($m)"; fi
	done
	echo "TMEND()"
}

# have NAME REGEX FILE: defines HAVE_NAME to 1 when FILE matches the extended REGEX, else to 0.
have() {
	if grep -qE "$2" "$3"; then echo "#define HAVE_$1 1"; else echo "#define HAVE_$1 0"; fi
}

write_probe() {
	cat >"$1/probe.c" <<'PROBE'
/* Prints the layout of the Lua version it is compiled against, as C designated initialisers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lstate.c"    /* LG and LX are private to lstate.c */
#include "lopcodes.c"  /* the opmode table */
#include "lfunc.h"
#include "lstring.h"
#include "ltm.h"
#include "have.h"  /* fields that came and went within a minor version */

typedef struct { CommonHeader; } GCheader_probe;  /* every collectable object starts so */

#define NONE 0xffffL
#define V LUA_VERSION_NUM
static void put(const char *name, long v)
{
	if (v == NONE) printf("\t\t.%s = LUA_OFF_NONE,\n", name);
	else printf("\t\t.%s = %ld,\n", name, v);
}
#define F(n, v) put(#n, (long)(v))
#define N(n) put(#n, NONE)
#define OFF(n, type, field) F(n, offsetof(type, field))
#define FSZ(type, field) sizeof(((type *)0)->field)

/* Values beyond 16 bits (instruction field offsets); 0 when absent. */
#define F32(n, v) printf("\t\t.%s = %ld,\n", #n, (long)(v))

static int col;
static void item(const char *s)
{
	int n = (int)strlen(s);
	if (col + n + 1 > 100) { printf("\n\t\t\t"); col = 24; }
	else if (col > 24) { printf(" "); col++; }
	printf("%s", s); col += n;
}
static void list_begin(const char *name) { printf("\t\t.%s = {\n\t\t\t", name); col = 24; }
static void list_end(void) { printf("\n\t\t},\n"); }
static void named(const char *prefix, const char *n, int v)
{
	char b[64];
	if (v < 0) snprintf(b, sizeof b, "[%s%s] = LUA_OP_NONE,", prefix, n);
	else snprintf(b, sizeof b, "[%s%s] = %d,", prefix, n, v);
	item(b);
}
#define OPC(n) named("LOP_", #n, OP_##n);
#define OPN(n) named("LOP_", #n, -1);
#define OPEND() list_end(); list_begin("tm");
#define TMC(n) named("LTM_", #n, TM_##n);
#define TMN(n) named("LTM_", #n, -1);
#define TMEND() list_end();

static int patch_level(void)
{
#if defined(LUA_VERSION_RELEASE)
	return atoi(LUA_VERSION_RELEASE);
#elif defined(LUA_RELEASE)
	const char *d = strrchr(LUA_RELEASE, '.');
	return d ? atoi(d + 1) : 0;
#else
	return 0;   /* 5.1.0 named itself just "Lua 5.1" */
#endif
}

static void flags(void)
{
	/* Every version has at least one flag: 5.1 the first, later ones LUA_LF_LCF. */
#if V == 501
	printf("\t\t.flags = LUA_LF_CI_ARRAY | LUA_LF_L_SAVEDPC | LUA_LF_CL_ISC");
#else
	printf("\t\t.flags = LUA_LF_LCF");
#endif
#if HAVE_TS_SHRLEN
	printf(" | LUA_LF_STR_SHRLEN");
#endif
#if HAVE_TS_LNGPTR
	printf(" | LUA_LF_STR_LNGPTR");
#endif
#if V >= 505
	printf(" | LUA_LF_MAIN_IN_G");
#endif
#if V >= 504
	printf(" | LUA_LF_ABSLINEINFO\n\t\t\t| LUA_LF_STACKVALUE");
#if !defined(CIST_FRESH)
	printf(" | LUA_LF_CALL_RECURSES");
#endif
#endif
#if defined(POS_k)
	printf(" | LUA_LF_OP_KBIT");
#endif
	printf(",\n");
}

static void state(void)
{
	OFF(gch_tt, GCheader_probe, tt);
	OFF(l_status, lua_State, status);
	OFF(l_top, lua_State, top);
#if V == 501
	OFF(l_base, lua_State, base);
#else
	N(l_base);
#endif
	OFF(l_l_G, lua_State, l_G);
	OFF(l_ci, lua_State, ci);
#if V == 501
	OFF(l_savedpc, lua_State, savedpc);
#else
	N(l_savedpc);
#endif
	OFF(l_stack_last, lua_State, stack_last);
	OFF(l_stack, lua_State, stack);
#if V == 501
	OFF(l_end_ci, lua_State, end_ci);
#else
	N(l_end_ci);
#endif
	OFF(l_base_ci, lua_State, base_ci);
#if V == 501
	OFF(l_size_ci, lua_State, size_ci);
#else
	N(l_size_ci);
#endif
#if HAVE_L_NCI
	OFF(l_nci, lua_State, nci);
#else
	N(l_nci);
#endif
	F(l_sizeof, sizeof(lua_State));
#if V >= 505
	N(g_mainthread);   /* the main thread is embedded in global_State */
#else
	OFF(g_mainthread, global_State, mainthread);
#endif
	OFF(g_tmname, global_State, tmname);
	OFF(g_l_registry, global_State, l_registry);
	F(g_sizeof, sizeof(global_State));
#if V >= 505
	/* lua_newstate allocates global_State alone; it holds the main thread (mainth) */
	OFF(lg_l, global_State, mainth.l);
	F(lg_g, 0);
	F(lg_sizeof, sizeof(global_State));
#elif V <= 502
	OFF(lg_l, LG, l);
	OFF(lg_g, LG, g);
	F(lg_sizeof, sizeof(LG));
#else
	OFF(lg_l, LG, l.l);
	OFF(lg_g, LG, g);
	F(lg_sizeof, sizeof(LG));
#endif
}

static void callinfo(void)
{
	OFF(ci_func, CallInfo, func);
	OFF(ci_top, CallInfo, top);
#if V == 501
	OFF(ci_base, CallInfo, base);
	OFF(ci_savedpc, CallInfo, savedpc);
	N(ci_previous); N(ci_next);
#else
#if V <= 503
	OFF(ci_base, CallInfo, u.l.base);
#else
	N(ci_base);
#endif
	OFF(ci_savedpc, CallInfo, u.l.savedpc);
	OFF(ci_previous, CallInfo, previous);
	OFF(ci_next, CallInfo, next);
#endif
#if V >= 505
	N(ci_nresults);   /* the low bits of callstatus */
#else
	OFF(ci_nresults, CallInfo, nresults);
#endif
#if V == 501
	N(ci_callstatus); N(ci_callstatus_size);
	OFF(ci_tailcalls, CallInfo, tailcalls);
#else
	OFF(ci_callstatus, CallInfo, callstatus);
	F(ci_callstatus_size, FSZ(CallInfo, callstatus));
	N(ci_tailcalls);
#endif
	F(ci_sizeof, sizeof(CallInfo));
#ifndef CIST_LUA
#define CIST_LUA 0
#endif
#ifndef CIST_C
#define CIST_C 0
#endif
#ifndef CIST_FRESH
#define CIST_FRESH 0
#endif
#ifndef CIST_REENTRY
#define CIST_REENTRY 0
#endif
#ifndef CIST_TAIL
#define CIST_TAIL 0
#endif
#ifndef CIST_HOOKED
#define CIST_HOOKED 0
#endif
#ifndef CIST_FIN
#define CIST_FIN 0
#endif
	F(cist_lua, CIST_LUA); F(cist_c, CIST_C); F(cist_fresh, CIST_FRESH);
	F(cist_reentry, CIST_REENTRY); F(cist_tail, CIST_TAIL); F(cist_hooked, CIST_HOOKED);
	F(cist_fin, CIST_FIN);
}

static void values(void)
{
	F(tv_sizeof, sizeof(TValue));
#if V == 501
	OFF(tv_value, TValue, value);
	OFF(tv_tt, TValue, tt);
	F(tv_tt_size, FSZ(TValue, tt));
	F(stack_slot, sizeof(TValue));
	F(tvtag_lcl, LUA_TFUNCTION); F(tvtag_ccl, LUA_TFUNCTION); N(tvtag_lcf); F(tvtag_table, LUA_TTABLE);
	F(tvtag_shrstr, LUA_TSTRING); F(tvtag_lngstr, LUA_TSTRING);
	F(gctag_thread, LUA_TTHREAD); F(gctag_lcl, LUA_TFUNCTION); F(gctag_ccl, LUA_TFUNCTION);
	F(gctag_proto, LUA_TPROTO); F(gctag_shrstr, LUA_TSTRING); F(gctag_lngstr, LUA_TSTRING);
#else
	OFF(tv_value, TValue, value_);
	OFF(tv_tt, TValue, tt_);
	F(tv_tt_size, FSZ(TValue, tt_));
#if V >= 504
	F(stack_slot, sizeof(StackValue));
	F(tvtag_lcl, ctb(LUA_VLCL)); F(tvtag_ccl, ctb(LUA_VCCL)); F(tvtag_lcf, LUA_VLCF);
	F(tvtag_table, ctb(LUA_VTABLE));
	F(tvtag_shrstr, ctb(LUA_VSHRSTR)); F(tvtag_lngstr, ctb(LUA_VLNGSTR));
	F(gctag_thread, LUA_VTHREAD); F(gctag_lcl, LUA_VLCL); F(gctag_ccl, LUA_VCCL);
	F(gctag_proto, LUA_VPROTO); F(gctag_shrstr, LUA_VSHRSTR); F(gctag_lngstr, LUA_VLNGSTR);
#else
	F(stack_slot, sizeof(TValue));
	F(tvtag_lcl, ctb(LUA_TLCL)); F(tvtag_ccl, ctb(LUA_TCCL)); F(tvtag_lcf, LUA_TLCF);
	F(tvtag_table, ctb(LUA_TTABLE));
#ifndef LUA_TSHRSTR  /* 5.2.0 had one string type */
#define LUA_TSHRSTR LUA_TSTRING
#define LUA_TLNGSTR LUA_TSTRING
#endif
	F(tvtag_shrstr, ctb(LUA_TSHRSTR)); F(tvtag_lngstr, ctb(LUA_TLNGSTR));
	F(gctag_thread, LUA_TTHREAD); F(gctag_lcl, LUA_TLCL); F(gctag_ccl, LUA_TCCL);
	F(gctag_proto, LUA_TPROTO); F(gctag_shrstr, LUA_TSHRSTR); F(gctag_lngstr, LUA_TLNGSTR);
#endif
#endif
}

static void closures(void)
{
#if V == 501
	OFF(cl_isC, CClosure, isC);
#else
	N(cl_isC);
#endif
	OFF(cl_nupvalues, CClosure, nupvalues);
	OFF(lcl_p, LClosure, p);
	OFF(lcl_upvals, LClosure, upvals);
	OFF(ccl_f, CClosure, f);
	OFF(ccl_upvalue, CClosure, upvalue);
}

/* A table's hash part, where the registry keeps package.loaded and modules keep their functions */
static void tables(void)
{
	OFF(t_lsizenode, Table, lsizenode);
	OFF(t_node, Table, node);
	F(n_sizeof, sizeof(Node));
	OFF(n_val, Node, i_val);
#if V >= 504
	OFF(n_key_tt, Node, u.key_tt); F(n_key_tt_size, FSZ(Node, u.key_tt)); OFF(n_key_val, Node, u.key_val);
#elif V == 501
	OFF(n_key_tt, Node, i_key.tvk.tt); F(n_key_tt_size, FSZ(Node, i_key.tvk.tt));
	OFF(n_key_val, Node, i_key.tvk.value);
#else
	OFF(n_key_tt, Node, i_key.tvk.tt_); F(n_key_tt_size, FSZ(Node, i_key.tvk.tt_));
	OFF(n_key_val, Node, i_key.tvk.value_);
#endif
}

static void proto(void)
{
	OFF(p_source, Proto, source);
	OFF(p_linedefined, Proto, linedefined);
	OFF(p_lastlinedefined, Proto, lastlinedefined);
	OFF(p_code, Proto, code);
	OFF(p_sizecode, Proto, sizecode);
	OFF(p_lineinfo, Proto, lineinfo);
	F(p_lineinfo_size, sizeof(((Proto *)0)->lineinfo[0]));
	OFF(p_sizelineinfo, Proto, sizelineinfo);
#if V >= 504
	OFF(p_abslineinfo, Proto, abslineinfo);
	OFF(p_sizeabslineinfo, Proto, sizeabslineinfo);
#else
	N(p_abslineinfo); N(p_sizeabslineinfo);
#endif
	OFF(p_k, Proto, k); OFF(p_sizek, Proto, sizek);
	OFF(p_upvalues, Proto, upvalues); OFF(p_sizeupvalues, Proto, sizeupvalues);
	OFF(p_locvars, Proto, locvars); OFF(p_sizelocvars, Proto, sizelocvars);
	OFF(p_p, Proto, p); OFF(p_sizep, Proto, sizep);
	OFF(p_numparams, Proto, numparams);
#if V >= 505
	OFF(p_is_vararg, Proto, flag);   /* PF_VAHID | PF_VATAB */
#else
	OFF(p_is_vararg, Proto, is_vararg);
#endif
	OFF(p_maxstacksize, Proto, maxstacksize);
	F(p_sizeof, sizeof(Proto));
#if V >= 504
	F(ali_sizeof, sizeof(AbsLineInfo)); OFF(ali_pc, AbsLineInfo, pc); OFF(ali_line, AbsLineInfo, line);
#else
	N(ali_sizeof); N(ali_pc); N(ali_line);
#endif
#if V == 501
	F(uv_sizeof, sizeof(TString *)); F(uv_name, 0);
#else
	F(uv_sizeof, sizeof(Upvaldesc)); OFF(uv_name, Upvaldesc, name);
#endif
	F(lv_sizeof, sizeof(LocVar)); OFF(lv_varname, LocVar, varname);
	OFF(lv_startpc, LocVar, startpc); OFF(lv_endpc, LocVar, endpc);
}

static void strings(void)
{
	static union { long double a; void *p; char b[256]; } buf;
	TString *ts = (TString *)(void *)&buf;
	F(ts_contents, (const char *)getstr(ts) - (const char *)ts);
#if V <= 502
	OFF(ts_len, TString, tsv.len); N(ts_shrlen); N(ts_lnglen);
#elif !HAVE_TS_SHRLEN
	OFF(ts_len, TString, len); N(ts_shrlen); N(ts_lnglen);
#else
	N(ts_len); OFF(ts_shrlen, TString, shrlen); OFF(ts_lnglen, TString, u.lnglen);
#endif
}

/* What the heap snapshot (cmd/heap) reads: the VM's object lists and counters, and each object's
 * size as the collector counts it. hp_ok is 1 for the versions whose heap walk is known. */
static void heap_state(void)
{
	F(hp_ok, 1);
	OFF(gch_next, GCheader_probe, next);
	OFF(g_strt, global_State, strt);
	OFF(st_hash, stringtable, hash); OFF(st_size, stringtable, size);
	F(g_mt, offsetof(global_State, mt)); F(g_mt_n, FSZ(global_State, mt) / sizeof(void *));
	F(extra_stack, EXTRA_STACK);
#if V >= 505
	OFF(g_totalbytes, global_State, GCtotalbytes); F(g_debt_sub, 1);   /* counted = total - debt */
#else
	OFF(g_totalbytes, global_State, totalbytes); F(g_debt_sub, 0);
#endif
#if V == 501
	N(g_gcdebt); OFF(g_allgc, global_State, rootgc); N(g_finobj); OFF(g_tobefnz, global_State, tmudata);
	N(g_fixedgc);
#else
	OFF(g_gcdebt, global_State, GCdebt); OFF(g_allgc, global_State, allgc); OFF(g_finobj, global_State, finobj);
	OFF(g_tobefnz, global_State, tobefnz);
#if V == 502
	N(g_fixedgc);
#else
	OFF(g_fixedgc, global_State, fixedgc);
#endif
#endif
#if V <= 502
	OFF(g_buff, global_State, buff); OFF(mb_buffsize, Mbuffer, buffsize);
#else
	N(g_buff); N(mb_buffsize);
#endif
#if V <= 503
	OFF(l_stacksize, lua_State, stacksize);
#else
	N(l_stacksize);
#endif
#if V == 501
	OFF(l_gt, lua_State, l_gt);
	F(lx_sizeof, state_size(lua_State));
#else
	N(l_gt);
	F(lx_sizeof, sizeof(LX));
#endif
#if HAVE_L_NCI
	F(l_nci_size, FSZ(lua_State, nci));
#else
	N(l_nci_size);
#endif
	OFF(l_openupval, lua_State, openupval);
}

/* 5.5 keeps a 'lastfree' box before hash parts of 2^LIMFORLAST nodes or more (ltable.c) */
typedef struct { Node *dummy; Node follows; } Limbox_probe;

static void heap_objects(void)
{
#if V == 501
	F(tv_ctb, 0); F(gctag_table, LUA_TTABLE); F(gctag_udata, LUA_TUSERDATA); F(gctag_upval, LUA_TUPVAL);
	N(t_flags); N(t_bitras); OFF(t_asize, Table, sizearray);
	OFF(ts_hnext, GCheader_probe, next);
	OFF(cl_env, CClosure, env);
	F(u_size0, sizeof(Udata)); N(u_uv); N(u_uv_sizeof); N(u_nuvalue); N(u_uvtag);
	OFF(u_len, Udata, uv.len); OFF(u_metatable, Udata, uv.metatable); OFF(u_env, Udata, uv.env);
#elif V <= 503
	F(tv_ctb, BIT_ISCOLLECTABLE); F(gctag_table, LUA_TTABLE); F(gctag_udata, LUA_TUSERDATA);
	N(t_flags); N(t_bitras); OFF(t_asize, Table, sizearray);
	N(cl_env);
#if V == 502
	F(gctag_upval, LUA_TUPVAL);
	OFF(ts_hnext, GCheader_probe, next);
	F(u_size0, sizeof(Udata)); N(u_uv); N(u_uv_sizeof); N(u_nuvalue); N(u_uvtag);
	OFF(u_len, Udata, uv.len); OFF(u_metatable, Udata, uv.metatable); OFF(u_env, Udata, uv.env);
#else
	N(gctag_upval);   /* 5.3's upvalues are counted by reference, not collected */
#if HAVE_TS_HNEXT_TOP  /* 5.3.0 */
	OFF(ts_hnext, TString, hnext);
#else
	OFF(ts_hnext, TString, u.hnext);
#endif
	F(u_size0, sizeludata(0)); OFF(u_uv, Udata, user_); N(u_uv_sizeof); N(u_nuvalue);
	OFF(u_uvtag, Udata, ttuv_); OFF(u_len, Udata, len); OFF(u_metatable, Udata, metatable); N(u_env);
#endif
#else
	F(tv_ctb, BIT_ISCOLLECTABLE); F(gctag_table, LUA_VTABLE); F(gctag_udata, LUA_VUSERDATA);
	F(gctag_upval, LUA_VUPVAL);
#if V == 504
	OFF(t_flags, Table, flags); F(t_bitras, BITRAS); OFF(t_asize, Table, alimit);
#else
	N(t_flags); N(t_bitras); OFF(t_asize, Table, asize);
#endif
	OFF(ts_hnext, TString, u.hnext);
	N(cl_env);
	F(u_size0, udatamemoffset(0)); OFF(u_uv, Udata, uv); F(u_uv_sizeof, sizeof(UValue)); N(u_uvtag);
	OFF(u_nuvalue, Udata, nuvalue); OFF(u_len, Udata, len); OFF(u_metatable, Udata, metatable); N(u_env);
#endif
	OFF(upv_v, UpVal, v);
#if V == 503
	OFF(upv_onext, UpVal, u.open.next);
#else
	N(upv_onext);
#endif
	OFF(t_array, Table, array); OFF(t_metatable, Table, metatable); F(t_sizeof, sizeof(Table));
#if V >= 505
	/* the array's values lie below t->array, their tags above a hint word */
	F(t_arr_hint, sizeof(unsigned)); F(t_arr_val, sizeof(Value));
	F(t_limbox, offsetof(Limbox_probe, follows)); F(t_limfor, PROBE_LIMFORLAST);
	F(ts_lngreg, offsetof(TString, falloc)); F(ts_sizeof, sizeof(TString)); F(pf_fixed, PF_FIXED);
#else
	N(t_arr_hint); N(t_arr_val); F(t_limbox, 0); N(t_limfor); N(ts_lngreg); N(ts_sizeof); F(pf_fixed, 0);
#endif
	F(ccl_size0, sizeCclosure(0)); F(ccl_slot, sizeCclosure(1) - sizeCclosure(0));
	F(lcl_size0, sizeLclosure(0)); F(lcl_slot, sizeLclosure(1) - sizeLclosure(0));
	F(upv_sizeof, sizeof(UpVal)); OFF(upv_value, UpVal, u.value);
}

static const unsigned char probe_onebit[8] = { 1, 2, 4, 8, 16, 32, 64, 128 };
static const unsigned char probe_allbits[1] = { 0xff };

static void instructions(void)
{
	int i, a_bit = -1, t_bit = -1, mask;
	F(size_op, SIZE_OP); F(pos_op, POS_OP); F(size_a, SIZE_A); F(pos_a, POS_A);
	F(size_b, SIZE_B); F(pos_b, POS_B); F(size_c, SIZE_C); F(pos_c, POS_C);
	F(size_bx, SIZE_Bx); F(pos_bx, POS_Bx);
#ifdef POS_Ax
	F(size_ax, SIZE_Ax); F(pos_ax, POS_Ax);
#else
	N(size_ax); N(pos_ax);
#endif
#ifdef POS_k
	F(pos_k, POS_k);
#else
	N(pos_k);
#endif
#ifdef POS_sJ
	F(size_sj, SIZE_sJ); F(pos_sj, POS_sJ);
#else
	N(size_sj); N(pos_sj);
#endif
#ifdef OFFSET_sBx
	F32(offset_sbx, OFFSET_sBx);
#else
	F32(offset_sbx, MAXARG_sBx);
#endif
#ifdef OFFSET_sJ
	F32(offset_sj, OFFSET_sJ);
#else
	F32(offset_sj, 0);
#endif
#ifdef OFFSET_sC
	F32(offset_sc, OFFSET_sC);
#else
	F32(offset_sc, 0);
#endif
#ifdef BITRK
	F32(bitrk, BITRK);
#else
	F32(bitrk, 0);
#endif
	list_begin("opmodes");
	for (i = 0; i < NUM_OPCODES; i++) {
		char b[16];
		snprintf(b, sizeof b, "0x%02x,", luaP_opmodes[i]);
		item(b);
	}
	list_end();
	/* The mode accessors index luaP_opmodes; pointing them at known bytes reveals the encoding. */
#undef luaP_opmodes
#define luaP_opmodes probe_onebit
	for (i = 0; i < 8; i++) {
		if (testAMode(i)) a_bit = i;
		if (testTMode(i)) t_bit = i;
	}
#undef luaP_opmodes
#define luaP_opmodes probe_allbits
	mask = (int)getOpMode(0);
	F(om_mode_mask, mask); F(om_a_bit, a_bit); F(om_t_bit, t_bit);
	F(mode_iabc, iABC); F(mode_iabx, iABx); F(mode_iasbx, iAsBx);
#if V >= 502
	F(mode_iax, iAx);
#else
	N(mode_iax);
#endif
#if V >= 504
	F(mode_isj, isJ);
#else
	N(mode_isj);
#endif
	F(num_opcodes, NUM_OPCODES);
	list_begin("op");
#include "lists.h"
}

/* Builds a real state and checks the facts the profiler's memory scan relies on. */
static void *probe_alloc(void *ud, void *p, size_t o, size_t n)
{
	(void)ud; (void)o;
	if (n == 0) { free(p); return NULL; }
	return realloc(p, n);
}

static void selfcheck(void)
{
#if V >= 505
	lua_State *L = lua_newstate(probe_alloc, NULL, 0);  /* 5.5 takes a hash seed */
#else
	lua_State *L = lua_newstate(probe_alloc, NULL);
#endif
	global_State *g;
	if (!L) { fprintf(stderr, "probe: lua_newstate failed\n"); exit(1); }
	g = G(L);
#if V >= 505
	if ((char *)L - (char *)g != (long)offsetof(global_State, mainth.l)) {
		fprintf(stderr, "probe: the main thread is not at global_State.mainth.l\n"); exit(1);
	}
	if (mainthread(g) != L) { fprintf(stderr, "probe: mainthread(g) != L\n"); exit(1); }
#else
#if V <= 502
	if ((char *)g - (char *)L != (long)offsetof(LG, g) - (long)offsetof(LG, l)) {
#else
	if ((char *)g - (char *)L != (long)offsetof(LG, g) - (long)offsetof(LG, l.l)) {
#endif
		fprintf(stderr, "probe: l_G is not at the LG distance\n"); exit(1);
	}
	if (g->mainthread != L) { fprintf(stderr, "probe: mainthread != L\n"); exit(1); }
#endif
	if (strcmp(getstr(g->tmname[TM_INDEX]), "__index") != 0) {
		fprintf(stderr, "probe: tmname[TM_INDEX] is not __index\n"); exit(1);
	}
	lua_close(L);
}

int main(void)
{
	selfcheck();
	printf("#version %d %d %d\n", V / 100, V % 100, patch_level());
	flags(); state(); callinfo(); values(); closures(); tables(); proto(); strings(); instructions();
	heap_state(); heap_objects();
	return 0;
}
PROBE
}

# Probes tree $1: prints "#version M m p" then the initialiser lines.
probe_tree() {
	tree=$1
	[ -f "$tree/lstate.h" ] || die "$tree: no lstate.h"
	key=$(echo "$tree" | sed 's|^/||; s|[/.]|_|g')
	dir=$WORK/probe/$key
	mkdir -p "$dir"
	write_probe "$dir"
	probe_lists "$tree" >"$dir/lists.h"
	have L_NCI '^[[:space:]]*(unsigned short|int) nci;' "$tree/lstate.h" >"$dir/have.h"
	have TS_SHRLEN '^[[:space:]]*l[us]_byte shrlen;' "$tree/lobject.h" >>"$dir/have.h"
	have TS_LNGPTR '^[[:space:]]*char \*contents;' "$tree/lobject.h" >>"$dir/have.h"
	have TS_HNEXT_TOP '^  struct TString \*hnext;' "$tree/lobject.h" >>"$dir/have.h"
	lim=$(sed -n 's/^#define[[:space:]]*LIMFORLAST[[:space:]]*\([0-9]*\).*/\1/p' "$tree/ltable.c")
	echo "#define PROBE_LIMFORLAST ${lim:-0}" >>"$dir/have.h"
	for v in 5.1 5.2 5.3 5.4 5.5; do
		echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$dir/lua$v-deb-multiarch.h"
	done
	core=""
	for f in lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lparser lstring ltable \
		ltm lundump lvm lzio; do
		[ -f "$tree/$f.c" ] && core="$core $tree/$f.c"
	done
	num=$(grep -E '#define[[:space:]]+LUA_VERSION_NUM' "$tree/lua.h" | awk '{print $3}')
	case $num in
		502) compat=-DLUA_COMPAT_ALL ;; 503) compat=-DLUA_COMPAT_5_2 ;; 504) compat=-DLUA_COMPAT_5_3 ;;
		*) compat= ;;
	esac
	# shellcheck disable=SC2086
	$CC_PROBE -std=gnu99 -O0 -w $compat -I"$dir" -I"$tree" -o "$dir/probe" "$dir/probe.c" $core -lm \
		|| die "$tree: probe does not compile"
	"$dir/probe" || die "$tree: probe failed"
}

# Probes every tree, checks that trees of the same version agree, prints "M.m.p<TAB>file" lines.
probe_all() {
	mkdir -p "$WORK/out"
	rm -f "$WORK/out"/*.txt
	for t in $(debian_trees) $(git_trees); do
		probe_tree "$t" >"$WORK/out/tmp"
		set -- $(head -1 "$WORK/out/tmp")
		f=$WORK/out/$2.$3.$4.txt
		if [ -f "$f" ]; then
			cmp -s "$f" "$WORK/out/tmp" || die "two trees of Lua $2.$3.$4 disagree (one is $t)"
		else
			mv "$WORK/out/tmp" "$f"
		fi
	done
	rm -f "$WORK/out/tmp"
}

# The lines around the table are generated too, so that --check can compare the whole file and no
# hand edit to it survives a rerun. The first line warns off such edits.
emit_header() {
	echo "/* Generated by scripts/gen-lua-layouts.sh from each release's own headers: do not edit, rerun the script. */"
	echo '#include "puc_layouts.h"'
	echo
}

emit_trailer() {
	echo
	echo 'const size_t lua_layout_count = sizeof lua_layout_table / sizeof lua_layout_table[0];'
}

emit_file() {
	emit_header
	emit_table
	emit_trailer
}

# The table from $WORK/out: consecutive patch releases with equal bodies merge, since the profiler
# needs one entry per layout, not per release.
emit_table() {
	echo "const struct puc_layout lua_layout_table[] = {"
	for minor in 1 2 3 4 5; do
		ls "$WORK/out" | grep "^5\.$minor\." | sort -t. -k3,3n >"$WORK/list" || true
		lo=""; prev=""; pbody=""
		while read -r f; do
			p=$(echo "$f" | cut -d. -f3)
			if [ -n "$prev" ] && tail -n +2 "$WORK/out/$f" | cmp -s - "$pbody"; then
				prev=$p; continue
			fi
			[ -n "$prev" ] && emit_entry "$minor" "$lo" "$prev" "$pbody"
			lo=$p; prev=$p; pbody=$WORK/body.$minor.$p
			tail -n +2 "$WORK/out/$f" >"$pbody"
		done <"$WORK/list"
		[ -n "$prev" ] && emit_entry "$minor" "$lo" "$prev" "$pbody"
	done
	echo "};"
}

emit_entry() {
	printf '\t{\t/* Lua 5.%s.%s-5.%s.%s */\n' "$1" "$2" "$1" "$3"
	printf '\t\t.major = 5, .minor = %s, .patch_lo = %s, .patch_hi = %s,\n' "$1" "$2" "$3"
	cat "$4"
	printf '\t},\n'
}

# Body of the committed entry covering 5.$1.$2 (empty when none does).
committed_entry() {
	awk -v mi="$1" -v pa="$2" '
		/^\t\{\t\/\* Lua / { split($4, r, "-"); split(r[1], a, "."); split(r[2], z, ".");
			cur = (a[2] == mi && a[3] + 0 <= pa + 0 && pa + 0 <= z[3] + 0); hdr = 1; next }
		/^\t\},$/ { cur = 0; next }
		cur && hdr { hdr = 0; next }
		cur { print }' "$TARGET"
}

check_one() {
	tail -n +2 "$1" >"$WORK/want"
	set -- $(head -1 "$1")
	committed_entry "$3" "$4" >"$WORK/have"
	if [ ! -s "$WORK/have" ]; then echo "no committed table covers Lua $2.$3.$4" >&2; return 1; fi
	if ! cmp -s "$WORK/want" "$WORK/have"; then
		echo "Lua $2.$3.$4 differs from the committed table:" >&2
		diff "$WORK/have" "$WORK/want" >&2 || true
		return 1
	fi
	echo "Lua $2.$3.$4: matches"
}

case $MODE in
write|--print)
	[ -n "${LUA_GIT:-}" ] || die "set LUA_GIT to a clone of https://github.com/lua/lua to regenerate"
	probe_all
	emit_file >"$WORK/file.c"
	if [ "$MODE" = --print ]; then cat "$WORK/file.c"; exit 0; fi
	# an unchanged file keeps its time stamp, so make rebuilds nothing
	cmp -s "$WORK/file.c" "$TARGET" || cp "$WORK/file.c" "$TARGET"
	echo "gen-lua-layouts: $(grep -c '/\* Lua 5' "$WORK/file.c") tables written to cmd/lua/puc/puc_layouts_table.c"
	;;
--check)
	probe_all
	rc=0
	if [ -n "${LUA_GIT:-}" ]; then
		emit_file >"$WORK/file.c"
		if ! cmp -s "$TARGET" "$WORK/file.c"; then
			echo "cmd/lua/puc/puc_layouts_table.c differs from what the sources give:" >&2
			diff -u "$TARGET" "$WORK/file.c" >&2 || true
			rc=1
		fi
	fi
	for f in "$WORK"/out/*.txt; do check_one "$f" || rc=1; done
	for x in ${LUA_EXTRA:-}; do
		echo "$x:"
		probe_tree "$x" >"$WORK/extra.txt"
		check_one "$WORK/extra.txt" || rc=1
	done
	[ $rc = 0 ] && echo "gen-lua-layouts: committed tables match the sources"
	exit $rc
	;;
*) die "usage: $0 [--check | --print]" ;;
esac
