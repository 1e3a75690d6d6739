/* Struct layouts, type tags and bytecode encodings of PUC Lua 5.1-5.5 on x86-64, one table per range
 * of patch releases with identical layout, so the profiler can walk a running VM's stack from raw
 * memory and name functions from their callers' bytecode. Tables come from offsetof() probes compiled
 * against the real sources (scripts/gen-lua-layouts.sh); nothing here is written by hand. */
#ifndef LF_LUA_LAYOUTS_H
#define LF_LUA_LAYOUTS_H
#include <stddef.h>
#include <stdint.h>

#define LUA_OFF_NONE 0xffff   /* offset or size of a field this version does not have */
#define LUA_OP_NONE 0xff      /* opcode or metamethod this version does not have */
#define LUA_MAX_OPCODES 96    /* room for every version's opcode set (5.5 has 85) */

/* Flags of a layout. */
enum {
	/* 5.1: CallInfo is an array [base_ci, end_ci); the caller of ci is ci - 1. */
	LUA_LF_CI_ARRAY = 1 << 0,
	/* 5.1: the running Lua function's pc lives in L->savedpc, not in L->ci. */
	LUA_LF_L_SAVEDPC = 1 << 1,
	/* 5.1: every function is type tag LUA_TFUNCTION; Closure.isC tells Lua from C. */
	LUA_LF_CL_ISC = 1 << 2,
	/* 5.2+: light C functions (a bare lua_CFunction in the TValue, tvtag_lcf). */
	LUA_LF_LCF = 1 << 3,
	/* 5.3+: string length is shrlen for tag gctag_shrstr, u.lnglen for gctag_lngstr. */
	LUA_LF_STR_SHRLEN = 1 << 4,
	/* 5.4: lineinfo holds signed byte deltas, anchored by abslineinfo entries. */
	LUA_LF_ABSLINEINFO = 1 << 5,
	/* 5.4: RK operands carry a k bit (pos_k); older versions flag constants with bitrk. */
	LUA_LF_OP_KBIT = 1 << 6,
	/* 5.4.0-5.4.1: each Lua-to-Lua call runs in its own luaV_execute C frame. */
	LUA_LF_CALL_RECURSES = 1 << 7,
	/* 5.4 stack slots are StackValue (stack_slot bytes); other versions plain TValue. */
	LUA_LF_STACKVALUE = 1 << 8,
	/* 5.5: a long string's bytes are elsewhere: ts_contents holds a pointer to them (short
	 * strings keep theirs at ts_contents, and a negative shrlen marks a long one). */
	LUA_LF_STR_LNGPTR = 1 << 9,
	/* 5.5: no LG block: global_State holds the main thread at lg_l (lg_g is 0) and has no
	 * mainthread pointer (g_mainthread is LUA_OFF_NONE). */
	LUA_LF_MAIN_IN_G = 1 << 10,
};

/* Opcodes the stack walker and the function namer look at (index into puc_layout.op). */
enum puc_op {
	LOP_MOVE, LOP_LOADK, LOP_LOADKX, LOP_LOADNIL, LOP_GETUPVAL, LOP_GETGLOBAL, LOP_GETTABUP,
	LOP_GETTABLE, LOP_GETI, LOP_GETFIELD, LOP_GETVARG, LOP_SETGLOBAL, LOP_SETTABUP, LOP_SETUPVAL, LOP_SETTABLE,
	LOP_SETI, LOP_SETFIELD, LOP_SELF, LOP_ADD, LOP_SUB, LOP_MUL, LOP_MOD, LOP_POW, LOP_DIV, LOP_IDIV,
	LOP_BAND, LOP_BOR, LOP_BXOR, LOP_SHL, LOP_SHR, LOP_UNM, LOP_BNOT, LOP_NOT, LOP_LEN, LOP_CONCAT,
	LOP_JMP, LOP_EQ, LOP_LT, LOP_LE, LOP_EQK, LOP_EQI, LOP_LTI, LOP_LEI, LOP_GTI, LOP_GEI, LOP_TEST,
	LOP_TESTSET, LOP_CALL, LOP_TAILCALL, LOP_RETURN, LOP_RETURN0, LOP_RETURN1, LOP_FORLOOP,
	LOP_FORPREP, LOP_TFORPREP, LOP_TFORCALL, LOP_TFORLOOP, LOP_SETLIST, LOP_CLOSURE, LOP_VARARG,
	LOP_VARARGPREP, LOP_MMBIN, LOP_MMBINI, LOP_MMBINK, LOP_CLOSE, LOP_TBC, LOP_EXTRAARG,
	LOP_COUNT
};

/* Metamethod events (index into puc_layout.tm); their names are in the target's G->tmname[]. */
enum puc_tm {
	LTM_INDEX, LTM_NEWINDEX, LTM_GC, LTM_MODE, LTM_LEN, LTM_EQ, LTM_ADD, LTM_SUB, LTM_MUL, LTM_MOD,
	LTM_POW, LTM_DIV, LTM_IDIV, LTM_BAND, LTM_BOR, LTM_BXOR, LTM_SHL, LTM_SHR, LTM_UNM, LTM_BNOT,
	LTM_LT, LTM_LE, LTM_CONCAT, LTM_CALL, LTM_CLOSE, LTM_N,
	LTM_COUNT
};

/*
 * One layout. Offsets are in bytes from the start of the named struct; LUA_OFF_NONE marks a field
 * the version lacks; CIST_* masks are 0 when the version has no such bit.
 *
 * Finding the main thread without symbols: lua_newstate allocates one block LG holding the main
 * lua_State at lg_l and its global_State at lg_g, so for the main thread L
 *     L->l_G == (char *)L + (lg_g - lg_l)   and   G->mainthread == L,
 * L's header tag (at gch_tt) is gctag_thread, and G->tmname[tm[LTM_INDEX]] is the string "__index".
 * 5.5 (LUA_LF_MAIN_IN_G): the block is global_State itself, the main thread inside it at lg_l, so
 * L->l_G == (char *)L - lg_l and there is no G->mainthread to point back.
 *
 * Which CallInfo started a new luaV_execute C frame (the anchor for merging with native frames):
 * with cist_fresh, the ones carrying it; with cist_reentry (5.2, 5.3.0-5.3.1), Lua frames without
 * it; with LUA_LF_CALL_RECURSES (5.4.0-5.4.1), every Lua frame; on 5.1 (neither) a Lua frame whose
 * caller is C, or whose caller's instruction at savedpc - 1 is not CALL/TAILCALL (metamethods and
 * the generic-for iterator go through luaD_call).
 *
 * Current pc of a Lua frame: (savedpc - proto->code) / 4 - 1 (savedpc points past the running
 * instruction); on 5.1 the innermost Lua frame's savedpc is L->savedpc (LUA_LF_L_SAVEDPC).
 * Line (5.4, LUA_LF_ABSLINEINFO): start from the last abslineinfo entry with pc <= target (or
 * linedefined at pc -1 when none) and add lineinfo[] deltas; a delta of -0x80 means "see abslineinfo".
 */
struct puc_layout {
	/* Patch releases covered: each end was probed; releases in between that no source was
	 * available for (5.1.2-5.1.4) are assumed equal, as both neighbours agree. */
	uint8_t major, minor, patch_lo, patch_hi;
	uint16_t flags;
	uint16_t gch_tt;  /* CommonHeader: tag byte of every collectable object */

	/* lua_State (l_base_ci: 5.1 the pointer to the CallInfo array, 5.2+ the embedded first one) */
	uint16_t l_status, l_top, l_base, l_l_G, l_ci, l_savedpc, l_stack_last, l_stack, l_end_ci,
		l_base_ci, l_size_ci, l_nci, l_sizeof;
	/* global_State and the LG block */
	uint16_t g_mainthread, g_tmname, g_l_registry, g_sizeof;
	uint16_t lg_l, lg_g, lg_sizeof;

	/* CallInfo (5.2+: base and savedpc are u.l.base, u.l.savedpc) */
	uint16_t ci_func, ci_top, ci_base, ci_savedpc, ci_previous, ci_next, ci_nresults,
		ci_callstatus, ci_callstatus_size, ci_tailcalls, ci_sizeof;
	/* CIST_* masks: callstatus is 32 bits wide from 5.5 on, and its flags sit above bit 15 */
	uint32_t cist_lua, cist_c, cist_fresh, cist_reentry, cist_tail, cist_hooked, cist_fin;

	/* TValue and type tags: tvtag_* as stored in a TValue, gctag_* in an object's header */
	uint16_t tv_sizeof, tv_value, tv_tt, tv_tt_size, stack_slot;
	uint16_t tvtag_lcl, tvtag_ccl, tvtag_lcf, tvtag_shrstr, tvtag_lngstr, tvtag_table;
	uint16_t gctag_thread, gctag_lcl, gctag_ccl, gctag_proto, gctag_shrstr, gctag_lngstr;

	/* Closures */
	uint16_t cl_isC, cl_nupvalues, lcl_p, lcl_upvals, ccl_f, ccl_upvalue;

	/* Table and its hash part: 1 << lsizenode Nodes at node, each a value and a key (tag and
	 * value apart: key tags are TValue tags) */
	uint16_t t_lsizenode, t_node, n_sizeof, n_val, n_key_tt, n_key_tt_size, n_key_val;

	/* Proto */
	uint16_t p_source, p_linedefined, p_lastlinedefined, p_code, p_sizecode, p_lineinfo,
		p_lineinfo_size, p_sizelineinfo, p_abslineinfo, p_sizeabslineinfo, p_k, p_sizek,
		p_upvalues, p_sizeupvalues, p_locvars, p_sizelocvars, p_p, p_sizep, p_numparams,
		p_is_vararg, p_maxstacksize, p_sizeof;
	uint16_t ali_sizeof, ali_pc, ali_line;          /* AbsLineInfo (5.4) */
	uint16_t uv_sizeof, uv_name;                    /* Upvaldesc (5.1: a bare TString *) */
	uint16_t lv_sizeof, lv_varname, lv_startpc, lv_endpc;  /* LocVar */

	/* TString: bytes start at ts_contents; length in ts_len (5.1, 5.2) or ts_shrlen/ts_lnglen */
	uint16_t ts_contents, ts_len, ts_shrlen, ts_lnglen;

	/* Instruction fields: value = (i >> pos) & ((1 << size) - 1); signed ones (sBx, sJ, sC)
	 * subtract offset_*. bitrk (5.1-5.3) flags an RK operand as a constant index. */
	uint16_t size_op, pos_op, size_a, pos_a, size_b, pos_b, size_c, pos_c, size_bx, pos_bx,
		size_ax, pos_ax, pos_k, size_sj, pos_sj;
	uint32_t offset_sbx, offset_sj, offset_sc, bitrk;  /* 0 when the version lacks them */
	/* luaP_opmodes bytes: mode = byte & om_mode_mask (mode_* values); A/T flags at bits om_*_bit */
	uint16_t om_mode_mask, om_a_bit, om_t_bit, mode_iabc, mode_iabx, mode_iasbx, mode_iax,
		mode_isj;
	uint16_t num_opcodes;
	uint8_t opmodes[LUA_MAX_OPCODES];
	uint8_t op[LOP_COUNT];
	uint8_t tm[LTM_COUNT];

	/* The heap snapshot (cmd/heap); hp_ok is 1 for versions whose heap walk is known. Every
	 * object is on one of the lists at g_allgc (5.1: rootgc, the main thread first), g_finobj,
	 * g_tobefnz (5.1: tmudata, circular), g_fixedgc, chained by gch_next; 5.1's and 5.2's short
	 * strings only in the string table (strt: st_size heads at st_hash, chained by ts_hnext),
	 * open upvalues only on their thread's l_openupval list (5.3: chained by upv_onext, and
	 * closed ones only in their closures: 5.3's upvalues are no collected objects). The VM's
	 * count is g_totalbytes, plus g_gcdebt from 5.2 on (minus it when g_debt_sub: 5.5). */
	uint16_t hp_ok, gch_next, g_strt, st_hash, st_size, g_totalbytes, g_mt, g_mt_n, extra_stack;
	uint16_t g_gcdebt, g_debt_sub, g_allgc, g_finobj, g_tobefnz, g_fixedgc, g_buff, mb_buffsize;
	/* Threads: a thread's block is lx_sizeof; its stack l_stacksize slots (5.1-5.3) or
	 * stack_last - stack + extra_stack; its CallInfo records 5.1's size_ci, l_nci (of
	 * l_nci_size bytes) or, without either, the length of the list after base_ci; 5.1's thread
	 * holds its globals at l_gt. */
	uint16_t l_stacksize, l_gt, lx_sizeof, l_openupval, l_nci_size;
	/* tv_ctb: the tag bit of collectable values (0: 5.1, where tags from string on are) */
	uint16_t tv_ctb, gctag_table, gctag_udata, gctag_upval;
	/* Tables: t_asize is sizearray, or 5.4's alimit (the real size is the next power of two
	 * when flags has t_bitras and alimit is not one). 5.5 splits the array part: value k
	 * (t_arr_val bytes) at array - (k + 1) * t_arr_val, its tag byte at array + t_arr_hint + k;
	 * hash parts of 2^t_limfor nodes or more have t_limbox bytes before them. */
	uint16_t t_flags, t_bitras, t_asize, t_array, t_metatable, t_sizeof, ts_hnext;
	uint16_t t_arr_hint, t_arr_val, t_limbox, t_limfor;
	/* 5.5's long strings: ts_lngreg + length + 1 bytes with their contents inline, ts_lngreg
	 * without (fixed external), ts_sizeof (external, freed by its own allocator) */
	uint16_t ts_lngreg, ts_sizeof;
	/* A closure of n upvalues takes size0 + n * slot bytes; 5.1's closures have an env table */
	uint16_t ccl_size0, ccl_slot, lcl_size0, lcl_slot, cl_env;
	uint16_t upv_sizeof, upv_v, upv_value, upv_onext;
	/* Userdata: u_size0 + len bytes without user values, else u_uv + n * u_uv_sizeof + len;
	 * 5.3's one user value is a Value at u_uv tagged at u_uvtag */
	uint16_t u_size0, u_uv, u_uv_sizeof, u_nuvalue, u_len, u_metatable, u_env, u_uvtag;
	/* 5.5: a Proto whose flag (at p_is_vararg) has pf_fixed keeps code and line info outside
	 * the VM's count */
	uint16_t pf_fixed;
};

/* The generated table (puc_layouts_table.c), one entry per run of releases of equal layout. */
extern const struct puc_layout lua_layout_table[];
extern const size_t lua_layout_count;

/* The layout for Lua major.minor.patch, or NULL for an unknown minor. A patch newer than any
 * verified one gets the newest table of its minor, and patch < 0 (unknown) too: callers must
 * validate against the target's memory (see the LG relation above). */
const struct puc_layout *puc_layout_for(int major, int minor, int patch);

/* All tables, for callers that try each candidate of a minor version. */
const struct puc_layout *puc_layout_at(size_t i);
size_t puc_layout_count(void);

/*
 * Telling versions apart in a stripped binary. lua_ident (exported data, in every core) reads
 *     5.1:  "$Lua: Lua 5.1.5 Copyright (C) 1994-2012 Lua.org, PUC-Rio $\n$Authors: ... $\n"
 *     5.2+: "$LuaVersion: Lua 5.4.4  Copyright (C) 1994-2022 Lua.org, PUC-Rio $$LuaAuthors: ... $"
 * and the standalone interpreter adds the banner "Lua 5.4.4  Copyright (C) ...". A bare "Lua 5.x"
 * (_VERSION) also appears in LuaJIT and in programs that only link Lua (haproxy prints
 * "Lua 5.3.6"), so it is not evidence of a PUC core. Exported symbols give the minor version
 * (5.1: lua_setfenv, lua_objlen; 5.2: lua_getctx; 5.3: lua_rotate without lua_newuserdatauv;
 * 5.4: lua_newuserdatauv; Debian versions them LUA_5.1 .. LUA_5.4) and, within 5.4 only, a lower
 * bound on the patch: lua_closeslot from 5.4.3, luaL_addgsub from 5.4.4, lua_closethread from
 * 5.4.6. 5.4.0-5.4.2 and every 5.1/5.2/5.3 patch level export the same API, so only the ident
 * string separates them.
 */

/* How puc_version_from_bytes recognised the version (higher is more certain). */
enum {
	LUA_VSRC_NONE = 0,
	LUA_VSRC_RELEASE = 1,   /* "Lua 5.x.y  Copyright (C) " banner: full version */
	LUA_VSRC_IDENT = 2,     /* lua_ident: "$LuaVersion: Lua 5.x.y " or 5.1's "$Lua: Lua 5.1.y " */
};

/* Finds PUC Lua's version string in buf[0..len) (e.g. a file's .rodata): returns LUA_VSRC_IDENT
 * or LUA_VSRC_RELEASE and sets *maj, *min, *patch, or LUA_VSRC_NONE when no version string is
 * there. "$Lua: Lua 5.1 " (5.1.0 had no patch number) yields patch 0. The scan is linear. */
int puc_version_from_bytes(const char *buf, size_t len, int *maj, int *min, int *patch);

#endif
