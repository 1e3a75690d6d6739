/* arm64's part of the BPF unwinder: the sampled registers, user mode, the vdso's
 * __kernel_rt_sigreturn and its ucontext, and where a frame keeps its return address (x30
 * until the prologue saves it, then a slot near the CFA; signed by pointer authentication on
 * builds that use it, so it is stripped before use). */
#ifndef LF_ARCH_ARM64_BPF_H
#define LF_ARCH_ARM64_BPF_H
#include "ustate.bpf.h"

#define LF_THREAD_SIZE 16384 /* kernel stacks (without KASAN) */

/* Calls leave the return address in a register (x30): a function that saves nothing, such
 * as a LuaJIT VM helper a trace calls, keeps its caller's sp and frame pointer. */
#define LF_ARCH_LINK_REG 1

/* User addresses have at most 48 bits; the bits above hold a pointer-authentication code. */
#define LF_VA_MASK 0x0000ffffffffffffULL

/* Whether the sample interrupted user code: PSTATE's mode is EL0 (AArch64). */
static __always_inline int arch_in_user(struct bpf_perf_event_data *ctx)
{
	return (ctx->regs.pstate & 0x1f) == 0;
}

/* Integer argument i (0-3) of a function entered where the sample was taken. */
static __always_inline __u64 arch_arg(struct bpf_perf_event_data *ctx, int i)
{
	return ctx->regs.regs[i & 3];
}

/* The walk's registers from the sample that interrupted user code. LuaJIT's interpreter
 * keeps BASE in x19 and PC in x21; its return moves BASE along the results it copies down,
 * having kept BASE - 16 in x2. */
static __always_inline void arch_regs_from_sample(struct bpf_perf_event_data *ctx, struct lf_ustate *u)
{
	u->ip = ctx->regs.pc;
	u->sp = ctx->regs.sp;
	u->bp = ctx->regs.regs[29];
	u->lr = ctx->regs.regs[30];
	for (int i = 0; i < LF_NSAVED; i++)
		u->regs[i] = ctx->regs.regs[19 + i];
	u->vm_base = ctx->regs.regs[19];
	u->vm_pc = ctx->regs.regs[21];
	u->vm_ret_base = ctx->regs.regs[2] + 16;
}

/* The same from the task's saved user registers (a sample taken in the kernel). */
static __always_inline void arch_regs_from_task(struct pt_regs *r, struct lf_ustate *u)
{
	u->ip = BPF_CORE_READ(r, pc);
	u->sp = BPF_CORE_READ(r, sp);
	u->bp = BPF_CORE_READ(r, regs[29]);
	u->lr = BPF_CORE_READ(r, regs[30]);
	u->regs[0] = BPF_CORE_READ(r, regs[19]);
	u->regs[1] = BPF_CORE_READ(r, regs[20]);
	u->regs[2] = BPF_CORE_READ(r, regs[21]);
	u->regs[3] = BPF_CORE_READ(r, regs[22]);
	u->regs[4] = BPF_CORE_READ(r, regs[23]);
	u->regs[5] = BPF_CORE_READ(r, regs[24]);
	u->regs[6] = BPF_CORE_READ(r, regs[25]);
	u->regs[7] = BPF_CORE_READ(r, regs[26]);
	u->regs[8] = BPF_CORE_READ(r, regs[27]);
	u->regs[9] = BPF_CORE_READ(r, regs[28]);
	u->vm_base = u->regs[0];
	u->vm_pc = u->regs[2];
	u->vm_ret_base = BPF_CORE_READ(r, regs[2]) + 16;
}

/* The vdso's __kernel_rt_sigreturn: mov x8, #139; svc #0. */
static __always_inline int is_sigreturn(__u64 ip)
{
	__u32 w[2];
	if (bpf_probe_read_user(w, sizeof(w), (const void *)ip))
		return 0;
	return w[0] == 0xd2801168 && w[1] == 0xd4000001;
}

/* In the trampoline, sp points at the rt_sigframe: a 128-byte siginfo, then the ucontext,
 * whose mcontext (16-aligned, after flags, link, stack, the sigset and glibc's room for a
 * 1024-bit one) starts 176 bytes in: fault_address, x0..x30, sp, pc. */
#define LF_SIG_MC (128 + 176)
static __always_inline int step_signal(struct lf_ustate *u)
{
	__u64 x = u->sp + LF_SIG_MC + 8, fp, lr, sp, ip;
	if (read_u64(x + 8 * 29, &fp) || read_u64(x + 8 * 30, &lr) || read_u64(x + 8 * 31, &sp) ||
	    read_u64(x + 8 * 32, &ip))
		return LF_MARK_BAD_READ;
	u->bp = fp;
	u->lr = lr;
	u->sp = sp;
	u->ip = ip;
	u->exact = 1;
	u->stack_lo = u->stack_hi = 0; /* the interrupted code's stack may be another one (sigaltstack) */
	for (int i = 0; i < LF_NSAVED; i++)
		read_u64(x + 8 * (19 + i), &u->regs[i]);
	return 0;
}

/* The return address of a frame whose CFA is cfa: in its slot once the prologue saved it;
 * still in x30 only in a frame whose registers are known exactly (the sampled one, or one a
 * signal interrupted): a caller's x30 was overwritten by its call. */
static __always_inline int arch_frame_ra(struct lf_ustate *u, const struct lf_rule *r, __u64 cfa, __u64 *ra)
{
	if (r->ra_off) {
		if (window_read(u, cfa + (__s64)r->ra_off, ra))
			return LF_MARK_BAD_READ;
	} else if (u->exact) {
		*ra = u->lr;
	} else {
		return LF_MARK_INVALID;
	}
	*ra &= LF_VA_MASK;
	return 0;
}

/* Where arch_frame_ra reads a frame's return address (0: not from memory, as x30 is read for
 * the leaf), and the return address as the walk takes it from what was read there. */
static __always_inline __u64 arch_ra_slot(const struct lf_rule *r, __u64 cfa)
{
	return r->ra_off ? cfa + (__s64)r->ra_off : 0;
}

static __always_inline __u64 arch_ra_value(__u64 v)
{
	return v & LF_VA_MASK;
}

/* A function that has not saved x30 (no frame yet): its return address and its caller's sp. */
static __always_inline int arch_frameless_ra(struct lf_ustate *u, __u64 sp, __u64 *ra, __u64 *caller_sp)
{
	*caller_sp = sp;
	*ra = u->lr & LF_VA_MASK;
	return 0;
}

#endif
