# LuaJIT stacks merged with C frames: OpenResty's fork (Debian's luajit2) and upstream
# LuaJIT, GC64 and not, with the JIT on and off, running a workload of known shape
# (tests/lua/jit_shape.lua): a 50/30/20 split, trace frames attributed to the right Lua
# functions, a coroutine under coroutine.resume, an FFI call, a C -> Lua callback, garbage
# collection shown as [GC], recursion 200 deep; and a built-in LuaJIT writes in Lua.
. "$(dirname "$0")/../lib.sh"

S=tests/lua/jit_shape.lua
L() { printf '%s \\(%s:%s\\)(_\\[j\\])?' "$1" "$S" "$2"; }   # a Lua frame, interpreted or in a trace

gcc -O2 -shared -fPIC -o "$OUT/libffitest.so" "$ROOT/tests/progs/ffi_lib.c" || { fail build "gcc failed"; finish; }
export LF_FFI_LIB="$OUT/libffitest.so"

# Upstream LuaJIT replaces OpenResty's package when installed: unpack it privately. The
# non-GC64 interpreters are built from Debian's sources (cached).
UP=$ROOT/.cache/pkgs/upstream
if [ ! -x "$UP/usr/bin/luajit" ]; then
	mkdir -p "$ROOT/.cache/pkgs" && (cd "$ROOT/.cache/pkgs" && apt-get download -qq luajit libluajit-5.1-2 >/dev/null 2>&1 \
		&& for d in luajit_*.deb libluajit-5.1-2_*.deb; do dpkg-deb -x "$d" upstream; done)
fi
VMS=$ROOT/.cache/luajit-layouts
if [ ! -x "$VMS/upstream-0/src/luajit" ] || [ ! -x "$VMS/openresty-0/src/luajit" ]; then
	"$ROOT/scripts/gen-luajit-layouts.sh" --build-vms >"$OUT/build-vms.log" 2>&1 || fail "non-GC64 build" "see $OUT/build-vms.log"
fi

TICK="$(L 'main chunk' 0);$(L tick 37)"
# run NAME VARIANT_RE LD_PATH LUAJIT [FLAGS]: profiles the workload and checks its stacks.
run() {
	name=$1 variant=$2 ldp=$3 lj=$4; shift 4
	[ -x "$lj" ] || { fail "$name" "$lj missing"; return; }
	cd "$ROOT" && LD_LIBRARY_PATH=$ldp bg_start "$lj" "$@" "$S"
	sleep 0.5
	F=$OUT/$name.folded
	"$LF" -p "$LAST_PID" -d 5 -F 997 -o "$F" 2>"$OUT/$name.err"
	kill "$LAST_PID"
	check "$name: $variant detected" grep -Eq "LuaJIT 2\.1\.[^ ]* \\($variant\\) in .*, 1 VM found" "$OUT/$name.err"
	a=$(count "$F" ";$(L burn_a 14);$(L work 8)(;|\$)")
	b=$(count "$F" ";$(L burn_b 15);$(L work 8)(;|\$)")
	c=$(count "$F" ";$(L burn_c 16);$(L work 8)(;|\$)")
	t=$((a + b + c))
	if [ "$t" -ge 300 ]; then
		pa=$((100 * a / t)) pb=$((100 * b / t)) pc=$((100 * c / t))
		check "$name: 50/30/20 split within 3 points ($pa/$pb/$pc of $t)" \
			sh -c "[ $pa -ge 47 ] && [ $pa -le 53 ] && [ $pb -ge 27 ] && [ $pb -le 33 ] && [ $pc -ge 17 ] && [ $pc -le 23 ]"
	else
		fail "$name: split" "only $t samples in burn_a/b/c"
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
			grep -q "^lua-flame: $jc samples (.*shown as \[jit code\]" "$OUT/$name.err"
	else
		check "$name: no [jit code] outside the GC, and the summary says none" \
			sh -c "! grep -q 'shown as \[jit code\]' '$OUT/$name.err'"
	fi
	lua=$(share "$F" "\\($S:")
	check "$name: ${lua}% of samples carry a Lua stack (>= 95%)" [ "$lua" -ge 95 ]
	if [ "${1:-}" != -joff ]; then
		jit=$(share "$F" '\[trace [0-9]+\]')
		check "$name: samples in compiled traces ($jit%)" [ "$jit" -ge 30 ]
		traced=$(count "$F" ';\[trace [0-9]+\]')
		owned=$(count "$F" '\)_\[j\];\[trace [0-9]+\]')
		check "$name: every trace sample is attributed to a Lua function ($owned of $traced)" [ "$owned" = "$traced" ]
	fi
}

run openresty-gc64 "openresty GC64" "" /usr/bin/luajit
run openresty-gc64-joff "openresty GC64" "" /usr/bin/luajit -joff
run upstream-gc64 "upstream GC64" "$UP/usr/lib/x86_64-linux-gnu" "$UP/usr/bin/luajit"
run upstream-nogc64 "upstream non-GC64" "" "$VMS/upstream-0/src/luajit"
run openresty-nogc64-joff "openresty non-GC64" "" "$VMS/openresty-0/src/luajit" -joff
# OpenResty's newest LuaJIT, from Debian unstable's source package (scripts/build-lua-sources.sh)
if "$ROOT/scripts/build-lua-sources.sh"; then
	SID=$("$ROOT/scripts/build-lua-sources.sh" --dir)
	run openresty-sid "openresty GC64" "" "$(ls -d "$SID"/luajit-*/src/luajit | head -1)"
else
	fail "openresty-sid: build" "scripts/build-lua-sources.sh failed"
fi

# LuaJIT implements a few built-ins in bytecode (LJLIB_LUA in lib_table.c): table.remove is a
# Lua function whose proto has firstline -1 and chunk name "remove". It is named as the
# built-ins written in C are, whatever the caller calls it, never `? ([builtin:remove]:-1)`.
# The interpreter runs it (-joff); a trace would inline it.
bg_start /usr/bin/luajit -joff -e \
	'local tremove = table.remove local t = {} for i = 1, 1e10 do t[#t + 1] = i; tremove(t) end'
sleep 0.5
F=$OUT/builtin.folded
"$LF" -p "$LAST_PID" -d 3 -F 997 -o "$F" 2>"$OUT/builtin.err"
kill "$LAST_PID"
s=$(share "$F" ';lua_pcall;main chunk \(\(command line\):0\);table\.remove$')
check "bytecode built-in: ${s}% of samples end in 'main chunk ((command line):0);table.remove' (>= 10%)" \
	[ "$s" -ge 10 ]
check "bytecode built-in: no [builtin:...] chunk and no negative line" \
	sh -c "! grep -Eq '\\[builtin:|:-[0-9]+\\)' '$F'"
finish
