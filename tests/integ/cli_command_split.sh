# A C host that runs a two-phase script, profiled from its start with -- COMMAND: the split of
# the phases' samples matches the split the script measures in its own CPU time (within 2
# points), on PUC Lua's shared library and on LuaJIT's.
. "$(dirname "$0")/../lib.sh"

build() { # build NAME CFLAGS LIB
	gcc -O2 -s -o "$OUT/$1" $2 -DDECOY='"none"' "$ROOT/tests/progs/embed_host.c" -l"$3" 2>"$OUT/$1.build" ||
		fail "$1: build" "$(head -3 "$OUT/$1.build")"
}
build host54 -I/usr/include/lua5.4 lua5.4
build hostjit -I/usr/include/luajit-2.1 luajit-5.1

for h in host54 hostjit; do
	[ -x "$OUT/$h" ] || continue
	f="$OUT/$h.folded"
	A=1.4 B=0.7 "$LF" -F 499 -o "$f" -- "$OUT/$h" "$ROOT/tests/lua/two_phase.lua" 2>"$OUT/$h.err"
	set -- $(sed -n 's/^in-process: //p' "$OUT/$h.err")
	# (the phase runs as run's f, in the interpreter or in a trace: f (two_phase.lua:3)_[j])
	a=$(count "$f" ';f \([^;]*two_phase\.lua:3\)(_\[j\])?(;|$)')
	b=$(count "$f" ';f \([^;]*two_phase\.lua:4\)(_\[j\])?(;|$)')
	t=$((a + b))
	check "$h: the phases have samples ($t of $(total "$f"))" [ "$t" -ge 500 ]
	[ "$t" -gt 0 ] || continue
	pa=$((1000 * a / t))
	check "$h: phase A's share $pa per mille, in-process ${1:-?}, within 20" near "$pa" "${1:-0}" 20
done
finish
