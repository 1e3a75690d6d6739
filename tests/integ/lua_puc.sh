# Lua 5.1-5.4 stacks merged with C frames, on Debian's stripped interpreters: a workload of
# known shape (tests/lua/shape.lua) must give exactly these stacks and a 50/30/20 split.
. "$(dirname "$0")/../lib.sh"

S='tests/lua/shape.lua'
L() { printf '%s \\(%s:%s\\)' "$1" "$S" "$2"; }   # regex of a Lua frame label
Q() { printf '\\? \\(%s:%s\\)' "$S" "$1"; }        # a frame Lua has no name for


TICK="$(L 'main chunk' 0);$(L tick 46)"
for v in 5.1 5.2 5.3 5.4; do
	cd "$ROOT" && bg_start "lua$v" "$S"
	sleep 0.3
	F=$OUT/lua$v.folded
	"$LF" -p "$LAST_PID" -d 4 -F 997 -o "$F" 2>"$OUT/lua$v.err"
	kill "$LAST_PID"
	check "$v: runtime detected" grep -q "Lua $v\.[0-9]* in /usr/bin/lua$v, 1 VM found" "$OUT/lua$v.err"
	expect_stack "$v: Lua -> Lua -> Lua in order, no C between" "$F" \
		";lua_pcallk?;$TICK;$(L burn_a 10);$(L work 4)\$"
	expect_stack "$v: Lua -> C -> Lua callback (table.sort comparator)" "$F" \
		";$TICK;$(L sorter 19);sort;([^;]*;)*lua_callk?;$(Q 14);$(L work 4)\$"
	expect_stack "$v: coroutine frames under coroutine.resume" "$F" \
		";$TICK;$(L run_coro 37);resume;([^;]*;)*lua_resume;$(Q 30);$(L work 4)\$"
	# 200 frames of deep, under pmain, the main chunk and tick, with work tail-called at the
	# bottom: the outermost 128 frames keep 125 of deep, the innermost 64 keep 63 of deep (the
	# outermost of them unnamed, its caller left out), so 12 are elided.
	expect_stack "$v: recursion 200 deep keeps its outermost and innermost frames" "$F" \
		";lua_pcallk?;$TICK;($(L deep 25);){125}\\[lua: 12 frames elided\\];$(Q 25);($(L deep 25);){62}$(Q 4)\$"
	expect_stack "$v: a tail-called function has no name, as in Lua" "$F" ";$TICK;$(Q 39);$(L work 4)\$"
	# The split is measured on the burn functions alone: the mixed workload is for shapes.
	cd "$ROOT" && bg_start "lua$v" "$S" split
	sleep 0.3
	"$LF" -p "$LAST_PID" -d 5 -F 997 -o "$OUT/split$v.folded" 2>/dev/null
	kill "$LAST_PID"
	P=$OUT/split$v.folded
	a=$(count "$P" ";$(L burn_a 10);$(L work 4)\$")
	b=$(count "$P" ";$(L burn_b 11);$(L work 4)\$")
	c=$(count "$P" ";$(L burn_c 12);$(L work 4)\$")
	t=$((a + b + c))
	if [ "$t" -ge 300 ]; then
		pa=$((100 * a / t)) pb=$((100 * b / t)) pc=$((100 * c / t))
		check "$v: 50/30/20 split within 3 points ($pa/$pb/$pc of $t)" \
			sh -c "[ $pa -ge 47 ] && [ $pa -le 53 ] && [ $pb -ge 27 ] && [ $pb -le 33 ] && [ $pc -ge 17 ] && [ $pc -le 23 ]"
	else
		fail "$v: split" "only $t samples in burn_a/b/c"
	fi
	lua=$(share "$F" "\\($S:")
	check "$v: ${lua}% of samples carry a Lua stack (>= 95%)" [ "$lua" -ge 95 ]
done

# Two coroutines resumed in turn (tests/lua/co_turns.lua): the native frames of the resume are
# the same on every turn, at the same addresses, but hold the other lua_State. Each
# coroutine's frames must stay under its own resumer, the walk's outer frames stepped or
# replayed from the last walk (bpf/walk_memo.bpf.h), which holds the other coroutine's.
. "$ROOT/tests/turns_checks.sh" # check_turns
for v in 5.1 5.4; do
	cd "$ROOT" && bg_start "lua$v" "$TURNS"
	sleep 0.3
	"$LF" -p "$LAST_PID" -d 3 -F 997 --stats -o "$OUT/turns$v.folded" 2>"$OUT/turns$v.err"
	kill "$LAST_PID"
	check_turns "$v: turns" "$OUT/turns$v.folded" "$OUT/turns$v.err" \
		"resume \\($TURNS:16\\);resume;([^;]*;)*lua_resume;\\? \\($TURNS:7\\)" ""
done
finish
