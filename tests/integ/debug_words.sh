# LUA_FLAME_DEBUG=words: every stack named is printed on stderr with the words the kernel
# recorded for it (bpf/stack_record.h), and only then: what a wrong frame was made from
# (a '?', a Lua frame under the wrong native one) must be readable without rebuilding.
. "$(dirname "$0")/../lib.sh"

cd "$ROOT" && bg_start lua5.4 tests/progs/demo.lua
sleep 0.3
LUA_FLAME_DEBUG=words "$LF" -p "$LAST_PID" -d 2 -F 499 -o "$OUT/words.folded" 2>"$OUT/words.err"
"$LF" -p "$LAST_PID" -d 1 -F 499 -o "$OUT/plain.folded" 2>"$OUT/plain.err"
kill "$LAST_PID"

n=$(grep -c '^lua-flame: words: ' "$OUT/words.err")
check "a words line per stack named ($n lines, $(wc -l <"$OUT/words.folded") stacks)" \
	[ "$n" -ge "$(wc -l <"$OUT/words.folded")" ] && [ "$n" -gt 0 ]
# each stack of the profile, as the words line names it (the line's text up to " : ")
sed -n 's/^lua-flame: words: \(.*\) : .*/\1/p' "$OUT/words.err" | sort -u >"$OUT/named"
missing=$(sed 's/ [0-9]*$//' "$OUT/words.folded" | sort -u | comm -23 - "$OUT/named" | wc -l)
check "every stack of the profile has its words line ($missing without)" [ "$missing" = 0 ]
# a stack with Lua frames has the lua_State's word (tag 0x10) and a Lua function's (0x11)
lua=$(grep -cE '^lua-flame: words: .*main chunk \(tests/progs/demo\.lua:0\).* : .* 10[0-9a-f]{14} .* 11[0-9a-f]{14} ' "$OUT/words.err")
check "Lua stacks' lines hold the lua_State's and the functions' words ($lua lines)" [ "$lua" -gt 0 ]
check "no words lines without LUA_FLAME_DEBUG=words" sh -c "! grep -q 'words:' '$OUT/plain.err'"
finish
