#!/bin/sh
# Renderer benchmark: folded files shaped like real ones (scripts/gen-folded.awk: sorted,
# one line per distinct stack, 10 to 60 frames of Lua, C, shared-library, JIT, kernel and
# VM frames under a few nginx entry paths, counts mostly 1 to 5 with a long tail) of 10k,
# 100k and 1M lines, each drawn by `lua-flame render` with the default minimum width,
# sorted and shuffled (the same lines, `shuf` with a fixed random source: other tools and
# concatenated files are not sorted): median wall time and peak RSS over RUNS runs, SVG
# size, frames drawn; and beside it flamegraph.pl on the same file when one is installed.
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
GEN=$ROOT/scripts/gen-folded.awk

# gen LINES FILE: scripts/gen-folded.awk's profile (fixed seed), sorted as lua-flame and
# stackcollapse-perf.pl write folded files, the few stacks made twice merged into one line
gen() {
	"$AWK" -v lines="$1" -v seed=42 -f "$GEN" | LC_ALL=C sort | "$AWK" '
		{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s) }
		NR > 1 && s == p { n += c; next }
		NR > 1 { print p, n }
		{ p = s; n = c }
		END { if (NR) print p, n }' >"$2.tmp"
	mv "$2.tmp" "$2"
}

# run LOG CMD...: runs CMD under /usr/bin/time; prints "seconds peak-MiB"
run() {
	log=$1; shift
	/usr/bin/time -v "$@" 2>"$log" >/dev/null || { cat "$log" >&2; return 1; }
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		/Maximum resident set size/ { m = $2 / 1024 } END { printf "%.2f %.1f\n", s, m }' "$log"
}

# shuffled SORTED OUT: the same lines in an order that is the same on every run
shuffled() {
	[ -s "$DIR/shuf-seed" ] || "$AWK" 'BEGIN { srand(42); for (i = 0; i < 16777216; i++) printf "%c", 1 + int(rand() * 255) }' >"$DIR/shuf-seed"
	shuf --random-source="$DIR/shuf-seed" "$1" >"$2.tmp"
	mv "$2.tmp" "$2"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; medians of $RUNS runs"
[ -n "$FG" ] || echo "flamegraph.pl: not installed (Debian 12 has no package for it); FLAMEGRAPH=path/to/flamegraph.pl to compare"
printf '%9s %9s %8s %7s | %8s %8s %8s %7s' lines distinct order "in MiB" "render s" "peak MiB" "SVG MiB" frames
[ -z "$FG" ] || printf ' | %8s %8s %7s %7s' "fg.pl s" "peak MiB" "x time" "x mem"
echo
main() {
for n in "$@"; do
	in=$DIR/profile-$n.folded
	# made again when the generator changed since
	[ -s "$in" ] && [ "$in" -nt "$GEN" ] || { gen "$n" "$in"; rm -f "$in.distinct"; }
	[ -s "$in.distinct" ] || "$AWK" '{ s = $0; sub(/ [0-9]+$/, "", s); if (s != p) n++; p = s } END { print n + 0 }' "$in" >"$in.distinct"
	mixed=$DIR/profile-$n.shuffled.folded
	[ -s "$mixed" ] && [ "$mixed" -nt "$in" ] || shuffled "$in" "$mixed"
	measure "$n" "$in" sorted
	measure "$n" "$mixed" shuffled
	# the same lines make the same picture, whatever their order
	cmp -s "$DIR/out-$n-sorted.svg" "$DIR/out-$n-shuffled.svg" ||
		echo "bench-render: the SVGs of $n lines sorted and shuffled differ" >&2
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# measure LINES FILE ORDER: one row; the SVG goes to out-LINES-ORDER.svg
measure() {
	file=$2 svg=$DIR/out-$1-$3.svg
	: >"$DIR/runs.txt"
	for _ in $(seq "$RUNS"); do
		run "$DIR/time.log" "$LF" render -o "$svg" "$file" >>"$DIR/runs.txt"
	done
	secs=$(cut -d' ' -f1 "$DIR/runs.txt" | median)
	rss=$(cut -d' ' -f2 "$DIR/runs.txt" | median)
	size=$(wc -c <"$svg")
	frames=$(grep -c '^<g data-o=' "$svg" || true)
	printf '%9s %9s %8s %7s | %8s %8s %8.2f %7s' "$(wc -l <"$file")" "$(cat "$DIR/profile-$1.folded.distinct")" "$3" \
		"$(du -m "$file" | cut -f1)" \
		"$secs" "$rss" "$(awk -v b="$size" 'BEGIN { print b / 1048576 }')" "$frames"
	if [ -n "$FG" ]; then
		# flamegraph.pl writes to standard output: run() discards it, only time and memory count
		r=$(run "$DIR/fg-time.log" "$FG" "$file")
		fs=${r% *} fm=${r#* }
		printf ' | %8s %8s %7.1f %7.1f' "$fs" "$fm" "$(awk -v a="$fs" -v b="$secs" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
			"$(awk -v a="$fm" -v b="$rss" 'BEGIN { print (b > 0 ? a / b : 0) }')"
	fi
	echo
}

main "$@"
