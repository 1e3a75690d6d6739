/* LuaJIT on the architecture lua-flame is built for: what differs from the x86-64 builds the
 * layout table was measured on (luajit_layouts.c), and where the interpreter's C frame (saveregs
 * in vm_x64.dasc / vm_x86.dasc / vm_arm64.dasc) keeps the callee-saved registers. On both, the
 * caller's return address and frame pointer are the two words under the C frame's top (its
 * CFA), as luajit_runtime_cfg says. */
#include "arch.h"
#include "luajit_runtime.h"

#ifdef LF_ARCH_ARM64
/* arm64 is always GC64. Its jit_State lacks x86-64's SIMD constants (ksimd), 24 bytes with
 * their alignment, which moves the trace array and the GG_State's dispatch table; its C frame
 * is lj_frame.h's arm64 one. Measured by compiling the layout probe of
 * scripts/gen-luajit-layouts.sh for aarch64 against upstream's and OpenResty's trees. */
void luajit_layout_arch(struct luajit_layout *l)
{
	if (!l->gc64)
		return;
	l->J_trace -= 24;
	l->J_sizetrace -= 24;
	l->gg_dispatch -= 24;
	l->gg_size -= 24;
	l->cframe_ofs_prev = 0;
	l->cframe_ofs_pc = 8;
	l->cframe_ofs_l = 16;
	l->cframe_ofs_multres = 32;
	l->cframe_ofs_errf = 36;
	l->cframe_ofs_nres = 40;
	l->cframe_size = 208;
	l->cframe_size_jit = 208;
}

/* sp inside the VM is the cframe, cframe_size bytes below the caller's sp (the CFA); saveregs
 * stores the frame record {x29, x30} at its top (x29 = cframe + 192 while the VM or a trace
 * runs) and x19..x28 below it, x19 highest. Traces run at sp = cframe - 16 - spadjust, as on
 * x86-64. The interpreter keeps BASE in x19, PC in x21 and g in x22 (arch_arm64.bpf.h). */
void luajit_cframe_saved(struct lf_lj_cfg *c)
{
	for (int i = 0; i < LF_NSAVED; i++)
		c->cf_saved[i] = (__s16)(-24 - 8 * i); /* x19 at -24 ... x28 at -96 */
}
#else
void luajit_layout_arch(struct luajit_layout *l)
{
	(void)l; /* the table's own architecture */
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
