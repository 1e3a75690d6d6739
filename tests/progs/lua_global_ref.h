/* The test hosts' reference for the global names of functions called from C: Lua 5.3+'s
 * pushglobalfuncname done through the C API (lua_next over package.loaded and its modules),
 * independent of the profiler's reading of the VM's memory. */
#ifndef LF_LUA_GLOBAL_REF_H
#define LF_LUA_GLOBAL_REF_H
#include <stdio.h>
#include <string.h>
#include <lua.h>

/* The field of table t (at index t) holding the value at index v, as "PREFIX.KEY"; 0 or -1. */
static int field_holding(lua_State *L, int t, int v, const char *prefix, char *out, size_t size)
{
	lua_pushnil(L);
	while (lua_next(L, t)) {
		if (lua_type(L, -2) == LUA_TSTRING && lua_rawequal(L, -1, v)) {
			snprintf(out, size, "%s%s%s", prefix, *prefix ? "." : "", lua_tostring(L, -2));
			lua_pop(L, 2);
			return 0;
		}
		lua_pop(L, 1);
	}
	return -1;
}

/* Lua 5.3+'s pushglobalfuncname through the C API, _G first: the field of a module of
 * package.loaded that holds the function on top of the stack. 0 with the name, or -1. */
static int ref_global_name(lua_State *L, char *out, size_t size)
{
	int top = lua_gettop(L) - 1, rc = -1;
	lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
	lua_getfield(L, top + 2, "_G");
	if (lua_istable(L, -1))
		rc = field_holding(L, top + 3, top + 1, "", out, size);
	lua_pop(L, 1);
	lua_pushnil(L);
	while (rc < 0 && lua_next(L, top + 2)) {
		if (lua_type(L, -2) == LUA_TSTRING && lua_istable(L, -1) && strcmp(lua_tostring(L, -2), "_G"))
			rc = field_holding(L, lua_gettop(L), top + 1, lua_tostring(L, -2), out, size);
		lua_pop(L, 1);
	}
	lua_settop(L, top + 1);
	return rc;
}

#endif
