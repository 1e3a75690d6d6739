# PUC Lua embedded in real hosts: HAProxy (Lua 5.3 as a shared library) serving a Lua
# service under load, and redis-server (Lua 5.1 linked in) running a CPU-heavy EVAL. The
# Lua frames must sit under the host's C frames, in order.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/targets.sh"


# HAProxy: one thread, so the Lua global lock does not turn the profile into spinning.
port=$(free_port)
cat >"$OUT/haproxy.cfg" <<CFG
global
  nbthread 1
  lua-load $ROOT/tests/lua/haproxy_svc.lua
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend fe
  bind 127.0.0.1:$port
  http-request use-service lua.busy
CFG
bg_start haproxy -f "$OUT/haproxy.cfg" -db
HAP=$LAST_PID
sleep 1
wrk -t1 -c4 -d60s "http://127.0.0.1:$port/" >"$OUT/wrk.out" 2>&1 &
WRK=$!
sleep 1
F=$OUT/haproxy.folded
"$LF" -p "$HAP" -d 3 -o "$F" 2>"$OUT/haproxy.err"
kill -INT "$WRK" 2>/dev/null  # the load lasts as long as the recording, however slow its start
wait "$WRK"
check "haproxy: Lua 5.3 found in liblua5.3" grep -q "Lua 5.3.[0-9]* in /usr/lib/x86_64-linux-gnu/liblua5.3.so" "$OUT/haproxy.err"
C='haproxy_svc.lua'
expect_stack "haproxy: service -> render_page -> checksum under hlua_applet_http_fct and lua_resume" "$F" \
	";run_poll_loop;.*;hlua_applet_http_fct;([^;]*;)*lua_resume;\\? \\(.*$C:15\\);render_page \\(.*$C:8\\);checksum \\(.*$C:2\\)"
expect_stack "haproxy: string.byte called from checksum" "$F" ";checksum \\(.*$C:2\\);byte(;|\$)"
lua=$(share "$F" "$C:")
check "haproxy: most samples in the Lua service ($lua%)" [ "$lua" -ge 50 ]

# Redis: the script's functions under Redis' scripting C frames.
rport=$(free_port)
bg_start redis-server --port "$rport" --save '' --daemonize no
RED=$LAST_PID
sleep 0.5
SCRIPT='local function inner(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local function outer(n) local r = inner(n) return r + 1 end
local r = outer(100000000)
return r'
( for _ in 1 2 3; do redis-cli -p "$rport" EVAL "$SCRIPT" 0 >/dev/null; done ) &
CLI=$!
sleep 0.3
F=$OUT/redis.folded
"$LF" -p "$RED" -d 3 -o "$F" 2>"$OUT/redis.err"
kill "$CLI" 2>/dev/null
check "redis: Lua 5.1 found in the executable" grep -q "Lua 5.1.[0-9]* in /usr/bin/redis" "$OUT/redis.err"
expect_stack "redis: script -> outer -> inner under evalGenericCommand and lua_pcall" "$F" \
	";processCommand;call;evalGenericCommand;([^;]*;)*lua_pcall;[^;]* \\(user_script:[0-9]+\\);outer \\(user_script:2\\);inner \\(user_script:1\\)\$"
in_lua=$(count "$F" ';lua_pcall;')
with=$(count "$F" ';lua_pcall;.*\(user_script:')
check "redis: samples running the script carry its Lua stack ($with of $in_lua)" [ $((100 * with)) -ge $((95 * in_lua)) ]
finish
