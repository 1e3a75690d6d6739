/* A second build of Lua 5.4 for the container tests: the VM is Debian's liblua5.4 shared
 * library, and this program, installed as /opt/lua/bin/lua inside a test root, runs one
 * script. Installed stripped, with its symbols in a build-id debug file inside the root only:
 * lua_host_run is exported, lua_host_call is found in the debug file or not at all. */
#include <stdio.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

__attribute__((noinline)) static int lua_host_call(lua_State *L)
{
	int rc = lua_pcall(L, 0, 0, 0);
	__asm__ volatile("" ::: "memory"); /* keeps the call from becoming a tail call */
	return rc;
}

__attribute__((noinline)) int lua_host_run(lua_State *L, const char *script)
{
	if (luaL_loadfile(L, script) != LUA_OK || lua_host_call(L) != LUA_OK) {
		fprintf(stderr, "lua: %s\n", lua_tostring(L, -1));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: lua SCRIPT\n");
		return 2;
	}
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	int rc = lua_host_run(L, argv[1]);
	lua_close(L);
	return rc;
}
