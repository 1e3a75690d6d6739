/* LuaJIT on the architecture lua-flame is built for: what differs from the x86-64 builds the
 * layout table was measured on (luajit_layouts.c), and where the interpreter's C frame (saveregs
 * in vm_x64.dasc / vm_x86.dasc / vm_arm64.dasc) keeps the callee-saved registers. On x86-64, and
 * on arm64 since LuaJIT reordered that frame in 2021, the caller's return address and frame
 * pointer are the two words under the C frame's top (its CFA), as luajit_runtime_cfg says. */
#include "arch.h"
#include "luajit_runtime.h"

#ifdef LF_ARCH_ARM64
/* arm64 is always GC64. Its jit_State lacks x86-64's SIMD and conversion constants, which
 * moves the trace array and the GG_State's dispatch table down: 24 bytes in upstream and
 * OpenResty, 32 in Tarantool's fork, which keeps ksimd on every target and its k64/k32 after
 * it. Tarantool's tree (2.6) predates the reordered C frame: its lj_frame.h puts the saved
 * state at the frame's top, the frame record at its bottom. scripts/gen-luajit-layouts.sh
 * --check compiles its layout probe for aarch64 against each tree and compares. */
#define OLD_CFRAME_OFS_PREV 160 /* the C frame before the reorder (lj_frame.h, arm64) */

void luajit_layout_arch(struct luajit_layout *l)
{
	if (!l->gc64)
		return;
	int32_t simd = l->fork == LUAJIT_FORK_TARANTOOL ? 32 : 24;
	l->J_trace -= simd;
	l->J_sizetrace -= simd;
	l->gg_dispatch -= simd;
	l->gg_size -= simd;
	/* the heap snapshot's fields of jit_State lie past those constants too */
	l->J_irbuf -= simd;
	l->J_irtoplim -= simd;
	l->J_irbotlim -= simd;
	l->J_sizesnap -= simd;
	l->J_sizesnapmap -= simd;
	int32_t top = l->fork == LUAJIT_FORK_TARANTOOL ? OLD_CFRAME_OFS_PREV : 0;
	l->cframe_ofs_prev = top;
	l->cframe_ofs_pc = top + 8;
	l->cframe_ofs_l = top + 16;
	l->cframe_ofs_multres = top + 32;
	l->cframe_ofs_errf = top + 36;
	l->cframe_ofs_nres = top + 40;
	l->cframe_size = 208;
	l->cframe_size_jit = 208;
}

/* 2.1.0-beta3's arm64 jit_State and C frame were never probed (gen-luajit-layouts.sh --check
 * compares the forks it builds for aarch64, not that release). */
const char *luajit_arch_unknown(const struct luajit_layout *l)
{
	return l->fork == LUAJIT_FORK_BETA3 ? "its arm64 layout is not known to this build" : NULL;
}

/* sp inside the VM is the cframe, cframe_size bytes below the caller's sp (the CFA); saveregs
 * stores the frame record {x29, x30} at its top (x29 = cframe + 192 while the VM or a trace
 * runs) and x19..x28 below it, x19 highest. Before the reorder it stored the frame record at
 * the bottom (x29 = cframe) and x19..x28 above it, x19 lowest. Traces run at
 * sp = cframe - 16 - spadjust, as on x86-64. The interpreter keeps BASE in x19, PC in x21 and
 * g in x22 (arch_arm64.bpf.h). */
void luajit_cframe_saved(struct lf_lj_cfg *c)
{
	int old = c->cframe_ofs_prev == OLD_CFRAME_OFS_PREV;
	if (old) {
		c->cf_fp = (__s16)-c->cframe_size; /* x29 at the cframe, x30 above it */
		c->cf_ra = (__s16)(8 - c->cframe_size);
	}
	for (int i = 0; i < LF_NSAVED; i++) /* x19 at -24 ... x28 at -96, or from cframe + 16 up */
		c->cf_saved[i] = (__s16)(old ? 16 + 8 * i - c->cframe_size : -24 - 8 * i);
}
#else
void luajit_layout_arch(struct luajit_layout *l)
{
	(void)l; /* the table's own architecture */
}

const char *luajit_arch_unknown(const struct luajit_layout *l)
{
	(void)l;
	return NULL;
}

/* x86-64 System V (both .dasc files, builds without LUAJIT_NO_UNWIND): rsp inside the VM is
 * the cframe; the caller's return address is at CFA - 8 and the callee-saved registers the
 * VM pushed sit below it. A trace runs with rsp = cframe - 16 - spadjust (BC_JLOOP saves
 * r12/r13 in those 16 bytes). The interpreter keeps BASE in rdx, PC in rbx (arch_x86.bpf.h). */
void luajit_cframe_saved(struct lf_lj_cfg *c)
{
	c->cf_saved[0] = -24; /* rbx */
	c->cf_saved[3] = -40; /* r14 */
	c->cf_saved[4] = -32; /* r15 */
}
#endif
