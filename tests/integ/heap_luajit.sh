# lua-flame heap on LuaJIT 2.1: OpenResty's GC64 (Debian's luajit), upstream GC64 (Debian's
# luajit package, unpacked), both forks built without GC64 (scripts/gen-luajit-layouts.sh
# --build-vms), Tarantool's non-GC64 fork (Debian's tarantool running the workload as its
# script), OpenResty's 2025 tree and the 2.1.0-beta3 release (Debian's texluajit).
# tests/lua/heap_shapes.lua's four structures under their paths against their in-process
# measurements, cdata and string buffers (tests/lua/heap_luajit_kinds.lua), the total against
# gc.total, the target left running.
. "$(dirname "$0")/../lib.sh"

. "$ROOT/tests/heap_lib.sh"

# totals NAME: exit status, the target still running, the pause said, total within 1% of gc.total
totals() {
	n=$1 F=$OUT/$1.folded
	check "$n: heap exits 0" [ "$(cat "$OUT/$n.rc")" = 0 ]
	state=$(awk '{ print $3 }' "/proc/$LAST_PID/stat" 2>/dev/null)
	check "$n: the target runs on after the snapshot (state $state)" [ "$state" = S ] || [ "$state" = R ]
	vm=$(sed -n 's/.*the VM counts \([0-9]*\) bytes (gc.total.*/\1/p' "$OUT/$n.err")
	check "$n: gc.total is printed" [ -n "$vm" ]
	t=$(total "$F")
	check "$n: snapshot total $t within 1% of gc.total $vm" within "$t" "${vm:-0}" 10
	check "$n: the pause is printed" grep -q 'held [0-9]* threads* for [0-9.]* ms' "$OUT/$n.err"
}

# shapes NAME ROOT CMD...: ROOT is the process name, the first frame
shapes() {
	n=$1 r=$2
	shift 2
	snap "$n" tests/lua/heap_shapes.lua "$@"
	totals "$n"
	F=$OUT/$n.folded S=$OUT/$n.sizes
	shape_paths "$n" "$F" "$S" "$r"
	if command -v go >/dev/null; then
		go tool pprof -sample_index=inuse_space -top "$OUT/$n.pb.gz" >"$OUT/$n.pprof" 2>&1
		check "$n: go tool pprof reads the heap profile's inuse_space" grep -q '^Type: inuse_space' "$OUT/$n.pprof"
	fi
	pkill -P "$LAST_PID"; kill "$LAST_PID"
}

# kinds NAME CMD...
kinds() {
	n=$1-kinds
	shift
	snap "$n" tests/lua/heap_luajit_kinds.lua "$@"
	totals "$n"
	F=$OUT/$n.folded S=$OUT/$n.sizes
	expect_stack "$n: vla;[cdata]" "$F" "^luajit;vla;\\[cdata\\]\$"
	expect_stack "$n: blocks;[n];[cdata]" "$F" "^luajit;blocks;\\[n\\];\\[cdata\\]\$"
	expect_stack "$n: bufs;[n];[userdata]" "$F" "^luajit;bufs;\\[n\\];\\[userdata\\]\$"
	for k in vla blocks bufs; do
		got=$(count "$F" "^luajit;$k;") want=$(measured "$k" "$S")
		check "$n: $k: $got bytes under $k, measured $want" within "$got" "$want" 20
	done
	pkill -P "$LAST_PID"; kill "$LAST_PID"
}

shapes openresty_gc64 luajit /usr/bin/luajit
kinds openresty_gc64 /usr/bin/luajit

# upstream LuaJIT is not installed (it would replace OpenResty's): unpack its packages.
PKGS=$ROOT/.cache/pkgs UP=$ROOT/.cache/pkgs/upstream
if [ ! -x "$UP/usr/bin/luajit" ]; then
	mkdir -p "$PKGS" && (cd "$PKGS" && apt-get download -qq luajit libluajit-5.1-2 >/dev/null 2>&1 \
		&& for d in luajit_*.deb libluajit-5.1-2_*.deb; do dpkg-deb -x "$d" upstream; done)
fi
UPLIB=$(ls "$UP"/usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2.* 2>/dev/null | head -1)
if [ -n "$UPLIB" ]; then
	shapes upstream_gc64 luajit env LD_LIBRARY_PATH="$(dirname "$UPLIB")" "$UP/usr/bin/luajit"
	kinds upstream_gc64 env LD_LIBRARY_PATH="$(dirname "$UPLIB")" "$UP/usr/bin/luajit"
else
	fail upstream_gc64 "the upstream luajit package could not be unpacked into $UP"
fi

# Debian ships GC64 builds only: the non-GC64 ones are built from the same sources.
for v in upstream openresty; do
	bin=$ROOT/.cache/luajit-layouts/$v-0/src/luajit
	[ -x "$bin" ] || sh "$ROOT/scripts/gen-luajit-layouts.sh" --build-vms >"$OUT/build-vms.log" 2>&1
	if [ -x "$bin" ]; then
		shapes "${v}_nogc64" luajit "$bin"
		kinds "${v}_nogc64" "$bin"
	else
		fail "${v}_nogc64" "$bin could not be built, see $OUT/build-vms.log"
	fi
done
if command -v tarantool >/dev/null; then
	shapes tarantool_nogc64 tarantool tarantool
else
	fail tarantool_nogc64 "tarantool is not installed (scripts/install-packages.sh installs it)"
fi
# OpenResty's 2025 tree (Debian unstable's luajit, a global_State one word longer) and the
# 2.1.0-beta3 release of 2017 with Lua 5.2 compatibility (Debian's LuaJITTeX), which runs a
# script given as its argument as a Lua interpreter would
"$ROOT/scripts/build-lua-sources.sh" || fail openresty25_gc64 "scripts/build-lua-sources.sh failed"
SIDLJ=$(ls -d "$("$ROOT/scripts/build-lua-sources.sh" --dir)"/luajit-*/src/luajit 2>/dev/null | head -1)
if [ -x "$SIDLJ" ]; then
	shapes openresty25_gc64 luajit "$SIDLJ"
	kinds openresty25_gc64 "$SIDLJ"
else
	fail openresty25_gc64 "no luajit built under $("$ROOT/scripts/build-lua-sources.sh" --dir)"
fi
if command -v texluajit >/dev/null; then
	shapes beta3_nogc64 texluajit texluajit
else
	fail beta3_nogc64 "texluajit is not installed (scripts/install-packages.sh --test installs texlive-binaries)"
fi
finish
