# `lua-flame top`: in an 80x24 terminal (tmux), on a Lua program whose hottest function is known,
# the top row names it; the keys sort by total and show Lua functions only; q quits and gives the
# terminal back. Through a pipe it prints plain blocks of lines, no escape sequences.
. "$(dirname "$0")/../lib.sh"

cat >"$OUT/hot.lua" <<'LUA'
local function hottest(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local function cooler(n) local s = 0 for i = 1, n do s = s + i % 5 end return s end
while true do
  local a = hottest(300000)
  local b = cooler(100000)
end
LUA
bg_start lua5.4 "$OUT/hot.lua"
T=$LAST_PID
sleep 0.3

# rows PANE: the table's rows (after the line naming the columns)
rows() { sed -n '/%SELF .*FUNCTION/,$p' "$1" | sed 1d | grep -v '^ *$'; }

S=lftop$$
tmux kill-session -t "$S" 2>/dev/null
tmux new-session -d -s "$S" -x 80 -y 24 "'$LF' top -p $T -F 199; echo \"exit \$?\"; sleep 30"
PIDS_TO_KILL="$PIDS_TO_KILL $(tmux display -p -t "$S" '#{pane_pid}')"
sleep 3.5
tmux capture-pane -p -t "$S" >"$OUT/self.pane"
rows "$OUT/self.pane" >"$OUT/self.rows"
check "tty: header names the target" grep -q "^lua-flame top  $T  lua5.4 " "$OUT/self.pane"
check "tty: runtime, samples per second and lost" \
	grep -Eq "^Lua 5\.4\.[0-9]+  [1-9][0-9]* samples/s  0 lost  sort: self" "$OUT/self.pane"
check "tty: the top row names the hottest function, about 75% self" \
	sh -c "head -1 '$OUT/self.rows' | grep -Eq '^ *(6[5-9]|7[0-9]|8[0-5])\.[0-9] .* Lua +hottest \(.*hot\.lua:1\)\$'"
check "tty: the second row is the cooler one" sh -c "sed -n 2p '$OUT/self.rows' | grep -q 'cooler (.*hot.lua:2)'"
check "tty: no line wider than 80 columns" sh -c "! awk 'length > 80' '$OUT/self.pane' | grep -q ."
tmux send-keys -t "$S" t l
sleep 1.5
tmux capture-pane -p -t "$S" >"$OUT/total.pane"
rows "$OUT/total.pane" >"$OUT/total.rows"
check "keys t and l: sorted by total, Lua functions only" grep -q "sort: total (s/t)  Lua functions (l)" "$OUT/total.pane"
check "by total, Lua only: the main chunk first, in 100% of samples" \
	sh -c "head -1 '$OUT/total.rows' | grep -Eq '^ *[0-9.]+ +100\.0 .* Lua +main chunk \(.*hot\.lua:0\)\$'"
check "Lua only: no C frame listed" sh -c "! grep -Eq ' (C|kernel) +[^ ]' '$OUT/total.rows'"
tmux send-keys -t "$S" q
sleep 1
tmux capture-pane -p -t "$S" >"$OUT/quit.pane"
check "q: lua-flame exits 0" grep -q "^exit 0" "$OUT/quit.pane"
tmux kill-session -t "$S" 2>/dev/null

# Not a terminal: a plain block each second, without escape sequences
"$LF" top -p "$T" -d 2.5 >"$OUT/plain.out" 2>"$OUT/plain.err"
check "pipe: exit 0" [ $? = 0 ]
check "pipe: a block each second" [ "$(grep -c '^lua-flame top [0-9]*s: [1-9][0-9]* samples/s, 0 lost, Lua 5\.4' "$OUT/plain.out")" -ge 2 ]
check "pipe: the hottest function first" sh -c "grep -A1 '^lua-flame top 2s' '$OUT/plain.out' | tail -1 | grep -q 'hottest (.*hot.lua:1)'"
check "pipe: no escape sequence" sh -c "! grep -q \"\$(printf '\\033')\" '$OUT/plain.out'"
"$LF" top -p "$T" -o "$OUT/x.svg" 2>"$OUT/o.err"
check "top -o: refused, saying how to keep a profile" sh -c "[ $? = 2 ] && grep -q 'writes no file; to keep one, record it' '$OUT/o.err'"
finish
