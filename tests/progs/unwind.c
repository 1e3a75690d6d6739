/* Target for the native unwinder tests, built -O2 -fomit-frame-pointer. Each mode burns
 * CPU in a known call chain: deep recursion, a call through the PLT into a shared
 * library (bound once, or resolved on every call), a loop inside a signal handler,
 * clock_gettime through the vdso, a library loaded with dlopen after start, two
 * threads with different chains, and two chains taken in turns that differ far from the leaf. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void lib_work(unsigned long n);
void lib_leaf(unsigned long n);
static volatile unsigned long sink;

#define KEEP() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
	KEEP();
}

/* Work after the recursive call keeps it a real call, not a jump. */
__attribute__((noinline)) static unsigned long recurse(int depth)
{
	if (depth == 0) {
		spin(100000000);
		return 1;
	}
	unsigned long r = recurse(depth - 1);
	sink += r;
	return r + 1;
}

__attribute__((noinline)) static void deep_main(int depth)
{
	for (;;)
		recurse(depth);
}

__attribute__((noinline)) static void plt_main(void)
{
	for (;;) {
		lib_work(10000000);
		KEEP();
	}
}

/* Run with LD_BIND_NOT=1, every call resolves its PLT slot again: the time goes to the
 * loader's lazy-binding trampoline, which keeps its CFA in rbx. */
__attribute__((noinline)) static void resolve_main(void)
{
	for (;;) {
		lib_leaf(1);
		KEEP();
	}
}

__attribute__((noinline)) static void in_handler(void)
{
	spin(400000000);
	KEEP();
}

static void handler(int sig)
{
	(void)sig;
	in_handler();
	KEEP();
}

__attribute__((noinline)) static void signal_main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	for (;;) {
		raise(SIGUSR1);
		KEEP();
	}
}

__attribute__((noinline)) static void vdso_main(void)
{
	struct timespec ts;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += (unsigned long)ts.tv_nsec;
	}
}

__attribute__((noinline)) static void dlopen_main(const char *lib)
{
	sleep(2); /* lua-flame attaches meanwhile */
	void *h = dlopen(lib, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", lib, dlerror());
		exit(1);
	}
	void (*work)(unsigned long) = (void (*)(unsigned long))dlsym(h, "dl_work");
	for (;;) {
		work(10000000);
		KEEP();
	}
}

__attribute__((noinline)) static void chain_a2(void) { for (;;) spin(10000000); }
__attribute__((noinline)) static void chain_a1(void) { chain_a2(); KEEP(); }
__attribute__((noinline)) static void chain_b2(void) { for (;;) spin(20000000); }
__attribute__((noinline)) static void chain_b1(void) { chain_b2(); KEEP(); }
static void *thread_a(void *p) { (void)p; chain_a1(); return NULL; }
static void *thread_b(void *p) { (void)p; chain_b1(); return NULL; }

__attribute__((noinline)) static void threads_main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, thread_a, NULL);
	pthread_create(&b, NULL, thread_b, NULL);
	pthread_join(a, NULL);
}

/* Two chains alike but for one frame two calls above the leaf's caller, taken in turns: every
 * frame below that one sits where it sat in the other chain, with the same return address. */
__attribute__((noinline)) static void turn_inner(void) { spin(2000000); KEEP(); }
__attribute__((noinline)) static void turn_mid(void) { turn_inner(); KEEP(); }
__attribute__((noinline)) static void turn_a(void) { turn_mid(); sink += 1; }
__attribute__((noinline)) static void turn_b(void) { turn_mid(); sink += 2; }

__attribute__((noinline)) static void turns_main(void)
{
	for (unsigned i = 0;; i++) {
		if (i & 1)
			turn_b();
		else
			turn_a();
		KEEP();
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "deep"))
		deep_main(argc > 2 ? atoi(argv[2]) : 120);
	else if (!strcmp(mode, "plt"))
		plt_main();
	else if (!strcmp(mode, "resolve"))
		resolve_main();
	else if (!strcmp(mode, "signal"))
		signal_main();
	else if (!strcmp(mode, "vdso"))
		vdso_main();
	else if (!strcmp(mode, "dlopen") && argc > 2)
		dlopen_main(argv[2]);
	else if (!strcmp(mode, "threads"))
		threads_main();
	else if (!strcmp(mode, "turns"))
		turns_main();
	fprintf(stderr, "usage: unwind deep [N] | plt | resolve | signal | vdso | dlopen LIB | threads | turns\n");
	return 2;
}
