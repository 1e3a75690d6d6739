# nginx with the Lua module inside a container (PID, mount and UTS namespaces; the host's
# network namespace) under wrk from the host: native stacks of the worker must be complete and
# named from the container's files, which live under /opt/nginx, a path the host does not have.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/targets.sh"
. "$ROOT/tests/container/lib.sh"

pct_complete() { sed -n 's/.* \([0-9]*\)\.[0-9]% complete.*/\1/p' "$OUT/$1.err"; }

R=$OUT/root
ct_root nginx "$R"
mkdir -p "$R/app/lua" && cp "$ROOT/tests/lua/handler.lua" "$R/app/lua/"
port=$(free_port)
# JIT traces need the LuaJIT-aware unwinder; here the interpreter path is judged.
cat >"$R/srv/nginx.conf" <<CONF
load_module /opt/nginx/modules/ndk_http_module.so;
load_module /opt/nginx/modules/ngx_http_lua_module.so;
user nobody nogroup;
worker_processes 1;
error_log /srv/error.log;
pid /srv/nginx.pid;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path /srv/tmp;
  lua_package_path "/app/lua/?.lua;;";
  init_by_lua_block { jit.off() }
  server {
    listen 127.0.0.1:$port;
    location / { content_by_lua_block { require("handler").handle() } }
  }
}
CONF
ct_start "$R" nginx /opt/nginx/sbin/nginx -p /srv -e /srv/error.log -c /srv/nginx.conf -g 'daemon off;'
MASTER=$CONTAINER_PID
W=""
for _ in $(seq 50); do
	W=$(pgrep -P "$MASTER" 2>/dev/null | head -1)
	[ -n "$W" ] && curl -s -o /dev/null "http://127.0.0.1:$port/" && break
	sleep 0.1
done
if [ -z "$W" ] || ! curl -sf -o /dev/null "http://127.0.0.1:$port/"; then
	fail "nginx starts in the container" "see $R/srv/error.log: $(cat "$R/srv/error.log" 2>/dev/null)"
	finish
fi
pass "nginx starts in the container (master $MASTER, worker $W)"
check "setup: the worker is PID 2 or more in its container, the master PID 1" \
	sh -c "grep -q '^NSpid:.*[[:space:]]1\$' /proc/$MASTER/status && ! grep -q '^NSpid:.*[[:space:]]1\$' /proc/$W/status"
check "setup: /opt/nginx does not exist on the host, the worker maps it" \
	sh -c "[ ! -e /opt/nginx ] && grep -q ' /opt/nginx/modules/ngx_http_lua_module.so\$' /proc/$W/maps"

wrk -t1 -c8 -d60s "http://127.0.0.1:$port/" >"$OUT/wrk.out" 2>&1 &
WRK=$!
sleep 1
"$LF" -p "$W" -d 3 -o "$OUT/nginx.folded" 2>"$OUT/nginx.err"
rc=$?
kill -INT "$WRK" 2>/dev/null  # the load lasts as long as the recording, however slow its start
wait "$WRK"
check "lua-flame exits 0" [ "$rc" = 0 ]
check "wrk got answers" grep -q 'Requests/sec' "$OUT/wrk.out"
c=$(pct_complete nginx)
check "nginx under wrk: ${c}% of stacks complete" [ "${c:-0}" -ge 99 ]
check "stacks start at _start;__libc_start_main" \
	[ "$(share "$OUT/nginx.folded" '^nginx;_start;__libc_start_main;')" -ge 99 ]
s=$(share "$OUT/nginx.folded" ';ngx_spawn_process;.*;ngx_process_events_and_timers;.*;ngx_http_core_content_phase;ngx_http_lua_content')
check "the Lua content handler under the worker's event loop, named from /opt/nginx files (${s}% >= 50)" \
	[ "$s" -ge 50 ]

# The same files run on the host: the native frames from the root to the content phase must
# be the same labels (Debian's nginx exports its ngx_* functions; static ones are nginx+0x...).
hport=$(free_port)
[ "$hport" = "$port" ] && hport=$((port + 1))
if start_nginx "$OUT/host" "$hport" "$ROOT/tests/lua" 'init_by_lua_block { jit.off() }'; then
	wrk -t1 -c8 -d60s "http://127.0.0.1:$hport/" >"$OUT/wrk-host.out" 2>&1 &
	WRK=$!
	sleep 1
	"$LF" -p "$TARGET_PID" -d 2 -o "$OUT/host.folded" 2>"$OUT/host.err"
	kill -INT "$WRK" 2>/dev/null  # the load lasts as long as the recording, however slow its start
	wait "$WRK"
	kill -9 "$NGINX_MASTER" "$TARGET_PID" 2>/dev/null
	P=$(awk '{ n = $NF; i = index($0, ";ngx_http_core_content_phase;"); if (i) w[substr($0, 1, i + 28)] += n }
		END { for (p in w) if (w[p] > best) { best = w[p]; bp = p } print bp }' "$OUT/host.folded")
	case $P in
	nginx\;_start\;*\;ngx_process_events_and_timers\;*) pass "host nginx: frames down to the content phase ($P)" ;;
	*) fail "host nginx baseline" "unexpected frames '$P'" ;;
	esac
	s=$(P=$P awk '/;ngx_http_core_content_phase;/ { n = $NF; t += n; if (index($0, ENVIRON["P"]) == 1) m += n }
		END { if (t == 0) print 0; else printf "%d\n", (100 * m / t) + 0.5 }' "$OUT/nginx.folded")
	check "container: ${s}% of content-phase stacks have the host's frames for the same files (>= 98)" \
		[ "$s" -ge 98 ]
else
	fail "host nginx starts" "see $OUT/host"
fi
finish
