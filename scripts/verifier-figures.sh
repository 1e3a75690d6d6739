#!/bin/sh
# The BPF verifier's work for each program lua-flame loads on the running kernel, in CPU, wall and
# alloc mode: instructions processed, states kept (total and peak) and verification time.
# A change to bpf/ quotes these before and after; make test-kernels prints them for each kernel.
# usage: scripts/verifier-figures.sh [LUA_FLAME [LUA]]   (default ./lua-flame, lua5.4)
LF=${1:-./lua-flame}
LUA=${2:-lua5.4}
OUT=${TMPDIR:-/tmp}/verifier-figures.$$
mkdir -p "$OUT"
trap 'rm -rf "$OUT"' EXIT
LOOP='local t = {} for i = 1, 4e6 do t[i % 64] = { i } end'
printf '%-6s %-14s %9s %8s %8s %10s\n' mode program insns states peak time_us
for mode in cpu wall alloc; do
	LUA_FLAME_DEBUG=verifier "$LF" --mode "$mode" -q -d 1 -o "$OUT/$mode.folded" -- "$LUA" -e "$LOOP" \
		>"$OUT/$mode.log" 2>&1
	rc=$?
	awk -v mode="$mode" -v rc="$rc" '
		/BEGIN PROG LOAD LOG/ { p = $3; gsub(/[^A-Za-z0-9_]/, "", p) }
		/^verification time/ { t = $3 }
		/^processed [0-9]+ insns/ {
			for (i = 1; i <= NF; i++) { if ($i == "total_states") st = $(i + 1); if ($i == "peak_states") pk = $(i + 1) }
			printf "%-6s %-14s %9s %8s %8s %10s\n", mode, p, $2, st, pk, t; n++
		}
		END { if (!n) printf "%-6s (no program loaded: lua-flame exited %s)\n", mode, rc }' "$OUT/$mode.log"
done
