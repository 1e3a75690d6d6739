/* x86-64's part of the BPF unwinder: the sampled registers, user mode, the rt_sigreturn
 * trampoline and its ucontext, and where a frame keeps its return address (always CFA-8, and
 * at sp in a function that has not moved sp yet). */
#ifndef LF_ARCH_X86_BPF_H
#define LF_ARCH_X86_BPF_H
#include "ustate.bpf.h"

#define LF_THREAD_SIZE 16384 /* kernel stacks (without KASAN) */
#define LF_ARCH_LINK_REG 0   /* calls push the return address */

/* Whether the sample interrupted user code (it has no kernel frames then). */
static __always_inline int arch_in_user(struct bpf_perf_event_data *ctx)
{
	/* cs is a 16-bit field but context reads must be 8 bytes wide. */
	__u64 cs = *(volatile __u64 *)((char *)&ctx->regs + __builtin_offsetof(struct pt_regs, cs));
	return (cs & 3) == 3;
}

/* Integer argument i (0-3) of a function entered where the sample was taken. */
static __always_inline __u64 arch_arg(struct bpf_perf_event_data *ctx, int i)
{
	return i == 0 ? ctx->regs.di : i == 1 ? ctx->regs.si : i == 2 ? ctx->regs.dx : ctx->regs.cx;
}

/* The walk's registers from the sample that interrupted user code. LuaJIT's interpreter
 * keeps BASE in rdx and PC in rbx. */
static __always_inline void arch_regs_from_sample(struct bpf_perf_event_data *ctx, struct lf_ustate *u)
{
	u->ip = ctx->regs.ip;
	u->sp = ctx->regs.sp;
	u->bp = ctx->regs.bp;
	u->regs[0] = ctx->regs.bx;
	u->regs[1] = ctx->regs.r12;
	u->regs[2] = ctx->regs.r13;
	u->regs[3] = ctx->regs.r14;
	u->regs[4] = ctx->regs.r15;
	u->vm_base = ctx->regs.dx;
	u->vm_pc = ctx->regs.bx;
	u->vm_ret_base = u->vm_base; /* a return leaves BASE in place while it copies */
}

/* The same from the task's saved user registers (a sample taken in the kernel). */
static __always_inline void arch_regs_from_task(struct pt_regs *r, struct lf_ustate *u)
{
	u->ip = BPF_CORE_READ(r, ip);
	u->sp = BPF_CORE_READ(r, sp);
	u->bp = BPF_CORE_READ(r, bp);
	u->regs[0] = BPF_CORE_READ(r, bx);
	u->regs[1] = BPF_CORE_READ(r, r12);
	u->regs[2] = BPF_CORE_READ(r, r13);
	u->regs[3] = BPF_CORE_READ(r, r14);
	u->regs[4] = BPF_CORE_READ(r, r15);
	u->vm_base = BPF_CORE_READ(r, dx);
	u->vm_pc = BPF_CORE_READ(r, bx);
	u->vm_ret_base = u->vm_base;
}

/* The rt_sigreturn trampoline: mov $15,%rax; syscall. */
static __always_inline int is_sigreturn(__u64 ip)
{
	unsigned char b[9];
	if (bpf_probe_read_user(b, sizeof(b), (const void *)ip))
		return 0;
	return b[0] == 0x48 && b[1] == 0xc7 && b[2] == 0xc0 && b[3] == 0x0f && b[4] == 0 && b[5] == 0 &&
	       b[6] == 0 && b[7] == 0x0f && b[8] == 0x05;
}

/* In the trampoline, sp points at the ucontext; its mcontext starts 40 bytes in and holds
 * rbp, rsp and rip at 80, 120 and 128. */
static __always_inline int step_signal(struct lf_ustate *u)
{
	__u64 mc = u->sp + 40, bp, sp, ip;
	if (read_u64(mc + 80, &bp) || read_u64(mc + 120, &sp) || read_u64(mc + 128, &ip))
		return LF_MARK_BAD_READ;
	u->bp = bp;
	u->sp = sp;
	u->ip = ip;
	u->exact = 1;
	u->stack_lo = u->stack_hi = 0; /* the interrupted code's stack may be another one (sigaltstack) */
	/* mcontext: r8..r15 at 0..56, rbx at 88 */
	read_u64(mc + 88, &u->regs[0]);
	for (int i = 1; i < LF_NSAVED; i++)
		read_u64(mc + 24 + 8 * i, &u->regs[i]);
	return 0;
}

/* The return address of a frame whose CFA is cfa (read through the stack window). */
static __always_inline int arch_frame_ra(struct lf_ustate *u, const struct lf_rule *r, __u64 cfa, __u64 *ra)
{
	(void)r;
	return window_read(u, cfa - 8, ra) ? LF_MARK_BAD_READ : 0;
}

/* Where arch_frame_ra reads a frame's return address (0: not from memory), and the return
 * address as the walk takes it from what was read there. */
static __always_inline __u64 arch_ra_slot(const struct lf_rule *r, __u64 cfa)
{
	(void)r;
	return cfa - 8;
}

static __always_inline __u64 arch_ra_value(__u64 v)
{
	return v;
}

/* A function that has not moved sp (no frame yet): its return address and its caller's sp. */
static __always_inline int arch_frameless_ra(struct lf_ustate *u, __u64 sp, __u64 *ra, __u64 *caller_sp)
{
	(void)u;
	*caller_sp = sp + 8;
	return read_u64(sp, ra);
}

#endif
