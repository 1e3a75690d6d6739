# Agreement with an outside reference: perf's own DWARF unwinder (perf record --call-graph
# dwarf) and lua-flame profile the same frame-pointer-less program at the same time; the
# hottest stack and every lua-flame stack below `main` must be stacks perf saw too.
. "$(dirname "$0")/../lib.sh"

command -v perf >/dev/null || { fail perf "perf not installed (apt-get install linux-perf)"; finish; }
P=$ROOT/tests/progs
CF="-O2 -fomit-frame-pointer -g0"
gcc $CF -shared -fPIC -o "$OUT/libunwtest.so" "$P/unwind_lib.c" &&
gcc $CF -o "$OUT/unwind" "$P/unwind.c" -L"$OUT" -lunwtest -Wl,-rpath,"$OUT" -ldl -lpthread ||
	{ fail build "gcc failed"; finish; }

# perf may refuse to sample another process under kernel.perf_event_paranoid: then lower
# it for the duration of the test.
OLD_PARANOID=$(sysctl -n kernel.perf_event_paranoid)
restore() { sysctl -q -w kernel.perf_event_paranoid="$OLD_PARANOID" >/dev/null 2>&1; }
trap 'restore; cleanup' EXIT
bg_start sleep 5
if ! perf record -e cpu-clock -p "$LAST_PID" -o "$OUT/probe.data" -- sleep 0.1 >"$OUT/probe.err" 2>&1; then
	if grep -qi 'paranoid\|permi\|access' "$OUT/probe.err"; then
		sysctl -q -w kernel.perf_event_paranoid=-1
	else
		fail "perf record" "$(head -3 "$OUT/probe.err")"; finish
	fi
fi

# perf_fold DATA: perf's samples as folded stacks (process name, then frames root first),
# kernel frames left out (lua-flame's are, too, before comparing).
perf_fold() {
	perf script -i "$1" -F comm,ip,sym,dso --no-inline 2>/dev/null | awk '
		/^[^ \t]/ { comm = $1; n = 0; next }
		/^[ \t]*$/ { if (comm != "") emit(); comm = ""; next }
		{ dso = $NF; if (dso ~ /kernel\.kallsyms|vmlinux/) next
		  sym = $2; for (i = 3; i < NF; i++) sym = sym " " $i
		  f[++n] = sym }
		function emit(  s, i) { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ }
		END { if (comm != "") emit(); for (s in c) print s, c[s] }'
}

# from_main FOLDED: stacks cut to the frames from `main` down, counts merged, kernel frames
# (`_[k]`) removed; stacks without main are left out. Versioned names (`x@@GLIBC_2.34`)
# are reduced to the name; PLT stubs (`x@plt`) keep theirs.
from_main() {
	awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); out = ""; on = 0
		for (i = 2; i <= k; i++) {
			if (f[i] == "main") on = 1
			if (!on || f[i] ~ /_\[k\]$/) continue
			if (f[i] !~ /@plt$/) sub(/@.*/, "", f[i]); out = out == "" ? f[i] : out ";" f[i]
		}
		if (on) c[out] += n }
		END { for (s in c) print s, c[s] }' "$1"
}

hottest() { sort -t' ' -k2 -nr "$1" | head -1 | sed 's/ [0-9]*$//'; }

# compare NAME MODE...: records the test program in MODE with perf and lua-flame together.
compare() {
	name=$1; shift
	bg_start "$OUT/unwind" "$@"
	tp=$LAST_PID
	sleep 0.3
	perf record -e cpu-clock --call-graph dwarf -F 499 -p "$tp" -o "$OUT/$name.data" -- sleep 3 \
		>"$OUT/$name.perf.err" 2>&1 &
	pp=$!
	"$LF" -p "$tp" -d 3 --stats -o "$OUT/$name.folded" 2>"$OUT/$name.err"
	wait "$pp"
	kill "$tp" 2>/dev/null
	perf_fold "$OUT/$name.data" >"$OUT/$name.perf.folded"
	from_main "$OUT/$name.perf.folded" >"$OUT/$name.perf.main"
	from_main "$OUT/$name.folded" >"$OUT/$name.lf.main"

	np=$(total "$OUT/$name.perf.main"); nl=$(total "$OUT/$name.lf.main")
	if [ "$np" -lt 100 ] || [ "$nl" -lt 100 ]; then
		fail "$name: enough samples" "perf $np, lua-flame $nl with main (< 100; see $OUT/$name.perf.err)"
		return
	fi
	hp=$(hottest "$OUT/$name.perf.main"); hl=$(hottest "$OUT/$name.lf.main")
	if [ "$hp" = "$hl" ]; then pass "$name: hottest stack agrees with perf ($hl)"
	else fail "$name: hottest stack" "lua-flame '$hl', perf '$hp'"; fi
	case $hl in *"$EXPECT_LEAF") pass "$name: hottest stack ends in $EXPECT_LEAF" ;;
		*) fail "$name: hottest stack" "'$hl' does not end in $EXPECT_LEAF" ;; esac

	# Every lua-flame stack must be a perf stack, or the start of one (a leaf perf's fewer
	# samples happened to miss); a wrong or missing frame matches neither.
	bad=$(awk 'NR == FNR { s = $0; sub(/ [0-9]+$/, "", s); p[s] = 1
			k = split(s, f, ";"); t = f[1]; pre[t] = 1
			for (i = 2; i <= k; i++) { t = t ";" f[i]; pre[t] = 1 }; next }
		{ s = $0; sub(/ [0-9]+$/, "", s); if (!(s in p) && !(s in pre)) print s " (" $NF " samples)" }' \
		"$OUT/$name.perf.main" "$OUT/$name.lf.main")
	if [ -z "$bad" ]; then pass "$name: all $nl lua-flame samples below main match perf stacks"
	else fail "$name: stacks perf never saw" "$(echo "$bad" | head -3 | cut -c1-300)"; fi
}

EXPECT_LEAF="plt_main;lib_work;lib_leaf"
compare plt plt
EXPECT_LEAF="deep_main;$(printf 'recurse;%.0s' $(seq 21))spin"
compare deep deep 20
finish
