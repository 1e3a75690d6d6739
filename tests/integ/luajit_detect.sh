#!/bin/sh
# Checks LuaJIT variant detection on real Debian binaries (upstream libluajit, OpenResty's
# luajit2, Tarantool), from their dynamic symbols and .rodata, and finds and validates the
# global state of live VMs of each with the generated layouts, walking their Lua frames.
. "$(dirname "$0")/../lib.sh"

T=$ROOT/build/tests/test_luajit_layouts
PKGS=$ROOT/.cache/pkgs
[ -x "$T" ] || { fail build "$T missing (make build/tests/test_luajit_layouts)"; finish; }

# detect NAME FILE EXPECTED: the variant detected from FILE's symbols and .rodata.
detect() {
	if [ ! -f "$2" ]; then fail "$1" "$2 missing"; return; fi
	nm -D --defined-only "$2" 2>/dev/null | awk '{ print $NF }' >"$OUT/$1.syms"
	objcopy -O binary --only-section=.rodata "$2" "$OUT/$1.rodata" 2>/dev/null
	got=$("$T" --detect "$OUT/$1.syms" "$OUT/$1.rodata")
	case $got in
	*"variant=$3") pass "$1" ;;
	*) fail "$1" "got '$got', want variant=$3" ;;
	esac
}

# upstream LuaJIT is not installed (it would replace OpenResty's): unpack its packages.
UP=$PKGS/upstream
if [ ! -x "$UP/usr/bin/luajit" ]; then
	mkdir -p "$PKGS" && (cd "$PKGS" && apt-get download -qq luajit libluajit-5.1-2 >/dev/null 2>&1 \
		&& for d in luajit_*.deb libluajit-5.1-2_*.deb; do dpkg-deb -x "$d" upstream; done)
fi
UPLIB=$(ls "$UP"/usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2.* 2>/dev/null | head -1)

detect detect_upstream "${UPLIB:-$UP/missing}" "upstream GC64"
detect detect_openresty /usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2 "openresty GC64"
detect detect_tarantool /usr/bin/tarantool "tarantool non-GC64"
detect detect_not_luajit "$(command -v lua5.1 || echo /bin/true)" "unknown"

cat >"$OUT/loop.lua" <<'LUA'
local function leaf(n) local s = 0 for i = 1, n do s = s + os.clock() end return s end
local function f() local r = leaf(100) return r end
while true do f() end
LUA

# live NAME EXPECTED CMD...: finds g of the VM CMD runs and walks its frames.
live() {
	name=$1; want=$2; shift 2
	bg_start "$@" "$OUT/loop.lua"
	sleep 1
	"$T" --scan "$LAST_PID" loop.lua >"$OUT/$name.log" 2>&1
	rc=$?
	kill "$LAST_PID" 2>/dev/null
	if [ $rc = 0 ] && grep -q "^scan: 1 found, variant=$want," "$OUT/$name.log"; then
		pass "$name"
	else
		fail "$name" "$(tail -1 "$OUT/$name.log"), want $want"
	fi
}

live live_openresty_jit "openresty GC64" luajit
live live_openresty_interp "openresty GC64" luajit -joff
if [ -n "$UPLIB" ]; then
	live live_upstream "upstream GC64" env LD_LIBRARY_PATH="$(dirname "$UPLIB")" "$UP/usr/bin/luajit"
else
	fail live_upstream "upstream luajit package unavailable"
fi
live live_tarantool "tarantool non-GC64" tarantool
# Self-built non-GC64 VMs, when scripts/gen-luajit-layouts.sh --build-vms made them.
for v in upstream openresty; do
	bin=$ROOT/.cache/luajit-layouts/$v-0/src/luajit
	[ -x "$bin" ] && live "live_${v}_nogc64" "$v non-GC64" "$bin"
done
finish
