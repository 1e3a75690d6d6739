# Stacks are counted by the labels their frames get: a leaf or a return address in a label run
# (rows of one FDE with no symbol bound inside) is hashed as the run's start, so a hot loop
# makes one kernel map entry, not one per instruction, and the profile is the same. Two
# recordings of one process at the same time, one keeping every pc apart
# (LUA_FLAME_EXACT_PCS=1, as before runs), must give the same stacks, and the default one
# fewer map entries.
. "$(dirname "$0")/../lib.sh"

P=$ROOT/tests/progs
CF="-O2 -fomit-frame-pointer -g0"
gcc $CF -shared -fPIC -o "$OUT/libunwtest.so" "$P/unwind_lib.c" &&
gcc $CF -o "$OUT/unwind" "$P/unwind.c" -L"$OUT" -lunwtest -Wl,-rpath,"$OUT" -ldl -lpthread &&
cp "$OUT/unwind" "$OUT/unwind-stripped" && strip "$OUT/unwind-stripped" ||
	{ fail build "gcc failed"; finish; }

# entries ERR: "map entries made" of a --stats run.
entries() { sed -n 's/.*map entries made \([0-9]*\).*/\1/p' "$1"; }
# user FILE: FILE's stacks without their kernel frames, merged. Each recording's interrupts are
# work the other may sample: with LuaJIT's demo, which makes new stacks all the time (each
# announced to user space, which wakes it), 28% of one recording's samples once fell in the
# other's irq_work, and none in a recording made alone.
user() { sed -E 's/(;[^;]*_\[k\])+ ([0-9]+)$/ \2/' "$1" | awk '{ n = $NF; sub(/ [0-9]+$/, ""); c[$0] += n } END { for (s in c) print s, c[s] }'; }
# missing A B: stacks with at least 1% of A's samples that B lacks (printed), as a count. The
# two recordings tick at their own phases of a workload that repeats itself, so a rarer stack
# may well be seen by one only (13 samples of 4,000 against none happened).
missing() {
	user "$2" >"$2.user"
	user "$1" | awk -v min="$(($(total "$1") / 100))" 'NR == FNR { sub(/ [0-9]+$/, ""); seen[$0] = 1; next }
		{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); if (n >= min && !(s in seen)) { print s > "/dev/stderr"; m++ } }
		END { print m + 0 }' "$2.user" -
}

# same NAME K CMD...: CMD profiled 4 s by both recordings at once; the default one must make
# at most 1/K of the other's map entries.
same() {
	name=$1 k=$2; shift 2
	cd "$ROOT" && bg_start "$@"
	sleep 0.5
	LUA_FLAME_EXACT_PCS=1 "$LF" -p "$LAST_PID" -d 4 -F 997 --stats -o "$OUT/$name.exact.folded" \
		2>"$OUT/$name.exact.err" &
	rec=$!
	"$LF" -p "$LAST_PID" -d 4 -F 997 --stats -o "$OUT/$name.folded" 2>"$OUT/$name.err"
	wait "$rec"
	kill "$LAST_PID"
	e=$(entries "$OUT/$name.err") x=$(entries "$OUT/$name.exact.err")
	# (but for 3 entries: stacks that end in the other recording's interrupts, above)
	check "$name: map entries by label run ($e) at most 1/$k of by pc ($x), + 3" \
		awk -v e="${e:-x}" -v x="${x:-x}" -v k="$k" 'BEGIN { exit !(e ~ /^[0-9]+$/ && x ~ /^[0-9]+$/ && k * (e - 3) <= x) }'
	a=$(missing "$OUT/$name.folded" "$OUT/$name.exact.folded" 2>"$OUT/$name.only_rows")
	b=$(missing "$OUT/$name.exact.folded" "$OUT/$name.folded" 2>"$OUT/$name.only_exact")
	check "$name: every stack of 1% of the samples or more in both profiles ($a, $b missing)" \
		sh -c "[ $a = 0 ] && [ $b = 0 ] && [ $(total "$OUT/$name.folded") -ge 2000 ]"
}

# A tight C loop has few pcs; lua5.4's interpreter loop and LuaJIT's (with -joff) many (the
# demo made 2.2-2.5 times fewer entries, the -joff loop 25 times).
# LuaJIT's demo makes a closure per gmatch call, and each is a Lua frame of its own.
same native 1 "$OUT/unwind" deep 8
same native_stripped 1 "$OUT/unwind-stripped" deep 8
same lua54 1.5 lua5.4 tests/progs/demo.lua
same luajit_interp 3 luajit -joff bench/rec.lua 5
same luajit 1 luajit tests/progs/demo.lua
finish
