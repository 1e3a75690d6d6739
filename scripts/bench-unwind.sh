#!/bin/sh
# Benchmark of native unwinding: BPF run time per sample at about 30 and 120 native frames,
# attach-to-first-sample time and unwind-table memory for nginx with the Lua module, for lua5.4
# and luajit with a 2 GB heap and for a process with 250 mapped libraries, and the throughput
# cost of profiling nginx+Lua under wrk at 99 and 999 Hz. Prints a table with goals.
# Needs root, gcc, bpftool, jq, nginx with libnginx-mod-http-lua, wrk and curl.
# Knobs: PARTS (any of "bpf startup libs wrk", default all), RUNS (BPF runs per depth, 5), SECS
# (seconds measured per run, 5), DEPTHS ("25 115"), ROUNDS (wrk rounds, 3), WRK_SECS (10),
# LF (binary to measure), KEEP=1 keeps the work directory.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LF=${LF:-$ROOT/lua-flame}
PARTS=${PARTS:-bpf startup libs wrk}
DEPTHS=${DEPTHS:-25 115}
RUNS=${RUNS:-5}
SECS=${SECS:-5}
ROUNDS=${ROUNDS:-3}
WRK_SECS=${WRK_SECS:-10}
W=$(mktemp -d /tmp/bench-unwind.XXXXXX)
OLD_STATS=$(sysctl -n kernel.bpf_stats_enabled)
STARTED="" # PIDs this script started, killed on exit
NGINX_MASTER=""

for tool in gcc bpftool jq nginx wrk curl; do
	command -v "$tool" >/dev/null || { echo "bench-unwind: $tool not found" >&2; exit 1; }
done
[ -x "$LF" ] || { echo "bench-unwind: $LF not built; run make" >&2; exit 1; }

cleanup() {
	for p in $STARTED; do kill -9 "$p" 2>/dev/null; done
	if [ -n "$NGINX_MASTER" ]; then
		kill -TERM "$NGINX_MASTER" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$NGINX_MASTER" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$NGINX_MASTER" ${TARGET_PID:-} 2>/dev/null
	fi
	wait 2>/dev/null
	sysctl -q -w kernel.bpf_stats_enabled="$OLD_STATS" >/dev/null
	[ "${KEEP:-0}" = 1 ] && echo "bench-unwind: outputs kept in $W" >&2 || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "bench-unwind: $*" >&2; }
want() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
# A private copy: a rebuild of the working tree during the benchmark must not change it.
cp "$LF" "$W/lua-flame" && LF=$W/lua-flame || exit 1
. "$ROOT/scripts/bench-lib.sh"

# user_depth FOLDED: native frames of the hottest stack (process name and kernel frames left out).
user_depth() {
	sort -t' ' -k2 -nr "$1" | head -1 | sed 's/ [0-9]*$//' |
		awk -F';' '{ n = 0; for (i = 2; i <= NF; i++) if ($i !~ /_\[k\]$/) n++; print n }'
}

# bpf_runs DEPTH: RUNS runs of `unwind deep DEPTH` profiled at 999 Hz; each measures SECS
# seconds of BPF counters. Appends "ns_per_tick ns_per_sample frames" lines to $W/bpf.DEPTH.
bpf_runs() {
	: >"$W/bpf.$1"
	for r in $(seq "$RUNS"); do
		"$W/unwind" deep "$1" & tp=$!; started $tp
		sleep 0.3
		"$LF" -p "$tp" -F 999 -d $((SECS + 4)) --stats -o "$W/deep$1.folded" 2>"$W/deep$1.err" &
		lp=$!; started $lp
		if ! wait_sampling "$W/deep$1.err" "$lp"; then
			log "lua-flame did not start: $(cat "$W/deep$1.err")"
			kill "$tp" "$lp" 2>/dev/null; continue
		fi
		sleep 1
		a=$(bpf_counters "$lp"); sleep "$SECS"; b=$(bpf_counters "$lp")
		wait "$lp"; rc=$?; forget $lp
		kill "$tp"; wait "$tp" 2>/dev/null; forget $tp
		if [ "$rc" != 0 ] || [ ! -s "$W/deep$1.folded" ]; then
			log "deep $1 run $r: lua-flame failed (status $rc): $(tail -2 "$W/deep$1.err")"
			continue
		fi
		d=$(user_depth "$W/deep$1.folded")
		echo "$a $b" | awk -v d="$d" '{ rt = $4 - $1; cnt = $5 - $2; s = $6 - $3
			if (cnt > 0 && s > 0) printf "%.0f %.0f %d %d\n", rt / cnt, rt / s, d, s }' >>"$W/bpf.$1"
		log "deep $1 run $r: $(tail -1 "$W/bpf.$1") (ns/tick ns/sample frames samples)"
	done
}

# --- BPF run time per sample -----------------------------------------------------------
log "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
if want bpf; then
	P=$ROOT/tests/progs
	CF="-O2 -fomit-frame-pointer -g0"
	gcc $CF -shared -fPIC -o "$W/libunwtest.so" "$P/unwind_lib.c" &&
		gcc $CF -o "$W/unwind" "$P/unwind.c" -L"$W" -lunwtest -Wl,-rpath,"$W" -ldl -lpthread ||
		{ log "building tests/progs/unwind.c failed"; exit 1; }
	sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null
	for d in $DEPTHS; do bpf_runs "$d"; done
	sysctl -q -w kernel.bpf_stats_enabled="$OLD_STATS" >/dev/null
fi

# --- nginx + Lua: start-up, table memory, throughput --------------------------------------
if want startup || want wrk; then
	PIDS_TO_KILL=""
	. "$ROOT/tests/targets.sh"
	port=$(free_port)
	start_nginx "$W/nginx" "$port" "$ROOT/tests/lua" || exit 1
	log "nginx worker $TARGET_PID on port $port"
fi

# startup_runs PID NAME WHAT [OPTIONS...]: three attaches to PID, each appending "ms MiB files
# rows every-target-ms" of its start-up to $W/NAME (builds before --stats said the last: none).
startup_runs() {
	sp=$1 sn=$2 sw=$3
	shift 3
	: >"$W/$sn"
	for r in 1 2 3; do
		"$LF" -p "$sp" "$@" -d 1 --stats -o "$W/$sn.folded" 2>"$W/$sn.err"
		sed -n 's/.*unwind tables: \([0-9]*\) files, \([0-9]*\) rows, \([0-9.]*\) MiB of maps; sampling \([0-9]*\) ms\(.*every target \([0-9]*\) ms\)\{0,1\}.*/\4 \3 \1 \2 \6/p' \
			"$W/$sn.err" >>"$W/$sn"
		log "$sw start-up run $r: $(tail -1 "$W/$sn") (ms MiB files rows every-target-ms)"
	done
}

: >"$W/startup"
if want startup; then
	startup_runs "$TARGET_PID" startup nginx
	# 8 workers, the master given and its workers followed (--children): to the first
	# sample, and until every worker is sampled
	# (start_nginx sets the globals port, NGINX_MASTER and TARGET_PID: the wrk part
	# measures the first nginx)
	m1=$NGINX_MASTER t1=$TARGET_PID p1=$port
	NGINX_WORKERS=8 start_nginx "$W/nginx8" "$(free_port)" "$ROOT/tests/lua" || exit 1
	m8=$NGINX_MASTER NGINX_MASTER=$m1 TARGET_PID=$t1 port=$p1
	startup_runs "$m8" startup8 "nginx, 8 workers" --children
	kill -TERM "$m8"
	for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$m8" 2>/dev/null || break; sleep 0.2; done
fi

# A Lua process with 2 GB of live data: the search for its VM must not grow with the heap.
if want startup; then
	for vm in lua5.4 luajit; do
		command -v "$vm" >/dev/null || continue
		"$vm" "$ROOT/bench/big_heap.lua" 2048 2>"$W/heap.ready" & hp=$!; started $hp
		for _ in $(seq 300); do grep -q ready "$W/heap.ready" && break; sleep 0.2; done
		startup_runs "$hp" "heap-$vm" "$vm with a 2 GB heap"
		kill "$hp"; forget "$hp"
	done
fi

# A process that has mapped 250 libraries of 200 functions each (distinct files, built
# here), spinning in them: attach to first sample, and what the tables take.
: >"$W/libs"
if want libs; then
	mkdir -p "$W/libs.d"
	for i in $(seq 250); do
		awk -v i="$i" 'BEGIN { for (j = 0; j < 200; j++)
			printf "int f%d(int x) { int s = 0; for (int k = 0; k < x; k++) s += k * %d ^ (s >> 3); return x > 1 ? s + f%d(x - 1) : s; }\n",
				j, i * 1000 + j, (j > 0 ? j - 1 : 0)
			print "int lib_entry(int x) { return f199(x); }" }' >"$W/libs.d/l$i.c"
	done
	ls "$W"/libs.d/l*.c | xargs -P 2 -I{} sh -c 'gcc -O1 -shared -fPIC -o "$(dirname {})/lib$(basename {} .c).so" {}'
	gcc -O1 -o "$W/libs-host" "$ROOT/tests/progs/many_libs.c" -ldl
	"$W/libs-host" "$W"/libs.d/lib*.so &
	lp=$!; started $lp
	sleep 1
	log "host with $(grep -c 'libs\.d/lib.*\.so' /proc/$lp/maps) mappings of its libraries"
	startup_runs "$lp" libs 250-library
	kill "$lp"; forget "$lp"
fi

# wrk_run HZ: one wrk run with lua-flame at HZ (or none for "off"); appends requests/s
# to $W/rps.HZ unless lua-flame failed to start.
wrk_run() {
	lp=""
	if [ "$1" != off ]; then
		"$LF" -p "$TARGET_PID" -F "$1" -d $((WRK_SECS + 30)) --stats -o "$W/wrk.folded" 2>"$W/wrk.err" &
		lp=$!; started $lp
		if ! wait_sampling "$W/wrk.err" "$lp"; then
			log "lua-flame did not start: $(cat "$W/wrk.err")"
			kill "$lp" 2>/dev/null; wait "$lp"; forget $lp
			return 1
		fi
	fi
	wrk -t1 -c8 -d"${WRK_SECS}s" "http://127.0.0.1:$port/" >"$W/wrk.out" 2>&1
	v=$(awk '/^Requests\/sec:/ { print $2 }' "$W/wrk.out")
	if [ -n "$lp" ]; then
		alive=0; kill -INT "$lp" 2>/dev/null && alive=1
		wait "$lp"; rc=$?; forget $lp
		if [ "$alive" = 0 ] || [ "$rc" != 0 ]; then
			log "lua-flame -F $1 ended early or failed (status $rc): $(tail -2 "$W/wrk.err")"
			return 1
		fi
	fi
	if [ -z "$v" ]; then
		log "wrk measured nothing on port $port: $(tail -2 "$W/wrk.out")"
		return 1
	fi
	echo "$v" >>"$W/rps.$1"
}
: >"$W/rps.off"; : >"$W/rps.99"; : >"$W/rps.999"
if want wrk; then
	wrk -t1 -c8 -d2s "http://127.0.0.1:$port/" >/dev/null 2>&1 # warm-up
	for r in $(seq "$ROUNDS"); do
		case $((r % 3)) in 1) order="off 99 999" ;; 2) order="99 999 off" ;; *) order="999 off 99" ;; esac
		for m in $order; do
			wrk_run "$m" && log "wrk round $r, lua-flame $m: $(tail -1 "$W/rps.$m") requests/s"
		done
	done
fi

# --- table -------------------------------------------------------------------------------
col() { awk -v c="$1" '{ print $c }' "$2" | median; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%+.1f%%", 100 * (a - b) / b; else print "n/a" }'; }
verdict() { awk -v v="$1" -v g="$2" -v op="$3" 'BEGIN {
	if (v == "" || g == "") { print ""; exit }
	ok = op == "<=" ? v <= g : v < g; print ok ? "ok" : "MISSED" }'; }
row() { printf '%-46s %12s %12s  %s\n' "$@"; }

echo
echo "lua-flame native unwinding benchmark ($(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ))"
echo
row "measure" "median" "goal" "result"
if want bpf; then
	for d in $DEPTHS; do
		f=$W/bpf.$d
		[ -s "$f" ] || { row "BPF time per sample, deep $d" "no data" "" ""; continue; }
		fr=$(col 3 "$f"); n=$(wc -l <"$f")
		case $d in 25) goal=300 op="<=" ;; 115) goal=1000 op="<" ;; *) goal="" op="" ;; esac
		ps=$(col 2 "$f"); pt=$(col 1 "$f")
		row "BPF per target sample, $fr native frames" "$ps ns" "${goal:+$op $goal ns}" \
			"$(verdict "$ps" "$goal" "$op")"
		row "BPF per on_sample run, $fr native frames" "$pt ns" "${goal:+$op $goal ns}" \
			"$(verdict "$pt" "$goal" "$op")"
		row "  runs x seconds; target samples per run" "$n x ${SECS}s; $(col 4 "$f")" "" ""
	done
fi
if want startup && [ -s "$W/startup" ]; then
	for vm in lua5.4 luajit; do
		[ -s "$W/heap-$vm" ] || continue
		row "$vm, 2 GB heap: start to first sample" "$(col 1 "$W/heap-$vm") ms" "<= 300 ms" \
			"$(verdict "$(col 1 "$W/heap-$vm")" 300 "<=")"
	done

	ms=$(col 1 "$W/startup")
	mb=$(col 2 "$W/startup" | awk '{ printf "%.1f", $1 * 1.048576 }')
	row "nginx+Lua: start to first sample" "$ms ms" "<= 100 ms" "$(verdict "$ms" 100 "<=")"
	if [ -s "$W/startup8" ]; then
		ms8=$(col 1 "$W/startup8")
		row "nginx+Lua, 8 workers, --children: to first sample" "$ms8 ms" "<= 100 ms" "$(verdict "$ms8" 100 "<=")"
		row "  to every worker sampled" "$(col 5 "$W/startup8") ms" "" ""
	fi
	row "nginx+Lua: unwind table maps" "$mb MB" "< 20 MB" "$(verdict "$mb" 20 "<")"
	row "  files; rows" "$(col 3 "$W/startup"); $(col 4 "$W/startup")" "" ""
fi
if want libs && [ -s "$W/libs" ]; then
	ms=$(col 1 "$W/libs")
	mb=$(col 2 "$W/libs" | awk '{ printf "%.1f", $1 * 1.048576 }')
	row "250 mapped libraries: start to first sample" "$ms ms" "<= 1000 ms" "$(verdict "$ms" 1000 "<=")"
	row "  unwind table maps; files; rows" "$mb MB; $(col 3 "$W/libs"); $(col 4 "$W/libs")" "" ""
fi
if want wrk; then
	rps_off=$(median <"$W/rps.off"); rps_99=$(median <"$W/rps.99"); rps_999=$(median <"$W/rps.999")
	o99=$(pct "$rps_99" "$rps_off"); o999=$(pct "$rps_999" "$rps_off")
	row "nginx+Lua, wrk -t1 -c8: no profiler" "$rps_off r/s" "" ""
	row "  lua-flame -F 99" "$rps_99 r/s" "" ""
	row "  difference at 99 Hz" "$o99" "> -1%" \
		"$(awk -v a="$rps_99" -v b="$rps_off" 'BEGIN { if (a != "" && b > 0) print (100 * (b - a) / b < 1) ? "ok" : "MISSED" }')"
	row "  lua-flame -F 999" "$rps_999 r/s" "" ""
	row "  difference at 999 Hz" "$o999" "" ""
	row "  runs per setting (alternated), length" "$ROUNDS x ${WRK_SECS}s" "" ""
	row "  spread of runs without profiler" "$(sort -n "$W/rps.off" | awk '{ v[NR] = $1 }
		END { if (NR > 1 && v[1] > 0) printf "%.1f%%", 100 * (v[NR] - v[1]) / v[1]; else print "n/a" }')" "" ""
fi
echo
echo "BPF per target sample: run time of on_sample + unwind_user (a tail call is accounted to"
echo "its caller) over the samples of the target; per on_sample run: the same over every"
echo "cpu-clock tick on every CPU, where ticks of other processes return at once."
