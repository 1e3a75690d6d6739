# Deep Lua stacks keep their root side, on Debian's lua5.4, lua5.1 and luajit (JIT on and
# off): recursion 300 and 3000 deep (tests/lua/deep.lua) under a main chunk that spends the
# other half of the time itself. The main chunk must stay on every stack, under the same
# native host frames as when the stack is shallow; the recursion keeps its half; the
# innermost and outermost frames are kept with one marker giving the exact count between.
. "$(dirname "$0")/../lib.sh"

S=tests/lua/deep.lua
L() { printf '%s \\(%s:%s\\)' "$1" "$S" "$2"; }   # regex of a Lua frame label
# Frames kept at each end, as the BPF program keeps them.
OUTER=$(sed -n 's/^#define LF_LUA_OUTER *\([0-9]*\).*/\1/p' "$ROOT/bpf/lua.h")
INNER=$(sed -n 's/^#define LF_LUA_INNER *\([0-9]*\).*/\1/p' "$ROOT/bpf/lua.h")
# root_prefix FILE: the text before ";main chunk (" of most samples (native host frames).
root_prefix() {
	awk '{ n = $NF; i = index($0, ";main chunk ("); if (i) w[substr($0, 1, i)] += n }
		END { for (p in w) if (w[p] > best) { best = w[p]; bp = p } print bp }' "$1"
}
# starts FILE TEXT: percent of samples whose stack begins with TEXT (compared literally).
starts() {
	P=$2 awk '{ n = $NF; t += n; if (index($0, ENVIRON["P"]) == 1) m += n }
		END { if (t == 0) print 0; else printf "%d\n", (100 * m / t) + 0.5 }' "$1"
}

# run NAME DEPTH CMD...: profiles deep.lua DEPTH run by CMD. At the bottom of the recursion
# the Lua frames are, outermost first: the interpreter's C function running the script (pmain;
# LuaJIT's too, through lua_cpcall), the main chunk, rec DEPTH+1 times, work: DEPTH+4 frames.
# The outer end keeps pmain, the main chunk and OUTER-2 rec; the inner end keeps work and
# INNER-1 rec, the outermost of which has no caller left to name it.
run() {
	name=$1 depth=$2; shift 2
	cd "$ROOT" && bg_start "$@" "$S" "$depth"
	sleep 0.4
	F=$OUT/$name.folded
	"$LF" -p "$LAST_PID" -d 6 -F 997 --stats -o "$F" 2>"$OUT/$name.err"
	kill "$LAST_PID"
	t=$(total "$F")
	[ "$t" -ge 300 ] || { fail "$name" "only $t samples"; return; }
	# three standard deviations of a 50% share over t samples, at least 3 points
	tol=$(awk -v t="$t" 'BEGIN { x = 3 * 50 / sqrt(t); printf "%d\n", x < 3 ? 3 : x + 0.999 }')
	elided=$((depth + 4 - OUTER - INNER))
	main="$(L 'main chunk' 0)"
	pre=$(root_prefix "$F")
	case $pre in
	*";lua_pcall;" | *";lua_pcallk;") pass "$name: main chunk under the host's lua_pcall: $pre" ;;
	*) fail "$name: main chunk under the host's lua_pcall" "found under '$pre'" ;;
	esac
	rooted=$(starts "$F" "${pre}main chunk ($S:0)")
	check "$name: main chunk under those native frames in $rooted% of samples (>= 97%)" [ "$rooted" -ge 97 ]
	rec=$(share "$F" ";$main;$(L rec 12)")
	check "$name: recursion under the main chunk in $rec% of $t samples (50 +- $tol)" near "$rec" 50 "$tol"
	exact=";$main;($(L rec 12);){$((OUTER - 2))}\\[lua: $elided frames elided\\];$(L '\?' 12);($(L rec 12);){$((INNER - 2))}$(L work 6)(_\\[j\\])?(;|\$)"
	n=$(count "$F" "$exact")
	r=$(count "$F" ";$(L rec 12)")
	check "$name: $n of $r recursion samples keep $OUTER outer and $INNER inner frames around [lua: $elided frames elided] (>= 90%)" \
		sh -c "[ $r -gt 0 ] && [ $((100 * n)) -ge $((90 * r)) ]"
	check "$name: no [lua: depth limit]" [ "$(count "$F" '\[lua: depth limit\]')" = 0 ]
	check "$name: --stats counts the elided samples" grep -q "Lua frames elided [1-9]" "$OUT/$name.err"
}

# Kernels without bpf_loop (before 5.17), as LUA_FLAME_NO_BPF_LOOP makes this one behave: the
# Lua walk keeps the innermost LF_LUA_NOLOOP frames and goes no further; --stats says so.
NOLOOP=$(sed -n 's/^#define LF_LUA_NOLOOP *\([0-9]*\).*/\1/p' "$ROOT/bpf/lua.h")
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
expect_stack "no-loop-10: every frame of the recursion" "$F" ";lua_pcallk;$(L 'main chunk' 0);($(L rec 12);){11}$(L work 6)\$"
# 3001 frames of rec: the innermost frames under the innermost lua_pcallk, and the marker.
no_loop no-loop-3000 3000
n=$(count "$F" ";lua_pcallk;\\[lua: depth limit\\];$(L '\?' 12);($(L rec 12);){$((NOLOOP - 2))}$(L work 6)\$")
r=$(count "$F" "$(L rec 12)")
check "no-loop-3000: $n of $r recursion samples keep the innermost $NOLOOP frames after [lua: depth limit] (>= 90%)" \
	sh -c "[ $r -gt 0 ] && [ $((100 * n)) -ge $((90 * r)) ]"

for D in 300 3000; do
	run "lua5.4-$D" "$D" lua5.4
	run "lua5.1-$D" "$D" lua5.1
	run "luajit-$D" "$D" luajit
	run "luajit-joff-$D" "$D" luajit -joff
done
finish
