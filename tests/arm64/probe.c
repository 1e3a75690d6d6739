/* Environment probe of the arm64 qemu guest (tests/arm64/guest.sh): can this kernel give a
 * profiler what lua-flame asks of it? Opens a cpu-clock and a cycles perf event on itself and
 * loads a two-instruction BPF program; prints one "probe NAME ok|fail DETAIL" line each. */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile unsigned long sink;

/* Counts a perf event of TYPE/CONFIG on this thread over some busy work. */
static void perf_probe(const char *name, uint32_t type, uint64_t config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("probe %s fail perf_event_open: %s\n", name, strerror(errno));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (unsigned long i = 0; i < 20000000; i++)
		sink += i;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t n = 0;
	if (read(fd, &n, sizeof(n)) != sizeof(n) || n == 0)
		printf("probe %s fail counted nothing\n", name);
	else
		printf("probe %s ok %llu\n", name, (unsigned long long)n);
	close(fd);
}

/* Loads "r0 = 0; exit" as a socket filter: the BPF syscall and the verifier are there. */
static void bpf_probe(void)
{
	struct bpf_insn prog[2];
	memset(prog, 0, sizeof(prog));
	prog[0].code = BPF_ALU64 | BPF_MOV | BPF_K; /* r0 = 0 */
	prog[1].code = BPF_JMP | BPF_EXIT;
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uintptr_t)prog;
	a.insn_cnt = 2;
	a.license = (uintptr_t) "GPL";
	int fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	if (fd < 0)
		printf("probe bpf-prog-load fail %s\n", strerror(errno));
	else
		printf("probe bpf-prog-load ok\n");
}

int main(void)
{
	perf_probe("perf-cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	perf_probe("perf-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	bpf_probe();
	return 0;
}
