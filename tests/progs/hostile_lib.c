/* A target for tests/integ/hostile_elf.sh: main calls into libhostile.so, which calls back
 * into main's spin(); spin never returns, so the library's code is never run again (its
 * file may then be truncated without harming the target) while its return address stays
 * on every stack. The recursion depth changes every 50 ms (a 5 s cycle), so new stacks keep coming and
 * each one is labelled anew. */
#include <stdint.h>
#include <time.h>

void lib_call(void (*cb)(void));

volatile uint64_t sink;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) static void descend(int depth, long until)
{
	if (depth > 0) {
		descend(depth - 1, until);
		sink++;
		return;
	}
	while (now_ms() < until)
		sink += 3;
}

static void spin(void)
{
	for (;;) {
		long t = now_ms();
		descend((int)(t / 50 % 100), t + 50);
	}
}

int main(void)
{
	lib_call(spin);
	return 0;
}
