/* The knobs user space sets before loading the program (read-only data): what to collect,
 * and which kernel features the program may use. Included first by every BPF file. */
#ifndef LF_CONFIG_BPF_H
#define LF_CONFIG_BPF_H

/* The innermost Lua frame's pc only serves --lines; without it, one stack per call path. */
const volatile bool want_lines = false;
const volatile bool has_bpf_loop = false;     /* kernel 5.17+: unwind in one call */
const volatile bool has_task_pt_regs = false; /* kernel 5.15+: bpf_task_pt_regs */
const volatile bool walk_lua = true;          /* false where the verifier cannot take the Lua walk */
const volatile bool per_thread = false;
const volatile bool want_kernel = true;
const volatile __u32 wall_hz = 0; /* wall mode's rate: time off the CPU counts as samples at it */
const volatile __u64 pidns_dev = 0, pidns_ino = 0; /* set when lua-flame is in a child PID namespace */

#endif
