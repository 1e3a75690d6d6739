#!/bin/sh
# LuaJIT built with options other than the distributions' defaults, from Debian's sources
# (upstream's luajit, OpenResty's luajit2, and the 2.1.0-beta3 release texlive-bin carries for
# LuaJITTeX), and Debian's own texluajit: a build whose layout lua-flame knows is named exactly
# (function and chunk names, the coroutine under coroutine.resume, the 50/30/20 split of
# tests/lua/build_options.lua); one it does not know is refused with "this LuaJIT build is not
# supported yet" and profiled with native frames only, never a Lua label. The builds are made
# once, in .cache/luajit-options (scripts/gen-luajit-layouts.sh --build-option).
. "$(dirname "$0")/../lib.sh"

WL=tests/lua/build_options.lua
BUILDS=$ROOT/.cache/luajit-options
L() { printf '%s \\(%s:%s\\)(_\\[j\\])?' "$1" "$WL" "$2"; } # a Lua frame, interpreted or in a trace

# build NAME: the interpreter built with NAME's flags, made when missing.
build() {
	if ! "$ROOT/scripts/gen-luajit-layouts.sh" --build-option "$1" "$BUILDS/$1" >"$OUT/build-$1.log" 2>&1; then
		fail "$1: build" "see $OUT/build-$1.log"
		return 1
	fi
}

# profile NAME CMD...: 3 s of the workload run by CMD, attached with -p once it runs.
profile() {
	_p=$1; shift
	cd "$ROOT" && bg_start "$@" "$WL"
	sleep 0.5
	"$LF" -p "$LAST_PID" -d 3 -F 997 -o "$OUT/$_p.folded" 2>"$OUT/$_p.err"
	kill "$LAST_PID" 2>/dev/null
}

# The Lua frames a profile of the workload may hold, and the built-ins it calls.
KNOWN="main chunk \\($WL:0\\)|outer \\($WL:15\\)|burn_a \\($WL:10\\)|burn_b \\($WL:11\\)|burn_c \\($WL:12\\)"
KNOWN="$KNOWN|work \\($WL:4\\)|run_coro \\($WL:28\\)|\\? \\($WL:22\\)"

# named NAME VARIANT FILE: the checks of a build read with a layout lua-flame knows.
named() {
	name=$1 variant=$2 F=$OUT/$1.folded E=$OUT/$1.err
	check "$name: '$variant' and 1 VM found" grep -Eq "LuaJIT 2\\.1\\.[^ ]* \\($variant\\) in .*, 1 VM found" "$E"
	check "$name: no refusal" sh -c "! grep -q 'not supported yet' '$E'"
	a=$(count "$F" ";$(L 'main chunk' 0);$(L outer 15);$(L burn_a 10);$(L work 4)(;|\$)")
	b=$(count "$F" ";$(L 'main chunk' 0);$(L outer 15);$(L burn_b 11);$(L work 4)(;|\$)")
	c=$(count "$F" ";$(L 'main chunk' 0);$(L outer 15);$(L burn_c 12);$(L work 4)(;|\$)")
	if [ $((a + b + c)) -ge 300 ]; then
		split_5_3_2 "$name" "$a" "$b" "$c"
	else
		fail "$name: split" "only $((a + b + c)) of $(total "$F") samples in outer;burn_a/b/c;work"
	fi
	expect_stack "$name: the coroutine under coroutine.resume" "$F" \
		";lua_pcall;$(L 'main chunk' 0);$(L run_coro 28);coroutine\\.resume;$(L '\?' 22);$(L work 4)"
	lua=$(share "$F" ";lua_pcall;$(L 'main chunk' 0)")
	check "$name: ${lua}% of samples under the main chunk (>= 95%)" [ "$lua" -ge 95 ]
	# every Lua label is one of the workload's, whole: no name or chunk cut or shifted
	grep -oE "[^;]* \\([^;]*:-?[0-9]+\\)(_\\[j\\])?" "$F" | sed 's/_\[j\]$//' | sort -u |
		grep -Evx "$KNOWN" >"$OUT/$name.unknown"
	check "$name: no Lua label but the workload's ($(head -3 "$OUT/$name.unknown" | tr '\n' ' '))" \
		[ ! -s "$OUT/$name.unknown" ]
	check "$name: no built-in named but coroutine.resume and yield" \
		sh -c "! grep -oE ';(coroutine|string|table|debug|math|jit|ffi|buffer|io|os|bit)[.:][a-z_]+' '$F' |
			grep -Evx ';coroutine\\.(resume|yield)' | grep -q ."
}

# refused NAME FILE_RE ROOTED: the checks of a build lua-flame must not read; ROOTED: the least
# share of samples whose native stack runs from _start through lua_pcall (0: not checked, for
# code in traces, which has no unwind information).
refused() {
	name=$1 F=$OUT/$1.folded E=$OUT/$1.err
	check "$name: refused in one line naming the PID and file" \
		grep -Eq "^lua-flame: PID [0-9]+: LuaJIT .* in $2: this LuaJIT build is not supported yet \\(.*\\); native stacks are profiled only\$" "$E"
	t=$(total "$F")
	check "$name: no Lua label in $t samples" sh -c "[ $t -ge 300 ] && ! grep -Eq ' \\([^;]*:-?[0-9]+\\)|main chunk' '$F'"
	[ "$3" = 0 ] && return
	n=$(share "$F" '^[^;]*;_start;(.*;)?main;(.*;)?lua_pcall;')
	check "$name: ${n}% of samples with native stacks from _start through lua_pcall (>= $3%)" [ "$n" -ge "$3" ]
}

# Builds whose layouts lua-flame reads: Lua 5.2 compatibility renumbers the built-ins; the
# number mode and the allocator change nothing it reads; 2.1.0-beta3 has its own layouts.
for b in upstream-lua52:"upstream GC64" upstream-nogc64-lua52:"upstream non-GC64" upstream-nummode2:"upstream GC64" \
	upstream-sysmalloc:"upstream GC64" openresty-lua52:"openresty GC64" beta3:"beta3 non-GC64" \
	beta3-gc64:"beta3 GC64" beta3-lua52:"beta3 non-GC64"; do
	name=${b%%:*}
	build "$name" || continue
	profile "$name" "$BUILDS/$name/src/luajit"
	named "$name" "${b#*:}"
done

# Builds without the JIT compiler or the FFI: refused from their files' own messages, and
# profiled as interpreters without Lua (the rest of their samples are in leaf functions of the
# VM such as lj_vm_mod, which keep no frame).
for name in upstream-nojit upstream-noffi; do
	build "$name" || continue
	profile "$name" "$BUILDS/$name/src/luajit" -joff
	refused "$name" ".*/luajit-options/$name/src/luajit" 60
done
# In a host whose own strings hold those messages, refused from the live VM, whose dispatch
# table is not where the default layout puts it (3240 bytes nearer for no JIT, 16 for no FFI).
for b in upstream-nojit upstream-noffi; do
	[ -f "$BUILDS/$b/src/libluajit.a" ] || continue
	host=$OUT/host-$b
	if ! gcc -O2 -o "$host" -I"$BUILDS/$b/src" \
		-DDECOY='"\0invalid C type\0runtime code generation failed, restricted kernel?"' \
		"$ROOT/tests/progs/embed_host.c" "$BUILDS/$b/src/libluajit.a" -lm -ldl 2>"$host.build"; then
		fail "host-$b: build" "see $host.build"
		continue
	fi
	profile "host-$b" "$host"
	refused "host-$b" "$host" 0
	check "host-$b: refused by the live check of its dispatch table" \
		grep -q 'not supported yet (its dispatch table' "$OUT/host-$b.err"
done

# Debian's LuaJITTeX (texlive-binaries): its libtexluajit is 2.1.0-beta3 with Lua 5.2
# compatibility, non-GC64, the JIT off by default.
if command -v texluajit >/dev/null; then
	profile texluajit texluajit
	named texluajit "beta3 non-GC64"
	expect_stack "texluajit: under LuaJITTeX's own frames" "$OUT/texluajit.folded" \
		"^texluajit;_start;.*;main;lua_initialize;lua_pcall;$(L 'main chunk' 0);"
else
	fail texluajit "texluajit missing (sh scripts/install-packages.sh --test installs texlive-binaries)"
fi
finish
