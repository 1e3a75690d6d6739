/* Labels of LuaJIT frames read from a target's memory: what a GCfunc is, the chunk name and
 * first line of a proto, the line being executed, and the name Lua's own tracebacks would give
 * a function, found from its caller's bytecode. Every byte comes through an untrusted reader. */
#ifndef LF_LUAJIT_FRAMES_H
#define LF_LUAJIT_FRAMES_H
#include <stddef.h>
#include <stdint.h>
#include "luajit_layouts.h"
#include "lua_fp.h"

/* Reads len bytes at addr of the target; returns the number of bytes read or -1. */
typedef long (*luajit_mem_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);
/* One target address space. Results are cached per (ctx, proto[, pc]) and checked against the
 * proto's header on every call (one read), so a freed and reused proto address gets fresh
 * labels; a ctx must still not be reused for another process without luajit_frames_cache_clear().
 * The _fp variants below key labels by the fingerprint the BPF walker took at sample time
 * instead. The cache is process-wide and not locked: call these functions from one thread. */
struct luajit_mem { luajit_mem_read_fn read; void *ctx; };

#define LJ_CHUNK_MAX 256  /* chunk names are cut to this many bytes, NUL included */
#define LJ_IDENT_MAX 128  /* function names likewise */

enum luajit_fn_kind { LJ_FN_BAD, LJ_FN_LUA, LJ_FN_C, LJ_FN_FAST };

/* What a GCfunc that is no Lua function is by its ffid: a C function, a built-in, or nothing
 * a VM of this layout makes. */
enum luajit_fn_kind luajit_cfunc_kind(const struct luajit_layout *l, int ffid);

/* What the GCfunc at fn is: a Lua function (*proto_or_cfunc = its GCproto), a C function
 * (*proto_or_cfunc = its lua_CFunction) or a built-in ("fast function": *ffid set, and
 * *proto_or_cfunc its handler). LJ_FN_BAD when fn cannot be read or is no function. Either out
 * pointer may be NULL. */
enum luajit_fn_kind luajit_func_info(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t fn,
			     uint64_t *proto_or_cfunc, int *ffid);

/* Labels of a GCproto, read through the label cache. fp is the proto's fingerprint when a
 * sample was taken (0: whatever it holds now): a label cached for that fingerprint needs no
 * read; else it is read only if the proto still has that fingerprint. */

/* Chunk name of proto (without its leading '@' or '='; a string chunk becomes
 * [string "first line..."] and a built-in one [builtin:name], as LuaJIT prints them; a path
 * too long for chunk_size keeps its end after "...") and the line where the function is
 * defined (0 for a main chunk). ';', newlines and other control bytes become '_'. 0, -1, or
 * -2 when the proto no longer has fingerprint fp. */
int luajit_proto_info(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto, uint32_t fp,
		      char *chunk, size_t chunk_size, int *firstline);

/* Line of the instruction before pc (pc points past the current or calling instruction), as
 * lua_getinfo's currentline; pc at the first instruction gives the first line. -1 when pc is
 * not inside the proto's bytecode (0, a trace's copy) or it has no line info. */
int luajit_proto_line(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto, uint32_t fp,
		      uint64_t pc);

/* Name of the function called by the instruction before caller_pc in caller_proto, as
 * lj_debug_funcname gives it: global, field, method, local (for-loop generators are the local
 * "(for generator)", as LuaJIT says), upvalue, or a metamethod as "__index", "__add"... The
 * bare name goes to out. Returns 0, or -1 when LuaJIT would know no name (or only an empty
 * one: stripped upvalue names). Only for a callee whose frame link holds caller_pc (a Lua
 * frame) or whose continuation frame saved it (metamethods); a function called by pcall or
 * from C has no caller pc and no name. */
int luajit_call_name(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t caller_proto,
		     uint32_t caller_fp, uint64_t caller_pc, char *out, size_t out_size);

/* Name of built-in ffid as Lua knows it ("string.rep", "pairs") in buf, or NULL. */
const char *luajit_fast_name(const struct luajit_layout *l, int ffid, char *buf, size_t n);

/* Name of a built-in LuaJIT implements in bytecode (LJLIB_LUA: table.remove, math.deg...)
 * when proto is one (its firstline is -1), as Lua knows it, in out. 0, or -1 for any other
 * proto. */
int luajit_proto_builtin_name(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto,
			char *out, size_t size);

/* Where the fingerprinted GCproto fields are in layout l, for the BPF walker. */
void luajit_fp_cfg(const struct luajit_layout *l, struct lf_fp_cfg *f);
/* The fingerprint the BPF walker would take of proto now, or 0 when unreadable. */
uint32_t luajit_proto_fp(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto);

/* The name of proto's function in package.loaded of the VM of thread L ("handle" for a
 * global, "mod.run"), for a function called from C, which no caller's code names: 0, or -1
 * when no module holds it (global_names.h). */
int luajit_global_call_name(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto, uint32_t fp,
			    uint64_t L, char *out, size_t out_size);

/* Forgets every cached label (call when a target's ctx is reused). */
void luajit_frames_cache_clear(void);
/* Frees the cache; it is re-created on the next use. */
void luajit_frames_cache_free(void);

/* ---- Shared by luajit_frames.c and luajit_names.c; not for other callers. ---- */

/* The fields of a GCproto the labels need, read in one go and checked: every array it points
 * to lies inside the proto's own allocation [addr, addr + sizept), as LuaJIT colocates them. */
struct luajit_proto {
	uint64_t addr, bc, k, lineinfo, uvinfo, varinfo, chunkname;
	uint32_t sizebc, sizekgc, sizept, sizeuv;
	int32_t firstline, numline;
};

/* A GCRef/MRef of size bytes (4 or 8) at b, zero-extended. */
uint64_t luajit_load_ref(const uint8_t *b, int32_t size);
/* Exactly len bytes at addr, or -1. */
int luajit_rd(const struct luajit_mem *m, uint64_t addr, void *buf, size_t len);
/* A GCRef/MRef of size bytes (4 or 8) at addr, zero-extended; 0 or -1. */
int luajit_rd_ref(const struct luajit_mem *m, uint64_t addr, int32_t size, uint64_t *out);
/* Reads and checks the GCproto at addr. Returns 0 or -1. */
int luajit_proto_read(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t addr,
		  struct luajit_proto *p);
/* Bytes of the GCstr at s (its header must say string), cut to out_size - 1; *full_len (may be
 * NULL) gets the string's own length. Returns the bytes copied or -1. */
long luajit_gcstr(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t s, char *out,
	      size_t out_size, uint32_t *full_len);
/* The uncached lookup behind luajit_global_call_name (luajit_globals.c). */
int luajit_global_name(const struct luajit_layout *l, const struct luajit_mem *m, uint64_t proto, uint64_t L,
		       char *out, size_t size);
/* The uncached namer behind luajit_call_name (luajit_names.c): pos is the index of the calling
 * instruction. Returns 0, -1 (no name) or -2 (the target could not be read: do not cache). */
int luajit_name_from_code(const struct luajit_layout *l, const struct luajit_mem *m,
		      const struct luajit_proto *p, uint32_t pos, char *out, size_t out_size);
#endif
