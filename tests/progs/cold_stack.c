/* A stack with a page that is not in memory just above its innermost frame, as the kernel's
 * never-written gap above a process's first frames or a page a server swapped out: main calls
 * chain N deep, chain calls cold_mid, which drops one page of a block it reserved on its own
 * frame and calls spin. A profiler reading the stack ahead meets that page on every sample. */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static volatile unsigned long sink;

__attribute__((noinline, noipa)) void spin(void)
{
	for (;;)
		sink++;
}

/* The block puts this frame's sp 1 KiB below a page boundary; the page above that boundary,
 * inside the block, is dropped, so it lies 1 KiB or so above spin's frame. */
__attribute__((noinline, noipa)) void cold_mid(void)
{
	unsigned long here = (unsigned long)alloca(16);
	unsigned long want = ((here - 8192) & ~4095UL) - 1024; /* the sp wanted: 1 KiB below a page */
	char *block = alloca(here - want);
	unsigned long page = ((unsigned long)block + 1024 + 4095) & ~4095UL;
	if (page + 4096 > here || madvise((void *)page, 4096, MADV_DONTNEED)) {
		perror("cold_stack: madvise");
		exit(1);
	}
	spin();
	sink += (unsigned char)block[0];
}

__attribute__((noinline, noipa)) void chain(int n)
{
	volatile char pad[48];
	pad[0] = (char)n;
	if (n > 0)
		chain(n - 1);
	else
		cold_mid();
	sink += (unsigned char)pad[0];
}

int main(int argc, char **argv)
{
	chain(argc > 1 ? atoi(argv[1]) : 10);
	return 0;
}
