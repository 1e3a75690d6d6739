#!/bin/sh
# Renderer benchmark: generates a folded file of LINES lines (default 1,000,000) over
# STACKS distinct stacks (default 100,000), shaped like a busy nginx+Lua profile, and
# reports the time, peak memory and output size of `lua-flame render` with the
# default minimum width. Goal: about one second.
# usage: scripts/bench-render.sh [LINES [STACKS]]    (LF=path/to/lua-flame to choose the binary)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LF=${LF:-$ROOT/lua-flame}
LINES=${1:-1000000}
STACKS=${2:-100000}
DIR=${BENCH_DIR:-$ROOT/tests/out/bench-render}
mkdir -p "$DIR"
IN=$DIR/bench-$LINES-$STACKS.folded

[ -x "$LF" ] || { echo "bench-render: $LF is missing; run make first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-render: /usr/bin/time is missing; apt-get install time" >&2; exit 2; }

if [ ! -s "$IN" ]; then
	echo "generating $IN ..."
	# A synthetic call tree: each frame has a few likely callees (chosen from the hash
	# of its path), mixing C, Lua, JIT, kernel and VM frames; depth 6 to 40.
	awk -v lines="$LINES" -v stacks="$STACKS" 'BEGIN {
		srand(42)
		for (i = 0; i < 600; i++) {
			c[i] = sprintf("ngx_http_lua_fn_%d", i)
			l[i] = sprintf("handler_%d (app/mod_%d.lua:%d)", i, i % 37, 10 + i * 7)
		}
		for (s = 0; s < stacks; s++) {
			depth = 6 + int(rand() * rand() * 35); h = 1; st = "nginx"
			for (d = 0; d < depth; d++) {
				h = (h * 31 + 7 + int(rand() * (d < 4 ? 2 : 5))) % 600
				r = h % 10
				if (d < 4) f = c[h]
				else if (r < 5) f = l[h]
				else if (r < 7) f = l[h] "_[j]"
				else if (r < 9) f = c[h]
				else f = (d == depth - 1 ? "do_syscall_64_[k]" : "[GC]")
				st = st ";" f
			}
			stack[s] = st
		}
		for (i = 0; i < lines; i++) {
			s = int(stacks * rand() * rand())   # some stacks far hotter than others
			print stack[s], 1 + int(rand() * 100)
		}
	}' >"$IN.tmp" && mv "$IN.tmp" "$IN"
fi

distinct=$(cut -d' ' -f1 "$IN" | sort -u | wc -l) 2>/dev/null || distinct=?
echo "input: $(wc -l <"$IN") lines, $distinct distinct stacks, $(du -m "$IN" | cut -f1) MiB"
/usr/bin/time -v "$LF" render -o "$DIR/bench.svg" "$IN" 2>"$DIR/time.log" || { cat "$DIR/time.log"; exit 1; }
secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$DIR/time.log")
rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$DIR/time.log")
size=$(wc -c <"$DIR/bench.svg")
frames=$(grep -c '^<g data-o=' "$DIR/bench.svg" || true)
echo "render: ${secs}s wall, peak RSS ${rss} MiB, SVG $(awk -v b="$size" 'BEGIN { printf "%.2f", b / 1048576 }') MiB, $frames frames drawn"
