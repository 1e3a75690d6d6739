# lua-flame heap --every: a series of snapshots of tests/lua/heap_growth.lua (a table that
# grows by about 100 KB/s beside one that does not) under Debian's lua5.4 and luajit: numbered
# files in every format, totals that grow, and lua-flame diff between the first and the last
# in bytes, `growing` first and within 20% of what the workload measured itself; then the
# ends of a series: Ctrl-C and SIGTERM, a target that exits, and the usage errors.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/heap_lib.sh"

W=tests/lua/heap_growth.lua

# batch FOLDED: the workload's batches done when the snapshot was taken
batch() { sed -n 's/^[^;]*;progress;batch_\([0-9]*\);\[table\] [0-9]*$/\1/p' "$1"; }
# grown BATCH MEASURES: what `growing` had gained after that batch, as the workload measured it
grown() { awk -v b="$1" '$1 == b { print $2 }' "$2"; }

# workload NAME BINARY: starts it, waits for its first measure
workload() {
	rm -f "$OUT/$1.m"
	cd "$ROOT" && bg_start "$2" "$W" "$OUT/$1.m"
	for _ in $(seq 100); do [ -s "$OUT/$1.m" ] && grep -q '^2 ' "$OUT/$1.m" && break; sleep 0.1; done
}

# series NAME BINARY ROOT: five snapshots a second apart, checked, then diffed
series() {
	n=$1 r=$3 d=$OUT/$1
	mkdir -p "$d"
	workload "$n" "$2"
	t0=$(date +%s.%N)
	"$LF" heap -p "$LAST_PID" --every 1 -d 4 -o "$d/heap.svg" -o "$d/heap.folded" -o "$d/x.pb.gz" 2>"$d/err"
	rc=$? t1=$(date +%s.%N)
	check "$n: heap --every 1 -d 4 exits 0" [ $rc = 0 ]
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	check "$n: the series took 4 to 6 s ($secs)" awk -v s="$secs" 'BEGIN { exit !(s >= 4 && s < 6) }'
	files=$(cd "$d" && ls | grep -v '^err$' | tr '\n' ' ')
	want="heap-001.folded heap-001.svg heap-002.folded heap-002.svg heap-003.folded heap-003.svg heap-004.folded heap-004.svg heap-005.folded heap-005.svg x-001.pb.gz x-002.pb.gz x-003.pb.gz x-004.pb.gz x-005.pb.gz "
	check "$n: 5 snapshots in each of the 3 outputs, numbered before the extension ($files)" [ "$files" = "$want" ]
	check "$n: the series says it is done" grep -q 'series done: 5 snapshots' "$d/err"
	prev=0 grows=1 svgs=1
	for k in 1 2 3 4 5; do
		t=$(total "$d/heap-00$k.folded")
		[ "$t" -gt "$prev" ] || grows=0
		prev=$t
		grep -q '</svg>' "$d/heap-00$k.svg" || svgs=0
		vm=$(grep -c 'the VM counts' "$d/err")
	done
	check "$n: each snapshot's total is larger than the one before (last $prev bytes)" [ $grows = 1 ]
	check "$n: each SVG is whole" [ $svgs = 1 ]
	check "$n: each snapshot printed its VM's count ($vm)" [ "$vm" = 5 ]
	A=$d/heap-001.folded B=$d/heap-005.folded
	expect_stack "$n: growing's strings" "$B" "^$r;growing;\\[n\\];\\[string\\]\$"
	expect_stack "$n: flat's strings" "$B" "^$r;flat;\\[n\\];\\[string\\]\$"
	fa=$(count "$A" "^$r;flat;") fb=$(count "$B" "^$r;flat;")
	check "$n: flat is the same in the first and the last ($fa, $fb bytes)" [ "$fa" = "$fb" ]
	ba=$(batch "$A") bb=$(batch "$B")
	g=$(( $(count "$B" "^$r;growing;") - $(count "$A" "^$r;growing;") ))
	m=$(( $(grown "${bb:-0}" "$OUT/$n.m") - $(grown "${ba:-0}" "$OUT/$n.m") ))
	check "$n: growing grew $g bytes from batch $ba to $bb; the workload measured $m (within 20%)" \
		within "$g" "$m" 200

	"$LF" diff --top 5 "$d/x-001.pb.gz" "$d/x-005.pb.gz" >"$d/top" 2>"$d/top.err"
	check "$n: diff --top 5 of the first and last pprof exits 0" [ $? = 0 ]
	first=$(awk 'NR == 2 { print $NF }' "$d/top")
	check "$n: diff --top 5 ranks growing first ($first)" [ "$first" = growing ]
	"$LF" diff --raw --top 5 "$d/x-001.pb.gz" "$d/x-005.pb.gz" >"$d/raw" 2>"$d/raw.err"
	gr=$(awk '$NF == "growing" { print $6 }' "$d/raw")
	check "$n: diff --raw --top 5: growing's total grew $gr bytes, as the folded files say ($g)" \
		[ "${gr#+}" = "$g" ]
	check "$n: diff --raw --top 5: flat is not among them" sh -c "! awk '{ print \$NF }' '$d/raw' | grep -qx flat"
	"$LF" diff --raw -o "$d/diff.folded" -o "$d/diff.svg" "$d/x-001.pb.gz" "$d/x-005.pb.gz"
	most=$(awk '{ print $NF - $(NF - 1), $0 }' "$d/diff.folded" | sort -n | tail -1 | awk '{ print $2 }')
	check "$n: the stack that grew most is growing's strings ($most)" [ "$most" = "$r;growing;[n];[string]" ]
	sums=$(awk '{ a += $(NF - 1); b += $NF } END { print a, b }' "$d/diff.folded")
	check "$n: the pprof files read back as bytes: totals $sums" [ "$sums" = "$(total "$A") $(total "$B")" ]
	check "$n: two heap pprof files: the diff counts bytes" grep -q 'colours: change in bytes' "$d/diff.svg"
	"$LF" diff --countname bytes -o "$d/fdiff.svg" "$A" "$B"
	check "$n: folded files with --countname bytes: bytes" grep -q "$(total "$B") bytes; colours: change in share of all bytes" "$d/fdiff.svg"
	"$LF" diff --raw --countname bytes --top 5 "$A" "$B" >"$d/fraw"
	check "$n: diff --raw of the folded files counted in bytes: the same table" cmp -s "$d/raw" "$d/fraw"
	pkill -P "$LAST_PID"; kill "$LAST_PID"
}

series lua54 /usr/bin/lua5.4 lua5.4
series luajit /usr/bin/luajit luajit

# Ctrl-C and SIGTERM between snapshots: the series stops at once, every file it wrote whole
workload sig /usr/bin/lua5.4
for s in INT TERM; do
	d=$OUT/sig$s
	mkdir -p "$d"
	"$LF" heap -p "$LAST_PID" --every 1 -d 60 -o "$d/h.folded" 2>"$d/err" & lf=$!
	sleep 2.5
	t0=$(date +%s%N)
	kill -$s $lf
	wait $lf
	rc=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	check "SIG$s: exit 0" [ $rc = 0 ]
	check "SIG$s: stopped within 500 ms ($ms)" [ $ms -lt 500 ]
	check "SIG$s: snapshots 1 to 3 kept" sh -c "[ \"\$(ls '$d' | tr '\n' ' ')\" = 'err h-001.folded h-002.folded h-003.folded ' ]"
	check "SIG$s: the last is whole" grep -q "^lua5.4;flat;\\[n\\];\\[string\\] [0-9]*\$" "$d/h-003.folded"
	check "SIG$s: said so" grep -q 'stopped by signal .* after 3 snapshots' "$d/err"
done
pkill -P "$LAST_PID"; kill "$LAST_PID"

# the target exits during the series: it ends there, with what it has, exit 0
workload gone /usr/bin/lua5.4
gone=$LAST_PID
mkdir -p "$OUT/gone"
"$LF" heap -p "$gone" --every 1 -d 10 -o "$OUT/gone/h.folded" 2>"$OUT/gone/err" & lf=$!
sleep 1.5
pkill -P "$gone"; kill "$gone"
wait $lf
check "target exited after snapshot 2: exit 0" [ $? = 0 ]
check "target exited: snapshots 1 and 2 kept" sh -c "[ \"\$(ls '$OUT/gone' | tr '\n' ' ')\" = 'err h-001.folded h-002.folded ' ]"
check "target exited: said so" grep -q 'snapshot 3 failed (above): the series ends with the 2 snapshots before it' "$OUT/gone/err"
check "target exited: said why" grep -q "PID $gone: no such process" "$OUT/gone/err"
"$LF" heap -p "$gone" --every 1 -d 2 -o "$OUT/gone/none.folded" 2>"$OUT/gone/none.err"
check "no such PID at the first snapshot: exit 2" [ $? = 2 ]
check "no such PID at the first snapshot: no file" [ ! -e "$OUT/gone/none-001.folded" ]

# without --every, one snapshot under the name given; the errors of a series' options
workload one /usr/bin/lua5.4
"$LF" heap -q -p "$LAST_PID" -o "$OUT/one.folded"
check "without --every: one file, not numbered" sh -c "[ -s '$OUT/one.folded' ] && [ ! -e '$OUT/one-001.folded' ]"
"$LF" heap -p "$LAST_PID" -d 2 -o "$OUT/d.folded" 2>"$OUT/d.err"
check "-d without --every: exit 2" [ $? = 2 ]
check "-d without --every: says to give --every" grep -q -- '-d is the length of a series: give --every SECONDS' "$OUT/d.err"
"$LF" heap -p "$LAST_PID" --every 1 -o - 2>"$OUT/stdout.err" >/dev/null
check "--every with -o -: exit 2" [ $? = 2 ]
"$LF" heap -p "$LAST_PID" --every 0 -o "$OUT/z.folded" 2>"$OUT/zero.err"
check "--every 0: exit 2" [ $? = 2 ]
pkill -P "$LAST_PID"; kill "$LAST_PID"
finish
