# Starting the real programs the integration tests profile (sourced after tests/lib.sh).
# Each start_* leaves the PID to profile in TARGET_PID and registers cleanup.

# free_port: a TCP port nobody listens on.
free_port() {
	p=$((20000 + $$ % 20000))
	while ss -ltn 2>/dev/null | grep -q ":$p "; do p=$((p + 1)); done
	echo "$p"
}

# start_nginx DIR PORT LUA_MODULE_DIR [HTTP_CONF]: nginx with the Lua module serving
# `require("handler").handle()`; TARGET_PID is the single worker.
start_nginx() {
	dir=$1 port=$2 lua=$3 extra=${4:-}
	mkdir -p "$dir/logs"
	cat >"$dir/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ndk_http_module.so;
load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;
worker_processes ${NGINX_WORKERS:-1};
error_log $dir/error.log;
pid $dir/nginx.pid;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $dir/tmp;
  lua_package_path "$lua/?.lua;;";
  $extra
  server {
    listen 127.0.0.1:$port;
    location / { content_by_lua_block { require("handler").handle() } }
  }
}
CONF
	nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>"$dir/stderr" &
	NGINX_MASTER=$!
	PIDS_TO_KILL="$PIDS_TO_KILL $NGINX_MASTER"
	for _ in $(seq 50); do
		TARGET_PID=$(pgrep -P "$NGINX_MASTER" 2>/dev/null | head -1)
		if [ -n "$TARGET_PID" ] && curl -s -o /dev/null "http://127.0.0.1:$port/"; then
			PIDS_TO_KILL="$PIDS_TO_KILL $TARGET_PID" # the worker outlives a killed master
			return 0
		fi
		sleep 0.1
	done
	echo "nginx did not start: $(cat "$dir/stderr" "$dir/error.log" 2>/dev/null)" >&2
	return 1
}
