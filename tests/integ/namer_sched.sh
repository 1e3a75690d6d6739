# The thread that names new stacks (cmd/kernel/namer_sched.c) runs with a deadline reservation,
# so that the functions of a Lua state closed right after its work are named first; where the
# kernel refuses one (under taskset here) it runs as an ordinary thread and the profile is the same.
. "$(dirname "$0")/../lib.sh"

# policies PID: the scheduling policy of each of PID's threads, one a line (6: SCHED_DEADLINE)
policies() {
	for t in /proc/"$1"/task/*; do sed -n 's/^policy *: *//p' "$t/sched" 2>/dev/null; done
}

# run NAME [WRAPPER...]: profiles split.lua for 3 s, the policies of lua-flame's threads in NAME.pol
run() {
	n=$1
	shift
	bg_start lua5.4 "$ROOT/tests/kernel/split.lua" 30
	target=$LAST_PID
	"$@" "$LF" -p "$target" -d 3 -F 499 -o "$OUT/$n.folded" >"$OUT/$n.log" 2>&1 &
	lf=$!
	for _ in $(seq 100); do grep -q '^lua-flame: profiling PID' "$OUT/$n.log" && break; sleep 0.05; done
	sleep 0.5
	policies "$lf" >"$OUT/$n.pol"
	wait $lf
	echo $? >"$OUT/$n.rc"
	kill "$target" 2>/dev/null
}

run free
check "free: lua-flame exited 0" [ "$(cat "$OUT/free.rc")" = 0 ]
check "free: one thread of lua-flame has SCHED_DEADLINE ($(tr '\n' ' ' <"$OUT/free.pol"))" \
	[ "$(grep -cx 6 "$OUT/free.pol")" = 1 ]
check "free: its profile names the split's functions" grep -q 'sixty (.*split\.lua:9)' "$OUT/free.folded"

run pinned taskset -c 0
check "pinned: lua-flame exited 0" [ "$(cat "$OUT/pinned.rc")" = 0 ]
check "pinned: no deadline thread under taskset, where the kernel refuses it ($(tr '\n' ' ' <"$OUT/pinned.pol"))" \
	[ "$(grep -cx 6 "$OUT/pinned.pol")" = 0 ]
check "pinned: its profile names the split's functions" grep -q 'sixty (.*split\.lua:9)' "$OUT/pinned.folded"
finish
