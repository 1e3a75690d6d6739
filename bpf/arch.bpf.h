/* The BPF unwinder's architecture-specific part, for the architecture the programs are built
 * for (bpf/arch.h): the same few functions and constants in each. */
#ifndef LF_ARCH_BPF_H
#define LF_ARCH_BPF_H
#include "arch.h"
#ifdef LF_ARCH_ARM64
#include "arch_arm64.bpf.h"
#else
#include "arch_x86.bpf.h"
#endif
#endif
