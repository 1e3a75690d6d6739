# Deep Lua stacks keep their root side, on Debian's lua5.4, lua5.1 and luajit (JIT on and
# off): recursion 300 and 3000 deep (tests/lua/deep.lua) under a main chunk that spends the
# other half of the time itself. The main chunk must stay on every stack, under the same
# native host frames as when the stack is shallow; the recursion keeps its half; the
# innermost and outermost frames are kept with one marker giving the exact count between.
. "$(dirname "$0")/../lib.sh"

S=tests/lua/deep.lua DS=tests/lua/deep\.lua
. "$ROOT/tests/deep_checks.sh" # check_deep, check_deep_cut, root_prefix, starts, D, NOLOOP

# run NAME DEPTH CMD...: profiles deep.lua DEPTH run by CMD.
run() {
	name=$1 depth=$2; shift 2
	cd "$ROOT" && bg_start "$@" "$S" "$depth"
	sleep 0.4
	"$LF" -p "$LAST_PID" -d 6 -F 997 --stats -o "$OUT/$name.folded" 2>"$OUT/$name.err"
	kill "$LAST_PID"
	check_deep "$name" "$OUT/$name.folded" "$OUT/$name.err" "$depth"
}

# Kernels without bpf_loop (before 5.17), as LUA_FLAME_NO_BPF_LOOP makes this one behave: the
# Lua walk keeps the innermost LF_LUA_NOLOOP frames and goes no further; --stats says so.
# no_loop NAME DEPTH: profiles lua5.4 deep.lua DEPTH that way.
no_loop() {
	cd "$ROOT" && bg_start lua5.4 "$S" "$2"
	sleep 0.4
	F=$OUT/$1.folded
	LUA_FLAME_NO_BPF_LOOP=1 "$LF" -p "$LAST_PID" -d 3 -F 499 --stats -o "$F" 2>"$OUT/$1.err"
	kill "$LAST_PID"
	ns=$(sed -n 's/.*stats: samples \([0-9]*\),.*/\1/p' "$OUT/$1.err")
	nw=$(sed -n "s/.*Lua stacks cut at $NOLOOP frames (kernel without bpf_loop) \\([0-9]*\\).*/\\1/p" "$OUT/$1.err")
	check "$1: each of the ${ns:-0} samples counted as walked without bpf_loop (${nw:-none})" \
		sh -c "[ -n '$ns' ] && [ '$ns' -gt 100 ] && [ '$ns' = '$nw' ]"
}
# 11 frames of rec: all the 14 Lua frames fit.
no_loop no-loop-10 10
pre=$(root_prefix "$F")
rooted=$(starts "$F" "${pre}main chunk ($S:0)")
check "no-loop-10: main chunk under $pre in $rooted% of samples (>= 97%)" [ "$rooted" -ge 97 ]
expect_stack "no-loop-10: every frame of the recursion" "$F" ";lua_pcallk;$(D 'main chunk' 0);($(D rec 12);){11}$(D work 6)\$"
# 3001 frames of rec: the innermost frames under the innermost lua_pcallk, and the marker.
no_loop no-loop-3000 3000
check_deep_cut no-loop-3000 "$F"

for DEPTH in 300 3000; do
	run "lua5.4-$DEPTH" "$DEPTH" lua5.4
	run "lua5.1-$DEPTH" "$DEPTH" lua5.1
	run "luajit-$DEPTH" "$DEPTH" luajit
	run "luajit-joff-$DEPTH" "$DEPTH" luajit -joff
done
finish
