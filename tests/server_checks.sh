# The checks of profiles of Lua in Debian's servers: nginx's Lua module running
# tests/lua/handler.lua, HAProxy's Lua service tests/lua/haproxy_svc.lua and a CPU-heavy EVAL in
# redis-server (REDIS_SCRIPT). Shared by tests/integ/luajit_hosts.sh, tests/integ/lua_hosts.sh
# and the arm64 tests (tests/arm64/check.sh). Sourced after tests/lib.sh.

# the EVAL redis-server runs: inner() called by outer(), both named in the script
REDIS_SCRIPT='local function inner(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local function outer(n) local r = inner(n) return r + 1 end
local r = outer(100000000)
return r'

# check_nginx NAME FOLDED ERR LIBDIR: a worker's profile; LIBDIR holds libluajit-5.1.so
check_nginx() {
	n=$1 F=$2 J='(_\[j\])?'
	check "$n: LuaJIT found in libluajit" grep -Eq "LuaJIT .* in $4/libluajit-5.1.so" "$3"
	expect_stack "$n: handler -> checksum under the content phase and ngx_http_lua_run_thread" "$F" \
		";ngx_http_core_content_phase;([^;]*;)*ngx_http_lua_run_thread;([^;]*;)*[^;]*content_by_lua[^;]*;handle \\([^;]*handler.lua:16\\)$J;checksum \\([^;]*handler.lua:4\\)$J"
	# In Lua code, the VM (a trace or libluajit) runs right below ngx_http_lua_run_thread;
	# with a Lua stack, the Lua frames sit in between.
	with=$(count "$F" ';ngx_http_lua_run_thread;([^;]*;)*[^;]*handler.lua:')
	without=$(count "$F" ';ngx_http_lua_run_thread;(lua_resume;)?(\[trace( [0-9]+)?\]|libluajit[^;]*)(;|$)')
	check "$n: samples in Lua code carry a Lua stack ($with of $((with + without)))" \
		[ $((100 * with)) -ge $((95 * (with + without))) ]
	traced=$(count "$F" ';\[trace( [0-9]+)?\]')
	owned=$(count "$F" '\)_\[j\];\[trace( [0-9]+)?\]')
	echo "$n: $traced of $(total "$F") samples in traces, $owned of them under their Lua function"
	check "$n: trace samples are attributed to Lua functions ($owned of $traced)" [ "$owned" = "$traced" ]
}

# check_haproxy NAME FOLDED ERR LIBDIR: HAProxy's profile; LIBDIR holds liblua5.3.so
check_haproxy() {
	n=$1 F=$2 C='haproxy_svc.lua'
	check "$n: Lua 5.3 found in liblua5.3" grep -q "Lua 5.3.[0-9]* in $4/liblua5.3.so" "$3"
	expect_stack "$n: service -> render_page -> checksum under hlua_applet_http_fct and lua_resume" "$F" \
		";run_poll_loop;.*;hlua_applet_http_fct;([^;]*;)*lua_resume;\\? \\(.*$C:15\\);render_page \\(.*$C:8\\);checksum \\(.*$C:2\\)"
	expect_stack "$n: string.byte called from checksum" "$F" ";checksum \\(.*$C:2\\);byte(;|\$)"
	lua=$(share "$F" "$C:")
	check "$n: most samples in the Lua service ($lua%)" [ "$lua" -ge 50 ]
}

# check_redis NAME FOLDED ERR: redis-server's profile while it runs REDIS_SCRIPT
check_redis() {
	n=$1 F=$2
	check "$n: Lua 5.1 found in the executable" grep -q "Lua 5.1.[0-9]* in /usr/bin/redis" "$3"
	expect_stack "$n: script -> outer -> inner under evalGenericCommand and lua_pcall" "$F" \
		";processCommand;call;evalGenericCommand;([^;]*;)*lua_pcall;[^;]* \\(user_script:[0-9]+\\);outer \\(user_script:2\\);inner \\(user_script:1\\)\$"
	in_lua=$(count "$F" ';lua_pcall;')
	with=$(count "$F" ';lua_pcall;.*\(user_script:')
	check "$n: samples running the script carry its Lua stack ($with of $in_lua)" [ $((100 * with)) -ge $((95 * in_lua)) ]
}
