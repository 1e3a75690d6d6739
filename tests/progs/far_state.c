/* Test host whose Lua state lives where nothing was mapped when it started: after DELAY
 * seconds it maps a region far from its other memory and makes its state there, with an
 * allocator of its own (as hosts with arena or pool allocators do). Runs SCRIPT with the
 * remaining arguments in the global arg.
 * Usage: far_state DELAY SCRIPT [ARG...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#define REGION_AT ((void *)0x300000000000ULL) /* far from the program, its libraries and stacks */
#define REGION_SIZE (256u << 20)

static char *region;
static size_t used;

/* A bump allocator: blocks are never reused, which a short test can afford. */
static void *far_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	(void)ud;
	if (nsize == 0)
		return NULL;
	size_t at = (used + 15) & ~(size_t)15;
	if (at + nsize > REGION_SIZE)
		return NULL;
	used = at + nsize;
	if (ptr)
		memcpy(region + at, ptr, osize < nsize ? osize : nsize);
	return region + at;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: far_state DELAY SCRIPT [ARG...]\n");
		return 2;
	}
	double delay = atof(argv[1]);
	struct timespec ts = { (time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9) };
	nanosleep(&ts, NULL);
	region = mmap(REGION_AT, REGION_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("far_state: mmap");
		return 1;
	}
	lua_State *L = lua_newstate(far_alloc, NULL);
	luaL_openlibs(L);
	lua_newtable(L);
	for (int i = 3; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i - 2);
	}
	lua_setglobal(L, "arg");
	if (luaL_dofile(L, argv[2])) {
		fprintf(stderr, "far_state: %s\n", lua_tostring(L, -1));
		return 1;
	}
	return 0;
}
