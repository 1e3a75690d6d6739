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
echo "demo: $ROOT/perf.svg     (open it in a browser: click to zoom, Ctrl-F to search)"
echo "demo: $ROOT/perf.folded  (folded stacks: one line per stack, 'frames count')"
echo "demo: hottest stacks:"
sort -t' ' -k2 -nr perf.folded | head -5 | cut -c1-200
