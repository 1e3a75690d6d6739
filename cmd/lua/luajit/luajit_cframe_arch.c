/* The LuaJIT interpreter's C frame on the architecture lua-flame is built for: where the VM
 * (saveregs in vm_x64.dasc / vm_x86.dasc / vm_arm64.dasc) keeps its caller's return address,
 * frame pointer and callee-saved registers, and the C frame's own fields. */
#include "arch.h"
#include "luajit_runtime.h"

#ifdef LF_ARCH_ARM64
/* vm_arm64.dasc (always GC64; lj_frame.h's CFRAME_* for arm64): sp inside the VM is the
 * cframe, CFRAME_SIZE bytes below the caller's sp (the CFA); saveregs stores the frame
 * record {x29, x30} at its top (x29 = cframe + 192 while the VM or a trace runs) and x19..x28
 * below it, x19 highest. Traces run at sp = cframe - 16 - spadjust, as on x86-64. The
 * interpreter keeps BASE in x19, PC in x21 and g in x22 (arch_arm64.bpf.h). */
#define ARM64_CFRAME_SIZE 208
void luajit_cframe_arch(const struct luajit_layout *l, struct lf_lj_cfg *c)
{
	(void)l;
	c->cframe_size = ARM64_CFRAME_SIZE;
	c->cframe_ofs_prev = 0;  /* CFRAME_OFS_PREV */
	c->cframe_ofs_l = 16;    /* CFRAME_OFS_L */
	c->cf_ra = -8;
	c->cf_fp = -16;
	for (int i = 0; i < LF_NSAVED; i++)
		c->cf_saved[i] = (__s16)(-24 - 8 * i); /* x19 at -24 ... x28 at -96 */
}
#else
/* x86-64 System V (both .dasc files, builds without LUAJIT_NO_UNWIND): rsp inside the VM is
 * the cframe; the caller's return address is at CFA - 8 and the callee-saved registers the
 * VM pushed sit below it. A trace runs with rsp = cframe - 16 - spadjust (BC_JLOOP saves
 * r12/r13 in those 16 bytes). The interpreter keeps BASE in rdx, PC in rbx (arch_x86.bpf.h). */
void luajit_cframe_arch(const struct luajit_layout *l, struct lf_lj_cfg *c)
{
	c->cframe_size = (__u16)l->cframe_size;
	c->cframe_ofs_prev = (__u16)l->cframe_ofs_prev;
	c->cframe_ofs_l = (__u16)l->cframe_ofs_l;
	c->cf_ra = -8;
	c->cf_fp = -16;
	c->cf_saved[0] = -24; /* rbx */
	c->cf_saved[3] = -40; /* r14 */
	c->cf_saved[4] = -32; /* r15 */
}
#endif
