# Lua 5.5.1 and 5.4.9, newer than Debian 12 has, built from Debian unstable's source packages
# (scripts/build-lua-sources.sh; 5.5.1 both stripped, as Debian ships it, and unstripped): the exact
# stacks and the 50/30/20 split of lua_puc.sh (tests/lua/shape.lua), --lines, and the stacks of
# errors caught by pcall and of finalizers run by the collector (tests/lua/errgc.lua).
. "$(dirname "$0")/../lib.sh"

"$ROOT/scripts/build-lua-sources.sh" || { fail build "scripts/build-lua-sources.sh failed"; finish; }
SID=$("$ROOT/scripts/build-lua-sources.sh" --dir)

S='tests/lua/shape.lua'
E='tests/lua/errgc.lua'
L() { printf '%s \\(%s:%s\\)' "$1" "${3:-$S}" "$2"; }   # regex of a Lua frame label
Q() { printf '\\? \\(%s:%s\\)' "${2:-$S}" "$1"; }        # a frame Lua has no name for
TICK="$(L 'main chunk' 0);$(L tick 46)"

# profile NAME BINARY "SCRIPT [ARGS]" SECONDS [OPTIONS...]: folded output in $OUT/NAME.folded,
# messages in $OUT/NAME.err
profile() {
	name=$1 bin=$2 script=$3 secs=$4
	shift 4
	# shellcheck disable=SC2086
	cd "$ROOT" && bg_start "$bin" $script
	sleep 0.3
	"$LF" -p "$LAST_PID" -d "$secs" -F 997 "$@" -o "$OUT/$name.folded" 2>"$OUT/$name.err"
	kill "$LAST_PID"
}

# shapes NAME VERSION BINARY: lua_puc.sh's stacks, split and Lua share on one interpreter.
shapes() {
	n=$1 v=$2 bin=$3
	profile "$n" "$bin" "$S" 4
	F=$OUT/$n.folded
	check "$n: Lua $v detected, 1 VM" grep -qF "Lua $v in $(readlink -f "$bin"), 1 VM found" "$OUT/$n.err"
	expect_stack "$n: Lua -> Lua -> Lua in order, no C between" "$F" \
		";lua_pcallk;$TICK;$(L burn_a 10);$(L work 4)\$"
	expect_stack "$n: Lua -> C -> Lua callback (table.sort comparator)" "$F" \
		";$TICK;$(L sorter 19);sort;([^;]*;)*lua_callk;$(Q 14);$(L work 4)\$"
	expect_stack "$n: coroutine frames under coroutine.resume" "$F" \
		";$TICK;$(L run_coro 37);(resume|luaB_coresume);([^;]*;)*lua_resume;$(Q 30);$(L work 4)\$"
	expect_stack "$n: recursion 200 deep keeps its outermost and innermost frames" "$F" \
		";lua_pcallk;$TICK;($(L deep 25);){125}\\[lua: 12 frames elided\\];$(Q 25);($(L deep 25);){62}$(Q 4)\$"
	expect_stack "$n: a tail-called function has no name, as in Lua" "$F" ";$TICK;$(Q 39);$(L work 4)\$"
	lua=$(share "$F" "\\($S:")
	check "$n: ${lua}% of samples carry a Lua stack (>= 95%)" [ "$lua" -ge 95 ]
	# Lua frames of the workload anywhere but right under its host's lua_pcallk: a wrong merge.
	# (A rare sample, about 1 in 2000, may catch the collector traversing the coroutine or a
	# record short of room: 99.5% leaves room for those and none for a systematic error.)
	all=$(count "$F" "\\($S:[0-9]+\\)") good=$(count "$F" ";lua_pcallk;$(L 'main chunk' 0)(;|\$)")
	check "$n: Lua stacks under lua_pcallk;main chunk ($good of $all, >= 99.5%)" [ $((good * 1000)) -ge $((all * 995)) ]

	profile "$n-split" "$bin" "$S split" 5
	P=$OUT/$n-split.folded
	a=$(count "$P" ";$(L burn_a 10);$(L work 4)\$")
	b=$(count "$P" ";$(L burn_b 11);$(L work 4)\$")
	c=$(count "$P" ";$(L burn_c 12);$(L work 4)\$")
	t=$((a + b + c))
	if [ "$t" -ge 300 ]; then
		pa=$((100 * a / t)) pb=$((100 * b / t)) pc=$((100 * c / t))
		check "$n: 50/30/20 split within 3 points ($pa/$pb/$pc of $t)" \
			sh -c "[ $pa -ge 47 ] && [ $pa -le 53 ] && [ $pb -ge 27 ] && [ $pb -le 33 ] && [ $pc -ge 17 ] && [ $pc -le 23 ]"
	else
		fail "$n: split" "only $t samples in burn_a/b/c"
	fi
}

# lines NAME BINARY: --lines labels each Lua frame with the line it runs.
lines() {
	n=$1 bin=$2
	profile "$n-lines" "$bin" "$S split" 3 --lines
	F=$OUT/$n-lines.folded
	expect_stack "$n --lines: burn_a at its only line, work in its loop" "$F" \
		";$(L 'main chunk' 58);$(L tick '(4[89]|50)');$(L burn_a 10);$(L work 6)\$"
	w=$(count "$F" ";$(L work '[0-9]+')\$") in_loop=$(count "$F" ";$(L work 6)\$")
	check "$n --lines: work's samples on its loop line, line 6 (${in_loop} of $w, >= 90%)" \
		[ $((in_loop * 100)) -ge $((w * 90)) ]
}

# errgc NAME BINARY: errors thrown through pcall and finalizers leave whole stacks behind.
errgc() {
	n=$1 bin=$2
	profile "$n-errgc" "$bin" "$E" 4
	F=$OUT/$n-errgc.folded
	R="$(L 'main chunk' 0 "$E")"
	T="$R;$(L thrower 14 "$E")"
	expect_stack "$n: function called by pcall, then the Lua it calls" "$F" \
		";lua_pcallk;$T;(pcall|luaB_pcall);lua_pcallk;$(Q 9 "$E");$(L work 3 "$E")\$"
	all=$(count "$F" "$(Q 9 "$E")") ok=$(count "$F" ";lua_pcallk;$T;(pcall|luaB_pcall);lua_pcallk;$(Q 9 "$E")(;|\$)")
	check "$n: after errors unwound by longjmp, every stack of the erring function is whole ($ok of $all)" \
		sh -c "[ $all -ge 300 ] && [ $ok = $all ]"
	# A finalizer run by an allocation's GC step runs on churn's VM activation: the collector's
	# frames are the VM's own and are left out. (Lua names it __gc from a callstatus bit the
	# walker does not carry, so its name is not checked here.)
	expect_stack "$n: finalizer run by a GC step, between churn and what it calls" "$F" \
		";lua_pcallk;$R;$(L churn 19 "$E");[^;]+ \\($E:18\\);$(L work 3 "$E")\$"
	# Under collectgarbage() the collector's native frames (lua_gc ... luaV_execute) come out
	# above the finalizer's Lua frames instead of below them, as with 5.4: for all finalizer
	# samples only their root is checked.
	fin=$(count "$F" "\\($E:18\\)") fin_ok=$(count "$F" ";lua_pcallk;$R;$(L churn 19 "$E");(.*;)?[^;]+ \\($E:18\\)")
	check "$n: finalizer samples all under main chunk;churn ($fin_ok of $fin)" sh -c "[ $fin -ge 100 ] && [ $fin_ok = $fin ]"
}

L55=$(ls -d "$SID"/lua5.5-5.5.1 2>/dev/null)
L549=$(ls -d "$SID"/lua5.4-5.4.9 2>/dev/null)
shapes 5.5.1 5.5.1 "$L55/lua-stripped"
shapes 5.5.1-unstripped 5.5.1 "$L55/src/lua"
shapes 5.4.9 5.4.9 "$L549/lua-stripped"
lines 5.5.1 "$L55/lua-stripped"
lines 5.4.9 "$L549/lua-stripped"
errgc 5.5.1 "$L55/lua-stripped"
errgc 5.5.1-unstripped "$L55/src/lua"
errgc 5.4.9 "$L549/lua-stripped"

# A VM found while 70000 calls deep: its chain is checked as far as it goes, then trusted.
D='tests/lua/deep_attach.lua'
cd "$ROOT" && bg_start "$L55/lua-stripped" "$D" 70000
sleep 1.5
"$LF" -p "$LAST_PID" -d 2 -F 499 -o "$OUT/deep.folded" 2>"$OUT/deep.err"
kill "$LAST_PID"
check "70000 calls deep at attach: 1 VM found" grep -q "Lua 5.5.1 in .*, 1 VM found" "$OUT/deep.err"
# deeper than the 4096 frames walked per sample: the innermost ones stay, after the marker
deep=$(share "$OUT/deep.folded" ";lua_pcallk;\\[lua: depth limit\\];\\? \\($D:4\\);(rec \\($D:4\\);)+work \\($D:3\\)\$")
check "70000 calls deep at attach: ${deep}% of samples in work under the innermost recs (>= 90%)" [ "$deep" -ge 90 ]
finish
