# lua-flame -- COMMAND: the command is started held, runs once sampling is on, is
# profiled to its exit, and its exit status becomes lua-flame's.
. "$(dirname "$0")/../lib.sh"

cat >"$OUT/phases.lua" <<'LUA'
local function work(n) local x = 0 for i = 1, n do x = x + i % 7 end return x end
local function early() local t = os.clock() while os.clock() - t < 0.5 do work(10000) end end
local function late() local t = os.clock() while os.clock() - t < 1.5 do work(10000) end end
early()
late()
os.exit(tonumber(arg[1]) or 0)
LUA

"$LF" -F 499 -o "$OUT/run.folded" -- lua5.4 "$OUT/phases.lua" 7 2>"$OUT/run.err"
rc=$?
check "exit status is the command's (7)" [ "$rc" = 7 ]
check "root frame is the command's name" sh -c "awk -F';' '{ print \$1 }' '$OUT/run.folded' | sort -u | grep -qx lua5.4"
# The first phase runs from the start: it is in the profile with about its share (25%).
e=$(share "$OUT/run.folded" ';early \([^;]*phases.lua:2\);')
l=$(share "$OUT/run.folded" ';late \([^;]*phases.lua:3\);')
check "first phase profiled from the start: early ${e}% (expected about 25%)" [ "$e" -ge 15 ]
check "second phase profiled to the end: late ${l}% (expected about 75%)" [ "$l" -ge 55 ]
check "Lua frames under the host's lua_pcallk" [ "$(share "$OUT/run.folded" 'lua_pcallk;main chunk \([^;]*phases.lua:0\);(early|late) ')" -ge 70 ]
check "summary names the Lua runtime" grep -q "Lua runtime: Lua 5.4" "$OUT/run.err"

# A command that succeeds exits 0; one that exits at once still gives valid outputs.
"$LF" -q -o "$OUT/true.folded" -- true 2>"$OUT/true.err"
check "a command that exits at once: status 0" [ $? = 0 ]
check "a command that exits at once: output written" [ -f "$OUT/true.folded" ]
"$LF" -q -o "$OUT/false.folded" -- sh -c 'exit 42' 2>"$OUT/false.err"
check "a failing command's status is passed on (42)" [ $? = 42 ]

# -d shorter than the command: the profile covers -d from the command's start, then
# lua-flame waits for the command and returns its status. The first phase runs 0.5 s
# of CPU time, so a window of 0.4 s ends inside it even when the command's start was slow.
"$LF" -d 0.4 -o "$OUT/short.folded" -- lua5.4 "$OUT/phases.lua" 5 2>"$OUT/short.err"
check "-d shorter than the command: still its status (5)" [ $? = 5 ]
check "-d shorter than the command: says it waits" grep -q "waiting for lua5.4" "$OUT/short.err"
check "-d shorter than the command: only the first phase" [ "$(share "$OUT/short.folded" ';late ')" = 0 ]
finish
