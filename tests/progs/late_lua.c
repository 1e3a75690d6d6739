/* Test target: a native program that loads Lua only later, as plugin hosts do. It burns CPU
 * in native code until the file GO exists and one second more, then dlopen()s liblua5.3,
 * makes a state and runs SCRIPT.lua in it. Usage: late_lua GO SCRIPT.lua */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef void *(*newstate_fn)(void);
typedef void (*openlibs_fn)(void *);
typedef int (*loadfile_fn)(void *, const char *, const char *);
typedef int (*pcall_fn)(void *, int, int, int, long, void *);

static volatile unsigned long sink;

__attribute__((noinline)) static void native_burn(double secs)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: late_lua GO SCRIPT.lua\n");
		return 2;
	}
	while (access(argv[1], F_OK))
		native_burn(0.01);
	native_burn(1.0);
	void *lib = dlopen("liblua5.3.so.0", RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		fprintf(stderr, "late_lua: %s\n", dlerror());
		return 1;
	}
	newstate_fn newstate = (newstate_fn)dlsym(lib, "luaL_newstate");
	openlibs_fn openlibs = (openlibs_fn)dlsym(lib, "luaL_openlibs");
	loadfile_fn loadfile = (loadfile_fn)dlsym(lib, "luaL_loadfilex");
	pcall_fn pcall = (pcall_fn)dlsym(lib, "lua_pcallk");
	if (!newstate || !openlibs || !loadfile || !pcall)
		return 1;
	void *L = newstate();
	openlibs(L);
	if (loadfile(L, argv[2], NULL) || pcall(L, 0, 0, 0, 0, NULL))
		return 1;
	return 0;
}
