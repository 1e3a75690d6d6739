# LuaJIT stacks merged with C frames: OpenResty's fork (Debian's luajit2) and upstream
# LuaJIT, GC64 and not, with the JIT on and off, running a workload of known shape
# (tests/lua/jit_shape.lua): a 50/30/20 split, trace frames attributed to the right Lua
# functions, a coroutine under coroutine.resume, an FFI call, a C -> Lua callback, garbage
# collection shown as [GC], recursion 200 deep; and a built-in LuaJIT writes in Lua.
. "$(dirname "$0")/../lib.sh"

JS=tests/lua/jit_shape.lua
. "$ROOT/tests/jit_shape_checks.sh" # check_jit_shape

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

# run NAME VARIANT_RE LD_PATH LUAJIT [FLAGS]: profiles the workload and checks its stacks.
run() {
	name=$1 variant=$2 ldp=$3 lj=$4; shift 4
	[ -x "$lj" ] || { fail "$name" "$lj missing"; return; }
	cd "$ROOT" && LD_LIBRARY_PATH=$ldp bg_start "$lj" "$@" "$JS"
	sleep 0.5
	"$LF" -p "$LAST_PID" -d 5 -F 997 -o "$OUT/$name.folded" 2>"$OUT/$name.err"
	kill "$LAST_PID"
	check_jit_shape "$name" "$variant" "$OUT/$name.folded" "$OUT/$name.err" "$([ "${1:-}" = -joff ] && echo off || echo on)"
}

run openresty-gc64 "openresty GC64" "" /usr/bin/luajit
run openresty-gc64-joff "openresty GC64" "" /usr/bin/luajit -joff
run upstream-gc64 "upstream GC64" "$UP/usr/lib/x86_64-linux-gnu" "$UP/usr/bin/luajit"
run upstream-nogc64 "upstream non-GC64" "" "$VMS/upstream-0/src/luajit"
run openresty-nogc64-joff "openresty non-GC64" "" "$VMS/openresty-0/src/luajit" -joff
# OpenResty's newest LuaJIT, from Debian unstable's source package (scripts/build-lua-sources.sh)
if "$ROOT/scripts/build-lua-sources.sh"; then
	SID=$("$ROOT/scripts/build-lua-sources.sh" --dir)
	run openresty-sid "openresty 2025 GC64" "" "$(ls -d "$SID"/luajit-*/src/luajit | head -1)"
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

# Two coroutines resumed in turn (tests/lua/co_turns.lua): each one's frames alone under its
# own resumer, whether the walk's outer frames, the VM's C frames among them, were stepped or
# replayed from the last walk (bpf/walk_memo.bpf.h), which holds the other coroutine's.
. "$ROOT/tests/turns_checks.sh" # check_turns
turns() {
	name=$1 ldp=$2 lj=$3; shift 3
	cd "$ROOT" && LD_LIBRARY_PATH=$ldp bg_start "$lj" "$@" "$TURNS"
	sleep 0.5
	"$LF" -p "$LAST_PID" -d 3 -F 997 --stats -o "$OUT/$name.folded" 2>"$OUT/$name.err"
	kill "$LAST_PID"
	# the coroutine's work in a trace ends in the trace's frames and the native code it called
	check_turns "$name" "$OUT/$name.folded" "$OUT/$name.err" \
		"resume \\($TURNS:16\\);coroutine\\.resume;\\? \\($TURNS:7\\)" "(_\\[j\\])?(;[^;(]*)*"
}
turns turns-openresty-joff "" /usr/bin/luajit -joff
turns turns-openresty "" /usr/bin/luajit
turns turns-upstream "$UP/usr/lib/x86_64-linux-gnu" "$UP/usr/bin/luajit"

# string.gmatch makes its iterator, a C closure, at each call, and the GC frees it soon after:
# the kernel names such a frame by the closure's C function and built-in number, read at
# sample time, not by the closure, which user space would often find freed (the demo's
# parse() called a `?` in 27% of its samples) and which would make each call's stacks new
# map entries.
closures() {
	name=$1 lj=$2; shift 2
	cd "$ROOT" && bg_start "$lj" "$@" tests/progs/demo.lua
	sleep 0.5
	"$LF" -p "$LAST_PID" -d 3 -F 997 --stats -o "$OUT/$name.folded" 2>"$OUT/$name.err"
	kill "$LAST_PID"
	parse='parse \(tests/progs/demo\.lua:3\)(_\[j\])?'
	s=$(share "$OUT/$name.folded" ";$parse;string\\.gmatch_aux(;|\$)")
	check "$name: ${s}% of samples under 'parse (tests/progs/demo.lua:3);string.gmatch_aux' (>= 10%)" [ "$s" -ge 10 ]
	check "$name: no frame named '?' under parse()" sh -c "! grep -Eq ';$parse;\\?(;| [0-9]+\$)' '$OUT/$name.folded'"
	e=$(sed -n 's/.*map entries made \([0-9]*\).*/\1/p' "$OUT/$name.err")
	check "$name: map entries (${e:-none}) at most a third of the samples ($(total "$OUT/$name.folded"))" \
		sh -c "[ -n '$e' ] && [ $((3 * ${e:-0})) -le $(total "$OUT/$name.folded") ]"
}
closures closures-openresty /usr/bin/luajit
closures closures-openresty-joff /usr/bin/luajit -joff
closures closures-upstream-nogc64 "$VMS/upstream-0/src/luajit"

# A function returning two values, called in a loop by the interpreter (tests/lua/returns.lua):
# a return copies the results down over the returning frame's function and link while BASE
# still points at that frame, and the return pc is then in the PC register only. A sample
# there stands in the caller (12-14% of such a loop's samples were a '?' under lua_cpcall, or
# a 'two' without its chunk, before).
returns() {
	name=$1 lj=$2; shift 2
	cd "$ROOT" && bg_start "$lj" -joff tests/lua/returns.lua
	sleep 0.5
	"$LF" -p "$LAST_PID" -d 3 -F 997 -o "$OUT/$name.folded" 2>"$OUT/$name.err"
	kill "$LAST_PID"
	t=$(total "$OUT/$name.folded")
	m=$(count "$OUT/$name.folded" ';lua_pcall;main chunk \(tests/lua/returns\.lua:0\)(;two \(tests/lua/returns\.lua:4\))?(;[^;]*_\[k\])*$')
	check "$name: $m of $t samples in 'main chunk (tests/lua/returns.lua:0)' or its 'two (...:4)' (>= 99.5%)" \
		sh -c "[ $t -ge 1000 ] && [ $((1000 * m)) -ge $((995 * t)) ]"
}
returns returns-openresty /usr/bin/luajit
returns returns-upstream-nogc64 "$VMS/upstream-0/src/luajit"
returns returns-openresty-nogc64 "$VMS/openresty-0/src/luajit"
finish
