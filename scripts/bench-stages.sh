#!/bin/sh
# Where the BPF program's time per sample goes: builds lua-flame with its stages timed
# (bpf/stage_time.bpf.h; in build/stages, apart from the normal build), profiles each case at
# 999 Hz and prints every stage's time per sample and per pass (native steps pass once a
# frame), and the user reads per sample: on a machine where each costs 100 ns or more, their
# number is what to cut. A mark costs some 40 ns itself: compare stages and builds, and take
# the time per sample from scripts/bench-lua.sh. Needs root, gcc, bpftool, jq, lua5.4 and luajit.
# usage: scripts/bench-stages.sh [CASE...]   cases: native-N (C recursion N deep; nativefp-N
#        built with frame pointers), lua54-N,
#        joff-N, jit-N (N Lua frames); default native-32 native-120 lua54-20 joff-20 jit-20
# env: SECS (seconds measured per case, 5)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${SECS:-5}
[ $# -gt 0 ] || set -- native-32 native-120 lua54-20 joff-20 jit-20
for tool in gcc bpftool jq lua5.4 luajit; do
	command -v "$tool" >/dev/null || { echo "bench-stages: $tool not found" >&2; exit 1; }
done
W=$(mktemp -d /tmp/bench-stages.XXXXXX)
TP=""
trap '[ -z "$TP" ] || kill "$TP" 2>/dev/null; rm -rf "$W"' EXIT INT TERM

LF=$ROOT/build/stages/lua-flame
make -s -C "$ROOT" B=build/stages BIN=build/stages/lua-flame BPF_DEFS=-DLF_STAGES build/stages/lua-flame
P=$ROOT/tests/progs
gcc -O2 -fomit-frame-pointer -g0 -shared -fPIC -o "$W/libunwtest.so" "$P/unwind_lib.c"
gcc -O2 -fomit-frame-pointer -g0 -o "$W/unwind" "$P/unwind.c" -L"$W" -lunwtest -Wl,-rpath,"$W" -ldl -lpthread
mkdir -p "$W/fp"
gcc -O2 -fno-omit-frame-pointer -g0 -shared -fPIC -o "$W/fp/libunwtest.so" "$P/unwind_lib.c"
gcc -O2 -fno-omit-frame-pointer -g0 -o "$W/fp/unwind" "$P/unwind.c" -L"$W/fp" -lunwtest -Wl,-rpath,"$W/fp" -ldl -lpthread
REC=$ROOT/bench/rec.lua
# the stages' names in the order of their numbers
NAMES=$(sed -n '/^enum lf_stage {/,/^};/p' "$ROOT/bpf/stage_time.bpf.h" | grep -o 'LF_STAGE_[A-Z_]*' |
	sed 's/LF_STAGE_//' | tr 'A-Z_' 'a-z ' | tr ' ' '-' | tr '\n' ' ')

for c in "$@"; do
	n=${c#*-}
	case $c in
	native-*) "$W/unwind" deep "$n" >/dev/null 2>&1 & ;;
	nativefp-*) "$W/fp/unwind" deep "$n" >/dev/null 2>&1 & ;;
	lua54-*) lua5.4 "$REC" "$n" >/dev/null 2>&1 & ;;
	joff-*) luajit -joff "$REC" "$n" >/dev/null 2>&1 & ;;
	jit-*) luajit "$REC" "$n" >/dev/null 2>&1 & ;;
	*) echo "bench-stages: unknown case $c" >&2; exit 2 ;;
	esac
	TP=$!
	sleep 0.3
	"$LF" -p "$TP" -F 999 -d $((SECS + 2)) -o "$W/out.folded" 2>"$W/err" & lp=$!
	sleep "$((SECS + 1))"
	bpftool map dump name lf_stages -j >"$W/dump.json"
	wait "$lp" || { echo "bench-stages: $c: lua-flame failed: $(tail -2 "$W/err")" >&2; exit 1; }
	kill "$TP"; wait "$TP" 2>/dev/null || true; TP=""
	echo "== $c: ns per sample, passes per sample, ns per pass"
	jq -r '.[] | [.formatted.key, ([.formatted.values[].value.ns] | add), ([.formatted.values[].value.n] | add)] | @tsv' \
		"$W/dump.json" | sort -n | awk -v names="$NAMES" '
		BEGIN { split(names, nm, " ") }
		$1 == 1 { samples = $3 }
		{ ns[$1] = $2; n[$1] = $3; if ($1 > last) last = $1 }
		END {
			for (i = 1; i <= last; i++) {
				if (nm[i + 1] == "reads") { reads = n[i]; bytes = ns[i]; continue }
				if (!n[i] || nm[i + 1] == "clock") continue
				printf "  %-12s %8.0f %7.1f %8.0f\n", nm[i + 1], ns[i] / samples, n[i] / samples, ns[i] / n[i]
				t += ns[i] / samples
			}
			printf "  %-12s %8.0f   (%d samples)\n", "total", t, samples
			if (reads) printf "  user reads %6.1f per sample, %.0f bytes each\n", reads / samples, bytes / reads
		}'
done
