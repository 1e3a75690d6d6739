/* Test host with Lua on several threads, the ways servers embed it. Each thread is named
 * after what it runs (pthread_setname_np), so the profile can be checked thread by thread.
 *   vm_threads per-thread N  N threads "lua-I", each with its own state running burn_I()
 *                            (I = 1..N), and a thread "c-only" spinning in C, with no Lua
 *   vm_threads per-thread N late  the same, but thread "lua-N" makes its state once a line
 *                            arrives on stdin
 *   vm_threads shared        one state shared under a lock: thread "lua-1" runs burn_1()
 *                            in it again and again, thread "c-only" spins in C meanwhile
 *   vm_threads per-request N SCRIPT  N threads "lua-I", each serving requests one after
 *                            another: a new state per request loads SCRIPT, calls its
 *                            global handle(), and is closed; and the thread "c-only"
 *   vm_threads script N SCRIPT  N threads "lua-I", each with its own state running SCRIPT
 *                            (arg = {}, so until killed), and the thread "c-only"
 * Links the Lua or LuaJIT library it is built against; runs until killed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

static volatile unsigned long sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static lua_State *shared;
static int late = -1; /* the thread that makes its state late */
static const char *per_request; /* the script each request's state loads */
static const char *thread_script; /* the script each thread's own state runs */

/* burn_I: a named global, called again and again from C with pcall. */
static const char *script =
	"function burn_%d(n)\n"
	"  local s = 0\n"
	"  for i = 1, n do s = (s + i * %d) %% 1000003 end\n"
	"  return s\n"
	"end\n";

static lua_State *new_state(int i)
{
	char src[512];
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	snprintf(src, sizeof(src), script, i, i);
	if (luaL_dostring(L, src)) {
		fprintf(stderr, "vm_threads: %s\n", lua_tostring(L, -1));
		exit(1);
	}
	return L;
}

static void call_burn(lua_State *L, int i)
{
	char name[32];
	snprintf(name, sizeof(name), "burn_%d", i);
	lua_getglobal(L, name);
	lua_pushinteger(L, 200000);
	if (lua_pcall(L, 1, 1, 0)) {
		fprintf(stderr, "vm_threads: %s\n", lua_tostring(L, -1));
		exit(1);
	}
	lua_pop(L, 1);
}

/* One request: a state made for it, the handler loaded and called, the state closed. */
static void serve_request(const char *path)
{
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	if (luaL_dofile(L, path)) {
		fprintf(stderr, "vm_threads: %s\n", lua_tostring(L, -1));
		exit(1);
	}
	lua_getglobal(L, "handle");
	lua_pushinteger(L, 100000);
	if (lua_pcall(L, 1, 1, 0)) {
		fprintf(stderr, "vm_threads: %s\n", lua_tostring(L, -1));
		exit(1);
	}
	lua_close(L);
}

static void *lua_thread(void *arg)
{
	int i = (int)(long)arg;
	char name[16];
	snprintf(name, sizeof(name), "lua-%d", i);
	pthread_setname_np(pthread_self(), name);
	if (i == late) {
		char line[16];
		if (!fgets(line, sizeof(line), stdin))
			return NULL;
	}
	while (per_request)
		serve_request(per_request);
	if (thread_script) {
		lua_State *L = luaL_newstate();
		luaL_openlibs(L);
		lua_newtable(L);
		lua_setglobal(L, "arg");
		if (luaL_dofile(L, thread_script)) {
			fprintf(stderr, "vm_threads: %s\n", lua_tostring(L, -1));
			exit(1);
		}
		exit(0);
	}
	lua_State *L = shared ? NULL : new_state(i);
	for (;;) {
		if (shared) {
			pthread_mutex_lock(&lock);
			call_burn(shared, i);
			pthread_mutex_unlock(&lock);
		} else {
			call_burn(L, i);
		}
	}
	return NULL;
}

__attribute__((noinline)) static void c_spin(void)
{
	for (unsigned long i = 0; i < 100000000; i++)
		sink += i;
}

static void *c_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "c-only");
	for (;;)
		c_spin();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 1;
	if (argc < 2 ||
	    (strcmp(argv[1], "per-thread") && strcmp(argv[1], "shared") && strcmp(argv[1], "per-request") &&
	     strcmp(argv[1], "script")) ||
	    n < 1 || n > 16 || ((!strcmp(argv[1], "per-request") || !strcmp(argv[1], "script")) && argc < 4)) {
		fprintf(stderr, "usage: vm_threads per-thread N [late] | shared | per-request N SCRIPT | script N SCRIPT\n");
		return 2;
	}
	if (!strcmp(argv[1], "per-request"))
		per_request = argv[3];
	if (!strcmp(argv[1], "script"))
		thread_script = argv[3];
	if (argc > 3 && !strcmp(argv[3], "late"))
		late = n;
	if (!strcmp(argv[1], "shared")) {
		shared = new_state(1);
		n = 1;
	}
	pthread_t t;
	for (int i = 1; i <= n; i++)
		pthread_create(&t, NULL, lua_thread, (void *)(long)i);
	pthread_create(&t, NULL, c_thread, NULL);
	pthread_join(t, NULL);
	return 0;
}
