/* Labels of PUC Lua 5.1-5.5 frames read from a target's memory: chunk name and line where a
 * function is defined, the line being executed, and the name Lua's own tracebacks would give a
 * function, found from its caller's bytecode. Every byte comes through an untrusted reader. */
#ifndef LF_LUA_FRAMES_H
#define LF_LUA_FRAMES_H
#include <stddef.h>
#include <stdint.h>
#include "puc_layouts.h"
#include "lua_fp.h"

/* Reads len bytes at addr of the target; returns the number of bytes read or -1. */
typedef long (*puc_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);
/* One target address space. Results are cached per (ctx, proto[, pc]) and checked against the
 * proto's header on every call (one read), so a freed and reused proto address gets fresh labels;
 * a ctx must still not be reused for another process without puc_frames_cache_clear(). The _fp
 * variants below key labels by the fingerprint the BPF walker took at sample time instead. The
 * cache is process-wide and not locked: call these functions from one thread. */
struct puc_mem { puc_read_fn read; void *ctx; };

#define LUA_CHUNK_MAX 256  /* chunk names are cut to this many bytes, NUL included */
#define LUA_IDENT_MAX 128  /* function names likewise */

/* Labels of a Proto, read through the label cache. fp is the Proto's fingerprint when a
 * sample was taken (0: whatever it holds now): a label cached for that fingerprint needs no
 * read; else it is read only if the Proto still has that fingerprint. */

/* Chunk name of proto (without its leading '@' or '='; a string chunk becomes
 * [string "first line..."] as Lua prints it) and the line where the function is defined (0 for
 * a main chunk). ';', newlines and other control bytes become '_'. Returns 0, -1, or -2 when
 * the Proto no longer has fingerprint fp. */
int puc_proto_info(const struct puc_layout *l, const struct puc_mem *m, uint64_t proto, uint32_t fp,
		   char *chunk, size_t chunk_size, int *linedefined);

/* Line being executed at savedpc (which points one past the current instruction), or -1. */
int puc_proto_line(const struct puc_layout *l, const struct puc_mem *m, uint64_t proto, uint32_t fp,
		   uint64_t savedpc);

/* Name of the function called by the instruction before caller_savedpc in caller_proto, as
 * lua_getinfo(L, "n", ...) gives it: global, field, method, local, upvalue or constant name,
 * "for iterator", or a metamethod as "__index", "__add"... Returns 0, or -1 when Lua would know
 * no name. The caller handles what the CallInfo says and the bytecode cannot: no name for a tail
 * call (CIST_TAIL; 5.1: tailcalls > 0) or a call from C, "?" inside a hook, "__gc" for a
 * finalizer. As in Lua, 5.1 names no metamethods. */
int puc_call_name(const struct puc_layout *l, const struct puc_mem *m, uint64_t caller_proto,
		  uint32_t caller_fp, uint64_t caller_savedpc, uint32_t callee_fp, char *out, size_t out_size);

/* The name of proto's function in package.loaded of the VM of thread L ("handle" for a
 * global, "mod.run"), the name Lua's tracebacks give a function called from C: 0, or -1 when
 * no module holds it (global_names.h). */
int puc_global_call_name(const struct puc_layout *l, const struct puc_mem *m, uint64_t proto, uint32_t fp,
			 uint64_t L, char *out, size_t out_size);

/* Where the fingerprinted Proto fields are in layout l, for the BPF walker. */
void puc_fp_cfg(const struct puc_layout *l, struct lf_fp_cfg *f);
/* The fingerprint the BPF walker would take of proto now, or 0 when unreadable. */
uint32_t puc_proto_fp(const struct puc_layout *l, const struct puc_mem *m, uint64_t proto);

/* Forgets every cached label (call when a target's ctx is reused). */
void puc_frames_cache_clear(void);
/* Frees the cache; it is re-created on the next use. */
void puc_frames_cache_free(void);

/* ---- Shared by puc_frames.c and puc_names.c; not for other callers. ---- */

/* The fields of a Proto the labels need, read in one go and sanity-checked. */
struct puc_proto {
	uint64_t addr, source, code, lineinfo, abslineinfo, k, upvalues, locvars, p;
	int32_t sizecode, sizelineinfo, sizeabslineinfo, sizek, sizeupvalues, sizelocvars, sizep;
	int32_t linedefined;
	uint8_t nups;  /* 5.1 only: Proto.nups (the byte before numparams) */
};

/* The 8 bytes at b + off; the tag of size bytes (at most 4 used) at b + off. */
uint64_t puc_u64_at(const uint8_t *b, unsigned off);
uint32_t puc_tag_at(const uint8_t *b, unsigned off, unsigned size);
/* Exactly len bytes at addr, or -1. */
int puc_rd(const struct puc_mem *m, uint64_t addr, void *buf, size_t len);
/* Reads and checks the Proto at addr (header tag, sizes within limits). Returns 0 or -1. */
int puc_proto_read(const struct puc_layout *l, const struct puc_mem *m, uint64_t addr,
		   struct puc_proto *p);
/* Bytes of the TString at ts (its header must say string), cut to out_size - 1, stopping at a
 * NUL; *full_len (may be NULL) gets the string's own length. Returns the bytes copied or -1. */
long puc_tstring(const struct puc_layout *l, const struct puc_mem *m, uint64_t ts, char *out,
		 size_t out_size, uint64_t *full_len);
/* Index of the instruction at savedpc - 1 in p, or -2 when savedpc is not inside p->code
 * (savedpc == code gives -1: the function has not started). */
int puc_pc_of(const struct puc_proto *p, uint64_t savedpc);
/* The uncached lookup behind puc_global_call_name (puc_globals.c). */
int puc_global_name(const struct puc_layout *l, const struct puc_mem *m, uint64_t proto, uint64_t L, char *out,
		    size_t size);
/* The uncached namer behind puc_call_name (puc_names.c). */
int puc_name_from_code(const struct puc_layout *l, const struct puc_mem *m,
		       const struct puc_proto *p, int pc, char *out, size_t out_size);
#endif
