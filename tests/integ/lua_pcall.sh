# Callbacks of built-ins under pcall: table.sort's comparator and string.gsub's function,
# in a handler run through pcall, keep the built-in's native frames between the built-in
# and the callback (pcall is a LuaJIT fast function without a native frame of its own).
# PUC Lua 5.4 and 5.1, LuaJIT with the JIT off and on.
. "$(dirname "$0")/../lib.sh"
W=$ROOT/tests/lua/pcall_sort.lua

run() { # NAME COMMAND...
	name=$1; shift
	bg_start "$@" "$W"
	sleep 0.5
	"$LF" -q -p "$LAST_PID" -d 3 -F 499 -o "$OUT/$name.folded" >"$OUT/$name.log" 2>&1
	check "$name: exit status 0" [ $? = 0 ]
	kill "$LAST_PID" 2>/dev/null
	F=$OUT/$name.folded
	# A native frame's label has no parenthesis; a Lua frame's has one.
	cmp=$(count "$F" '\? \([^;]*pcall_sort\.lua:1\)')
	cmp_ok=$(count "$F" 'round \([^;]*pcall_sort\.lua:3\);(table\.)?sort;([^;(]*;)+\? \([^;]*pcall_sort\.lua:1\)')
	rep=$(count "$F" '\? \([^;]*pcall_sort\.lua:2\)')
	rep_ok=$(count "$F" 'round \([^;]*pcall_sort\.lua:3\);(string\.)?gsub;([^;(]*;)+\? \([^;]*pcall_sort\.lua:2\)')
	check "$name: comparator samples ($cmp)" [ "$cmp" -ge 30 ]
	check "$name: comparator under the sort's frames in >= 99% ($cmp_ok of $cmp)" [ $((cmp_ok * 100)) -ge $((cmp * 99)) ]
	check "$name: gsub callback samples ($rep)" [ "$rep" -ge 10 ]
	check "$name: gsub callback under gsub's frames in >= 99% ($rep_ok of $rep)" [ $((rep_ok * 100)) -ge $((rep * 99)) ]
	check "$name: handler under pcall" sh -c "[ $(count "$F" 'pcall;([^;(]*;)*\? \([^;]*pcall_sort\.lua:11\);round') -gt 0 ]"
	# every frame named: a call from C being set up (LuaJIT: a nil where the function goes)
	# is no frame of its own (1% of luajit's samples were a '?' above lua_call before)
	unnamed=$(count "$F" ';\?(;|$)')
	check "$name: no frame named '?' ($unnamed samples)" [ "$unnamed" = 0 ]
	case $name in luajit*)
		# no native frame of its own: the handler follows pcall directly
		bad=$(count "$F" ';pcall;[^;(]+;')
		check "$name: no native frames right after pcall ($bad samples)" [ "$bad" = 0 ]
	esac
}
run lua5.4 lua5.4
run lua5.1 lua5.1
run luajit-joff luajit -joff
run luajit luajit

# The trace compiler entered from a function called through xpcall sits above that
# function, which sits above xpcall: nothing of the compiler's below a Lua frame.
bg_start luajit "$ROOT/tests/lua/jit_xpcall.lua"
sleep 0.5
"$LF" -q -p "$LAST_PID" -d 3 -F 499 -o "$OUT/jit.folded" >"$OUT/jit.log" 2>&1
check "jit under xpcall: exit status 0" [ $? = 0 ]
F=$OUT/jit.folded
jc=$(count "$F" '\[JIT compiler\]')
jc_ok=$(count "$F" ';main chunk \([^;]*jit_xpcall\.lua:0\);xpcall;[^;]+;\[JIT compiler\](;[^;(]*)*$')
check "jit under xpcall: samples in the trace compiler ($jc)" [ "$jc" -ge 20 ]
check "jit under xpcall: main chunk;xpcall;<function>;[JIT compiler] in >= 99% ($jc_ok of $jc)" \
	[ $((jc_ok * 100)) -ge $((jc * 99)) ]
finish
