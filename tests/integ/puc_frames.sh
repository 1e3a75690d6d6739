#!/bin/sh
# Lua frame labels against the real VMs: tests/progs/puc_frames_host.c is built against each of
# Debian's Lua 5.1-5.4 and Debian unstable's 5.4.9 and 5.5.1 (scripts/build-lua-sources.sh), runs a script calling probe() from known places, labels every frame of
# its own CallInfo chain with cmd/lua/puc/puc_frames.c and compares with lua_getinfo. On top of that
# agreement, the labels must be the ones expected here, so a namer that knows nothing fails.
. "$(dirname "$0")/../lib.sh"

cat >"$OUT/frames.lua" <<'LUA'
local load = loadstring or load
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
local o = setmetatable({}, mt)
local function tail() probe("tail") end
local function tailer() return tail() end
local list = { function() probe("intindex") end }

M.field_fn("field")
obj:method()
global_fn()
local_fn()
call_up()
for k in iter, nil, 0 do end
local x = o.missing
local y = o + 1
local z = o .. "s"
tailer()
local key = "field_fn"
M[key]("regkey")
list[1]()
pcall(function() probe("pcall") end)
string.gsub("a", "a", function() probe("gsub") end)
load("probe('string')")()
load("probe('named')", "=named")()
load("local a = 0\n" .. string.rep("a = a + 1\n", 400) .. "probe('long')", "@long.lua")()
function tagged(tag) probe(tag) end
local c = false
;(c and tagged or tagged)("cond")
;(c or tagged)("orjump")
for i = 1, 1 do tagged("forbody") end
if c then tagged("no") else tagged("else") end
for i = 1, 1 do end
tagged("afterloop")
local up = 1
local function clos() cl_fn(function() return up end) end
function cl_fn(f) probe("closure") end
clos()
M["a_very_long_field_name_that_exceeds_forty_chars"] = function() probe("longkey") end
M["a_very_long_field_name_that_exceeds_forty_chars"]()
G_M = M
local nums = {}
for i = 1, 300 do nums[i] = i + 0.5 end
load("local t = {" .. table.concat(nums, ",") .. "}\nG_M.field_fn('manyk')", "@manyk.lua")()
load("local function far()\n" .. string.rep("\n", 300) .. "probe('far')\nend\nfar()", "@far.lua")()
-- a chunk name past 40 bytes is a long string (5.5: its bytes are behind a pointer)
load("probe('longsrc')", "@" .. string.rep("dir/", 9) .. "long_source.lua")()
-- 5.5's syntax (older versions do not load it): indexing a named vararg parameter (OP_GETVARG),
-- and a function declared global
local v55 = load("local function va(...t) t[1]() end va(function() probe('vararg') end)", "=v55")
if v55 then v55() end
local g55 = load("global probe; global function gdecl() probe('gdecl') end gdecl()", "=g55")
if g55 then g55() end
-- called from C: named by the field of package.loaded holding them, as Lua 5.3+'s traceback does
function gfromc() probe("gfromc") end
pcall(gfromc)
package.loaded.gmod = { run = function() probe("modfromc") end }
pcall(package.loaded.gmod.run)
LUA

"$ROOT/scripts/build-lua-sources.sh" || fail "sid-lua" "scripts/build-lua-sources.sh failed"
SID=$("$ROOT/scripts/build-lua-sources.sh" --dir)
for v in 5.1 5.2 5.3 5.4 5.4.9 5.5.1; do
	case $v in
	*.*.*) inc=$(ls -d "$SID"/lua5.*-"$v"/src 2>/dev/null | head -1); lib="$inc/liblua.a -lm" ;;
	*) inc=/usr/include/lua$v; lib=-llua$v ;;
	esac
	if [ ! -f "$inc/lua.h" ]; then
		fail "lua$v" "$inc/lua.h missing: install liblua$v-dev (liblua5.1-0-dev for 5.1), or run scripts/build-lua-sources.sh"
		continue
	fi
	host=$OUT/host$v
	# shellcheck disable=SC2086
	if ! gcc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror $CMD_INC -I"$inc" \
		"$ROOT/tests/progs/puc_frames_host.c" "$ROOT/cmd/lua/puc/puc_frames.c" "$ROOT/cmd/lua/puc/puc_names.c" \
		"$ROOT/cmd/lua/puc/puc_globals.c" "$ROOT/cmd/lua/global_names.c" \
		"$ROOT/cmd/lua/puc/puc_layouts.c" "$ROOT/cmd/lua/puc/puc_layouts_table.c" "$ROOT/cmd/lua/label_cache.c" "$ROOT/cmd/lua/proto_labels.c" "$ROOT/cmd/lua/name_budget.c" \
		"$ROOT/cmd/safe_name.c" $UTIL_SRC -o "$host" $lib >"$OUT/build$v.log" 2>&1; then
		fail "lua$v-build" "see $OUT/build$v.log"
		continue
	fi
	log=$OUT/run$v.log
	(cd "$OUT" && "$host" frames.lua) >"$log" 2>&1
	rc=$?
	case $v in 5.5*) nprobes=31 ;; *) nprobes=29 ;; esac
	if [ "$rc" = 0 ] && grep -q ": $nprobes probes, 0 mismatches" "$log"; then
		pass "lua$v-agrees-with-getinfo"
	else
		fail "lua$v-agrees-with-getinfo" "exit $rc, see $log: $(grep -m3 -E 'MISMATCH|probes|lua' "$log" | tr '\n' ' ')"
	fi

	# expect NAME LABEL...: every LABEL is in probe NAME's stack (fixed-string match).
	expect() {
		p=$1; shift
		line=$(grep "^probe $p: " "$log")
		for want in "$@"; do
			case $line in *"$want"*) ;; *)
				fail "lua$v-$p" "no '$want' in: $line"; return ;;
			esac
		done
		pass "lua$v-$p"
	}
	expect field "main chunk (frames.lua:0)@21;field_fn (frames.lua:3)@3;probe [C]"
	expect method "method (frames.lua:5)@5;probe [C]"
	expect global "global_fn (frames.lua:6)@6;probe [C]"
	expect local "local_fn (frames.lua:7)@7;probe [C]"
	expect upvalue "call_up (frames.lua:10)@10;up_fn (frames.lua:8)@8;probe [C]"
	expect pcall "pcall [C];? (frames.lua:34)@34;probe [C]"
	expect gsub "gsub [C];? (frames.lua:35)@35;probe [C]"
	expect named "main chunk (named:0)@1;probe [C]"
	expect string "main chunk ([string \"probe('string')\"]:0)@1;probe [C]"
	expect long "main chunk (long.lua:0)@402;probe [C]"
	expect far "far (far.lua:1)@302;probe [C]"
	expect longsrc "main chunk (dir/dir/dir/dir/dir/dir/dir/dir/dir/long_source.lua:0)@1;probe [C]"
	expect tail "? (frames.lua:17)@17;probe [C]"
	expect gfromc "pcall [C];gfromc (frames.lua:67)@67;probe [C]"
	expect modfromc "pcall [C];gmod.run (frames.lua:69)@69;probe [C]"
	# more than 256 constants: the key goes through a register (LOADK), not an RK operand,
	# which 5.1 does not follow
	if [ "$v" = 5.1 ]; then k=?; else k=field_fn; fi
	expect manyk "main chunk (manyk.lua:0)@2;$k (frames.lua:3)@3;probe [C]"
	expect orjump "main chunk (frames.lua:0)@42;? (frames.lua:39)@39;probe [C]"
	expect afterloop "main chunk (frames.lua:0)@46;tagged (frames.lua:39)@39;probe [C]"
	expect closure "clos (frames.lua:48)@48;cl_fn (frames.lua:49)@49;probe [C]"
	expect longkey "a_very_long_field_name_that_exceeds_forty_chars (frames.lua:51)@51;probe [C]"
	if [ "$v" = 5.1 ]; then
		# 5.1 names no metamethod, and its for loop calls the iterator through a local
		expect index "main chunk (frames.lua:0)@27;? (frames.lua:13)@13"
		expect iter "(for generator) (frames.lua:11)@11;probe [C]"
		expect regkey "? (frames.lua:3)@3;probe [C]"
		expect cond "tagged (frames.lua:39)@39;probe [C]"
	else
		expect index "main chunk (frames.lua:0)@27;__index (frames.lua:13)@13;probe [C]"
		expect add "__add (frames.lua:14)@14;probe [C]"
		expect concat "__concat (frames.lua:15)@15;probe [C]"
		expect iter "for iterator (frames.lua:11)@11;probe [C]"
		expect regkey "? (frames.lua:3)@3;probe [C]"
		# the function comes from code a jump may skip: Lua gives up, so must we
		expect cond "main chunk (frames.lua:0)@41;? (frames.lua:39)@39;probe [C]"
	fi
	case $v in 5.1|5.2|5.3) ;; *) expect intindex "integer index (frames.lua:19)@19;probe [C]" ;; esac
	case $v in 5.5*)
		# Lua calls it "field '?'": the key is not a constant
		expect vararg "va (v55:1)@1;? (v55:1)@1;probe [C]"
		expect gdecl "g55 (g55:0)@1;gdecl (g55:1)@1;probe [C]"
	esac
done

finish
