/* ptrace_arch.h for x86-64 (int3; rax/orig_rax; rip one past the int3) and arm64 (brk #0;
 * x8/x0 and the x7 flag the kernel sets at system-call stops; pc on the brk). */
#include <elf.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>

#include "arch.h"
#include "ptrace_arch.h"

#ifdef LF_ARCH_ARM64
/* NT_PRSTATUS's layout on arm64: x0..x30, sp, pc, pstate. */
struct arch_regs {
	uint64_t x[31], sp, pc, pstate;
};

static int get_regs(pid_t pid, struct arch_regs *r)
{
	struct iovec io = { r, sizeof(*r) };
	return ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &io) ? -1 : 0;
}

long ptrace_arch_breakpoint(long word)
{
	return (long)(((unsigned long)word & ~0xffffffffUL) | 0xd4200000UL); /* brk #0 */
}

int ptrace_arch_mapped_code(pid_t pid)
{
	struct arch_regs r;
	if (get_regs(pid, &r))
		return 0;
	if (r.x[7] != 1)
		return 0; /* x7 is 0 at the call's entry, 1 at its return */
	if (r.x[8] != SYS_mmap && r.x[8] != SYS_mprotect)
		return 0;
	return (r.x[2] & PROT_EXEC) && r.x[0] < (uint64_t)-4095;
}

int ptrace_arch_at_breakpoint(pid_t pid, uint64_t addr)
{
	struct arch_regs r;
	return !get_regs(pid, &r) && r.pc == addr; /* brk leaves pc on itself */
}
#else
long ptrace_arch_breakpoint(long word)
{
	return (long)(((unsigned long)word & ~0xffUL) | 0xcc); /* int3 */
}

int ptrace_arch_mapped_code(pid_t pid)
{
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return 0;
	if (r.rax == (unsigned long long)-ENOSYS)
		return 0; /* entry to the call, not its return */
	if (r.orig_rax != SYS_mmap && r.orig_rax != SYS_mprotect)
		return 0;
	return (r.rdx & PROT_EXEC) && r.rax < (unsigned long long)-4095;
}

int ptrace_arch_at_breakpoint(pid_t pid, uint64_t addr)
{
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, pid, 0, &r) || r.rip != addr + 1)
		return 0;
	r.rip = addr; /* int3 leaves rip past itself */
	ptrace(PTRACE_SETREGS, pid, 0, &r);
	return 1;
}
#endif
