# Debian's stripped binaries, built without frame pointers, running CPU-bound work: at
# least 99% of samples must unwind to a thread root (Lua frames are judged elsewhere).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/targets.sh"

# complete NAME: the "% complete" figure of the summary in $OUT/NAME.err, as an integer.
complete() { sed -n 's/.* \([0-9]*\)\.[0-9]% complete.*/\1/p' "$OUT/$1.err"; }

LOOP='local function f(n) local s = 0 for i = 1, n do s = s + i end return s end while true do f(1000) end'

for interp in "lua5.4" "luajit -joff"; do
	name=$(echo "$interp" | tr -d ' -')
	bg_start $interp -e "$LOOP"
	sleep 0.3
	"$LF" -p "$LAST_PID" -d 3 -o "$OUT/$name.folded" 2>"$OUT/$name.err"
	kill "$LAST_PID"
	c=$(complete "$name")
	check "$interp: ${c}% of stacks complete" [ "${c:-0}" -ge 99 ]
	check "$interp: stacks start at _start;__libc_start_main;__libc_start_call_main" \
		[ "$(share "$OUT/$name.folded" '^[^;]*;_start;__libc_start_main;__libc_start_call_main;')" -ge 99 ]
done

# markers FILE: samples of folded FILE whose stack ends in an [unwind: ...] marker.
markers() { count "$1" '\[unwind: '; }
# at_most_permille NAME FILE: at most 0.1% of the samples of NAME end in a marker (none
# at all below 1000 samples), out of at least 100.
at_most_permille() {
	m=$(markers "$2") t=$(total "$2")
	check "$1: at most 0.1% of samples end in an unwind marker ($m of $t)" \
		[ "$t" -ge 100 -a $((m * 1000)) -le "$t" ]
}

# Steady load at 999 Hz over many libc and interpreter functions (memcpy, qsort-like
# sorting, longjmp from pcall, formatting): a few thousand samples, where 0.1% is a few.
for interp in "lua5.4" "luajit" "luajit -joff"; do
	name=mix-$(echo "$interp" | tr -d ' -')
	bg_start $interp "$ROOT/tests/lua/native_mix.lua"
	sleep 0.3
	"$LF" -p "$LAST_PID" -F 999 -d 3 -o "$OUT/$name.folded" 2>"$OUT/$name.err"
	kill "$LAST_PID"
	at_most_permille "$interp, steady mixed load" "$OUT/$name.folded"
done

port=$(free_port)
# JIT traces need the LuaJIT-aware unwinder; here the interpreter path is judged.
if start_nginx "$OUT/nginx" "$port" "$ROOT/tests/lua" 'init_by_lua_block { jit.off() }'; then
	# wrk outlasts the recording however long lua-flame takes to start
	wrk -t1 -c8 -d120s "http://127.0.0.1:$port/" >"$OUT/wrk.out" 2>&1 &
	WRK=$!
	sleep 1
	"$LF" -p "$TARGET_PID" -d 3 -o "$OUT/nginx.folded" 2>"$OUT/nginx.err"
	kill "$WRK"
	wait "$WRK"
	c=$(complete nginx)
	check "nginx under wrk: ${c}% of stacks complete" [ "${c:-0}" -ge 99 ]
	check "nginx: the Lua content handler under the worker's event loop" \
		[ "$(share "$OUT/nginx.folded" ';ngx_spawn_process;.*;ngx_process_events_and_timers;.*;ngx_http_core_content_phase;ngx_http_lua_content')" -ge 50 ]
else
	fail "nginx starts" "see $OUT/nginx"
fi

# nginx as shipped (JIT on), at 999 Hz under wrk.
kill "$NGINX_MASTER" "$TARGET_PID" 2>/dev/null
port=$(free_port)
if start_nginx "$OUT/nginx-jit" "$port" "$ROOT/tests/lua"; then
	wrk -t1 -c8 -d120s "http://127.0.0.1:$port/" >"$OUT/wrk-jit.out" 2>&1 &
	WRK=$!
	sleep 1
	"$LF" -p "$TARGET_PID" -F 999 -d 3 -o "$OUT/nginx-jit.folded" 2>"$OUT/nginx-jit.err"
	kill "$WRK"
	wait "$WRK"
	at_most_permille "nginx (JIT on) under wrk at 999 Hz" "$OUT/nginx-jit.folded"
else
	fail "nginx (JIT on) starts" "see $OUT/nginx-jit"
fi
finish
