/* Struct layouts and constants of the LuaJIT 2.1 variants lua-flame reads from raw memory
 * (upstream, its 2.1.0-beta3 release, OpenResty's and Tarantool's forks, each with and without
 * GC64, x86-64), and
 * detection of the variant from a binary's exported symbols and read-only data, or from
 * the target's memory. The numbers come from each tree's own headers via
 * scripts/gen-luajit-layouts.sh; nothing here is guessed. */
#ifndef LF_LUAJIT_LAYOUTS_H
#define LF_LUAJIT_LAYOUTS_H
#include <stddef.h>
#include <stdint.h>

enum luajit_fork {
	LUAJIT_FORK_UNKNOWN,
	LUAJIT_FORK_UPSTREAM,
	/* upstream's 2.1.0-beta3 release (2017), which hosts such as LuaJITTeX carry: the same
	 * version string as upstream's later 2.1, but another global_State and string header */
	LUAJIT_FORK_BETA3,
	LUAJIT_FORK_OPENRESTY,
	LUAJIT_FORK_TARANTOOL,
};

enum luajit_variant {
	LUAJIT_VARIANT_UNKNOWN,
	LUAJIT_UPSTREAM_GC64,
	LUAJIT_UPSTREAM_NOGC64,
	LUAJIT_BETA3_GC64,
	LUAJIT_BETA3_NOGC64,
	LUAJIT_OPENRESTY_GC64,
	LUAJIT_OPENRESTY_NOGC64,
	LUAJIT_OPENRESTY25_GC64,   /* OpenResty's 2025 tree: global_State a word longer */
	LUAJIT_OPENRESTY25_NOGC64,
	LUAJIT_TARANTOOL_GC64,
	LUAJIT_TARANTOOL_NOGC64,
	LUAJIT_VARIANT_COUNT,
};

/* Bytecode instruction format (identical in every variant): 32 bits, little end first,
 *   | B (8) | C (8) | A (8) | OP (8) |   or   | D (16) | A (8) | OP (8) |
 * A names the base/destination slot; D a constant index (negated: ~D into the GC
 * constants below pt->k) or a slot. */
#define LUAJIT_BC_OP(i) ((unsigned)(i) & 0xffu)
#define LUAJIT_BC_A(i) (((unsigned)(i) >> 8) & 0xffu)
#define LUAJIT_BC_B(i) ((unsigned)(i) >> 24)
#define LUAJIT_BC_C(i) (((unsigned)(i) >> 16) & 0xffu)
#define LUAJIT_BC_D(i) ((unsigned)(i) >> 16)
/* bcmode[op]: operand mode of A in bits 0-2 (bcm_base, bcm_dst...), metamethod index in
 * bits 11-15 (mm_call for calls, mm_max when the instruction has none). */
#define LUAJIT_BCMODE_A(m) ((unsigned)(m) & 7u)
#define LUAJIT_BCMODE_MM(m) ((unsigned)(m) >> 11)
#define LUAJIT_BC_CAP 128

/* Line info: pt->lineinfo holds one entry per instruction, relative to firstline; its
 * element is 1 byte when numline < 256, 2 when < 65536, else 4 (lj_debug_line). */
#define LUAJIT_LINEINFO_SIZE(numline) ((uint32_t)(numline) < 256u ? 1 : \
	(uint32_t)(numline) < 65536u ? 2 : 4)

/* All offsets are in bytes from the start of the named structure. A field that does not
 * exist in a variant is -1. GCRef/MRef are gcref_size/mref_size bytes; in GC64 a TValue
 * holding a GC object keeps the pointer in its low gcv_bits bits. */
struct luajit_layout {
	enum luajit_variant variant;
	enum luajit_fork fork;
	const char *name;   /* "openresty GC64" */
	const char *source; /* source tree the numbers were taken from */

	int32_t fr2, gc64;  /* LJ_FR2: two-slot frames (func, then PC/delta) */
	int32_t gcref_size, mref_size, tvalue_size, gcv_bits;

	/* lua_State */
	int32_t L_gct, L_dummy_ffid, L_status, L_glref, L_base, L_top, L_maxstack, L_stack;
	int32_t L_cframe, L_stacksize, L_size;
	/* global_State */
	int32_t g_hookmask, g_vmstate, g_mainthref, g_cur_L, g_jit_base, g_saved_jit_base, g_registrytv, g_size;
	/* GG_State: main lua_State, global_State, jit_State and the dispatch table in one block */
	int32_t gg_L, gg_g, gg_J, gg_dispatch, gg_size;
	/* jit_State: trace array (GCRef per trace number) and its size */
	int32_t J_trace, J_sizetrace;
	/* GCtrace */
	int32_t T_gct, T_startpt, T_startpc, T_szmcode, T_mcode, T_spadjust;
	int32_t T_traceno, T_link, T_root, traceno_size;
	/* GCfunc (GCfuncC/GCfuncL share the header) */
	int32_t fn_gct, fn_ffid, fn_nupvalues, fn_env, fn_pc, fn_c_f, fn_c_upvalue, fn_l_uvptr;
	/* GCproto: fn->pc points just past it, at the first instruction */
	int32_t pt_size, pt_gct, pt_numparams, pt_framesize, pt_sizebc, pt_k, pt_uv;
	int32_t pt_sizekgc, pt_sizekn, pt_sizept, pt_sizeuv, pt_flags, pt_trace;
	int32_t pt_chunkname, pt_firstline, pt_numline, pt_lineinfo, pt_uvinfo, pt_varinfo;
	int32_t varname_max; /* varinfo: names below this byte are built-in */
	/* GCtab's hash part (hmask + 1 Nodes) and the TValue types the tables of modules hold */
	int32_t tab_node, tab_hmask, node_size, node_val, node_key;
	int32_t it_str, it_tab, it_func;
	/* GCstr: the characters follow the header */
	int32_t str_size, str_gct, str_len;
	/* gct byte of each GC object type */
	int32_t gct_str, gct_thread, gct_proto, gct_func, gct_trace;
	/* Lua frame type bits in the low bits of the PC/delta slot */
	int32_t frame_type, frame_p, frame_typep, frame_lua, frame_c, frame_cont, frame_varg;
	int32_t frame_luap, frame_cp, frame_pcall, frame_pcallh;
	/* C frames: offsets from the cframe pointer (L->cframe & rawmask, the VM's rsp) */
	int32_t cframe_ofs_prev, cframe_ofs_pc, cframe_ofs_l, cframe_ofs_errf, cframe_ofs_nres;
	int32_t cframe_ofs_multres, cframe_size, cframe_size_jit, cframe_resume, cframe_unwind_ff;
	int64_t cframe_rawmask;
	/* VM states: g->vmstate is ~vmst_x, or the number (>= 0) of the running trace */
	int32_t vmst_interp, vmst_c, vmst_gc, vmst_exit, vmst_record, vmst_opt, vmst_asm, vmst_max;
	/* fn->ffid: 0 Lua function, 1 C function, else a built-in (ff_names) */
	int32_t ff_lua, ff_c;
	/* Bytecode opcodes */
	int32_t bc_max, bc_isnext, bc_mov, bc_kstr, bc_knil, bc_uget, bc_fnew, bc_gget, bc_gset;
	int32_t bc_tgetv, bc_tgets, bc_tgetb, bc_tgetr, bc_tsetv, bc_tsets, bc_tsetb, bc_tsetm;
	int32_t bc_tsetr, bc_callm, bc_call, bc_callmt, bc_callt, bc_iterc, bc_itern, bc_varg;
	int32_t bc_retm, bc_ret, bc_ret0, bc_ret1, bc_jloop, bc_funcf, bc_ifuncf, bc_jfuncf;
	int32_t bc_funcv, bc_ifuncv, bc_jfuncv, bc_funcc, bc_funccw;
	int32_t bcm_base, bcm_dst, mm_index, mm_newindex, mm_call, mm_max;
	uint16_t bcmode[LUAJIT_BC_CAP];
	/* NUL-separated name lists, indexed by opcode, metamethod and ffid */
	const char *bc_names, *mm_names, *ff_names;
	int32_t bc_names_count, mm_names_count, ff_names_count;
	/* The built-ins of a build with LUAJIT_ENABLE_LUA52COMPAT, which inserts some */
	const char *ff_names52;
	int32_t ff_names52_count;

	/* ---- What a heap snapshot reads (cmd/heap/heap_luajit_*.c), from the second probe of
	 * gen-luajit-layouts.sh. hp_ok is 0 in an entry made without it. ---- */
	int32_t hp_ok, gch_marked;
	/* global_State: the collector's counter and lists, the string table, the VM's buffers */
	int32_t g_gc_total, gcsize_size, g_gc_root, g_gc_mmudata, g_strtab, g_strmask, g_str_tagged;
	int32_t g_tmpbuf_b, g_tmpbuf_e, sbuf_ptr_size, g_gcroot, gcroot_max, gcroot_basemt, gcroot_basemt_num;
	int32_t g_ctype_state, g_lightudseg, g_lightudnum;
	int32_t L_env, L_openupval;
	/* objects: sizes as the collector frees them, and the fields it follows */
	int32_t tab_size, tab_colo, tab_array, tab_metatable, tab_asize, str_round4;
	int32_t ud_size, ud_udtype, ud_env, ud_len, ud_metatable, fn_c_size0, fn_l_size0;
	int32_t uv_size, uv_closed, uv_tv, uv_v;
	/* GCtrace and its IR (constants the trace keeps alive), the JIT's buffers */
	int32_t T_size, T_nins, T_nk, T_nsnap, nsnap_size, T_nsnapmap, T_ir, T_nextroot, T_nextside;
	int32_t irins_size, snap_size, snapentry_size, ir_o, ir_t, ir_kgc, ir_knull, irt_type_mask, irt_is64;
	int32_t ref_true, J_irbuf, J_irtoplim, J_irbotlim, J_sizesnap, J_sizesnapmap;
	/* cdata, sized from the C type table (cts_size -1: a build without the FFI) */
	int32_t cd_size, cd_ctypeid, cd_varmark, cdv_size, cdv_extra, cdv_len;
	int32_t cts_size, cts_tab, cts_sizetab, cts_cbid, cts_sizeid, ctype_size, ctype_info, ctype_sizefield;
	int32_t ct_shift_num, ct_hassize, ct_attrib, ct_cidmask, ctsize_ptr;
	int32_t gct_upval, gct_cdata, gct_tab, gct_udata, it_udata, it_isnum;
	/* string.buffer's SBufExt, the payload of a userdata of udtype_buffer (-1: none) */
	int32_t udtype_buffer, sbx_b, sbx_e, sbx_flags, sbx_notowned, sbx_cowref, sbx_dict_str, sbx_dict_mt;
};

/* The generated table (luajit_layouts_table.c), one entry per variant, as probed on x86-64;
 * lookups go through luajit_layout_get, which adjusts it for the architecture built for. */
extern const struct luajit_layout luajit_layout_table[];
extern const size_t luajit_layout_count;

/* The layout of a variant, or NULL for an unknown one. */
const struct luajit_layout *luajit_layout_get(enum luajit_variant v);
/* Entry i of the table, or NULL past its end. */
const struct luajit_layout *luajit_layout_at(size_t i);
/* Turns an entry of the table (measured on x86-64) into the layout on the architecture
 * lua-flame is built for (luajit_arch.c). */
void luajit_layout_arch(struct luajit_layout *l);
/* Why a table entry does not hold on the architecture built for, or NULL when it does. */
const char *luajit_arch_unknown(const struct luajit_layout *l);
enum luajit_variant luajit_variant_of(enum luajit_fork fork, int gc64);
const char *luajit_fork_name(enum luajit_fork fork);
/* Entry i of a NUL-separated name list, or NULL. */
const char *luajit_name_at(const char *list, int32_t count, int32_t i);
/* Lua's name of built-in ffid ("string.rep", "file:write"), written to buf; NULL if none. */
const char *luajit_ff_name(const struct luajit_layout *l, int32_t ffid, char *buf, size_t n);
/* Lua's name ("table.remove") of the built-in LuaJIT implements in bytecode whose proto has
 * chunk name chunk ("remove"), written to buf; NULL when chunk names none. */
const char *luajit_lua_builtin_name(const char *chunk, char *buf, size_t n);

/* What a LuaJIT binary says about itself. gc64 is 1, 0, or -1 when the file does not tell
 * (Tarantool's GC64 builds carry no marker; validate candidates in memory instead). */
struct luajit_file_facts {
	int is_luajit;
	enum luajit_fork fork;
	int gc64;
	/* Whether the JIT compiler and the FFI are built in (their error messages are there):
	 * without either, GG_State and the built-ins are laid out as in no table here */
	int has_jit, has_ffi;
	char version[48]; /* "LuaJIT 2.1.0-beta3" */
};

/* Detects the variant from the defined dynamic symbol names (syms[0..nsyms), entries may
 * be NULL) and the bytes of .rodata. Both are untrusted. Returns the variant when both fork
 * and GC mode are known, else LUAJIT_VARIANT_UNKNOWN (facts still say what is known). */
enum luajit_variant luajit_detect_file(const char *const *syms, size_t nsyms,
				       const void *rodata, size_t rodata_len,
				       struct luajit_file_facts *facts);

/* Reads n bytes of the target at addr into dst; returns 0 on success. */
typedef int (*luajit_read_fn)(void *ctx, uint64_t addr, void *dst, size_t n);

/* Whether g is a live global_State of layout l: its main thread sits where GG_State puts
 * it, is a thread object, and points back to g. */
int luajit_validate_g(const struct luajit_layout *l, luajit_read_fn rd, void *ctx, uint64_t g);
/* Address of g given the interpreter's DISPATCH register (r14). */
uint64_t luajit_g_from_dispatch(const struct luajit_layout *l, uint64_t dispatch);
/* Picks, among the variants of fork (any fork when UNKNOWN) and gc64 (-1: either), the
 * one whose layout validates g = dispatch - offset; returns it and sets *g_out. */
enum luajit_variant luajit_detect_by_dispatch(enum luajit_fork fork, int gc64,
					      luajit_read_fn rd, void *ctx,
					      uint64_t dispatch, uint64_t *g_out);
/* Scans a copy of target memory (buf, len bytes, mapped at base) for GG_State blocks of
 * layout l: a lua_State whose glref points gg_g bytes past itself, at a thread tag, with
 * g->mainthref pointing back. Stores up to max global_State addresses; returns the count. */
size_t luajit_scan_gg(const struct luajit_layout *l, const void *buf, size_t len,
		      uint64_t base, uint64_t *out, size_t max);

#endif
