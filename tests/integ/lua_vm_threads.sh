#!/bin/sh
# Hosts with Lua on several threads (tests/progs/vm_threads.c), for LuaJIT and PUC Lua 5.4:
# a VM per thread, each thread's samples carry its own VM's frames (burn_I on thread lua-I),
# JIT code of every VM unwinds to the root, a VM made while recording is found, and a thread
# that runs no Lua (c-only) never gets Lua frames, also when it shares the process with a VM
# another thread runs; a state per request, made and closed while recording, is read for the
# requests it serves; and Debian's sysbench with 2 and 4 threads, each with a LuaJIT VM.
. "$(dirname "$0")/../lib.sh"

build() { # NAME CFLAGS/LIBS...
	n=$1; shift
	gcc -O2 -o "$OUT/$n" "$ROOT/tests/progs/vm_threads.c" "$@" -lpthread 2>"$OUT/$n.build" ||
		{ fail "$n: build" "$(head -3 "$OUT/$n.build")"; return 1; }
}

# run NAME HOST ARGS...: profiles HOST ARGS per thread for 4 s into $OUT/NAME.folded; with
# "late" among ARGS, the last Lua thread makes its state 1 s into the recording.
run() {
	name=$1; shift
	rm -f "$OUT/go"; mkfifo "$OUT/go"
	exec 3<>"$OUT/go"
	"$@" <"$OUT/go" &
	tp=$!
	PIDS_TO_KILL="$PIDS_TO_KILL $tp"
	sleep 0.5
	"$LF" -p "$tp" --threads -F 499 -d 4 --stats -o "$OUT/$name.folded" 2>"$OUT/$name.err" &
	lp=$!
	for _ in $(seq 100); do grep -q 'profiling PID' "$OUT/$name.err" && break; sleep 0.1; done
	sleep 1
	echo go >&3
	exec 3>&-
	wait "$lp"
	kill "$tp" 2>/dev/null
}

# thread_share FILE THREAD REGEX: percent of THREAD's samples matching REGEX after it.
thread_share() {
	t=$(count "$1" "^[^;]*;$2-[0-9]+;")
	m=$(count "$1" "^[^;]*;$2-[0-9]+;$3")
	[ "$t" -gt 0 ] && echo $((100 * m / t)) || echo 0
}

# no_lua_on_c_only NAME: no Lua frame on the thread c-only; the stacks that have one are shown
no_lua_on_c_only() {
	n=$(count "$OUT/$1.folded" '^[^;]*;c-only-[0-9]+;.*\(')
	check "$1: the thread without Lua has no Lua frame ($n samples)" [ "$n" = 0 ] ||
		grep -E '^[^;]*;c-only-[0-9]+;.*\(' "$OUT/$1.folded" | head -3 | cut -c1-600 | sed 's/^/  stack: /'
}

per_thread() { # NAME: checks the per-thread profile NAME
	f=$OUT/$1.folded
	for i in 1 2 3; do
		own=$(thread_share "$f" "lua-$i" ".*burn_$i\\(n\\)")
		other=$(count "$f" "^[^;]*;lua-$i-[0-9]+;.*burn_[^$i]\\(n\\)")
		check "$1: thread lua-$i runs its own VM's burn_$i ($own% of its samples)" [ "$own" -ge 85 ]
		check "$1: thread lua-$i never shows another VM's function ($other samples)" [ "$other" = 0 ]
	done
	no_lua_on_c_only "$1"
	check "$1: the thread without Lua has its own stack" \
		[ "$(thread_share "$f" c-only 'clone3;start_thread;c_thread;c_spin')" -ge 95 ]
	m=$(count "$f" '\[unwind:') n=$(total "$f")
	check "$1: at most 0.1% of samples end in an unwind marker ($m of $n)" [ $((m * 1000)) -le "$n" ]
}

# per_request NAME: threads lua-1 and lua-2 each make a state per request, load
# tests/lua/request.lua in it, call handle() and close it.
per_request() {
	f=$OUT/$1.folded
	R="$ROOT/tests/lua/request.lua"
	# handle, called from C, under the host's call; burn's loop runs in a trace on LuaJIT
	H=";lua_thread;lua_pcallk?;handle \\($R:13\\)" E="(_\\[j\\])?(;\\[trace [0-9]+\\])?(;[^;]*_\\[k\\])*\$"
	a=$(count "$f" "$H;burn_fifty \\($R:9\\);burn \\($R:3\\)$E")
	b=$(count "$f" "$H;burn_thirty \\($R:10\\);burn \\($R:3\\)$E")
	c=$(count "$f" "$H;burn_twenty \\($R:11\\);burn \\($R:3\\)$E")
	t=$((a + b + c)) lt=$(count "$f" '^[^;]*;lua-[12]-[0-9]+;')
	check "$1: the handler's functions named, under handle, in >= 85% of the Lua threads' samples ($t of $lt)" \
		[ $((t * 100)) -ge $((lt * 85)) ]
	split_5_3_2 "$1" "$a" "$b" "$c"
	gone=$(count "$f" '\[lua: function gone\]')
	check "$1: functions freed before they were named in at most 2% of samples ($gone of $lt)" \
		[ $((gone * 50)) -le "$lt" ]
	rooted=$(count "$f" '^[^;]*;lua-[12]-[0-9]+;clone3;start_thread;lua_thread;')
	check "$1: the Lua threads rooted in >= 99% of their samples ($rooted of $lt)" [ $((rooted * 100)) -ge $((lt * 99)) ]
	no_lua_on_c_only "$1"
}

for rt in luajit lua5.4; do
	case $rt in
	luajit) flags="-I/usr/include/luajit-2.1 -lluajit-5.1" ;;
	lua5.4) flags="-I/usr/include/lua5.4 -llua5.4" ;;
	esac
	# shellcheck disable=SC2086
	build "host-$rt" $flags || continue
	run "$rt-per-thread" "$OUT/host-$rt" per-thread 3
	grep -q ', 3 VMs found' "$OUT/$rt-per-thread.err"
	check "$rt per thread: three VMs found" [ $? = 0 ]
	per_thread "$rt-per-thread"

	run "$rt-late" "$OUT/host-$rt" per-thread 3 late
	late=$(count "$OUT/$rt-late.folded" '^[^;]*;lua-3-[0-9]+;.*burn_3\(n\)')
	check "$rt late VM: found while recording, its thread named ($late samples)" [ "$late" -ge 100 ]
	# Samples in the new VM ask for a rescan at once: found within a tenth of a second, so
	# most of the thread's samples show its Lua (LuaJIT: less its first traces, which run in
	# code mapped while recording).
	unk=$(sed -n 's/.*in a Lua VM not found yet \([0-9]*\).*/\1/p' "$OUT/$rt-late.err")
	own=$(thread_share "$OUT/$rt-late.folded" lua-3 '.*burn_3\(n\)')
	check "$rt late VM: burn_3 in >= 75% of its thread's samples ($own%; ${unk:-0} before it was found)" \
		[ "$own" -ge 75 ]
	# (until the rescan its samples in a trace find no VM: the first tenth of a second or
	# so of that one thread, a few percent of the run)
	check "$rt late VM: at most 3% of samples end in an unwind marker" \
		[ "$(share "$OUT/$rt-late.folded" '\[unwind:')" -le 3 ]

	run "$rt-per-request" "$OUT/host-$rt" per-request 2 "$ROOT/tests/lua/request.lua"
	per_request "$rt-per-request"

	run "$rt-shared" "$OUT/host-$rt" shared
	f=$OUT/$rt-shared.folded
	check "$rt shared VM: the thread without Lua has no Lua frame" \
		[ "$(count "$f" '^[^;]*;c-only-[0-9]+;.*\(')" = 0 ]
	check "$rt shared VM: the thread running it shows burn_1" \
		[ "$(thread_share "$f" lua-1 '.*burn_1\(n\)')" -ge 85 ]
done

# sysbench: N worker threads, each with its own VM, burning in round() (in a trace)
for n in 2 4; do
	f=$OUT/sysbench$n.folded
	(cd "$OUT" && exec sysbench --threads=$n --time=60 "$ROOT/tests/lua/sysbench_burn.lua" run >sysbench$n.out 2>&1) &
	sb=$!
	PIDS_TO_KILL="$PIDS_TO_KILL $sb"
	sleep 1
	"$LF" -p "$sb" --threads -F 499 -d 3 -o "$f" 2>"$OUT/sysbench$n.err"
	kill "$sb" 2>/dev/null
	grep -Eq ", $((n + 1)) VMs found" "$OUT/sysbench$n.err"
	check "sysbench $n threads: a VM per thread found (main and $n workers)" [ $? = 0 ]
	check "sysbench $n threads: round() in >= 85% of samples ($(share "$f" ';round \(.*sysbench_burn.lua:[0-9]+\)')%)" \
		[ "$(share "$f" ';round \(.*sysbench_burn.lua:[0-9]+\)')" -ge 85 ]
	tids=$(grep 'round (' "$f" | sed 's/^[^;]*;[^;]*-\([0-9]*\);.*/\1/' | sort -u)
	check "sysbench $n threads: every worker runs round() ($(echo "$tids" | wc -l) threads)" \
		[ "$(echo "$tids" | wc -l)" = "$n" ]
	# each worker's stacks are whole: from the thread's root down to its Lua
	for t in $tids; do
		all=$(count "$f" "^[^;]*;[^;]*-$t;") rooted=$(count "$f" "^[^;]*;[^;]*-$t;clone3;start_thread;")
		check "sysbench $n threads: thread $t rooted at clone3 in >= 99% of its samples ($rooted of $all)" \
			[ $((rooted * 100)) -ge $((all * 99)) ]
	done
	m=$(count "$f" '\[unwind:') t=$(total "$f")
	check "sysbench $n threads: at most 0.1% of samples end in an unwind marker ($m of $t)" [ $((m * 1000)) -le "$t" ]
done
finish
