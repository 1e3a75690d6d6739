/* Fingerprints of Lua functions (lua.h): where the fingerprinted fields are in each PUC Lua and
 * LuaJIT layout, for the BPF walker's configuration, and the same fingerprint taken from user
 * space, to tell whether a Proto still is the function a sample ran. */
#ifndef LF_LUA_FP_H
#define LF_LUA_FP_H
#include <stddef.h>
#include <stdint.h>
#include "lua.h"
#include "lua_layouts.h"
#include "luajit_layouts.h"

/* Fills f's span from the fields' offsets in the Proto (0xffff: a field the layout lacks). */
void lf_fp_span(struct lf_fp_cfg *f, uint16_t code, uint16_t source, uint16_t line, uint16_t size);
void lua_fp_cfg(const struct lua_layout *l, struct lf_fp_cfg *f);
void lj_fp_cfg(const struct luajit_layout *l, struct lf_fp_cfg *f);

/* Reads exactly n bytes at a of the target m into b: 0 or -1. */
typedef int (*lf_fp_rd)(const void *m, uint64_t a, void *b, size_t n);
/* The fingerprint of the Proto at proto as the BPF walker takes it, or 0 when unreadable. */
uint32_t lf_fp_read(const struct lf_fp_cfg *f, uint64_t proto, lf_fp_rd rd, const void *m);
#endif
