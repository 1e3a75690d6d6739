#!/bin/sh
# LuaJIT frame labels against real VMs: tests/progs/luajit_frames_host.c is built against
# Debian's OpenResty LuaJIT (GC64) and, when scripts/gen-luajit-layouts.sh --build-vms has left
# them in .cache, non-GC64 upstream and OpenResty builds. It runs a script calling probe() from
# known places, walks its own frames from L->base as the BPF walker does, labels every frame
# with cmd/lua/luajit/luajit_frames.c and compares with lua_getinfo. On top of that agreement, the labels
# must be the ones expected here, so a namer that knows nothing fails.
. "$(dirname "$0")/../lib.sh"

cat >"$OUT/frames.lua" <<'LUA'
local M = {}
function M.field_fn(tag) probe(tag) end
local obj = {}
function obj:method() probe("method") end
function global_fn() probe("global") end
local function local_fn() probe("local") end
local function make() return function() probe("upvalue") end end
local up_fn = make()
local function call_up() up_fn() end
local function iter(s, i) if i < 1 then probe("iter") return i + 1 end end
local mt = {}
mt.__index = function(t, k) probe("index") return 1 end
mt.__add = function(a, b) probe("add") return 0 end
mt.__concat = function(a, b) probe("concat") return "" end
mt.__call = function(self, x) probe("call") end
mt.__newindex = function(t, k, v) probe("newindex") end
mt.__unm = function(a) probe("unm") return 0 end
mt.__lt = function(a, b) probe("lt") return true end
local o = setmetatable({}, mt)
local o2 = setmetatable({}, mt)
local function tail() probe("tail") end
local function tailer() return tail() end
local function va(...) probe("vararg") return ... end

M.field_fn("field")
obj:method()
global_fn()
local_fn()
call_up()
for k in iter, nil, 0 do end
local x = o.missing
local y = o + 1
local z = o .. "s"
o(1)
o.newkey = 1
local u = -o
local lt = o < o2
tailer()
va(1, 2, 3)
local key = "field_fn"
M[key]("regkey")
pcall(function() probe("pcall") end)
xpcall(function() probe("xpcall") end, debug.traceback)
string.gsub("a", "a", function() probe("gsub") end)
table.sort({ 2, 1 }, function(a, b) if not SORTED then SORTED = true probe("sort") end return a < b end)
callf(function() probe("fromc") end)
coroutine.wrap(function() probe("coro") end)()
loadstring("probe('string')")()
loadstring("probe('named')", "=named")()
loadstring("probe('nl')\n", "first line\nsecond")()
loadstring("probe('longstr')", string.rep("x", 60))()
loadstring("local a = 0\n" .. string.rep("a = a + 1\n", 400) .. "probe('long')", "@long.lua")()
loadstring(string.rep("\n", 70000) .. "probe('huge')", "@huge.lua")()
function tagged(tag) probe(tag) end
for i = 1, 1 do tagged("forbody") end
local up = 1
local function clos() cl_fn(function() return up end) end
function cl_fn(f) probe("closure") end
clos()
local function rec(n) if n == 0 then probe("deep") else rec(n - 1) end end
rec(20)
local function hot(i) if i == 300 then probe("jit") end return i end
for i = 1, 300 do hot(i) end
local alias = global_fn
local t2 = { f = function() probe("copied") end }
local g = t2.f
g()
ffcheck(string.rep, "string.rep")
ffcheck(pairs, "pairs")
ffcheck(string.gsub, "string.gsub")
ffcheck(table.sort, "table.sort")
ffcheck(io.write, "io.write")
-- called from C: named by the field of package.loaded holding them, as Lua 5.3+'s traceback does
function gfromc() probe("gfromc") end
pcall(gfromc)
package.loaded.gmod = { run = function() probe("modfromc") end }
pcall(package.loaded.gmod.run)
LUA

# run_host NAME CFLAGS... -- LIBS...: builds the host, runs it, checks the labels.
run_host() {
	v=$1; shift
	cflags=""
	while [ "$1" != "--" ]; do cflags="$cflags $1"; shift; done
	shift
	host=$OUT/host-$v
	# shellcheck disable=SC2086
	if ! gcc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror $CMD_INC $cflags \
		"$ROOT/tests/progs/luajit_frames_host.c" "$ROOT/cmd/lua/luajit/luajit_frames.c" \
		"$ROOT/cmd/lua/luajit/luajit_names.c" "$ROOT/cmd/lua/luajit/luajit_layouts.c" "$ROOT/cmd/lua/luajit/luajit_layouts_table.c" "$ROOT/cmd/lua/luajit/luajit_arch.c" "$ROOT/cmd/lua/label_cache.c" "$ROOT/cmd/lua/proto_labels.c" \
		"$ROOT/cmd/lua/luajit/luajit_globals.c" "$ROOT/cmd/lua/global_names.c" \
		"$ROOT/cmd/lua/name_budget.c" "$ROOT/cmd/safe_name.c" $UTIL_SRC -o "$host" "$@" \
		>"$OUT/build-$v.log" 2>&1; then
		fail "$v-build" "see $OUT/build-$v.log"
		return
	fi
	log=$OUT/run-$v.log
	(cd "$OUT" && "$host" frames.lua) >"$log" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && grep -q ': 35 probes, 5 builtins, 0 mismatches' "$log"; then
		pass "$v-agrees-with-getinfo"
	else
		fail "$v-agrees-with-getinfo" "exit $rc, see $log: $(grep -m3 -E 'MISMATCH|probes|layout|lua' "$log" | tr '\n' ' ')"
	fi
	expect_all "$v" "$log"
}

# expect V LOG NAME LABEL...: every LABEL is in probe NAME's stack (fixed-string match).
expect() {
	ev=$1 elog=$2 ep=$3; shift 3
	line=$(grep "^probe $ep: " "$elog")
	for want in "$@"; do
		case $line in *"$want"*) ;; *)
			fail "$ev-$ep" "no '$want' in: $line"; return ;;
		esac
	done
	pass "$ev-$ep"
}

# expect_all V LOG: the labels every variant must give.
expect_all() {
	m="main chunk (frames.lua:0)"
	expect "$1" "$2" field "$m@25;field_fn (frames.lua:2)@2;probe [C]"
	expect "$1" "$2" method "$m@26;method (frames.lua:4)@4;probe [C]"
	expect "$1" "$2" global "$m@27;global_fn (frames.lua:5)@5;probe [C]"
	expect "$1" "$2" local "$m@28;local_fn (frames.lua:6)@6;probe [C]"
	expect "$1" "$2" upvalue "$m@29;call_up (frames.lua:9)@9;up_fn (frames.lua:7)@7;probe [C]"
	# LuaJIT calls a generic-for iterator by its hidden local
	expect "$1" "$2" iter "$m@30;(for generator) (frames.lua:10)@10;probe [C]"
	expect "$1" "$2" index "$m@31;__index (frames.lua:12)@12;probe [C]"
	expect "$1" "$2" add "$m@32;__add (frames.lua:13)@13;probe [C]"
	expect "$1" "$2" concat "$m@33;__concat (frames.lua:14)@14;probe [C]"
	expect "$1" "$2" call "$m@34;o (frames.lua:15)@15;probe [C]"
	expect "$1" "$2" newindex "$m@35;__newindex (frames.lua:16)@16;probe [C]"
	expect "$1" "$2" unm "$m@36;__unm (frames.lua:17)@17;probe [C]"
	expect "$1" "$2" lt "$m@37;__lt (frames.lua:18)@18;probe [C]"
	# a tail call keeps the caller's link: LuaJIT names the callee after the replaced function
	expect "$1" "$2" tail "$m@38;tailer (frames.lua:21)@21;probe [C]"
	expect "$1" "$2" vararg "$m@39;va (frames.lua:23)@23;probe [C]"
	expect "$1" "$2" regkey "$m@41;? (frames.lua:2)@2;probe [C]"
	expect "$1" "$2" pcall "$m@42;pcall [builtin pcall];? (frames.lua:42)@42;probe [C]"
	expect "$1" "$2" xpcall "$m@43;xpcall [builtin xpcall];? (frames.lua:43)@43;probe [C]"
	expect "$1" "$2" gsub "$m@44;gsub [builtin string.gsub];? (frames.lua:44)@44;probe [C]"
	expect "$1" "$2" sort "$m@45;sort [builtin table.sort];? (frames.lua:45)@45;probe [C]"
	expect "$1" "$2" fromc "$m@46;callf [C];? (frames.lua:46)@46;probe [C]"
	expect "$1" "$2" coro ": ? (frames.lua:47)@47;probe [C]"
	expect "$1" "$2" gfromc "$m@75;pcall [builtin pcall];gfromc (frames.lua:74)@74;probe [C]"
	expect "$1" "$2" modfromc "$m@77;pcall [builtin pcall];gmod.run (frames.lua:76)@76;probe [C]"
	expect "$1" "$2" string "main chunk ([string \"probe('string')\"]:0)@1;probe [C]"
	expect "$1" "$2" named "main chunk (named:0)@1;probe [C]"
	expect "$1" "$2" nl "main chunk ([string \"first line...\"]:0)@1;probe [C]"
	expect "$1" "$2" longstr "main chunk ([string \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\"]:0)@1;"
	expect "$1" "$2" long "main chunk (long.lua:0)@402;probe [C]"
	# 70000 lines: 4-byte line info
	expect "$1" "$2" huge "main chunk (huge.lua:0)@70001;probe [C]"
	expect "$1" "$2" forbody "$m@55;tagged (frames.lua:54)@54;probe [C]"
	expect "$1" "$2" closure "$m@59;clos (frames.lua:57)@57;cl_fn (frames.lua:58)@58;probe [C]"
	expect "$1" "$2" deep "$m@61;rec (frames.lua:60)@60;rec (frames.lua:60)@60;rec (frames.lua:60)@60;"
	# hot() runs as a trace until i == 300 leaves it for the interpreter
	expect "$1" "$2" jit "$m@63;hot (frames.lua:62)@62;probe [C]"
	expect "$1" "$2" copied "$m@67;g (frames.lua:65)@65;probe [C]"
	n=$(grep -c '^builtin ' "$2")
	if [ "$n" = 5 ] && grep -q '^builtin pairs: ' "$2" && grep -q '^builtin string.rep: ' "$2"; then
		pass "$1-builtins"
	else
		fail "$1-builtins" "$n of 5 built-ins named, see $2"
	fi
}

if [ -f /usr/include/luajit-2.1/luajit.h ]; then
	run_host openresty-gc64 -I/usr/include/luajit-2.1 -- -lluajit-5.1
else
	fail openresty-gc64 "/usr/include/luajit-2.1/luajit.h missing: apt-get install libluajit2-5.1-dev"
fi
# Debian ships GC64 builds only; scripts/gen-luajit-layouts.sh --build-vms makes these
for v in openresty upstream; do
	d=$ROOT/.cache/luajit-layouts/$v-0/src
	if [ ! -f "$d/libluajit.a" ] || [ ! -f "$d/luajit.h" ]; then continue; fi
	run_host "$v-nogc64" -I"$d" -- "$d/libluajit.a" -lm -ldl
done

finish
