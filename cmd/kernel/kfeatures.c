/* Probes of the running kernel's BPF features (see kfeatures.h). Each probe loads a tiny
 * program once per run and remembers the answer. */
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kfeatures.h"

int kf_bpf_loop(void)
{
	static int known = -1;
	if (known < 0)
		known = !getenv("LUA_FLAME_NO_BPF_LOOP") &&
			libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, NULL) > 0;
	return known;
}

int kf_task_pt_regs(void)
{
	static int known = -1;
	if (known < 0)
		known = !getenv("LUA_FLAME_NO_BPF_LOOP") &&
			libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs, NULL) > 0;
	return known;
}

/* A perf_event program that only refers to a hash map made with BPF_F_NO_PREALLOC: kernels
 * before 6.1 refuse it when the program is loaded. */
static int probe_nonprealloc(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mopts, .map_flags = BPF_F_NO_PREALLOC);
	int map = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 4, 8, 16, &mopts);
	if (map < 0)
		return -1;
	struct bpf_insn insns[] = {
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1, .src_reg = BPF_PSEUDO_MAP_FD, .imm = map },
		{ 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int prog = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, NULL, "GPL", insns, 4, NULL);
	close(map);
	if (prog < 0)
		return 0;
	close(prog);
	return 1;
}

int kf_nonprealloc_maps(void)
{
	static int known = -2;
	if (known == -2)
		known = probe_nonprealloc();
	return known > 0;
}

void kf_describe(char *buf, unsigned size)
{
	if (probe_nonprealloc() < 0) {
		snprintf(buf, size, "this kernel: BPF features unknown (bpf() refused: not root?)");
		return;
	}
	snprintf(buf, size, "this kernel: bpf_loop %s; stack map %s",
		 kf_bpf_loop() ? "yes (native and Lua stacks each walked in one call)"
			       : "no, before 5.17 (native stacks by tail calls; the innermost 24 Lua frames of a stack)",
		 kf_nonprealloc_maps() ? "allocated on demand" : "preallocated (before 6.1: its full size from the start)");
}
