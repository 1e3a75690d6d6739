/* The architecture lua-flame is built for, as both the BPF programs and user space see it:
 * which callee-saved registers the unwinder recovers in every frame (a Lua VM keeps its
 * state in them), and the ELF files it reads. Everything else that differs by architecture
 * is in bpf/arch_*.bpf.h, cmd/unwind/cfi_arch.h, cmd/proc/ptrace_arch.c,
 * cmd/lua/luajit/luajit_arch.c and the syscall number in cmd/kernel/namer_sched.c. */
#ifndef LF_ARCH_H
#define LF_ARCH_H

#if defined(__TARGET_ARCH_arm64) || (!defined(__bpf__) && defined(__aarch64__))
#define LF_ARCH_ARM64 1
#define LF_ARCH_NAME "aarch64"
#define LF_NSAVED 10 /* x19..x28 */
#define LF_SAVED_ROOM 13
#define LF_SAVED_MASK 15     /* a power of two minus one, at least LF_NSAVED - 1 */
#define LF_ARCH_EM 183       /* EM_AARCH64 */
#define LF_START_SIZE 64     /* a stripped program's _start, as glibc's is (52 bytes) */
#define LF_USER_BITS 48      /* user addresses (48-bit virtual addresses) */
/* LuaJIT's traces keep no number in the VM's state here: a trace is told by the address of
 * its machine code, from a table user space writes (luajit_traces.c, lj_trace_at). */
#define LF_LJ_TRACES_BY_ADDRESS 1
#elif defined(__TARGET_ARCH_x86) || (!defined(__bpf__) && defined(__x86_64__))
#define LF_ARCH_X86_64 1
#define LF_ARCH_NAME "x86-64"
#define LF_NSAVED 5 /* rbx, r12, r13, r14, r15 */
#define LF_SAVED_ROOM 5
#define LF_SAVED_MASK 7      /* a power of two minus one, at least LF_NSAVED - 1 */
#define LF_ARCH_EM 62        /* EM_X86_64 */
#define LF_START_SIZE 48     /* a stripped program's _start, as glibc's is (38 bytes) */
#define LF_USER_BITS 47      /* user addresses (4-level page tables) */
#define LF_LJ_TRACES_BY_ADDRESS 0 /* a LuaJIT trace says its number in the VM's state */
#else
#error "lua-flame is built for x86-64 (__TARGET_ARCH_x86) or arm64 (__TARGET_ARCH_arm64)"
#endif
#define LF_USER_TOP (1ULL << LF_USER_BITS)

#endif
