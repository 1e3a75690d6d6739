/* Benchmark host (scripts/bench-unwind.sh): dlopens every library given and spins calling
 * each one's lib_entry, so that start-up is measured on a process with many mapped files.
 * Usage: many_libs LIB.so... */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int (*f[512])(int);
	int n = 0;
	for (int i = 1; i < argc && n < 512; i++) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
		if (!h || !(f[n] = (int (*)(int))dlsym(h, "lib_entry"))) {
			fprintf(stderr, "many_libs: %s: %s\n", argv[i], dlerror());
			return 1;
		}
		n++;
	}
	for (volatile int s = 0;;)
		for (int i = 0; i < n; i++)
			s += f[i](30);
}
