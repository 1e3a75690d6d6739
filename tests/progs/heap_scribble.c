/* Test host whose Lua heap is corrupt, as a heap snapshot may find one after a wild write in
 * a C module: Lua 5.4 tables with their part pointers and sizes overwritten, one whose
 * collector link points back at itself (a cycle in the list of all objects), beside intact
 * data. The collector is stopped first, so the host itself never reads what it broke.
 * Usage: heap_scribble parts|loop READY_FILE: "parts" breaks the tables' parts only, "loop"
 * also the list; READY_FILE is written once the heap is broken, then the host waits. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

static const char *build =
	"intact = {}\n"
	"for i = 1, 20000 do intact[i] = { id = i, name = 'user' .. i } end\n"
	"victims = {}\n"
	"for i = 1, 8 do\n"
	"  local t = { self = false }\n"
	"  for j = 1, 100 do t[j] = j; t['k' .. j] = j end\n"
	"  t.self = t\n"
	"  victims[i] = t\n"
	"end\n";

/* The bytes of a 5.4 Table after its header (next, tt, marked, flags, lsizenode, alimit):
 * its array, node, lastfree, metatable and gclist pointers. */
#define TABLE_PTRS_AT 16
#define TABLE_PTRS_LEN 40

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "parts") && strcmp(argv[1], "loop"))) {
		fprintf(stderr, "usage: heap_scribble parts|loop READY_FILE\n");
		return 2;
	}
	int loop = !strcmp(argv[1], "loop");
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	if (luaL_dostring(L, build)) {
		fprintf(stderr, "heap_scribble: %s\n", lua_tostring(L, -1));
		return 1;
	}
	lua_gc(L, LUA_GCSTOP);
	lua_getglobal(L, "victims");
	for (int i = 1; i <= (loop ? 8 : 6); i++) {
		lua_rawgeti(L, -1, i);
		unsigned char *t = (unsigned char *)lua_topointer(L, -1);
		if (i <= 4)
			memset(t + TABLE_PTRS_AT, 0x5a, TABLE_PTRS_LEN); /* wild pointers */
		else if (i <= 6)
			memset(t + 12, 0xff, 4); /* alimit: a huge array */
		else
			memcpy(t, &t, sizeof(t)); /* next: itself */
		lua_pop(L, 1);
	}
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fputs("ready\n", f);
	fclose(f);
	for (;;)
		pause();
}
