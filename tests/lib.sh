# Shared helpers for integration tests (sourced). Each test reports cases as
# "PASS: name" / "FAIL: name: why"; tests/run.sh counts them.
LF=${LF:-$(cd "$(dirname "$0")/../.." && pwd)/lua-flame}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/tests/out/$(basename "$0" .sh)}
# -I flags for every folder of cmd/ and for bpf/ and render/ (whose headers cmd/ shares), for
# tests that build part of cmd/ into their own programs; UTIL_SRC is cmd/util.c with what it
# links against, for those programs to name once
CMD_INC="$(find "$ROOT/cmd" -type d -printf '-I%p ') -I$ROOT/bpf -I$ROOT/render"
UTIL_SRC="$ROOT/cmd/util.c $ROOT/render/arena.c"
rm -rf "$OUT" && mkdir -p "$OUT"
FAILED=0
PIDS_TO_KILL=""

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; FAILED=$((FAILED + 1)); }
# check NAME CMD...: passes when CMD succeeds.
check() { _c=$1; shift; if "$@"; then pass "$_c"; else fail "$_c" "'$*' failed"; fi; }
bg_start() { "$@" & PIDS_TO_KILL="$PIDS_TO_KILL $!"; LAST_PID=$!; }
# Children first: a process a test started may have started others since (an nginx master's
# worker after a reload), which would outlive it; and the parent stopped before them, or a
# master starts a new worker for the one killed, which outlives it.
cleanup() {
	for p in $PIDS_TO_KILL; do kill -STOP "$p" 2>/dev/null; pkill -9 -P "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap cleanup EXIT
finish() { cleanup; [ "$FAILED" = 0 ]; exit $?; }

# count FILE REGEX: samples in folded FILE whose stack matches REGEX (an awk ERE).
# (REGEX goes through the environment: awk -v would eat its backslashes.)
count() {
	RE=$2 awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); if (s ~ ENVIRON["RE"]) m += n }
		END { print m + 0 }' "$1"
}
# share FILE REGEX: percent (integer) of samples in folded FILE whose stack matches REGEX.
share() {
	awk -v m="$(count "$1" "$2")" -v t="$(total "$1")" 'BEGIN { if (t == 0) print 0; else printf "%d\n", (100 * m / t) + 0.5 }'
}
# expect_stack NAME FILE REGEX: passes when at least one sample of FILE matches REGEX.
expect_stack() {
	_c=$(count "$2" "$3")
	if [ "$_c" -gt 0 ]; then pass "$1 ($_c samples)"; else fail "$1" "no stack matches $3"; fi
}
# total FILE: total samples in folded FILE.
total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }
# near A B TOL: |A-B| <= TOL
near() { d=$(($1 - $2)); [ ${d#-} -le "$3" ]; }
# share_tol N: three standard deviations of a 50% share over N samples, in whole points (rounded
# up), at least 3
share_tol() { awk -v t="$1" 'BEGIN { x = 3 * 50 / sqrt(t); printf "%d\n", x < 3 ? 3 : x + 0.999 }'; }
# split_5_3_2 NAME A B C [POINTS]: passes when samples A, B and C split 50/30/20 within POINTS
# points (default: share_tol of their sum; rounded)
split_5_3_2() {
	_t=$(($2 + $3 + $4))
	[ "$_t" -gt 0 ] || { fail "$1: 50/30/20 split" "no samples"; return; }
	_p=${5:-$(share_tol "$_t")}
	_a=$(((200 * $2 / _t + 1) / 2)) _b=$(((200 * $3 / _t + 1) / 2)) _d=$(((200 * $4 / _t + 1) / 2))
	check "$1: 50/30/20 split within $_p points ($_a/$_b/$_d of $_t)" \
		sh -c "[ $_a -ge $((50 - _p)) ] && [ $_a -le $((50 + _p)) ] && [ $_b -ge $((30 - _p)) ] && [ $_b -le $((30 + _p)) ] && [ $_d -ge $((20 - _p)) ] && [ $_d -le $((20 + _p)) ]"
}

# fuzz_target TARGET MIN_SEEDS NEEDS: builds scripts/fuzz.sh's TARGET (NEEDS: the packages it
# takes), runs every seed of tests/fuzz/corpus/TARGET-* once (at least MIN_SEEDS, all clean),
# then fuzzes 20 s from them; cases fuzz_TARGET_build, _seeds, _20s.
fuzz_target() {
	_t=$1 _min=$2 _needs=$3
	cd "$ROOT" || exit 1
	if FUZZ_BUILD_ONLY=1 scripts/fuzz.sh 0 "$_t" >"$OUT/build.log" 2>&1; then
		pass "fuzz_${_t}_build"
	else
		fail "fuzz_${_t}_build" "see $OUT/build.log (needs $_needs)"
		return
	fi
	_n=$(ls tests/fuzz/corpus/"$_t"-* 2>/dev/null | wc -l)
	if [ "$_n" -ge "$_min" ] && build/fuzz/fuzz_"$_t" tests/fuzz/corpus/"$_t"-* >"$OUT/seeds.log" 2>&1; then
		pass "fuzz_${_t}_seeds"
	else
		fail "fuzz_${_t}_seeds" "$_n seeds; see $OUT/seeds.log"
	fi
	if FUZZ_CORPUS_DIR="$OUT/corpus" scripts/fuzz.sh 20 "$_t" >"$OUT/fuzz.log" 2>&1; then
		pass "fuzz_${_t}_20s"
	else
		fail "fuzz_${_t}_20s" "crash or invariant failure; see $OUT/fuzz.log and build/fuzz/artifacts/"
	fi
}
