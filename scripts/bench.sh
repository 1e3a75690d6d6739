#!/bin/sh
# `make bench`: runs every benchmark under scripts/ in turn (native unwinding, Lua stack walking,
# lua-flame's own process over time, renderer, heap snapshots, allocation profiles) and prints
# each one's table. The knobs of each script pass through the environment (see the head of
# each script); QUICK=1 shortens every run for a first look.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "bench: needs root (BPF run-time statistics)" >&2; exit 2; }
if [ "${QUICK:-0}" = 1 ]; then
	export RUNS=1 SECS=2 ROUNDS=1 CHURN_ROUNDS=1000 WRK_SECS=3 CPU_SECS=2 STEADY_SECS=10 LONG_SECS=30 EVERY=10
	RENDER_ARGS="10000 100000"
else
	RENDER_ARGS=""
fi
rc=0
for b in unwind lua steady render heap alloc; do
	echo "== scripts/bench-$b.sh"
	# shellcheck disable=SC2086
	"$ROOT/scripts/bench-$b.sh" $( [ "$b" = render ] && echo $RENDER_ARGS ) || { echo "bench: bench-$b.sh failed" >&2; rc=1; }
	echo
done
exit $rc
