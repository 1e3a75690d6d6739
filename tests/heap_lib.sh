# Checks shared by the heap snapshot tests (sourced after tests/lib.sh): sizes against the
# workload's own measurements, and tests/lua/heap_shapes.lua's structures under their paths.

# within A B PERMILLE: |A - B| <= B * PERMILLE / 1000
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 1000 <= b * p) }'; }
# measured NAME FILE: the bytes the workload measured for NAME
measured() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# snap NAME WORKLOAD CMD...: starts CMD WORKLOAD SIZES, waits for the workload's measurements
# (in $OUT/NAME.sizes), then snapshots it into $OUT/NAME.folded and .pb.gz, its status in .rc
snap() {
	n=$1 w=$2
	shift 2
	rm -f "$OUT/$n.sizes"
	cd "$ROOT" && bg_start "$@" "$w" "$OUT/$n.sizes"
	for _ in $(seq 100); do [ -f "$OUT/$n.sizes" ] && break; sleep 0.2; done
	"$LF" heap -p "$LAST_PID" -o "$OUT/$n.folded" -o "$OUT/$n.pb.gz" 2>"$OUT/$n.err"
	echo $? >"$OUT/$n.rc"
}

# shape_paths NAME FOLDED SIZES ROOT: heap_shapes.lua's four structures under their exact paths,
# and their bytes within 2% of what the workload measured in-process; ROOT is the first frame
shape_paths() {
	for s in "strings;\\[n\\];\\[string\\]" "getter;upvalue list;\\[table\\]" "co;local big;\\[string\\]" \
		"\\[registry\\];only_here;\\[table\\]" "\\[main thread\\];local make;\\[function\\]"; do
		expect_stack "$1: $s" "$2" "^$4;$s\$"
	done
	# short strings grow the VM's string table too, which stays under [vm]
	got=$(( $(count "$2" "^$4;strings;") + $(count "$2" "^$4;\\[vm\\];\\[string table\\]") ))
	want=$(measured strings "$3")
	check "$1: 100,000 strings: $got bytes under strings and the string table, measured $want" \
		within "$got" "${want:-0}" 20
	for p in "upvalue getter;" "coroutine co;" "registry \\[registry\\];only_here;"; do
		k=${p%% *} path=${p#* }
		got=$(count "$2" "^$4;$path") want=$(measured "$k" "$3")
		check "$1: $k: $got bytes under $path, measured $want" within "$got" "${want:-0}" 20
	done
}
