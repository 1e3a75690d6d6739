#!/bin/sh
# Heap snapshot benchmark: `lua-flame heap` on a target holding about OBJECTS objects (about
# 100 MB; bench/heap_million.lua: a cache of records keyed by strings, lists, closures, long
# strings) under lua5.4 and luajit, RUNS snapshots of each, written as `lua-flame heap` writes
# them by default (heap.folded and heap.svg): median wall time, pause (the time
# the target is stopped), lua-flame's max RSS, the bytes copied and RSS over copied, each beside
# its goal (2 s, 300 ms, 1.5x). Prints figures; a missed goal does not fail the run.
# Needs root (ptrace) and /usr/bin/time. Knobs: RUNS (5), OBJECTS (1000000), VMS ("lua5.4
# luajit"), LF (binary to measure), KEEP=1 keeps the work directory.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LF=${LF:-$ROOT/lua-flame}
RUNS=${RUNS:-5}
OBJECTS=${OBJECTS:-1000000}
VMS=${VMS:-lua5.4 luajit}
W=$(mktemp -d /tmp/bench-heap.XXXXXX)
STARTED=""
log() { echo "bench-heap: $*" >&2; }
[ -x "$LF" ] || { log "$LF not built; run make"; exit 1; }
[ -x /usr/bin/time ] || { log "/usr/bin/time is missing; apt-get install time"; exit 1; }
cleanup() {
	for p in $STARTED; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ "${KEEP:-0}" = 1 ] && log "outputs kept in $W" || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. "$ROOT/scripts/bench-lib.sh"

# start VM: the workload under VM, once its heap is built; prints its PID
start() {
	"$1" "$ROOT/bench/heap_million.lua" "$OBJECTS" 2>"$W/$1.ready" >/dev/null & tp=$!
	for _ in $(seq 600); do
		grep -q '^ready' "$W/$1.ready" 2>/dev/null && { echo "$tp"; return 0; }
		kill -0 "$tp" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$tp" 2>/dev/null
	return 1
}

# snap VM PID N: one snapshot; "wall_s pause_ms rss_mib copied_mb objects" on stdout
snap() {
	/usr/bin/time -v "$LF" heap -p "$2" -o "$W/$1.$3.folded" -o "$W/$1.$3.svg" 2>"$W/$1.$3.err" ||
		{ log "$1 snapshot $3 failed: $(grep lua-flame "$W/$1.$3.err")"; return 1; }
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		/Maximum resident set size/ { r = $2 / 1024 }
		/held .* for .* ms to copy/ { match($0, /for [0-9.]+ ms/); p = substr($0, RSTART + 4, RLENGTH - 7)
			match($0, /copy [0-9.]+ MB/); c = substr($0, RSTART + 5, RLENGTH - 8) }
		/ bytes in [0-9]+ objects/ { match($0, /in [0-9]+ objects/); o = substr($0, RSTART + 3, RLENGTH - 11) }
		END { printf "%.2f %s %.1f %s %s\n", s, p, r, c, o }' "$W/$1.$3.err"
}

col() { awk -v k="$1" '{ print $k }' "$2" | median; }
row() { # measure value goal: the value beside its goal, ok when at most the goal
	printf '%-52s %12s %10s %s\n' "$1" "$2" "<= $3" "$(awk -v a="$2" -v b="$3" 'BEGIN { print (a + 0 <= b + 0) ? "ok" : "MISSED" }')"
}

for vm in $VMS; do
	command -v "$vm" >/dev/null || { log "$vm not found: skipped"; continue; }
	tp=$(start "$vm") || { log "$vm: the workload did not get ready: $(cat "$W/$vm.ready")"; continue; }
	started "$tp"
	: >"$W/$vm.runs"
	for n in $(seq "$RUNS"); do
		snap "$vm" "$tp" "$n" >>"$W/$vm.runs" && log "$vm run $n: $(tail -1 "$W/$vm.runs") (wall s, pause ms, RSS MiB, copied MB, objects)"
	done
	for n in $(seq 2 "$RUNS"); do   # the target only sleeps: every snapshot must be the same
		cmp -s "$W/$vm.1.folded" "$W/$vm.$n.folded" || log "$vm: snapshot $n differs from the first"
	done
	kill -9 "$tp" 2>/dev/null; wait "$tp" 2>/dev/null; forget "$tp"
done

echo
echo "lua-flame heap snapshots, median of $RUNS ($(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ))"
printf '%-52s %12s %10s %s\n' "measure" "value" "goal" "result"
for vm in $VMS; do
	[ -s "$W/$vm.runs" ] || continue
	wall=$(col 1 "$W/$vm.runs"); pause=$(col 2 "$W/$vm.runs"); rss=$(col 3 "$W/$vm.runs")
	copied=$(col 4 "$W/$vm.runs"); objects=$(col 5 "$W/$vm.runs")
	echo "$vm, $objects objects, $copied MB copied:"
	row "  wall time of the snapshot (s)" "$wall" 2
	row "  pause, the target stopped (ms)" "$pause" 300
	row "  max RSS of lua-flame (MiB)" "$rss" "$(awk -v c="$copied" 'BEGIN { printf "%.1f", 1.5 * c * 1e6 / 1048576 }')"
	row "  RSS over copied" "$(awk -v r="$rss" -v c="$copied" 'BEGIN { printf "%.2fx", r * 1048576 / (c * 1e6) }')" 1.5x
done
