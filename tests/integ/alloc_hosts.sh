# --mode alloc on the host shapes the CPU profiler handles, each running the 5:3:2 workload
# (three functions allocate the same small tables 5:3:2, one of them also burning CPU; a
# fourth burns CPU only): nginx's worker under wrk, found from its master with --children;
# a VM per thread (PUC Lua 5.4 and LuaJIT), each thread's VM split on its own; Lua 5.4 linked
# statically into a stripped host; a container known by its host PID, whose /usr/bin/lua5.4 is
# another program than the host's. Each: bytes 50/30/20 within 5 points, the CPU-only function
# absent. Then the ends of a recording: the target exiting in the middle (by -p and as the
# command), and lua-flame stopped by SIGINT and SIGTERM: every output written, exit 0.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/targets.sh"
. "$ROOT/tests/container/lib.sh"

P=$ROOT/tests/lua/alloc_split.lua
# fn NAME CHUNK: the stack's innermost Lua frame is NAME of CHUNK (perhaps a LuaJIT trace of
# it after it, then the allocator's native frames)
fn() { echo ";$1 \\([^;]*$2:[0-9]+\\)(_\\[j\\];\\[trace [0-9]+\\])?(;[^;(]*)*\$"; }

# alloc_split NAME FILE CHUNK [PREFIX [POINTS]]: the bytes of FILE's stacks starting with PREFIX
# (a regex) split 50/30/20 within POINTS (5) between five, three and two of CHUNK; burn, which
# allocates nothing, absent; at least 95% of those bytes under one of the three (the rest: the
# main chunk's own, or the host's, now and then a block of a few kB in a window).
alloc_split() {
	as_n=$1 as_f=$2 as_ch=$3 as_pre=${4:-} as_pts=${5:-5}
	as_a=$(count "$as_f" "$as_pre.*$(fn five "$as_ch")") as_b=$(count "$as_f" "$as_pre.*$(fn three "$as_ch")")
	as_c=$(count "$as_f" "$as_pre.*$(fn two "$as_ch")")
	split_5_3_2 "$as_n: bytes" "$as_a" "$as_b" "$as_c" "$as_pts"
	as_burn=$(count "$as_f" "$as_pre.*;burn \\(")
	check "$as_n: burn(), which allocates nothing, is not in the profile ($as_burn bytes)" [ "$as_burn" = 0 ]
	as_all=$(count "$as_f" "$as_pre")
	check "$as_n: >= 95% of the bytes under one of the three ($((as_a + as_b + as_c)) of $as_all)" \
		[ $(((as_a + as_b + as_c) * 100)) -ge $((as_all * 95)) ]
}
# summary NAME ERR: the run said what it sampled and how its windows went
summary() {
	check "$1: allocations sampled, none lost ($(sed -n 's/.*: \([0-9]*\) allocations sampled.*/\1/p' "$2"))" \
		grep -q 'allocations sampled ([^)]*, 0 lost)' "$2"
	check "$1: windows said ($(sed -n 's/.*allocations: \([0-9]* windows open [^;]*\);.*/\1/p' "$2"))" \
		grep -q 'allocations: [1-9][0-9]* windows open' "$2"
}
# wait_for FILE REGEX: waits (at most 20 s) until FILE has a line matching REGEX
wait_for() { for _ in $(seq 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

# 1. nginx + Lua (OpenResty's LuaJIT, JIT on) under wrk: the handler runs alloc_split.lua's
# functions, which allocate 5:3:2, four rounds a request; five() and burn() also burn CPU. From the master with --children and --pids:
# the bytes are the worker's.
N=$OUT/nginx
mkdir -p "$N/lua"
cat >"$N/lua/handler.lua" <<LUA
local split = dofile("$ROOT/tests/lua/alloc_split.lua")
local M = {}
function M.handle()
  for _ = 1, 4 do split.five() split.three() split.two() split.burn() end
  ngx.say("ok")
end
return M
LUA
port=$(free_port)
if start_nginx "$N" "$port" "$N/lua"; then
	W=$TARGET_PID
	wrk -t1 -c8 -d16s "http://127.0.0.1:$port/" >"$N/wrk.out" 2>&1 &
	PIDS_TO_KILL="$PIDS_TO_KILL $!"
	sleep 1
	"$LF" --mode alloc -p "$NGINX_MASTER" --children --pids -d 12 -o "$N/alloc.folded" -o "$N/alloc.svg" \
		2>"$N/alloc.err"
	check "nginx: exit status 0" [ $? = 0 ]
	summary nginx "$N/alloc.err"
	check "nginx: the worker found from the master" grep -q "profiling PID $NGINX_MASTER,$W " "$N/alloc.err"
	alloc_split "nginx worker $W" "$N/alloc.folded" alloc_split.lua "^nginx-$W;"
	check "nginx: under the request's Lua handler" \
		[ "$(count "$N/alloc.folded" "^nginx-$W;.*;ngx_http_lua_content_by_chunk;.*;handle \\([^;]*handler.lua:3\\);")" \
		-ge $(($(total "$N/alloc.folded") * 98 / 100)) ]
	check "nginx: no bytes in the master" [ "$(count "$N/alloc.folded" "^nginx-$NGINX_MASTER;")" = 0 ]
	check "nginx: the SVG counts bytes" grep -q 'bytes' "$N/alloc.svg"
	sleep 4 # wrk's end
	check "nginx: wrk got answers ($(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$N/wrk.out") requests)" \
		grep -Eq '^ *[1-9][0-9]* requests in' "$N/wrk.out"
	pkill -9 -P "$NGINX_MASTER"
	kill -9 "$NGINX_MASTER"
else
	fail nginx "nginx did not start: $(head -3 "$N/stderr" 2>/dev/null)"
fi

# 2. a VM per thread (tests/progs/vm_threads.c script 3): threads lua-1..3 each run
# alloc_split.lua in a state of their own; the thread c-only, in C alone, allocates nothing.
# The VMs share one allocator function; its probe is on every thread.
for rt in lua5.4 luajit; do
	case $rt in
	lua5.4) flags="-I/usr/include/lua5.4 -llua5.4" ;;
	luajit) flags="-I/usr/include/luajit-2.1 -lluajit-5.1" ;;
	esac
	# shellcheck disable=SC2086
	gcc -O2 -o "$OUT/vmt-$rt" "$ROOT/tests/progs/vm_threads.c" $flags -lpthread 2>"$OUT/vmt-$rt.build" ||
		{ fail "vmt-$rt: build" "$(head -3 "$OUT/vmt-$rt.build")"; continue; }
	bg_start "$OUT/vmt-$rt" script 3 "$P"
	sleep 0.5
	f=$OUT/vmt-$rt.folded
	"$LF" --mode alloc -p "$LAST_PID" --threads -d 12 -o "$f" 2>"$OUT/vmt-$rt.err"
	check "vmt-$rt: exit status 0" [ $? = 0 ]
	check "vmt-$rt: three VMs found" grep -q ', 3 VMs found' "$OUT/vmt-$rt.err"
	summary "vmt-$rt" "$OUT/vmt-$rt.err"
	check "vmt-$rt: the probes on every thread (4 or more)" grep -Eq 'on up to ([4-9]|[1-9][0-9]+) threads' "$OUT/vmt-$rt.err"
	alloc_split "vmt-$rt all VMs" "$f" alloc_split.lua "^vmt-$rt;"
	for i in 1 2 3; do
		alloc_split "vmt-$rt VM of thread lua-$i" "$f" alloc_split.lua "^vmt-$rt;lua-$i-[0-9]+;"
	done
	check "vmt-$rt: no bytes on the thread without Lua" [ "$(count "$f" "^vmt-$rt;c-only-[0-9]+;")" = 0 ]
	kill "$LAST_PID"
done

# 3. Lua 5.4 linked statically into a host stripped of every symbol (tests/progs/embed_host.c):
# its allocator is found from its global state alone
S=$OUT/static
mkdir -p "$S"
gcc -O2 -static -s -o "$S/host" -I/usr/include/lua5.4 -DDECOY='"none"' "$ROOT/tests/progs/embed_host.c" \
	/usr/lib/x86_64-linux-gnu/liblua5.4.a -lm 2>"$S/build.log"
check "static: the host builds, with no symbol table" sh -c "[ -x '$S/host' ] && ! readelf -S '$S/host' | grep -q '\\.symtab'"
printf 'arg = { [0] = "alloc_split.lua" }\ndofile("%s")\n' "$P" >"$S/run.lua"
bg_start "$S/host" "$S/run.lua"
sleep 1
"$LF" --mode alloc -p "$LAST_PID" -d 12 -o "$S/alloc.folded" 2>"$S/alloc.err"
check "static: exit status 0" [ $? = 0 ]
check "static: the host holds the runtime" grep -Eq ": Lua 5\\.4\\.[0-9]+ in $S/host, 1 VM found" "$S/alloc.err"
summary static "$S/alloc.err"
alloc_split static "$S/alloc.folded" alloc_split.lua "^host;"
kill "$LAST_PID"

# 4. in a container (PID and mount namespaces, pivot_root), by its host PID: its
# /usr/bin/lua5.4 is Debian's lua5.3, so the host's file of that name is not the one to probe
C=$OUT/root
if ct_root lua53as54 "$C"; then
	mkdir -p "$C/app" && cp "$P" "$C/app/"
	if ct_start "$C" lua5.4 /bin/sh -c 'cd /app && exec /usr/bin/lua5.4 alloc_split.lua' 2>"$OUT/ct.err"; then
		sleep 1
		"$LF" --mode alloc -p "$CONTAINER_PID" -d 12 -o "$OUT/container.folded" 2>"$OUT/container.err"
		check "container: exit status 0" [ $? = 0 ]
		check "container: known by its host PID" grep -q "profiling PID $CONTAINER_PID \\[PID 1 in its container\\]" \
			"$OUT/container.err"
		check "container: Lua 5.3 found in its /usr/bin/lua5.4" grep -Eq ': Lua 5\.3\.[0-9]+ in /usr/bin/lua5.4, 1 VM' \
			"$OUT/container.err"
		summary container "$OUT/container.err"
		alloc_split container "$OUT/container.folded" alloc_split.lua "^lua5.4;"
	else
		fail container "the workload did not start in the container"
	fi
else
	fail container "tests/container/mkroot.sh lua53as54 failed"
fi

# 5. The ends of a recording. Fewer windows than above (about one a second): the split within
# 8 points.
# outputs NAME BASE: the folded file split, the SVG whole, the pprof file written
outputs() {
	alloc_split "$1" "$2.folded" alloc_split.lua "" 8
	check "$1: a complete SVG" grep -q '</svg>' "$2.svg"
	check "$1: the pprof file names alloc_space" sh -c "gzip -dc '$2.pb.gz' | grep -a -q alloc_space"
}
# The target ends 4 s of CPU into a recording asked for 30 s: lua-flame says so, writes
# everything and ends within 3 s of it
cd "$OUT" || exit 1
lua5.4 "$P" 4 >"$OUT/exit.out" &
T=$!
PIDS_TO_KILL="$PIDS_TO_KILL $T"
"$LF" --mode alloc -p "$T" -d 30 -o "$OUT/exit.folded" -o "$OUT/exit.svg" -o "$OUT/exit.pb.gz" 2>"$OUT/exit.err" &
lf=$!
wait "$T"
t0=$(date +%s)
wait "$lf"
rc=$? t=$(($(date +%s) - t0))
check "target exits: exit status 0" [ "$rc" = 0 ]
check "target exits: the target ran to its end ($(cat "$OUT/exit.out") rounds)" grep -Eq '^[0-9]+$' "$OUT/exit.out"
check "target exits: lua-flame ends with it (${t}s later)" [ "$t" -le 3 ]
check "target exits: said" grep -q 'every target process has exited' "$OUT/exit.err"
summary "target exits" "$OUT/exit.err"
outputs "target exits" "$OUT/exit"
# the same as the command lua-flame runs: its exit status (0) is lua-flame's
"$LF" --mode alloc -d 30 -o "$OUT/cmd.folded" -o "$OUT/cmd.svg" -o "$OUT/cmd.pb.gz" -- lua5.4 "$P" 4 \
	>"$OUT/cmd.out" 2>"$OUT/cmd.err"
check "command exits: exit status 0" [ $? = 0 ]
check "command exits: its own output whole" grep -Eq '^[0-9]+$' "$OUT/cmd.out"
outputs "command exits" "$OUT/cmd"

# SIGINT (Ctrl-C) and SIGTERM to a recording without -d: every output written, exit 0, the
# target left running
bg_start lua5.4 "$P"
T=$LAST_PID
for sig in INT TERM; do
	"$LF" --mode alloc -p "$T" -o "$OUT/$sig.folded" -o "$OUT/$sig.svg" -o "$OUT/$sig.pb.gz" 2>"$OUT/$sig.err" &
	lf=$!
	wait_for "$OUT/$sig.err" "profiling PID" || fail "SIG$sig: lua-flame starts" "$(cat "$OUT/$sig.err")"
	sleep 6
	kill -"$sig" "$lf"
	wait "$lf"
	check "SIG$sig: exit status 0" [ $? = 0 ]
	summary "SIG$sig" "$OUT/$sig.err"
	outputs "SIG$sig" "$OUT/$sig"
	check "SIG$sig: the target runs on" kill -0 "$T"
done
finish
