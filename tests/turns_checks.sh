# The checks of a profile of tests/lua/co_turns.lua (two coroutines resumed in turn from one
# call site, 60/40), shared by tests/integ/lua_puc.sh and tests/integ/luajit_stacks.sh.
# Sourced after tests/lib.sh.

TURNS=tests/lua/co_turns.lua

# check_turns NAME FOLDED ERR RESUME TAIL: each coroutine's frames alone under its own resumer
# (RESUME: the regex of the frames from the Lua function resume() to the coroutine's body,
# whose work() frame ends the stack but for TAIL), the two not swapped, and the walk's outer
# frames replayed in most samples (ERR: lua-flame's --stats).
check_turns() {
	name=$1 F=$2 E=$3 R=$4 tail=$5
	a=$(count "$F" ";turn_a \\($TURNS:17\\);$R;work \\($TURNS:4\\)$tail\$")
	b=$(count "$F" ";turn_b \\($TURNS:18\\);$R;work \\($TURNS:5\\)$tail\$")
	t=$((a + b)) pa=0 all=$(total "$F")
	[ "$t" = 0 ] || pa=$((100 * a / t))
	check "$name: each coroutine's frames alone under its own resumer in >= 95% ($t of $all)" \
		[ $((100 * t)) -ge $((95 * all)) ]
	check "$name: 60/40 split within 10 points, the two not swapped ($pa of $t)" \
		sh -c "[ $t -ge 500 ] && [ $pa -ge 50 ] && [ $pa -le 70 ]"
	r=$(sed -n 's/.*outer frames replayed \([0-9]*\).*/\1/p' "$E")
	n=$(sed -n 's/.*stats: samples \([0-9]*\).*/\1/p' "$E")
	check "$name: the outer frames of 80% of the samples or more replayed (${r:-0} of ${n:-0})" \
		[ "${r:-0}" -ge $((${n:-1} * 8 / 10)) ]
}
