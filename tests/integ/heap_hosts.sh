# lua-flame heap on the host shapes the CPU profiler handles: nginx's workers under their
# master (--children), a process with a VM per thread, a stripped static host, a container known
# by its host PID; then a bounded pause, a Lua patched beyond its release (Redis 7's), and hosts
# whose heap a wild write broke. Totals are held to the VM's own count, structures to what the
# target measured in-process.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/targets.sh"
. "$ROOT/tests/container/lib.sh"

. "$ROOT/tests/heap_lib.sh"
# vm_counts ERR: "snapshot VM" pairs, one line per VM the snapshot said
vm_counts() { sed -n 's/.*: snapshot \([0-9]*\) bytes in .*the VM counts \([0-9]*\) bytes.*/\1 \2/p' "$1"; }
# totals NAME ERR VMS: VMS VMs said, each snapshot's total within 1% of its VM's count
totals() {
	n=$(vm_counts "$2" | wc -l)
	check "$1: $3 VMs snapshotted ($n)" [ "$n" = "$3" ]
	vm_counts "$2" | while read -r t v; do
		check "$1: snapshot $t bytes within 1% of the VM's count $v" within "$t" "$v" 10
	done
}
# running NAME PID: the target was released
running() {
	state=$(awk '{ print $3 }' "/proc/$2/stat" 2>/dev/null)
	check "$1: the target runs on after the snapshot (state $state)" [ "$state" = S ] || [ "$state" = R ]
}
# wait_file FILE: up to 20 s for the workload's measurements
wait_file() { for _ in $(seq 100); do [ -f "$1" ] && return 0; sleep 0.2; done; return 1; }

# nginx: the master and two workers, each worker with a module-level cache the handler fills
# and measures (full collections around each fill)
N=$OUT/nginx
mkdir -p "$N/lua"
cat >"$N/lua/handler.lua" <<'LUA'
local M = { cache = {} }
local measured = 0
local function kb()
  collectgarbage(); collectgarbage()
  return collectgarbage("count") * 1024
end
function M.handle()
  if ngx.var.uri == "/measured" then
    ngx.say(ngx.worker.pid(), " ", math.floor(measured))
    return
  end
  local before = kb()
  for i = 1, 2000 do
    M.cache[#M.cache + 1] = { id = i, name = "user-" .. #M.cache, tags = { "a", "b" } }
  end
  measured = measured + kb() - before
  ngx.say("ok")
end
return M
LUA
port=$(free_port)
if NGINX_WORKERS=2 start_nginx "$N" "$port" "$N/lua"; then
	for _ in $(seq 40); do curl -s "http://127.0.0.1:$port/" >/dev/null; done
	for _ in $(seq 20); do curl -s "http://127.0.0.1:$port/measured"; done | sort -u >"$N/measured"
	"$LF" heap -p "$NGINX_MASTER" --children --pids -o "$N/heap.folded" 2>"$N/heap.err"
	check "nginx: heap --children exits 0" [ $? = 0 ]
	totals nginx "$N/heap.err" 3
	running nginx "$NGINX_MASTER"
	while read -r pid bytes; do
		[ "$bytes" -gt 0 ] || continue
		# the strings the cache holds grow the VM's string table too, which stays under [vm]
		got=$(( $(count "$N/heap.folded" "^nginx-$pid;\\[registry\\];_LOADED;handler;cache;") +
			$(count "$N/heap.folded" "^nginx-$pid;\\[vm\\];\\[string table\\]") ))
		check "nginx worker $pid: $got bytes under handler.cache and the string table, measured $bytes" \
			within "$got" "$bytes" 20
	done <"$N/measured"
	check "nginx: a worker's cache was measured" [ -s "$N/measured" ]
else
	fail nginx "nginx did not start: $(cat "$N/stderr" 2>/dev/null | head -3)"
fi

# a VM per thread (tests/progs/vm_threads.c), PUC Lua 5.4 and LuaJIT: one level per VM
for rt in lua5.4 luajit; do
	case $rt in
	lua5.4) flags="-I/usr/include/lua5.4 -llua5.4" ;;
	luajit) flags="-I/usr/include/luajit-2.1 -lluajit-5.1" ;;
	esac
	# shellcheck disable=SC2086
	gcc -O2 -o "$OUT/vmt-$rt" "$ROOT/tests/progs/vm_threads.c" $flags -lpthread 2>"$OUT/vmt-$rt.build" ||
		{ fail "vmt-$rt: build" "$(head -3 "$OUT/vmt-$rt.build")"; continue; }
	bg_start "$OUT/vmt-$rt" per-thread 3
	sleep 0.5
	"$LF" heap -p "$LAST_PID" -o "$OUT/vmt-$rt.folded" 2>"$OUT/vmt-$rt.err"
	check "vmt-$rt: heap exits 0" [ $? = 0 ]
	totals "vmt-$rt" "$OUT/vmt-$rt.err" 3
	for k in 1 2 3; do
		expect_stack "vmt-$rt: VM $k has its level" "$OUT/vmt-$rt.folded" "^vmt-$rt;\\[VM $k\\];burn_[123];\\[function\\]\$"
	done
	running "vmt-$rt" "$LAST_PID"
	kill "$LAST_PID"
done

# Lua 5.4 linked statically into a host stripped of every symbol (tests/progs/embed_host.c)
S=$OUT/static
mkdir -p "$S"
gcc -O2 -static -s -o "$S/host" -I/usr/include/lua5.4 -DDECOY='"none"' "$ROOT/tests/progs/embed_host.c" \
	/usr/lib/x86_64-linux-gnu/liblua5.4.a -lm 2>"$S/build.log"
check "static: the host builds, with no symbol table" sh -c "[ -x '$S/host' ] && ! readelf -S '$S/host' | grep -q '\\.symtab'"
printf 'arg = { [0] = "heap_shapes.lua", "%s" }\ndofile("%s")\n' "$S/sizes" "$ROOT/tests/lua/heap_shapes.lua" >"$S/run.lua"
bg_start "$S/host" "$S/run.lua"
if wait_file "$S/sizes"; then
	"$LF" heap -p "$LAST_PID" -o "$S/heap.folded" 2>"$S/heap.err"
	check "static: heap exits 0" [ $? = 0 ]
	totals static "$S/heap.err" 1
	shape_paths static "$S/heap.folded" "$S/sizes" host
	running static "$LAST_PID"
else
	fail static "the workload wrote no measurements"
fi
pkill -P "$LAST_PID"; kill "$LAST_PID"

# in a container (PID and mount namespaces), by its host PID
C=$OUT/root
if ct_root lua54 "$C"; then
	mkdir -p "$C/app" && cp "$ROOT/tests/lua/heap_shapes.lua" "$C/app/"
	cp /usr/bin/sleep "$C/bin/sleep" 2>/dev/null || cp /bin/sleep "$C/usr/bin/sleep"
	ct_start "$C" lua5.4 /bin/sh -c 'cd /app && exec /usr/bin/lua5.4 heap_shapes.lua /app/sizes'
	if wait_file "$C/app/sizes"; then
		"$LF" heap -p "$CONTAINER_PID" -o "$OUT/container.folded" 2>"$OUT/container.err"
		check "container: heap exits 0" [ $? = 0 ]
		totals container "$OUT/container.err" 1
		shape_paths container "$OUT/container.folded" "$C/app/sizes" lua5.4
		running container "$CONTAINER_PID"
	else
		fail container "the workload in the container wrote no measurements"
	fi
else
	fail container "tests/container/mkroot.sh lua54 failed"
fi

# a coroutine more than 65,536 Lua calls deep: 5.2-5.4 count its CallInfo records in 16 bits
cat >"$OUT/deep.lua" <<'LUA'
local function f(n) if n == 0 then coroutine.yield() return 0 end return f(n - 1) + 1 end
co = coroutine.create(function() return f(150000) end)
coroutine.resume(co)
local out = io.open(arg[1], "w") out:write("ready\n") out:close()
os.execute("exec sleep 1000")
LUA
bg_start /usr/bin/lua5.4 "$OUT/deep.lua" "$OUT/deep.ready"
if wait_file "$OUT/deep.ready"; then
	"$LF" heap -p "$LAST_PID" -o "$OUT/deep.folded" 2>"$OUT/deep.err"
	set -- $(vm_counts "$OUT/deep.err")
	check "deep coroutine: snapshot $1 bytes equal to the VM's count $2" [ "${1:-0}" = "${2:-1}" ]
	expect_stack "deep coroutine: its thread under its global" "$OUT/deep.folded" '^lua5.4;co;\[thread\]$'
fi
pkill -P "$LAST_PID"; kill "$LAST_PID"

# a pause longer than --max-pause: the target is released, the run fails and says what to do
cd "$ROOT" && bg_start /usr/bin/lua5.4 tests/lua/heap_shapes.lua "$OUT/pause.sizes"
if wait_file "$OUT/pause.sizes"; then
	"$LF" heap -p "$LAST_PID" --max-pause 0.000001 -o "$OUT/pause.folded" 2>"$OUT/pause.err"
	check "--max-pause exceeded: exit 1" [ $? = 1 ]
	check "--max-pause exceeded: said, with what to do" grep -q 'max-pause' "$OUT/pause.err"
	running "--max-pause exceeded" "$LAST_PID"
fi
pkill -P "$LAST_PID"; kill "$LAST_PID"

# Redis 7's own copy of Lua 5.1.5, whose tables it patched (a field more): refused, not misread
# (the layout of 5.1.5 read its tables' sizes as 624 GB)
port=$(free_port)
bg_start sh -c "exec redis-server --port $port --save '' --daemonize no >'$OUT/redis.out' 2>&1"
for _ in $(seq 40); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break; sleep 0.25; done
for i in $(seq 20); do redis-cli -p "$port" EVAL "local t = {} for i = 1, 100 do t[i] = 'v' .. i end return #t" 0 >/dev/null; done
rm -f "$OUT/redis.folded"
"$LF" heap -p "$LAST_PID" -o "$OUT/redis.folded" 2>"$OUT/redis.err"
check "redis: a patched Lua refused: exit 1" [ $? = 1 ]
check "redis: said so" grep -q "tables do not fit Lua 5.1.5's layout" "$OUT/redis.err"
check "redis: no snapshot written" [ ! -e "$OUT/redis.folded" ]
running redis "$LAST_PID"
kill "$LAST_PID"

# a heap a wild write broke (tests/progs/heap_scribble.c): table parts with wild pointers and
# sizes, then also a loop in the list of all objects. The walk ends, says what it could not
# place, and never counts more than the copy holds.
gcc -O2 -o "$OUT/scribble" "$ROOT/tests/progs/heap_scribble.c" -I/usr/include/lua5.4 -llua5.4 2>"$OUT/scribble.build" ||
	fail "scribble: build" "$(head -3 "$OUT/scribble.build")"
for mode in parts loop; do
	rm -f "$OUT/$mode.ready"
	bg_start "$OUT/scribble" "$mode" "$OUT/$mode.ready"
	wait_file "$OUT/$mode.ready"
	timeout 30 "$LF" heap -p "$LAST_PID" -o "$OUT/$mode.folded" 2>"$OUT/$mode.err"
	check "scribble $mode: heap exits 0 within 30 s" [ $? = 0 ]
	check "scribble $mode: the lists cut short are said" grep -q '[1-9][0-9]* lists cut short' "$OUT/$mode.err"
	set -- $(vm_counts "$OUT/$mode.err")
	check "scribble $mode: the snapshot ($1 bytes) is not larger than the VM's count ($2)" [ "${1:-1}" -le "${2:-0}" ]
	running "scribble $mode" "$LAST_PID"
	kill "$LAST_PID"
done
# the intact structure, before the broken tables on the list, stands whole under its path
expect_stack "scribble parts: the intact table under its global" "$OUT/parts.folded" '^scribble;intact;\[table\]$'
set -- $(vm_counts "$OUT/parts.err")
check "scribble parts: within 1% of the VM's count ($1 of $2 bytes)" within "${1:-0}" "${2:-1}" 10
check "scribble loop: the bytes not found are said" grep -q 'were not found: the graph is incomplete' "$OUT/loop.err"
finish
