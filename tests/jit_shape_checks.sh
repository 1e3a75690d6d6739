# The checks of a profile of tests/lua/jit_shape.lua (LuaJIT: a 50/30/20 split, a coroutine, an
# FFI call, recursion 200 deep, a C -> Lua callback, garbage collection as [GC], traces), shared
# by tests/integ/luajit_stacks.sh and the arm64 tests (tests/arm64/check.sh). Sourced after
# tests/lib.sh; JS is the script's path as its frames name it (a regex).

L() { printf '%s \\(%s:%s\\)(_\\[j\\])?' "$1" "$JS" "$2"; }   # a Lua frame, interpreted or in a trace

# check_jit_shape NAME VARIANT_RE FOLDED ERR JIT: the stacks of one profile (FOLDED, lua-flame's
# messages in ERR); JIT is on or off (-joff: no traces to check).
check_jit_shape() {
	name=$1 variant=$2 F=$3 E=$4 jit=$5
	TICK="$(L 'main chunk' 0);$(L tick 37)"
	check "$name: $variant detected" grep -Eq "LuaJIT 2\.1\.[^ ]* \\($variant\\) in .*, 1 VM found" "$E"
	a=$(count "$F" ";$(L burn_a 14);$(L work 8)(;|\$)")
	b=$(count "$F" ";$(L burn_b 15);$(L work 8)(;|\$)")
	c=$(count "$F" ";$(L burn_c 16);$(L work 8)(;|\$)")
	t=$((a + b + c))
	if [ "$t" -ge 300 ]; then
		split_5_3_2 "$name" "$a" "$b" "$c"
	else
		# say where the time went instead, for the next look
		fail "$name: split" "only $t samples in burn_a/b/c, $(count "$F" '\[GC\]') in [GC], of $(count "$F" .)"
	fi
	expect_stack "$name: Lua frames under the host's lua_pcall" "$F" ";lua_pcall;$TICK;$(L burn_a 14);$(L work 8)"
	expect_stack "$name: coroutine frames under coroutine.resume" "$F" \
		";$(L run_coro 26);coroutine.resume;$(L '\?' 20);$(L work 8)"
	expect_stack "$name: FFI call into the C library under the calling Lua code" "$F" ";$TICK;.*lf_ffi_spin\$"
	# 201 frames of deep, under pmain's C frame, the main chunk and tick, with work at the
	# bottom: the outermost 128 frames keep 125 of deep, the innermost 64 keep 63 of deep (the
	# outermost of them unnamed, its caller left out), so 13 are elided.
	expect_stack "$name: recursion 200 deep keeps its outermost and innermost frames" "$F" \
		";lua_pcall;$TICK;($(L deep 28);){125}\\[lua: 13 frames elided\\];$(L '\?' 28);($(L deep 28);){62}$(L work 8)(;|\$)"
	expect_stack "$name: C calling back into Lua (table.sort comparator) in true order" "$F" \
		";$(L sorter 62);table.sort;([^;]*;)*$(L '\?' 57);$(L work 8)"
	expect_stack "$name: garbage collection under the allocating function, as [GC]" "$F" ";$(L garbage [0-9]+);(.*;)?\\[GC\\]"
	# A trace that calls the GC is its caller: [GC] follows the trace's marker, never precedes it.
	check "$name: [GC] never above a trace marker ($(count "$F" '\[GC\];\[(trace [0-9]+|jit code)\]'))" \
		[ "$(count "$F" '\[GC\];\[(trace [0-9]+|jit code)\]')" = 0 ]
	jc=$(count "$F" ';\[jit code\]($|;[^[]|;\[[^G])')
	if [ "$jc" -gt 0 ]; then
		check "$name: the summary counts the $jc samples in [jit code] not running the GC" \
			grep -q "^lua-flame: $jc samples (.*shown as \[jit code\]" "$E"
	else
		check "$name: no [jit code] outside the GC, and the summary says none" \
			sh -c "! grep -q 'shown as \[jit code\]' '$E'"
	fi
	lua=$(share "$F" "\\($JS:")
	check "$name: ${lua}% of samples carry a Lua stack (>= 95%)" [ "$lua" -ge 95 ]
	if [ "$jit" = on ]; then
		tj=$(share "$F" '\[trace [0-9]+\]')
		check "$name: samples in compiled traces ($tj%)" [ "$tj" -ge 30 ]
		traced=$(count "$F" ';\[trace [0-9]+\]')
		owned=$(count "$F" '\)_\[j\];\[trace [0-9]+\]')
		check "$name: every trace sample is attributed to a Lua function ($owned of $traced)" [ "$owned" = "$traced" ]
	fi
}
