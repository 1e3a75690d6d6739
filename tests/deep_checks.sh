# The checks of a profile of tests/lua/deep.lua (recursion DEPTH deep under a main chunk that
# spends the other half of the time itself), shared by tests/integ/lua_deep.sh and the qemu
# tests (tests/kernel/check.sh, tests/arm64/check.sh). Sourced after tests/lib.sh; DS is the
# script's path as its frames name it (a regex without special characters but dots).

D() { printf '%s \\(%s:%s\\)' "$1" "$DS" "$2"; }   # regex of a Lua frame label
# Frames kept at each end, as the BPF program keeps them, and without bpf_loop.
OUTER=$(sed -n 's/^#define LF_LUA_OUTER *\([0-9]*\).*/\1/p' "$ROOT/bpf/lua.h")
INNER=$(sed -n 's/^#define LF_LUA_INNER *\([0-9]*\).*/\1/p' "$ROOT/bpf/lua.h")
NOLOOP=$(sed -n 's/^#define LF_LUA_NOLOOP *\([0-9]*\).*/\1/p' "$ROOT/bpf/lua.h")

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

# check_deep NAME FOLDED ERR DEPTH: a profile with bpf_loop. At the bottom of the recursion the
# Lua frames are, outermost first: the interpreter's C function running the script (pmain;
# LuaJIT's too, through lua_cpcall), the main chunk, rec DEPTH+1 times, work: DEPTH+4 frames.
# The outer end keeps pmain, the main chunk and OUTER-2 rec; the inner end keeps work and
# INNER-1 rec, the outermost of which has no caller left to name it.
check_deep() {
	name=$1 F=$2 depth=$4
	t=$(total "$F" 2>/dev/null || echo 0)
	[ "$t" -ge 300 ] || { fail "$name" "only $t samples"; return; }
	# three standard deviations of a 50% share over t samples, and 4 points more: the halves are
	# timed by the target's own CPU clock, which each deep sample's walk and the clock's own calls
	# skew by a few points, most on a slow emulated CPU (a walk that lost or misplaced the deep
	# samples would leave the recursion far less than half)
	tol=$((4 + $(share_tol "$t")))
	elided=$((depth + 4 - OUTER - INNER))
	main="$(D 'main chunk' 0)"
	pre=$(root_prefix "$F")
	case $pre in
	*";lua_pcall;" | *";lua_pcallk;") pass "$name: main chunk under the host's lua_pcall: $pre" ;;
	*) fail "$name: main chunk under the host's lua_pcall" "found under '$pre'" ;;
	esac
	rooted=$(starts "$F" "${pre}main chunk ($(echo "$DS" | sed 's/\\//g'):0)")
	check "$name: main chunk under those native frames in $rooted% of samples (>= 97%)" [ "$rooted" -ge 97 ]
	rec=$(share "$F" ";$main;$(D rec 12)")
	check "$name: recursion under the main chunk in $rec% of $t samples (50 +- $tol)" near "$rec" 50 "$tol"
	exact=";$main;($(D rec 12);){$((OUTER - 2))}\\[lua: $elided frames elided\\];$(D '\?' 12);($(D rec 12);){$((INNER - 2))}$(D work 6)(_\\[j\\])?(;|\$)"
	n=$(count "$F" "$exact")
	r=$(count "$F" ";$(D rec 12)")
	check "$name: $n of $r recursion samples keep $OUTER outer and $INNER inner frames around [lua: $elided frames elided] (>= 90%)" \
		sh -c "[ $r -gt 0 ] && [ $((100 * n)) -ge $((90 * r)) ]"
	check "$name: no [lua: depth limit]" [ "$(count "$F" '\[lua: depth limit\]')" = 0 ]
	check "$name: --stats counts the elided samples" grep -q "Lua frames elided [1-9]" "$3"
}

# check_deep_cut NAME FOLDED: a profile of a recursion deeper than NOLOOP frames on a kernel
# without bpf_loop, whose walk keeps the innermost NOLOOP frames after [lua: depth limit].
check_deep_cut() {
	# a trace of work may run, and call helpers: frames without a Lua name after it
	n=$(count "$2" ";lua_pcallk?;\\[lua: depth limit\\];$(D '\?' 12);($(D rec 12);){$((NOLOOP - 2))}$(D work 6)(_\\[j\\])?(;[^;(]*)*\$")
	r=$(count "$2" "$(D rec 12)")
	check "$1: $n of $r recursion samples keep the innermost $NOLOOP frames after [lua: depth limit] (>= 90%)" \
		sh -c "[ $r -gt 0 ] && [ $((100 * n)) -ge $((90 * r)) ]"
}
