# Host side of the kernel tests: splits each kernel's console log (tests/out/kernels/SUITE.console,
# written by scripts/test-kernels.sh) into the runs tests/kernel/guest.sh printed and asserts for
# every kernel what the same runs give on the build machine: named Lua frames rooted in the native
# stack, the 60/40 split of split.lua, no unwinding markers, in -p and -- COMMAND mode, a dump,
# and a wall-clock profile of tests/lua/wall_split.lua.
# usage: sh tests/kernel/check.sh SUITE...
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CONSOLES=$ROOT/tests/out/kernels
OUT=$ROOT/tests/out/kernels-check
. "$ROOT/tests/lib.sh"

# split SUITE: one NAME.log and NAME.folded per run into $OUT/SUITE/.
split_console() {
	mkdir -p "$OUT/$1"
	tr -d '\r' <"$CONSOLES/$1.console" | awk -v d="$OUT/$1" '
		# the console may put terminal codes before a marker
		{ i = index($0, "=="); if (i > 1 && substr($0, i) ~ /^==(KERNEL|BEGIN|FOLDED|END|DONE)/) $0 = substr($0, i) }
		/^==BEGIN / { name = $2; sub(/^rc=/, "", $3); print $3 > (d "/" name ".rc"); f = d "/" name ".log"; next }
		/^==FOLDED / { f = d "/" $2 ".folded"; printf "" > f; next }
		/^==END / { f = ""; next }
		/^==KERNEL / { print $2 > (d "/kernel") }
		/^==DONE/ { print "done" > (d "/done") }
		f != "" { print > f }'
}

. "$(dirname "$0")/split_checks.sh" # check_split, pct

check_profile() { # SUITE RUN: the checks of one profile
	s=$1 r=$2 k=$(cat "$OUT/$1/kernel" 2>/dev/null)
	check_split "$s ($k) $r" "$OUT/$s/$r.folded" "$OUT/$s/$r.rc"
}

check_wall() { # SUITE: the wall-clock profile of wall_split.lua (99 Hz, 4 s, one thread)
	s=$1 f=$OUT/$1/lua5.4-wall.folded k=$(cat "$OUT/$1/kernel" 2>/dev/null)
	t="$s ($k) lua5.4-wall"
	check "$t: lua-flame exited 0" [ "$(cat "$OUT/$s/lua5.4-wall.rc" 2>/dev/null)" = 0 ]
	n=$(total "$f" 2>/dev/null || echo 0)
	check "$t: every moment counted: 396 samples within 10% ($n)" sh -c "[ $n -ge 356 ] && [ $n -le 436 ]"
	# the emulated CPU makes os.execute's spawn slow: the split is looser than on the host
	w=$(pct "$(count "$f" ';wait_sixty \(/wall_split\.lua:8\)(;[^;]*)*;\[off-CPU: [^]]+\]')" "$n")
	b=$(pct "$(count "$f" ';burn_forty \(/wall_split\.lua:3\)')" "$n")
	check "$t: waiting in wait_sixty, off the CPU, in >= 40% ($w%)" [ "$w" -ge 40 ]
	check "$t: computing in burn_forty in >= 20% ($b%)" [ "$b" -ge 20 ]
	check "$t: the wait for the child is named" grep -q '\[off-CPU: do_wait\]' "$f"
}

for s in "$@"; do
	[ -s "$CONSOLES/$s.console" ] || { fail "$s" "no console log (the guest did not boot?)"; continue; }
	split_console "$s"
	check "$s: the guest ran every test (console ends with ==DONE)" [ -e "$OUT/$s/done" ]
	for lua in lua5.4 lua5.1 luajit; do
		for mode in p cmd; do
			check_profile "$s" "$lua-$mode"
		done
	done
	check_wall "$s"
	check "$s: dump names the running Lua function" grep -Eq '(sixty|forty|spin) \(/split\.lua' "$OUT/$s/lua5.4-dump.log"
	grep -h -E 'error|fail|refused|warning' "$OUT/$s"/*.log 2>/dev/null | sort | uniq -c | head -5 | sed "s/^/  $s: /"
done
finish
