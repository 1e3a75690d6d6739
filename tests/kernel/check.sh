# Host side of the kernel tests: splits each kernel's console log (tests/out/kernels/SUITE.console,
# written by scripts/test-kernels.sh) into the runs tests/kernel/guest.sh printed and asserts for
# every kernel what the same runs give on the build machine: named Lua frames rooted in the native
# stack, the 60/40 split of split.lua, no unwinding markers, in -p and -- COMMAND mode, a dump,
# a recursion 300 deep (tests/lua/deep.lua) whose outermost and innermost frames are kept, and
# a wall-clock profile of tests/lua/wall_split.lua; it prints the verifier's figures of each kernel.
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

. "$(dirname "$0")/split_checks.sh" # check_split, check_wall, pct
DS=/deep\.lua
. "$ROOT/tests/deep_checks.sh"       # check_deep, check_deep_cut

check_deep_run() { # SUITE RUN: recursion 300 deep, as the kernel allows it walked
	s=$1 r=$2 k=$(cat "$OUT/$1/kernel" 2>/dev/null)
	check "$s ($k) $r: lua-flame exited 0" [ "$(cat "$OUT/$s/$r.rc" 2>/dev/null)" = 0 ]
	if grep -q 'bpf_loop yes' "$OUT/$s/$r.log"; then
		check_deep "$s ($k) $r" "$OUT/$s/$r.folded" "$OUT/$s/$r.log" 300
	else
		check_deep_cut "$s ($k) $r (no bpf_loop)" "$OUT/$s/$r.folded"
	fi
}

check_profile() { # SUITE RUN: the checks of one profile
	s=$1 r=$2 k=$(cat "$OUT/$1/kernel" 2>/dev/null)
	check_split "$s ($k) $r" "$OUT/$s/$r.folded" "$OUT/$s/$r.rc"
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
	for lua in lua5.4 luajit; do check_deep_run "$s" "$lua-deep"; done
	check_wall "$s ($(cat "$OUT/$s/kernel" 2>/dev/null)) lua5.4-wall" "$OUT/$s/lua5.4-wall.folded" "$OUT/$s/lua5.4-wall.rc" 396
	check "$s: dump names the running Lua function" grep -Eq '(sixty|forty|spin) \(/split\.lua' "$OUT/$s/lua5.4-dump.log"
	check "$s: the verifier's figures name the sampling program" grep -q '^cpu  *on_sample ' "$OUT/$s/verifier.log"
	sed "s/^/  $s: /" "$OUT/$s/verifier.log" 2>/dev/null
	grep -h -E 'error|fail|refused|warning' "$OUT/$s"/*.log 2>/dev/null | sort | uniq -c | head -5 | sed "s/^/  $s: /"
done
finish
