#!/bin/sh
# Renderer benchmark: folded files shaped like real ones (sorted, one line per distinct
# stack, 10 to 60 frames of Lua, C, shared-library, JIT, kernel and VM frames under a
# few nginx entry paths) of 10k, 100k and 1M lines, each drawn by `lua-flame render`
# with the default minimum width: median wall time and peak RSS over RUNS runs, SVG size,
# frames drawn; and beside it flamegraph.pl on the same file when one is installed.
# Goal: 1M lines in 1.5 s and 200 MB at most, time linear in the input.
# usage: scripts/bench-render.sh [LINES...]     (default 10000 100000 1000000)
# env: LF=path/to/lua-flame  RUNS=3  FLAMEGRAPH=path/to/flamegraph.pl  BENCH_DIR=dir
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LF=${LF:-$ROOT/lua-flame}
RUNS=${RUNS:-3}
DIR=${BENCH_DIR:-$ROOT/tests/out/bench-render}
FG=${FLAMEGRAPH:-$(command -v flamegraph.pl || command -v flamegraph || true)}
[ $# -gt 0 ] || set -- 10000 100000 1000000
mkdir -p "$DIR"

[ -x "$LF" ] || { echo "bench-render: $LF is missing; run make first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-render: /usr/bin/time is missing; apt-get install time" >&2; exit 2; }
AWK=$(command -v mawk || command -v awk)

# gen LINES FILE: a call graph of 5000 functions; each frame calls one of 8 callees, the
# first far more often except in the last few frames, so stacks share long prefixes and
# part near the leaf, as real ones do.
gen() {
	"$AWK" -v lines="$1" -v seed=42 -v p=0.85 'BEGIN {
		srand(seed)
		for (i = 0; i < 5000; i++) {
			r = i % 20
			if (r < 11) fn[i] = sprintf("%s_%d (%s/mod_%d.lua:%d)", (r < 3 ? "handle" : r < 6 ? "parse" : r < 9 ? "get" : "?"), i, (i % 3 ? "app" : "lib/resty"), i % 97, 1 + (i * 37) % 900)
			else if (r < 13) fn[i] = sprintf("loop_%d (app/hot_%d.lua:%d)_[j]", i, i % 31, 1 + (i * 13) % 400)
			else if (r < 17) fn[i] = sprintf("%s_%d", (r < 15 ? "lj_tab" : "ngx_http_lua_ffi"), i)
			else if (r < 19) fn[i] = sprintf("lib%s.so+0x%x", (r < 18 ? "crypto" : "z"), 4096 + i * 52)
			else fn[i] = sprintf("luaL_%d", i)
		}
		w = "nginx;_start;__libc_start_main;main;ngx_master_process_cycle;ngx_start_worker_processes;ngx_spawn_process;ngx_worker_process_cycle;ngx_process_events_and_timers"
		pre[0] = w ";ngx_epoll_process_events;ngx_http_wait_request_handler;ngx_http_process_request;ngx_http_core_run_phases;ngx_http_lua_content_handler;lua_pcall"
		pre[1] = w ";ngx_event_expire_timers;ngx_http_lua_timer_handler;lua_resume"
		pre[2] = w ";ngx_epoll_process_events;ngx_http_upstream_handler;ngx_http_lua_socket_tcp_handler;lua_resume"
		pre[3] = "nginx;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k]"
		for (i = 0; i < lines; i++) {
			x = rand()
			st = pre[int(x * x * 4)]
			d = split(st, tmp, ";")
			depth = d + 7 + int(rand() * rand() * (54 - d))
			f = int(rand() * rand() * 60)
			for (; d < depth; d++) {
				k = 0
				pp = (depth - d <= 3) ? 0.3 : p
				while (k < 7 && rand() > pp) k++
				f = (f * 131 + k * 977 + d * 7 + 13) % 5000
				st = st ";" fn[f]
			}
			r = rand()
			if (r < 0.08) st = st ";entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_" (r < 0.04 ? "write" : "epoll_wait") "_[k]"
			else if (r < 0.11) st = st ";[GC]"
			else if (r < 0.13) st = st ";[JIT compiler]"
			else if (r < 0.15) st = st ";[trace " int(r * 10000) "]"
			print st, 1 + int(rand() * rand() * rand() * 300)
		}
	}' | LC_ALL=C sort >"$2.tmp"
	mv "$2.tmp" "$2"
}

# run LOG CMD...: runs CMD under /usr/bin/time; prints "seconds peak-MiB"
run() {
	log=$1; shift
	/usr/bin/time -v "$@" 2>"$log" >/dev/null || { cat "$log" >&2; return 1; }
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		/Maximum resident set size/ { m = $2 / 1024 } END { printf "%.2f %.1f\n", s, m }' "$log"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; medians of $RUNS runs"
[ -n "$FG" ] || echo "flamegraph.pl: not installed (Debian 12 has no package for it); FLAMEGRAPH=path/to/flamegraph.pl to compare"
printf '%9s %9s %7s | %8s %8s %8s %7s' lines distinct "in MiB" "render s" "peak MiB" "SVG MiB" frames
[ -z "$FG" ] || printf ' | %8s %8s %7s %7s' "fg.pl s" "peak MiB" "x time" "x mem"
echo
for n in "$@"; do
	in=$DIR/distinct-$n.folded
	[ -s "$in" ] || gen "$n" "$in"
	[ -s "$in.distinct" ] || "$AWK" '{ s = $0; sub(/ [0-9]+$/, "", s); if (s != p) n++; p = s } END { print n + 0 }' "$in" >"$in.distinct"
	: >"$DIR/runs.txt"
	for _ in $(seq "$RUNS"); do
		run "$DIR/time.log" "$LF" render -o "$DIR/out-$n.svg" "$in" >>"$DIR/runs.txt"
	done
	secs=$(cut -d' ' -f1 "$DIR/runs.txt" | median)
	rss=$(cut -d' ' -f2 "$DIR/runs.txt" | median)
	size=$(wc -c <"$DIR/out-$n.svg")
	frames=$(grep -c '^<g data-o=' "$DIR/out-$n.svg" || true)
	printf '%9s %9s %7s | %8s %8s %8.2f %7s' "$n" "$(cat "$in.distinct")" "$(du -m "$in" | cut -f1)" \
		"$secs" "$rss" "$(awk -v b="$size" 'BEGIN { print b / 1048576 }')" "$frames"
	if [ -n "$FG" ]; then
		# flamegraph.pl writes to standard output: run() discards it, only time and memory count
		r=$(run "$DIR/fg-time.log" "$FG" "$in")
		fs=${r% *} fm=${r#* }
		printf ' | %8s %8s %7.1f %7.1f' "$fs" "$fm" "$(awk -v a="$fs" -v b="$secs" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
			"$(awk -v a="$fm" -v b="$rss" 'BEGIN { print (b > 0 ? a / b : 0) }')"
	fi
	echo
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
