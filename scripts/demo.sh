#!/bin/sh
# `make demo`: starts the bundled Lua workload, profiles it for a few seconds with
# lua-flame, stops the workload and says where the outputs are.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
LUA=$(command -v lua5.4 || command -v lua5.3 || command -v luajit || true)
[ -n "$LUA" ] || { echo "demo: no Lua interpreter found; run scripts/install-packages.sh --test" >&2; exit 1; }
"$LUA" tests/progs/demo.lua &
WL=$!
trap 'kill $WL 2>/dev/null || true' EXIT
sleep 0.5
./lua-flame -p "$WL" -d 5 -o perf.svg -o perf.folded
echo
echo "demo: profiled $LUA (PID $WL) for 5 s"
echo "demo: open $ROOT/perf.svg in a web browser (for example: xdg-open perf.svg, or copy it to a"
echo "      machine with one): hover for details, click to zoom, Ctrl-F to search"
echo "demo: $ROOT/perf.folded has the same stacks as text, one line per distinct stack"
# The innermost Lua frame of each stack (labels "NAME (CHUNK:LINE)") owns that stack's samples:
# the Lua function that was running, itself or through the C functions it called.
awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); total += n; k = split(s, f, ";"); lua = ""
	for (i = k; i > 0; i--) if (f[i] ~ / \([^()]*:[0-9]+\)$/) { lua = f[i]; break }
	if (lua != "") by[lua] += n }
	END { for (l in by) if (by[l] > best) { best = by[l]; top = l }
	if (total == 0) print "demo: no samples were taken"
	else if (top == "") printf "demo: no Lua frames in %d samples\n", total
	else printf "demo: the hottest Lua function is %s: %.0f%% of %d samples, in itself and the C functions it called\n", top, 100 * best / total, total }' perf.folded
