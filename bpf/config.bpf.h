/* The knobs user space sets before loading the program (read-only data): what to collect,
 * and which kernel features the program may use. Included first by every BPF file. */
#ifndef LF_CONFIG_BPF_H
#define LF_CONFIG_BPF_H

/* The innermost Lua frame's pc only serves --lines; without it, one stack per call path. */
const volatile bool want_lines = false;
/* A native frame's pc only serves its label (not with --addresses): pcs in one label run
 * (unwind.h) make one stack. */
const volatile bool label_runs = false;
const volatile bool has_bpf_loop = false;     /* kernel 5.17+: unwind in one call */
const volatile bool has_task_pt_regs = false; /* kernel 5.15+: bpf_task_pt_regs */
const volatile bool walk_memo_on = false;     /* replay a walk's outer frames (walk_memo.bpf.h) */
const volatile bool walk_lua = true;          /* false where the verifier cannot take the Lua walk */
const volatile bool per_thread = false;
const volatile bool want_kernel = true;
const volatile bool small_stacks = false; /* stacks_small in use (maps allocated on demand) */
const volatile __u32 wall_hz = 0; /* wall mode's rate: time off the CPU counts as samples at it */
const volatile __u64 pidns_dev = 0, pidns_ino = 0; /* set when lua-flame is in a child PID namespace */

/* Calls cb(i, ctx) for i = 0, 1, ... n - 1 until it returns nonzero: through bpf_loop where
 * the kernel has it, so that the verifier checks cb once rather than once per iteration at
 * each place the loop is written; as a plain loop in the program built without bpf_loop. */
#ifndef LF_NO_BPF_LOOP
#define LF_EACH(n, cb, ctx)                                                              \
	do {                                                                             \
		if (has_bpf_loop) {                                                      \
			bpf_loop((n), (cb), (ctx), 0);                                   \
			break;                                                           \
		}                                                                        \
		for (__u32 i_ = 0; i_ < (n); i_++)                                       \
			if ((cb)(i_, (ctx)))                                             \
				break;                                                   \
	} while (0)
#else
#define LF_EACH(n, cb, ctx)                                                              \
	do {                                                                             \
		for (__u32 i_ = 0; i_ < (n); i_++)                                       \
			if ((cb)(i_, (ctx)))                                             \
				break;                                                   \
	} while (0)
#endif

#endif
