# What lua-flame says while and after recording: a live status line only on a terminal
# (silenced by -q), the summary with how to open each output, and a warning that names
# the knobs when samples are lost.
. "$(dirname "$0")/../lib.sh"

cat >"$OUT/busy.lua" <<'LUA'
local function spin(n) local x = 0 for i = 1, n do x = x + i % 3 end return x end
while true do spin(100000) end
LUA
bg_start lua5.4 "$OUT/busy.lua"
T=$LAST_PID
sleep 0.3

# On a terminal (script(1) provides one): the line is redrawn with \r.
script -qec "'$LF' -p $T -d 2.5 -o '$OUT/tty.folded'" /dev/null >"$OUT/tty.out" 2>&1
check "terminal: status line redrawn in place" grep -q "$(printf '\r')lua-flame: 1s / 2.5s, [0-9]* samples, 0 lost, Lua 5.4" "$OUT/tty.out"
check "terminal: status line counts samples" grep -Eq "lua-flame: 2s / 2.5s, [1-9][0-9]* samples" "$OUT/tty.out"
script -qec "'$LF' -q -p $T -d 1.5 -o '$OUT/ttyq.folded'" /dev/null >"$OUT/ttyq.out" 2>&1
check "terminal with -q: no status line" sh -c "! grep -q ' samples, 0 lost' '$OUT/ttyq.out'"
check "terminal with -q: still the summary" grep -q "samples (0 lost)" "$OUT/ttyq.out"

# Not a terminal: the summary only, with a hint for each output format.
"$LF" -p "$T" -d 1.5 -o "$OUT/a.svg" -o "$OUT/a.folded" -o "$OUT/a.pb.gz" -o "$OUT/a.speedscope.json" \
	-o "$OUT/callgrind.out.a" 2>"$OUT/pipe.err"
check "pipe: exit 0" [ $? = 0 ]
check "pipe: no status line" sh -c "! grep -q \"\$(printf '\\r')\" '$OUT/pipe.err'"
check "summary: samples and complete stacks" grep -Eq "^lua-flame: [1-9][0-9]* samples \(0 lost\), [0-9]+ distinct stacks?, [0-9.]+% complete" "$OUT/pipe.err"
check "summary: Lua runtime found" grep -q "^lua-flame: Lua runtime: Lua 5.4.[0-9]* (/usr/bin/lua5.4)" "$OUT/pipe.err"
check "summary: svg opens in a browser" grep -q "^lua-flame: wrote $OUT/a.svg: open it in a web browser$" "$OUT/pipe.err"
check "summary: pprof hint" grep -q "^lua-flame: wrote $OUT/a.pb.gz: go tool pprof -http=: $OUT/a.pb.gz$" "$OUT/pipe.err"
check "summary: speedscope hint" grep -q "^lua-flame: wrote $OUT/a.speedscope.json: drop it on https://www.speedscope.app$" "$OUT/pipe.err"
check "summary: callgrind hint" grep -q "^lua-flame: wrote $OUT/callgrind.out.a: kcachegrind $OUT/callgrind.out.a" "$OUT/pipe.err"
check "summary: folded hint" grep -q "^lua-flame: wrote $OUT/a.folded: lua-flame render -o flame.svg $OUT/a.folded" "$OUT/pipe.err"

# Lost samples: random call chains make many distinct stacks; a tiny map cannot hold them.
cat >"$OUT/chains.lua" <<'LUA'
local a, b
local function leaf() local x = 0 for i = 1, 2000 do x = x + i end return x end
function a(n) if n == 0 then return leaf() end if math.random(2) == 1 then return a(n - 1) + 0 end return b(n - 1) + 0 end
function b(n) if n == 0 then return leaf() end if math.random(2) == 1 then return a(n - 1) + 0 end return b(n - 1) + 0 end
while true do a(12) end
LUA
bg_start lua5.4 "$OUT/chains.lua"
sleep 0.3
"$LF" -p "$LAST_PID" -d 3 -F 999 --max-stacks 64 -o "$OUT/lost.folded" 2>"$OUT/lost.err"
check "lost samples: exit 0" [ $? = 0 ]
check "lost samples: warning names --max-stacks and -F" \
	grep -Eq "[0-9]+ samples lost: .*--max-stacks 64\); rerun with --max-stacks 256, or a lower rate than -F 999" "$OUT/lost.err"
check "lost samples: counted in the summary" grep -Eq "samples \([1-9][0-9]* lost\)" "$OUT/lost.err"
finish
