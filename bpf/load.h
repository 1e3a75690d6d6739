/* Loads of 8 and 4 bytes at any address, for the buffers the BPF walkers read ahead into.
 * The BPF target copies an unaligned memcpy byte by byte (22 instructions for 8 bytes); the
 * CPUs lua-flame runs on (x86-64, arm64) load unaligned words in one, and their verifiers allow
 * it (they keep strict alignment for CPUs without efficient unaligned access). */
#ifndef LF_LOAD_H
#define LF_LOAD_H

#ifndef __bpf__
#include <linux/types.h>
#endif

static inline __u64 lf_load_u64(const void *p)
{
#ifdef __bpf__
	return *(const __u64 *)p;
#else
	__u64 v;
	__builtin_memcpy(&v, p, 8);
	return v;
#endif
}

static inline __u32 lf_load_u32(const void *p)
{
#ifdef __bpf__
	return *(const __u32 *)p;
#else
	__u32 v;
	__builtin_memcpy(&v, p, 4);
	return v;
#endif
}

#endif
