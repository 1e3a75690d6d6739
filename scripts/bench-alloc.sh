#!/bin/sh
# Allocation profile cost: bench/alloc_churn.lua (small tables and string building, a fixed
# amount of work) alone and under `lua-flame --mode alloc`, alternated, RUNS of each: the
# median CPU seconds the workload itself took (os.clock) and the cost over alone, beside its
# goal (5%), under each VM of VMS; then the share of the time the windows were open, and the
# share the probes were in the target's code (opened, open, then freed), which bounds the cost.
# Prints figures; a missed goal does not fail the run. Needs root (uprobes). Knobs: RUNS (5),
# CHURN_ROUNDS (workload size, 20000: about 15 s under lua5.4, as long as a short incident
# recording; the first window opens within a second, so a run of a few seconds pays for it
# alone), VMS ("lua5.4 luajit"), LF.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LF=${LF:-$ROOT/lua-flame}
RUNS=${RUNS:-5}
ROUNDS=${CHURN_ROUNDS:-20000}
VMS=${VMS:-lua5.4 luajit}
W=$(mktemp -d /tmp/bench-alloc.XXXXXX)
STARTED=""
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
. "$ROOT/scripts/bench-lib.sh"
[ -x "$LF" ] || { echo "bench-alloc: $LF not built; run make" >&2; exit 1; }
W0=$ROOT/bench/alloc_churn.lua

printf '%-8s %10s %12s %8s %6s %8s %s\n' vm alone_s profiled_s cost goal windows probes_in
for vm in $VMS; do
	command -v "$vm" >/dev/null || { echo "bench-alloc: $vm missing" >&2; continue; }
	: >"$W/alone" && : >"$W/prof"
	for _ in $(seq "$RUNS"); do
		"$vm" "$W0" "$ROUNDS" >>"$W/alone"
		"$LF" --mode alloc -q -o "$W/a.folded" -- "$vm" "$W0" "$ROUNDS" >>"$W/prof" 2>"$W/err"
	done
	a=$(median <"$W/alone") p=$(median <"$W/prof")
	share=$(sed -n 's/.*windows open \([0-9.]*%\).*/\1/p' "$W/err")
	held=$(sed -n 's/.*were in the code \([0-9.]*%\).*/\1/p' "$W/err")
	awk -v vm="$vm" -v a="$a" -v p="$p" -v s="${share:-?}" -v h="${held:-?}" \
		'BEGIN { printf "%-8s %10.3f %12.3f %7.1f%% %6s %8s %s\n", vm, a, p, 100 * (p - a) / a, "5%", s, h }'
done
