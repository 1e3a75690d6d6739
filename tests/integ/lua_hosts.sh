# PUC Lua embedded in real hosts: HAProxy (Lua 5.3 as a shared library) serving a Lua
# service under load, and redis-server (Lua 5.1 linked in) running a CPU-heavy EVAL. The
# Lua frames must sit under the host's C frames, in order.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/targets.sh"
. "$ROOT/tests/server_checks.sh" # check_haproxy, check_redis, REDIS_SCRIPT


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
check_haproxy haproxy "$F" "$OUT/haproxy.err" /usr/lib/x86_64-linux-gnu

# Redis: the script's functions under Redis' scripting C frames.
rport=$(free_port)
bg_start redis-server --port "$rport" --save '' --daemonize no
RED=$LAST_PID
sleep 0.5
( for _ in 1 2 3; do redis-cli -p "$rport" EVAL "$REDIS_SCRIPT" 0 >/dev/null; done ) &
CLI=$!
sleep 0.3
F=$OUT/redis.folded
"$LF" -p "$RED" -d 3 -o "$F" 2>"$OUT/redis.err"
kill "$CLI" 2>/dev/null
check_redis redis "$F" "$OUT/redis.err"
finish
