#!/bin/sh
# Benchmark of Lua stack walking: BPF run time per sample for lua5.4 and LuaJIT (-joff, JIT on)
# at 5, 20 and 128 Lua frames and for native-only stacks (with and without frame pointers), each
# beside the floor (bench/floor.bpf.c: a program that only filters the PID and counts, run on
# the same target in the same seconds) and as a ratio to it, and what one user read costs
# there; the throughput cost on a CPU-bound lua5.4 workload and on nginx+Lua under wrk at 99
# and 999 Hz. Prints a table with goals.
# Needs root, gcc, bpftool, jq, lua5.4, luajit, nginx with libnginx-mod-http-lua, wrk and curl.
# Knobs: PARTS (any of "bpf cpu nginx", default all), RUNS (BPF runs per case, 3), SECS (seconds
# measured per BPF run, 5), LUA_DEPTHS ("5 20 128"; past 192 frames the middle of the stack is
# elided, e.g. 3000), JIT_DEPTHS ("5 20 128"), NATIVE_DEPTHS ("8 32 120"), FLOOR (the floor's
# loader, build/bench-floor),
# ROUNDS (alternated throughput rounds, 3), CPU_SECS (length of the CPU-bound workload, 5),
# WRK_SECS (10), LF (binary to measure), KEEP=1 keeps the work directory.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LF=${LF:-$ROOT/lua-flame}
PARTS=${PARTS:-bpf cpu nginx}
RUNS=${RUNS:-3}
SECS=${SECS:-5}
LUA_DEPTHS=${LUA_DEPTHS:-5 20 128}
JIT_DEPTHS=${JIT_DEPTHS:-5 20 128}
NATIVE_DEPTHS=${NATIVE_DEPTHS:-8 32 120}
FLOOR=${FLOOR:-$ROOT/build/bench-floor}
ROUNDS=${ROUNDS:-3}
CPU_SECS=${CPU_SECS:-5}
WRK_SECS=${WRK_SECS:-10}
W=$(mktemp -d /tmp/bench-lua.XXXXXX)
OLD_STATS=$(sysctl -n kernel.bpf_stats_enabled)
STARTED="" # PIDs this script started, killed on exit
NGINX_MASTER=""

log() { echo "bench-lua: $*" >&2; }
want() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
need="jq"
want bpf && need="$need gcc bpftool lua5.4 luajit"
want cpu && need="$need lua5.4"
want nginx && need="$need nginx wrk curl"
for tool in $need; do
	command -v "$tool" >/dev/null || { log "$tool not found"; exit 1; }
done
[ -x "$LF" ] || { log "$LF not built; run make"; exit 1; }
if want bpf && [ ! -x "$FLOOR" ]; then log "$FLOOR not built; run make build/bench-floor"; exit 1; fi

cleanup() {
	exec 3>&- 2>/dev/null
	for p in $STARTED; do kill -9 "$p" 2>/dev/null; done
	if [ -n "$NGINX_MASTER" ]; then
		kill -TERM "$NGINX_MASTER" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$NGINX_MASTER" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$NGINX_MASTER" ${TARGET_PID:-} 2>/dev/null
	fi
	wait 2>/dev/null
	sysctl -q -w kernel.bpf_stats_enabled="$OLD_STATS" >/dev/null
	[ "${KEEP:-0}" = 1 ] && log "outputs kept in $W" || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A private copy: a rebuild of the working tree during the benchmark must not change it.
cp "$LF" "$W/lua-flame" && LF=$W/lua-flame || exit 1
. "$ROOT/scripts/bench-lib.sh"
load1() { cut -d' ' -f1 /proc/loadavg; }
now_ns() { date +%s%N; }

# frames FOLDED: "lua native" frame counts of the hottest stack (process name, kernel
# frames and markers such as [lua: depth limit] or [trace N] left out).
frames() {
	awk '$NF + 0 > best { best = $NF + 0; line = $0 }
		END { sub(/ [0-9]+$/, "", line); n = split(line, f, ";"); l = 0; c = 0
			for (i = 2; i <= n; i++) {
				if (f[i] ~ /_\[k\]$/ || f[i] ~ /^\[/) continue
				if (f[i] ~ /\([^()]*:[0-9]+\)(_\[j\])?$/) l++; else c++
			}
			print l, c }' "$1"
}

# --- BPF run time per sample -----------------------------------------------------------
# The Lua workload: bench/rec.lua D keeps D frames of Lua recursion on the stack.
REC=$ROOT/bench/rec.lua

# proc_cpu_ms PID: user + system time of every thread of PID, in milliseconds.
proc_cpu_ms() { sed 's/.*) //' /proc/"$1"/stat 2>/dev/null | awk -v t="$(getconf CLK_TCK)" '{ print ($12 + $13) * 1000 / t }'; }

# bpf_run NAME R CMD...: run R of CMD profiled at 999 Hz, measuring SECS seconds of BPF
# counters, with the floor program on the same target in the same seconds. Appends a line
# "ns_per_sample ns_per_tick lua_frames native_frames samples load faults_per_sample
# lua_flame_cpu_ms_per_1000_samples lua_flame_peak_rss_mib floor_ns_per_sample start_up_ms R" to
# $W/bpf.NAME, and each second's ns per sample to $W/sec.NAME (lua-flame) and $W/fsec.NAME (floor).
bpf_run() {
	name=$1 r=$2; shift 2
	"$@" >/dev/null 2>&1 & tp=$!; started $tp
	sleep 0.3
	"$LF" -p "$tp" -F 999 -d $((SECS + 30)) --stats -o "$W/$name.folded" 2>"$W/$name.err" &
	lp=$!; started $lp
	if ! wait_sampling "$W/$name.err" "$lp"; then
		log "$name run $r: lua-flame did not start: $(cat "$W/$name.err")"
		kill "$tp" "$lp" 2>/dev/null; wait "$tp" "$lp" 2>/dev/null; forget $tp; forget $lp
		return
	fi
	sleep 1
	# a user read that faults costs as much as hundreds that do not: the target's kernel
	# page faults while it is sampled are those reads (a CPU-bound workload makes none)
	pf=""
	if command -v perf >/dev/null; then
		perf stat -x, -e exceptions:page_fault_kernel -p "$tp" -o "$W/pf" -- sleep "$SECS" 2>/dev/null &
		pf=$!
	fi
	# the floor, on the same target in the same seconds: both see the same machine
	# (a floor measured before or after drifted between 0.3 and 1 us here)
	"$FLOOR" "$tp" 999 "$SECS" >"$W/floor.out" 2>"$W/floor.err" &
	fp=$!
	l0=$(load1); c0=$(proc_cpu_ms "$lp"); a=$(bpf_counters "$lp"); b=$a
	for _ in $(seq "$SECS"); do
		sleep 1
		p=$b; b=$(bpf_counters "$lp")
		echo "$p $b" | awk '$5 > $2 { printf "%.0f\n", ($4 - $1) / ($6 - $3) }' >>"$W/sec.$name"
	done
	c1=$(proc_cpu_ms "$lp"); l1=$(load1)
	rss=$(awk '/^VmHWM:/ { print $2 }' /proc/"$lp"/status 2>/dev/null)
	faults=-1
	[ -n "$pf" ] && wait "$pf" && faults=$(awk -F, '/page_fault_kernel/ { print $1 + 0 }' "$W/pf")
	wait "$fp" || log "$name run $r: the floor program failed: $(cat "$W/floor.err")"
	kill -INT "$lp" 2>/dev/null; wait "$lp"; rc=$?; forget $lp
	awk '{ print $1 }' "$W/floor.out" >>"$W/fsec.$name"
	# what one user read costs here, each second (the floor with reads more, beside it)
	awk '$3 > 0 { print $3, $4 }' "$W/floor.out" >>"$W/reads"
	fl=$(awk '{ print $1 }' "$W/floor.out" | median)
	st=$(sed -n 's/.*sampling \([0-9]*\) ms after start.*/\1/p' "$W/$name.err")
	kill "$tp"; wait "$tp" 2>/dev/null; forget $tp
	if [ "$rc" != 0 ] || [ ! -s "$W/$name.folded" ] || [ -z "$a" ] || [ -z "$b" ]; then
		log "$name run $r: lua-flame failed (status $rc): $(tail -2 "$W/$name.err")"
		return
	fi
	fr=$(frames "$W/$name.folded")
	echo "$a $b $fr" | awk -v l="$l0 $l1" -v f="${faults:--1}" -v c="${c0:-0} ${c1:-0}" -v m="${rss:-0}" -v fl="${fl:-0}" -v st="${st:-n/a}" '{
		rt = $4 - $1; cnt = $5 - $2; s = $6 - $3
		split(l, ld, " "); lo = ld[1] > ld[2] ? ld[1] : ld[2]; split(c, cp, " ")
		if (cnt > 0 && s > 0) printf "%.0f %.0f %d %d %d %s %s %.1f %.1f %s %s %s\n", rt / s, rt / cnt, $7, $8, s, lo,
			f < 0 ? "n/a" : sprintf("%.3f", f / s), 1000 * (cp[2] - cp[1]) / s, m / 1024, (fl > 0 ? fl : "n/a"), st,
			'"$r"' }' >>"$W/bpf.$name"
	log "$name run $r: $(tail -1 "$W/bpf.$name") (ns/sample ns/tick lua native samples load faults/sample" \
		"lua-flame-ms/1000-samples lua-flame-peak-MiB floor-ns/sample start-up-ms run)"
}

CASES="$(for d in $NATIVE_DEPTHS; do printf 'native-%s nativefp-%s ' "$d" "$d"; done
	for d in $LUA_DEPTHS; do printf 'lua54-%s ' "$d"; done; for d in $LUA_DEPTHS; do printf 'joff-%s ' "$d"; done
	for d in $JIT_DEPTHS; do printf 'jit-%s ' "$d"; done)"
log "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
if want bpf; then
	P=$ROOT/tests/progs
	CF="-O2 -fomit-frame-pointer -g0"
	FP="-O2 -fno-omit-frame-pointer -g0"
	mkdir -p "$W/fp"
	gcc $CF -shared -fPIC -o "$W/libunwtest.so" "$P/unwind_lib.c" &&
		gcc $CF -o "$W/unwind" "$P/unwind.c" -L"$W" -lunwtest -Wl,-rpath,"$W" -ldl -lpthread &&
		gcc $FP -shared -fPIC -o "$W/fp/libunwtest.so" "$P/unwind_lib.c" &&
		gcc $FP -o "$W/fp/unwind" "$P/unwind.c" -L"$W/fp" -lunwtest -Wl,-rpath,"$W/fp" -ldl -lpthread ||
		{ log "building tests/progs/unwind.c failed"; exit 1; }
	sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null
	for c in $CASES; do : >"$W/bpf.$c"; : >"$W/sec.$c"; : >"$W/fsec.$c"; done
	# runs taken in turns, not a case's runs one after another: this machine's speed drifts
	# over minutes, and a case next to its pair (with and without frame pointers) sees the same
	for r in $(seq "$RUNS"); do
		for c in $CASES; do
			case $c in
			native-*) bpf_run "$c" "$r" "$W/unwind" deep "${c#*-}" ;;
			nativefp-*) bpf_run "$c" "$r" "$W/fp/unwind" deep "${c#*-}" ;;
			lua54-*) bpf_run "$c" "$r" lua5.4 "$REC" "${c#*-}" ;;
			joff-*) bpf_run "$c" "$r" luajit -joff "$REC" "${c#*-}" ;;
			jit-*) bpf_run "$c" "$r" luajit -jon "$REC" "${c#*-}" ;;
			esac
		done
	done
	sysctl -q -w kernel.bpf_stats_enabled="$OLD_STATS" >/dev/null
fi

# --- throughput of a CPU-bound lua5.4 workload ----------------------------------------------
# A fixed amount of work, started by a line on stdin so that lua-flame's start-up (done
# before the line is sent) is not timed. The workload reports the end on its stdout and
# waits for stdin to close before it exits, so that the BPF counters can still be read.
# Timed: wall time from start to end, and the CPU time the workload used (os.clock; the
# kernel charges the BPF time of a sample's interrupt to the task it interrupted unless
# it accounts IRQ time apart). Measured directly too: BPF time and lua-flame's own CPU
# time during the run, as shares of the run's wall time.
cat >"$W/cpu.lua" <<'LUA'
local n = tonumber(arg[1])
io.read("l")
local c0 = os.clock()
local function leaf(i) return (i * 7 + 1) % 1000003 end
local function mid(i)
  local t = {}
  for k = 1, 8 do t[k] = leaf(i + k) end
  return t[8]
end
local function top(m)
  local acc = 0
  for i = 1, m do acc = (acc + mid(i)) % 1000003 end
  return acc
end
local acc = top(n)
io.write(string.format("%.0f %d\n", (os.clock() - c0) * 1000, acc))
io.stdout:flush()
io.read("l")
LUA

# costs BEFORE AFTER LF0 LF1 WALL_NS: "bpf_percent lua_flame_percent" of WALL_NS from two
# bpf_counters readings and two proc_cpu_ms readings.
costs() {
	echo "$1 $2 $3 $4 $5" | awk '{ printf "%.3f %.2f\n", 100 * ($4 - $1) / $9, 100 * ($8 - $7) * 1e6 / $9 }'
}

# cpu_run HZ N FILE: one run of N iterations with lua-flame at HZ (or none for "off");
# appends "wall_ms cpu_ms load [bpf% lua-flame%]" to FILE unless something failed.
cpu_run() {
	rm -f "$W/go" "$W/done"; mkfifo "$W/go" "$W/done" || return 1
	lua5.4 "$W/cpu.lua" "$2" <"$W/go" >"$W/done" & tp=$!; started $tp
	exec 3>"$W/go" 4<"$W/done"
	lp=""
	if [ "$1" != off ]; then
		sleep 0.2 # lets the interpreter load before lua-flame looks for it
		"$LF" -p "$tp" -F "$1" -d $((CPU_SECS * 4 + 60)) --stats -o "$W/cpu.folded" 2>"$W/cpu.err" 3>&- 4<&- &
		lp=$!; started $lp
		if ! wait_sampling "$W/cpu.err" "$lp"; then
			log "lua-flame did not start: $(cat "$W/cpu.err")"
			exec 3>&- 4<&-; kill "$tp" "$lp" 2>/dev/null; wait "$tp" "$lp" 2>/dev/null; forget $tp; forget $lp
			return 1
		fi
		sleep 0.5
		a=$(bpf_counters "$lp"); f0=$(proc_cpu_ms "$lp")
	else
		sleep 1
	fi
	t0=$(now_ns); echo go >&3; read -r cpu _ <&4; t1=$(now_ns); l=$(load1)
	extra=""
	if [ -n "$lp" ]; then
		b=$(bpf_counters "$lp"); f1=$(proc_cpu_ms "$lp")
		[ -n "$a" ] && [ -n "$b" ] && extra=" $(costs "$a" "$b" "$f0" "$f1" $((t1 - t0)))"
	fi
	exec 3>&- 4<&-
	wait "$tp"; rc=$?; forget $tp
	if [ -n "$lp" ]; then
		wait "$lp"; lrc=$?; forget $lp
		if [ "$lrc" != 0 ] || ! grep -q 'every target process has exited' "$W/cpu.err"; then
			log "lua-flame -F $1 ended early or failed (status $lrc): $(tail -2 "$W/cpu.err")"
			return 1
		fi
	fi
	[ "$rc" = 0 ] && [ -n "${cpu:-}" ] || { log "lua5.4 workload failed (status $rc)"; return 1; }
	echo "$(((t1 - t0) / 1000000)) $cpu $l$extra" >>"$3"
}
: >"$W/cpu.off"; : >"$W/cpu.99"; : >"$W/cpu.999"
CPU_N=""
want cpu || want nginx && sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null
if want cpu; then
	n0=1000000
	: >"$W/cal"
	cpu_run off $n0 "$W/cal" || { log "calibration run failed"; exit 1; }
	c=$(cat "$W/cal")
	CPU_N=$(echo "$c" | awk -v n="$n0" -v s="$CPU_SECS" '{ printf "%d\n", n * s * 1000 / ($2 > 0 ? $2 : 1) }')
	log "CPU workload: $CPU_N iterations (calibration: $n0 in $(echo "$c" | cut -d' ' -f2) ms of CPU)"
	for r in $(seq "$ROUNDS"); do
		case $((r % 3)) in 1) order="off 99 999" ;; 2) order="99 999 off" ;; *) order="999 off 99" ;; esac
		for m in $order; do
			cpu_run "$m" "$CPU_N" "$W/cpu.$m" &&
				log "cpu round $r, lua-flame $m: $(tail -1 "$W/cpu.$m") (wall_ms cpu_ms load bpf% lua-flame%)"
		done
	done
fi

# --- nginx + Lua (JIT on) under wrk -----------------------------------------------------------
if want nginx; then
	PIDS_TO_KILL=""
	. "$ROOT/tests/targets.sh"
	port=$(free_port)
	start_nginx "$W/nginx" "$port" "$ROOT/tests/lua" || exit 1
	log "nginx worker $TARGET_PID on port $port"
fi

# wrk_run HZ: one wrk run with lua-flame at HZ (or none for "off"); appends "requests/s
# worker_cpu_us_per_request load [bpf% lua-flame%]" to $W/rps.HZ unless lua-flame failed.
wrk_run() {
	lp=""
	if [ "$1" != off ]; then
		"$LF" -p "$TARGET_PID" -F "$1" -d $((WRK_SECS + 60)) --stats -o "$W/wrk.folded" 2>"$W/wrk.err" &
		lp=$!; started $lp
		if ! wait_sampling "$W/wrk.err" "$lp"; then
			log "lua-flame did not start: $(cat "$W/wrk.err")"
			kill "$lp" 2>/dev/null; wait "$lp"; forget $lp
			return 1
		fi
	fi
	[ -n "$lp" ] && { sleep 0.5; a=$(bpf_counters "$lp"); f0=$(proc_cpu_ms "$lp"); }
	t0=$(now_ns)
	c0=$(cut -d' ' -f1 /proc/"$TARGET_PID"/schedstat)
	wrk -t1 -c8 -d"${WRK_SECS}s" "http://127.0.0.1:$port/" >"$W/wrk.out" 2>&1
	c1=$(cut -d' ' -f1 /proc/"$TARGET_PID"/schedstat)
	t1=$(now_ns); l=$(load1)
	extra=""
	if [ -n "$lp" ]; then
		b=$(bpf_counters "$lp"); f1=$(proc_cpu_ms "$lp")
		[ -n "$a" ] && [ -n "$b" ] && extra=" $(costs "$a" "$b" "$f0" "$f1" $((t1 - t0)))"
	fi
	v=$(awk -v c="$((c1 - c0))" '/requests in/ { n = $1 } /^Requests\/sec:/ { r = $2 }
		END { if (n > 0 && r != "") printf "%s %.1f\n", r, c / 1000 / n }' "$W/wrk.out")
	if [ -n "$lp" ]; then
		alive=0; kill -INT "$lp" 2>/dev/null && alive=1
		wait "$lp"; rc=$?; forget $lp
		if [ "$alive" = 0 ] || [ "$rc" != 0 ]; then
			log "lua-flame -F $1 ended early or failed (status $rc): $(tail -2 "$W/wrk.err")"
			return 1
		fi
	fi
	[ -n "$v" ] && echo "$v $l$extra" >>"$W/rps.$1"
}
: >"$W/rps.off"; : >"$W/rps.99"; : >"$W/rps.999"
if want nginx; then
	wrk -t1 -c8 -d2s "http://127.0.0.1:$port/" >/dev/null 2>&1 # warm-up
	for r in $(seq "$ROUNDS"); do
		case $((r % 3)) in 1) order="off 99 999" ;; 2) order="99 999 off" ;; *) order="999 off 99" ;; esac
		for m in $order; do
			wrk_run "$m" && log "wrk round $r, lua-flame $m: $(tail -1 "$W/rps.$m") (requests/s us/request load bpf% lua-flame%)"
		done
	done
fi

# --- table -------------------------------------------------------------------------------
col() { awk -v c="$1" '{ print $c }' "$2" | median; }
# loads FILE COL: "min-max" of the load averages in column COL of FILE.
loads() { awk -v c="$2" 'NR == 1 || $c < lo { lo = $c } NR == 1 || $c > hi { hi = $c }
	END { if (NR) printf(lo == hi ? "%s" : "%s-%s", lo, hi) }' "$1"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%+.1f%%", 100 * (a - b) / b; else print "n/a" }'; }
spread() { sort -n | awk '{ v[NR] = $1 }
	END { if (NR > 1 && v[1] > 0) printf "%.1f%%", 100 * (v[NR] - v[1]) / v[1]; else print "n/a" }'; }
verdict() { awk -v v="$1" -v g="$2" 'BEGIN { if (v == "" || g == "") print ""; else print (v < g) ? "ok" : "MISSED" }'; }
row() { printf '%-50s %11s %11s %10s %-7s %s\n' "$@"; }
brow() { printf '%-52s %9s %9s %9s %7s %8s %-7s %s\n' "$@"; }
p90() { sort -n | awk '{ v[NR] = $1 } END { if (NR) { i = int(0.9 * NR + 0.999); print v[i < 1 ? 1 : i] } }'; }
# pairs HOW D: median over runs of nativefp-D's ns per sample over native-D's in the same
# run (HOW 1), or of their ratios to their floors (HOW 2), as "1.02x".
pairs() {
	awk -v how="$1" 'NR == FNR { t[$12] = $1; f[$12] = $10; next }
		($12 in t) && t[$12] > 0 && (how == 1 || ($10 > 0 && f[$12] > 0)) {
			print how == 1 ? $1 / t[$12] : ($1 / $10) / (t[$12] / f[$12]) }' \
		"$W/bpf.native-$2" "$W/bpf.nativefp-$2" | median | awk 'NF { printf "%.2fx", $1 }'
}
# goal CASE: the largest ratio to the floor a case may show ("<= N"), or nothing.
goal() {
	case $1 in
	native-32 | nativefp-32) echo "<= 5" ;;
	native-120 | nativefp-120) echo "<= 10" ;;
	lua54-20 | joff-20 | jit-20) echo "<= 8" ;;
	lua54-128 | joff-128 | jit-128) echo "<= 20" ;;
	esac
}

echo
echo "lua-flame Lua stack benchmark ($(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ))"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
if want bpf; then
	echo "BPF time per target sample at 999 Hz ($RUNS runs x ${SECS}s), beside the floor program measured on"
	echo "the same target in the same seconds as lua-flame (median of each run; p90 of the runs' seconds):"
	brow "case" "median" "p90" "floor" "ratio" "goal" "result" "load"
	for c in $CASES; do
		f=$W/bpf.$c d=${c#*-}
		[ -s "$f" ] || { brow "$c" "no data" "" "" "" "" "" ""; continue; }
		ps=$(col 1 "$f"); lf=$(col 3 "$f"); nf=$(col 4 "$f")
		fl=$(median <"$W/fsec.$c"); p9=$(p90 <"$W/sec.$c")
		# past LF_LUA_OUTER + LF_LUA_INNER frames a stack keeps its ends: say how deep it was
		lua="$lf Lua"
		[ "$d" -gt "${lf:-0}" ] 2>/dev/null && lua="$lf of ~$d Lua"
		case $c in
		native-*) what="native, $nf frames" ;;
		nativefp-*) what="native, frame pointers, $nf frames" ;;
		lua54-*) what="lua5.4, $lua + $nf native" ;;
		joff-*) what="luajit -joff, $lua + $nf native" ;;
		*) what="luajit JIT on, $lua (traced) + $nf native" ;;
		esac
		g=$(goal "$c")
		r=$(awk -v a="$ps" -v b="$fl" 'BEGIN { if (b > 0) printf "%.1fx", a / b }')
		ok=$(awk -v r="${r%x}" -v g="${g#<= }" 'BEGIN { if (g != "" && r != "") print (r + 0 <= g + 0) ? "ok" : "MISSED" }')
		brow "$what" "$ps ns" "${p9:-n/a} ns" "${fl:-n/a} ns" "${r:-n/a}" "${g:+${g}x}" "$ok" "$(loads "$f" 6)"
	done
	# each run with frame pointers against the run without taken just before it: the ratio of
	# their ratios to the floor (the goal's terms), and of their times alone in brackets
	for d in $NATIVE_DEPTHS; do
		[ -s "$W/bpf.native-$d" ] && [ -s "$W/bpf.nativefp-$d" ] || continue
		r=$(pairs 1 "$d"); rf=$(pairs 2 "$d")
		ok=$(awk -v r="${rf%x}" 'BEGIN { if (r != "") print (r + 0 <= 1.05) ? "ok" : "MISSED" }')
		brow "frame pointers vs none, deep $d (time alone $r)" "" "" "" "$rf" "<= 1.05x" "$ok" ""
	done
	# The goals' ratios hold where a user read costs some 10 ns; each frame a walk follows
	# through the target's memory costs at least one. Their price here, and the least a walk
	# reading 20 or 128 frames once each could show beside the floor:
	if [ -s "$W/reads" ]; then
		rc=$(col 1 "$W/reads" | awk '{ printf "%.0f", $1 }'); fl=$(cat "$W"/fsec.* | median)
		echo "  one user read of 8 bytes: $rc ns (the floor program with reads more, beside it; failed reads:" \
			"$(awk '{ n += $2 } END { print n + 0 }' "$W/reads")); a walk reading each of 20 / 128 frames once:" \
			"$(awk -v r="$rc" -v f="$fl" 'BEGIN { if (f > 0) printf "%.1fx / %.1fx the floor of %.0f ns", (f + 20 * r) / f, (f + 128 * r) / f, f }')"
	fi
	echo "  faulting user reads per sample (the target's kernel page faults while sampled; goal 0):"
	echo "   $(for c in $CASES; do [ -s "$W/bpf.$c" ] && printf ' %s %s,' "$c" "$(col 7 "$W/bpf.$c")"; done | sed 's/,$//')"
	echo "  start-up to the first sample (ms; goal <= 100):"
	echo "   $(for c in $CASES; do [ -s "$W/bpf.$c" ] && printf ' %s %s,' "$c" "$(col 11 "$W/bpf.$c")"; done | sed 's/,$//')"
	echo "  lua-flame's own CPU per 1000 samples (naming, draining; ms) and its peak RSS (MiB):"
	echo "   $(for c in $CASES; do [ -s "$W/bpf.$c" ] && printf ' %s %s ms %s MiB,' "$c" "$(col 8 "$W/bpf.$c")" \
		"$(col 9 "$W/bpf.$c")"; done | sed 's/,$//')"
	echo "  (per on_sample run, counting every tick of every CPU:$(for c in $CASES; do [ -s "$W/bpf.$c" ] &&
		printf ' %s %s ns,' "$c" "$(col 2 "$W/bpf.$c")"; done | sed 's/,$//'))"
fi
# throughput UNIT FILE_PREFIX COL SIGN: medians of column COL of PREFIX.off, .99 and .999
# (column 3 is the load average) with the difference to no profiler; the goal at 99 Hz is
# under 1% of slowdown for SIGN "+" (times), under 1% of loss for SIGN "-" (rates). With a
# fifth argument, the BPF and lua-flame shares of columns 4 and 5 too.
throughput() {
	off=$(col "$3" "$2.off")
	row "  no profiler" "${off:-n/a} $1" "" "" "" "$(loads "$2.off" 3)"
	for hz in 99 999; do
		v=$(col "$3" "$2.$hz"); d=$(pct "$v" "$off")
		g=""; ok=""
		if [ "$hz" = 99 ]; then
			if [ "$4" = + ]; then g="< +1%"; else g="> -1%"; fi
			ok=$(awk -v a="$v" -v b="$off" -v s="$4" 'BEGIN { if (a == "" || b <= 0) exit
				x = 100 * (a - b) / b; if (s == "-") x = -x; print x < 1 ? "ok" : "MISSED" }')
		fi
		row "  lua-flame -F $hz" "${v:-n/a} $1" "" "" "" "$(loads "$2.$hz" 3)"
		row "    difference at $hz Hz" "$d" "" "$g" "$ok" ""
		[ -n "${5:-}" ] && [ -s "$2.$hz" ] &&
			row "    BPF time; lua-flame CPU (share of the run)" "$(col 4 "$2.$hz")%; $(col 5 "$2.$hz")%" "" "" "" ""
	done
	row "  spread of runs without profiler" "$(awk -v c="$3" '{ print $c }' "$2.off" | spread)" "" "" "" ""
}
# CPU times include the BPF time spent in the interrupts of the task's samples unless the
# kernel accounts IRQ time apart.
IRQNOTE=""
if { zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null; } |
	grep -q '^CONFIG_IRQ_TIME_ACCOUNTING=y'; then
	IRQNOTE="; IRQ time accounted apart: BPF time not included"
fi
if want cpu || want nginx; then
	echo
	row "measure" "median" "" "goal" "result" "load"
fi
if want cpu; then
	echo "CPU-bound lua5.4, $CPU_N iterations ($ROUNDS runs per setting, alternated); wall time:"
	throughput ms "$W/cpu" 1 + costs
	echo "  the same runs, CPU time of the workload (waiting for a CPU left out$IRQNOTE):"
	throughput ms "$W/cpu" 2 +
fi
if want nginx; then
	echo "nginx+Lua (JIT on), wrk -t1 -c8 -d${WRK_SECS}s ($ROUNDS runs per setting, alternated); requests/s:"
	throughput r/s "$W/rps" 1 - costs
	echo "  the same runs, CPU time of the nginx worker per request:"
	throughput us "$W/rps" 2 +
fi
echo
echo "load: 1-minute load average during the runs (min-max). BPF per target sample: run time of"
echo "on_sample + unwind_user over the samples of the target; a tail call is accounted to its caller."
