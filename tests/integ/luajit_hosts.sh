# LuaJIT embedded in real hosts: nginx with the Lua module (OpenResty's LuaJIT as a shared
# library) serving a Lua handler under wrk with the JIT on, and Tarantool (its own LuaJIT
# fork linked in) running a busy Lua loop. Lua frames must sit under the host's C frames.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/targets.sh"

J='(_\[j\])?'

port=$(free_port)
if start_nginx "$OUT/nginx" "$port" "$ROOT/tests/lua"; then
	wrk -t1 -c8 -d60s "http://127.0.0.1:$port/" >"$OUT/wrk.out" 2>&1 &
	WRK=$!
	sleep 2
	F=$OUT/nginx.folded
	"$LF" -p "$TARGET_PID" -d 4 -F 499 -o "$F" 2>"$OUT/nginx.err"
	kill -INT "$WRK" 2>/dev/null  # the load lasts as long as the recording, however slow its start
	wait "$WRK"
	check "nginx: LuaJIT found in libluajit" grep -Eq "LuaJIT .* in /usr/lib/x86_64-linux-gnu/libluajit-5.1.so" "$OUT/nginx.err"
	expect_stack "nginx: handler -> checksum under the content phase and ngx_http_lua_run_thread" "$F" \
		";ngx_http_core_content_phase;([^;]*;)*ngx_http_lua_run_thread;([^;]*;)*[^;]*content_by_lua[^;]*;handle \\([^;]*handler.lua:16\\)$J;checksum \\([^;]*handler.lua:4\\)$J"
	# In Lua code, the VM (a trace or libluajit) runs right below ngx_http_lua_run_thread;
	# with a Lua stack, the Lua frames sit in between.
	with=$(count "$F" ';ngx_http_lua_run_thread;([^;]*;)*[^;]*handler.lua:')
	without=$(count "$F" ';ngx_http_lua_run_thread;(lua_resume;)?(\[trace [0-9]+\]|libluajit[^;]*)(;|$)')
	check "nginx: samples in Lua code carry a Lua stack ($with of $((with + without)))" \
		[ $((100 * with)) -ge $((95 * (with + without))) ]
	traced=$(count "$F" ';\[trace [0-9]+\]')
	owned=$(count "$F" '\)_\[j\];\[trace [0-9]+\]')
	total=$(total "$F")
	echo "nginx: $traced of $total samples in traces, $owned of them under their Lua function"
	check "nginx: trace samples are attributed to Lua functions ($owned of $traced)" [ "$owned" = "$traced" ]
else
	fail "nginx starts" "see $OUT/nginx"
fi

cd "$ROOT" && bg_start tarantool tests/lua/tarantool_busy.lua
TT=$LAST_PID
sleep 1
F=$OUT/tarantool.folded
"$LF" -p "$TT" -d 3 -o "$F" 2>"$OUT/tarantool.err"
kill -9 "$TT" 2>/dev/null
check "tarantool: its LuaJIT fork found" grep -Eq "LuaJIT .*\\(tarantool [^)]*\\) in /usr/bin/tarantool" "$OUT/tarantool.err"
# The loop is compiled: frames of functions inlined into the trace are not on the Lua stack.
expect_stack "tarantool: the busy loop's Lua frames under lua_pcall, in a trace" "$F" \
	";lua_pcall;main chunk \\([^;]*tarantool_busy.lua:0\\);([^;]* \\([^;]*tarantool_busy.lua:[0-9]+\\)$J;)*[^;]* \\([^;]*tarantool_busy.lua:(3|9)\\)_\\[j\\];\\[trace [0-9]+\\]"
finish
