/* Where the traces of a process's LuaJIT VMs lie in memory, for the BPF side on architectures
 * whose VM keeps no trace number in its state (arm64): each trace's machine code, read from
 * its VM's jit_State (J->trace[n] is trace n), the newest first, sorted by address. */
#include <bpf/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "luajit_runtime.h"
#include "proc.h"
#include "sampler.h"
#include "util.h"

#define TRACE_NUMBERS 65536 /* trace numbers are 16-bit (TraceNo) */

static int read_ptr(pid_t pid, uint64_t addr, uint64_t *v)
{
	*v = 0;
	return proc_read_mem(pid, addr, v, sizeof(*v)) == (ssize_t)sizeof(*v) ? 0 : -1;
}

/* Trace T's machine code [*lo, *lo + *len): GCtrace's szmcode and mcode, read at once. */
static int trace_code(pid_t pid, const struct luajit_layout *l, uint64_t T, __u64 *lo, __u32 *len)
{
	int32_t a = l->T_szmcode < l->T_mcode ? l->T_szmcode : l->T_mcode;
	int32_t b = l->T_szmcode < l->T_mcode ? l->T_mcode + 8 : l->T_szmcode + 4;
	unsigned char buf[64];
	if (a < 0 || b - a > (int32_t)sizeof(buf) || proc_read_mem(pid, T + (uint64_t)a, buf, (size_t)(b - a)) != b - a)
		return -1;
	memcpy(lo, buf + (l->T_mcode - a), 8);
	memcpy(len, buf + (l->T_szmcode - a), 4);
	return *lo && *len ? 0 : -1;
}

/* Adds the traces of the VM whose global_State is g to r, the highest numbers first, while
 * r has room. */
static void add_vm(const struct luajit_runtime *rt, uint64_t g, struct lf_lj_trace_ranges *r)
{
	const struct luajit_layout *l = rt->lay;
	uint64_t J = g - (uint64_t)l->gg_g + (uint64_t)l->gg_J, arr;
	uint32_t size = 0;
	if (read_ptr(rt->pid, J + (uint64_t)l->J_trace, &arr) || !arr ||
	    proc_read_mem(rt->pid, J + (uint64_t)l->J_sizetrace, &size, 4) != 4)
		return;
	if (size > TRACE_NUMBERS)
		size = TRACE_NUMBERS;
	uint64_t *refs = xcalloc(size ? size : 1, sizeof(*refs));
	ssize_t got = proc_read_mem(rt->pid, arr, refs, (size_t)size * sizeof(*refs));
	for (size_t i = got > 0 ? (size_t)got / sizeof(*refs) : 0; i-- > 1 && r->n < LF_LJ_TRACES;) {
		struct lf_lj_trace_range *t = &r->t[r->n];
		if (refs[i] && trace_code(rt->pid, l, refs[i], &t->lo, &t->len) == 0) {
			t->traceno = (uint32_t)i;
			r->n++;
		}
	}
	free(refs);
}

static int by_address(const void *a, const void *b)
{
	const struct lf_lj_trace_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void luajit_traces_push(const struct luajit_runtime *rt, struct sampler *smp)
{
	int fd = sampler_map_fd(smp, "lj_traces");
	if (fd < 0 || !rt->lay || !rt->lay->gc64) /* GC64 only: J->trace holds 8-byte references */
		return;
	struct lf_lj_trace_ranges *r = xcalloc(1, sizeof(*r));
	for (int i = 0; i < rt->ngs && i < LF_MAX_GS; i++)
		add_vm(rt, rt->gs[i], r);
	qsort(r->t, r->n, sizeof(r->t[0]), by_address);
	__u32 key = (__u32)rt->pid;
	bpf_map_update_elem(fd, &key, r, BPF_ANY);
	free(r);
}
