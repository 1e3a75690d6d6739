# LuaJIT embedded in real hosts: nginx with the Lua module (OpenResty's LuaJIT as a shared
# library) serving a Lua handler under wrk with the JIT on, and Tarantool (its own LuaJIT
# fork linked in) running a busy Lua loop. Lua frames must sit under the host's C frames.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/targets.sh"
. "$ROOT/tests/server_checks.sh" # check_nginx

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
	check_nginx nginx "$F" "$OUT/nginx.err" /usr/lib/x86_64-linux-gnu
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
