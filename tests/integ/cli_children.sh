# --children: processes forked by a target join the recording, those present at start
# and those started while it runs (found by polling /proc for their parent PID); --pids
# tells them apart by a root frame "name-PID".
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/targets.sh"

cat >"$OUT/worker.lua" <<'LUA'
local function crunch(n) local x = 0 for i = 1, n do x = x + i % 5 end return x end
local t = os.clock() while os.clock() - t < 2 do crunch(100000) end
LUA

# A shell with a child that exists before lua-flame attaches but becomes a Lua worker
# (exec) only after, and a second worker forked after attach.
cat >"$OUT/spawner.sh" <<SH
(while [ ! -e "$OUT/go" ]; do sleep 0.05; done; exec lua5.4 "$OUT/worker.lua") &
while [ ! -e "$OUT/go" ]; do sleep 0.05; done
lua5.4 "$OUT/worker.lua" & wait
SH
bg_start sh "$OUT/spawner.sh"
S=$LAST_PID
# the first child must be there before lua-flame looks: the shell forks it once it runs
for _ in $(seq 100); do pgrep -P "$S" >/dev/null && break; sleep 0.05; done
"$LF" -p "$S" --children --pids -o "$OUT/spawn.folded" 2>"$OUT/spawn.err" &
lf=$!
for _ in $(seq 200); do grep -q "profiling PID" "$OUT/spawn.err" && break; sleep 0.1; done
touch "$OUT/go"
wait "$lf"
check "workers started after attach: exit 0 when all exited" [ $? = 0 ]
check "the child there at the start was followed" grep -q "profiling PID $S,[0-9]" "$OUT/spawn.err"
roots=$(awk -F';' '/;crunch \(/ { print $1 }' "$OUT/spawn.folded" | sort -u)
check "both workers profiled, each with its own root ($(echo $roots))" [ "$(echo "$roots" | grep -c '^lua5.4-[0-9]*$')" = 2 ]
check "workers' Lua frames: crunch under the main chunk" \
	[ "$(share "$OUT/spawn.folded" '^lua5.4-[0-9]+;.*;main chunk \([^;]*worker.lua:0\);crunch ')" -ge 80 ]
check "says the forked worker joined" grep -q 'joined: a child of a target' "$OUT/spawn.err"
# distinct PIDs: a worker that joins right as it runs exec is attached at the join and again
# at the exec, and says so twice
check "finds Lua in both workers, also the one that ran exec" \
	[ "$(grep ': Lua 5.4.[0-9]* in /usr/bin/lua5.4, 1 VM found' "$OUT/spawn.err" | sort -u | wc -l)" = 2 ]
check "summary counts the Lua runtimes" grep -q "Lua runtime: Lua 5.4.[0-9]* .* in 2 of" "$OUT/spawn.err"

# nginx: -p MASTER --children finds the worker running now and, after a reload, the
# worker the master forks while recording.
port=$(free_port)
# jit.off(): the interpreter unwinds through its C frames (JIT traces are not under test here)
if start_nginx "$OUT/nginx" "$port" "$ROOT/tests/lua" 'init_by_lua_block { jit.off() }'; then
	old=$TARGET_PID
	wrk -t1 -c4 -d30s "http://127.0.0.1:$port/" >"$OUT/wrk.out" 2>&1 &
	PIDS_TO_KILL="$PIDS_TO_KILL $!"
	"$LF" -p "$NGINX_MASTER" --children --pids -d 5 -o "$OUT/nginx.folded" 2>"$OUT/nginx.err" &
	lf=$!
	for _ in $(seq 200); do grep -q "profiling PID" "$OUT/nginx.err" && break; sleep 0.1; done
	sleep 1
	kill -HUP "$NGINX_MASTER" # reload: a new worker replaces the old one
	wait "$lf"
	check "nginx: exit 0" [ $? = 0 ]
	new=$(pgrep -P "$NGINX_MASTER" | grep -v "^$old\$" | head -1)
	lua=';ngx_http_core_content_phase;ngx_http_lua_content'
	check "nginx: the worker present at start serves Lua" [ "$(share "$OUT/nginx.folded" "^nginx-$old;.*$lua")" -ge 5 ]
	check "nginx: the worker forked while recording ($new) serves Lua" \
		[ -n "$new" ] && [ "$(share "$OUT/nginx.folded" "^nginx-$new;.*$lua")" -ge 5 ]
	check "nginx: the master itself is a target" grep -q "profiling PID $NGINX_MASTER," "$OUT/nginx.err"
else
	fail "nginx starts" "see $OUT/nginx"
fi
finish
