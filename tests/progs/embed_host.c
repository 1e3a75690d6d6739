/* Test host that embeds Lua the way servers do: it links the shared Lua or LuaJIT library,
 * and its own read-only data also holds a copy of a Lua version string (DECOY), as hosts
 * with statically linked helpers do. Runs SCRIPT.lua in a fresh state.
 * Usage: embed_host SCRIPT.lua */
#include <stdio.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#ifndef DECOY
#error "build with -DDECOY='\"version string\"'"
#endif
/* used, so that the string stays in .rodata */
const char embed_host_decoy[] = DECOY;

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: embed_host SCRIPT.lua\n");
		return 2;
	}
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	if (luaL_dofile(L, argv[1])) {
		fprintf(stderr, "embed_host: %s (%s)\n", lua_tostring(L, -1), embed_host_decoy);
		return 1;
	}
	lua_close(L);
	return 0;
}
