#!/bin/sh
# Benchmark of lua-flame's own process over time: its CPU at 99 and 999 Hz on a busy lua5.4
# target (tests/progs/demo.lua) over STEADY_SECS seconds once sampling runs, and its memory over
# LONG_SECS seconds at 999 Hz on a target that loads and drops code all the time
# (tests/lua/churn.lua: every stack is new, every function must be named), extrapolated to an
# hour. CPU figures move by a factor of two between runs on a shared VM: compare medians of
# several runs. Needs root and lua5.4. Knobs: STEADY_SECS (60), LONG_SECS (600), EVERY (seconds
# between memory readings, 30), LF (binary to measure), KEEP=1 keeps the work directory.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LF=${LF:-$ROOT/lua-flame}
STEADY_SECS=${STEADY_SECS:-60}
LONG_SECS=${LONG_SECS:-600}
EVERY=${EVERY:-30}
W=$(mktemp -d /tmp/bench-steady.XXXXXX)
STARTED=""
log() { echo "bench-steady: $*" >&2; }
command -v lua5.4 >/dev/null || { log "lua5.4 not found"; exit 1; }
[ -x "$LF" ] || { log "$LF not built; run make"; exit 1; }
cleanup() {
	for p in $STARTED; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ "${KEEP:-0}" = 1 ] && log "outputs kept in $W" || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cp "$LF" "$W/lua-flame" && LF=$W/lua-flame || exit 1
. "$ROOT/scripts/bench-lib.sh"

# cpu_ms PID: CPU time of PID's threads in milliseconds, from the scheduler's own count
# (/proc/PID/task/*/schedstat): tick-based user and system times charge a process that wakes
# briefly in step with the tick far more than it runs.
cpu_ms() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.1f\n", s / 1e6 }'; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' /proc/"$1"/status 2>/dev/null; }

# steady HZ: lua-flame at HZ on a fresh demo.lua for STEADY_SECS seconds once it samples; prints
# "start_ms steady_percent total_percent" (CPU of one CPU, without and with start-up).
steady() {
	lua5.4 "$ROOT/tests/progs/demo.lua" >/dev/null 2>&1 & tp=$!; started $tp
	sleep 0.3
	"$LF" -p "$tp" -F "$1" -d $((STEADY_SECS + 30)) --stats -o "$W/steady.folded" 2>"$W/steady.err" & lp=$!; started $lp
	t0=$(date +%s%N)
	wait_sampling "$W/steady.err" "$lp" || { log "lua-flame did not start: $(cat "$W/steady.err")"; return 1; }
	sleep 1
	c0=$(cpu_ms "$lp"); s0=$(date +%s%N)
	sleep "$STEADY_SECS"
	c1=$(cpu_ms "$lp"); s1=$(date +%s%N)
	kill -INT "$lp"; wait "$lp"; forget $lp
	kill "$tp"; wait "$tp" 2>/dev/null; forget $tp
	st=$(sed -n 's/.*sampling \([0-9]*\) ms after start.*/\1/p' "$W/steady.err")
	echo "$c0 $c1 $s0 $s1 $t0 ${st:-0}" | awk '{ printf "%s %.3f %.3f\n", $6, 100 * ($2 - $1) * 1e6 / ($4 - $3),
		100 * $2 * 1e6 / ($4 - $5) }'
}

# memory: lua-flame at 999 Hz on churn.lua for LONG_SECS seconds; "seconds rss_kib" lines.
memory() {
	lua5.4 "$ROOT/tests/lua/churn.lua" 100000 >/dev/null 2>&1 & tp=$!; started $tp
	sleep 0.3
	"$LF" -p "$tp" -F 999 -d $((LONG_SECS + 60)) --stats -o "$W/churn.folded" 2>"$W/churn.err" & lp=$!; started $lp
	wait_sampling "$W/churn.err" "$lp" || { log "lua-flame did not start: $(cat "$W/churn.err")"; return 1; }
	t=0
	while [ "$t" -le "$LONG_SECS" ]; do
		echo "$t $(rss_kib "$lp")"
		log "churn at 999 Hz, ${t}s: RSS $(rss_kib "$lp") KiB, CPU $(cpu_ms "$lp") ms"
		sleep "$EVERY"; t=$((t + EVERY))
	done
	c=$(cpu_ms "$lp")
	kill -INT "$lp"; wait "$lp"; forget $lp
	kill "$tp"; wait "$tp" 2>/dev/null; forget $tp
	log "churn: $(grep -o '[0-9]* samples (.*' "$W/churn.err" | head -1); lua-flame CPU ${c} ms"
}

for hz in 99 999; do
	steady "$hz" >"$W/steady.$hz" && log "$hz Hz: $(cat "$W/steady.$hz") (start-up ms, steady %, with start-up %)"
done
memory >"$W/rss"

echo
echo "lua-flame's own process over time ($(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ))"
printf '%-58s %12s %10s %s\n' "measure" "value" "goal" "result"
for hz in 99 999; do
	[ -s "$W/steady.$hz" ] || continue
	read -r st p pt <"$W/steady.$hz"
	g=$([ "$hz" = 99 ] && echo 0.3 || echo 2)
	printf '%-58s %12s %10s %s\n' "CPU at $hz Hz on busy lua5.4, ${STEADY_SECS}s of sampling" "$p%" "<= $g%" \
		"$(awk -v a="$p" -v b="$g" 'BEGIN { print (a + 0 <= b + 0) ? "ok" : "MISSED" }')"
	printf '%-58s %12s\n' "  the same with start-up ($st ms to the first sample)" "$pt%"
done
if [ -s "$W/rss" ]; then
	awk -v secs="$LONG_SECS" 'NR == 1 { t0 = $1; r0 = $2 } { t = $1; r = $2; if ($2 > peak) peak = $2 }
		# growth over the second half, where start-up allocations are behind
		NR > 0 { v[NR] = $2; tt[NR] = $1 }
		END {
			h = int(NR / 2) + 1
			slope = (t > tt[h]) ? (r - v[h]) / (t - tt[h]) * 3600 / 1024 : 0
			printf "%-58s %12s\n", "RSS at 999 Hz on churn.lua: first, last, peak (MiB)", sprintf("%.1f %.1f %.1f", r0 / 1024, r / 1024, peak / 1024)
			printf "%-58s %12s\n", "  growth over the second half, extrapolated to an hour", sprintf("%+.1f MiB/h", slope)
		}' "$W/rss"
fi
