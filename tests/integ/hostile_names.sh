# Names a hostile program controls cannot forge folded stacks or counts, nor reach a
# terminal raw: .symtab names patched to hold a newline with a fake count, ';', CR, TAB,
# DEL, ESC and an OSC title sequence, a name ending in " <digits>", a thread named with
# ESC, and a stripped copy whose file (and process) name holds ESC. Each byte must stay
# visible as \xHH text in the folded file, the SVG (well-formed), JSON and `dump`.
. "$(dirname "$0")/../lib.sh"

gcc -O1 -pthread -o "$OUT/hn" "$ROOT/tests/progs/hostile_names.c" || { fail build "gcc failed"; finish; }
# Same lengths as the placeholders, so the string table keeps its layout.
perl -0777 -pi -e 's/hx_999999_forged/hx 999999\nforged/; s/hz_999999/hz 999999/;
	s/hy_semi_ctl_esc_/hy;\r\t\x7f\x1b[2J\x1b]0;t\x07/' "$OUT/hn"
BAD=$(printf 'h\033[31mred')
cp "$OUT/hn" "$OUT/$BAD" && strip "$OUT/$BAD"
bg_start "$OUT/hn"; A=$LAST_PID
bg_start "$OUT/$BAD"; B=$LAST_PID
sleep 0.3
"$LF" -p "$B,$A" -d 3 -F 499 --threads -o "$OUT/h.folded" -o "$OUT/h.svg" -o "$OUT/h.speedscope.json" \
	2>"$OUT/stderr"
check "exit status 0" [ $? = 0 ]
F=$OUT/h.folded
# Every line is "frames count" and no frame or count came from a name.
check "no control byte in the folded file" sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$F'"
check "every line ends in its count" sh -c "! grep -qvE '^[^ ].* [0-9]+\$' '$F'"
check "no forged line" sh -c "! grep -q '^forged' '$F'"
t=$(total "$F")
check "total is what was sampled ($t samples, at most 3 s x 2 CPUs x 499 Hz)" [ "$t" -gt 100 -a "$t" -le 3100 ]
check "newline shown as \\x0a, not a new line" grep -qF ';main;hx 999999\x0aforged ' "$F"
check "name ending in digits keeps its count apart" grep -qE ';main;hz\\x20999999 [0-9]+$' "$F"
check "';' CR TAB DEL ESC BEL shown as text" \
	grep -qF ';worker;hy\x3b\x0d\x09\x7f\x1b[2J\x1b]0\x3bt\x07 ' "$F"
check "thread name with ESC shown as text" grep -qE "^hn;w\\\\x1b\\[2Jx-[0-9]+;" "$F"
check "process name with ESC shown as text" grep -qF 'h\x1b[31mred;h\x1b[31mred-' "$F"
check "stripped file with ESC in its path labelled as text" grep -qF ';h\x1b[31mred+0x' "$F"
check "frames of the main thread all in hx or hz" [ "$(count "$F" '^hn;hn-[0-9]+;.*;main;h[xz]')" -gt 0 ]
check "terminal messages have no control byte" sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$OUT/stderr'"
check "terminal messages show the path's ESC as text" grep -qF 'h\x1b[31mred' "$OUT/stderr"
check "SVG well-formed" xmllint --noout "$OUT/h.svg"
check "SVG has the escaped name" grep -qF 'hy\x3b\x0d\x09\x7f\x1b[2J' "$OUT/h.svg"
check "speedscope JSON parses" jq -e '.shared.frames | length > 0' "$OUT/h.speedscope.json"
check "JSON keeps the escaped name" sh -c "jq -r '.shared.frames[].name' '$OUT/h.speedscope.json' | \
	grep -qF 'hx 999999\x0aforged'"

"$LF" dump -p "$A" >"$OUT/dump" 2>"$OUT/dump.err"
check "dump exit status 0" [ $? = 0 ]
check "dump has no control byte" sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$OUT/dump' '$OUT/dump.err'"
check "dump names the thread as text" grep -qF '"w\x1b[2Jx"' "$OUT/dump"
# A Lua function named with " (" (a table field may hold any string): in `NAME (CHUNK:LINE)`
# the first " (" ends the name, so its space is written as \x20 and every output keeps the
# name and the chunk apart.
cat >"$OUT/paren.lua" <<'LUA'
local t = {}
t["odd (x.lua:9)"] = function(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local c = os.clock()
while os.clock() - c < 1.5 do t["odd (x.lua:9)"](100000) end
LUA
"$LF" -q -F 499 -o "$OUT/paren.folded" -o "$OUT/paren.speedscope.json" -- lua5.4 "$OUT/paren.lua" 2>"$OUT/paren.err"
check "a name holding \" (\" keeps it as text in folded stacks" \
	[ "$(count "$OUT/paren.folded" ';odd\\x20\(x\.lua:9\) \([^;]*paren\.lua:2\)$')" -gt 0 ]
check "speedscope: that function's name and file are its own" sh -c "jq -r '.shared.frames[] |
	select(.name | startswith(\"odd\")) | .name + \"|\" + .file' '$OUT/paren.speedscope.json' |
	grep -q '^odd.x20(x.lua:9)|.*paren.lua\$'"
finish
