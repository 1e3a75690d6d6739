# --mode wall: a Lua program that waits 60% of its time (os.execute) and computes 40% shows
# about 60/40 in wall mode and 0/100 in CPU mode; the wait is [off-CPU: do_wait] above the
# frame that waited; a thread still blocked at the end is counted up to the end; nginx+Lua
# under wrk, with a handler that waits on a subprocess, shows that wait under the handler.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/targets.sh"

P=$ROOT/tests/lua/wall_split.lua
W="wait_sixty \\([^;]*wall_split.lua:8\\)"
B="burn_forty \\([^;]*wall_split.lua:3\\)"
bg_start lua5.4 "$P"
T=$LAST_PID
sleep 0.5
"$LF" -p "$T" -d 5 --mode wall -o "$OUT/wall.folded" -o "$OUT/wall.svg" 2>"$OUT/wall.err"
"$LF" -p "$T" -d 3 -o "$OUT/cpu.folded" 2>"$OUT/cpu.err"
kill "$T"
n=$(total "$OUT/wall.folded") w=$(share "$OUT/wall.folded" ";$W") b=$(share "$OUT/wall.folded" ";$B")
# one thread at 99 Hz for 5 s, running or not; the random periods its time on the CPU is
# sampled at (cmd/kernel/period_jitter.c) spread that part's count by about 2%
check "wall: every moment counted: 495 samples within 6% ($n)" sh -c "[ $n -ge 465 ] && [ $n -le 525 ]"
check "wall: waiting 60% +-5 ($w%)" sh -c "[ $w -ge 55 ] && [ $w -le 65 ]"
check "wall: computing 40% +-5 ($b%)" sh -c "[ $b -ge 35 ] && [ $b -le 45 ]"
check "wall: the wait is [off-CPU: do_wait] above the frame that waited, then the kernel's frames" \
	sh -c "[ $(share "$OUT/wall.folded" ";$W(;[^;]*)*;wait4;\\[off-CPU: do_wait\\];[^;]*_\\[k\\](;[^;]*_\\[k\\])*\$") -ge 55 ]"
check "wall: off-CPU frames only above Lua that waited or was preempted" \
	[ "$(count "$OUT/wall.folded" "\\[off-CPU")" = "$(count "$OUT/wall.folded" "($W|$B)(;[^;]*)*;\\[off-CPU: [^]]+\\]")" ]
# a spawn's parent waits for its child's exec in clone3, outside any FDE: still rooted
check "wall: the spawn's wait in clone3 is rooted like the rest" \
	[ "$(count "$OUT/wall.folded" "^lua5.4;_start;([^;]*;)*$W(;[^;]*)*;\\[off-CPU")" = "$(count "$OUT/wall.folded" ";$W(;[^;]*)*;\\[off-CPU")" ]
check "wall: the summary counts every sample" grep -q "^lua-flame: $n samples (0 lost)" "$OUT/wall.err"
on=$(sed -n 's/^lua-flame: wall clock: \([0-9]*\) samples on a CPU, \([0-9]*\) off it.*/\1/p' "$OUT/wall.err")
off=$(sed -n 's/^lua-flame: wall clock: \([0-9]*\) samples on a CPU, \([0-9]*\) off it.*/\2/p' "$OUT/wall.err")
check "wall: the summary splits them on and off the CPU (${on:-?} + ${off:-?} = $n)" [ "$((${on:-0} + ${off:-0}))" = "$n" ]
nc=$(total "$OUT/cpu.folded") cw=$(share "$OUT/cpu.folded" ";$W") cb=$(share "$OUT/cpu.folded" ";$B")
check "cpu: computing >= 95% ($cb% of $nc)" [ "$cb" -ge 95 ]
check "cpu: waiting <= 3% ($cw%)" [ "$cw" -le 3 ]
check "cpu: no off-CPU frame" [ "$(count "$OUT/cpu.folded" "off-CPU")" = 0 ]
check "svg: valid XML" xmllint --noout "$OUT/wall.svg"
check "svg: the subtitle says wall clock" grep -q '<text id="subtitle"[^>]*>[^<]*wall clock (on and off CPU)' "$OUT/wall.svg"
check "svg: the legend has the off-CPU kind" grep -q '>off-CPU (waiting)</text>' "$OUT/wall.svg"

# --no-kernel: the wait keeps its name, without the kernel's frames
bg_start lua5.4 "$P"
T=$LAST_PID
sleep 0.3
"$LF" -p "$T" -d 2 --mode wall --no-kernel -o "$OUT/nokernel.folded" 2>"$OUT/nokernel.err"
kill "$T"
check "no-kernel: the wait is the leaf, named" \
	sh -c "[ $(share "$OUT/nokernel.folded" ";$W(;[^;]*)*;\\[off-CPU: do_wait\\]\$") -ge 55 ]"
check "no-kernel: no kernel frame" [ "$(count "$OUT/nokernel.folded" "_\\[k\\]")" = 0 ]

# A thread blocked when the recording ends is counted up to the end: 1 s of work, then a
# sleep that outlasts the 3 s recording.
cat >"$OUT/blocked.lua" <<'LUA'
local function work() local t = os.clock() + 1 while os.clock() < t do end end
local function nap() os.execute("sleep 10") end
work()
nap()
LUA
"$LF" -d 3 --mode wall -o "$OUT/blocked.folded" -- lua5.4 "$OUT/blocked.lua" 2>"$OUT/blocked.err"
nb=$(total "$OUT/blocked.folded") nap=$(share "$OUT/blocked.folded" ";nap \\([^;]*blocked.lua:2\\)(;[^;]*)*;\\[off-CPU: do_wait\\]")
check "still blocked at the end: 3 s counted ($nb samples)" sh -c "[ $nb -ge 280 ] && [ $nb -le 310 ]"
check "still blocked at the end: the nap is about 2 of the 3 s ($nap%)" sh -c "[ $nap -ge 60 ] && [ $nap -le 72 ]"

# nginx+Lua: a handler that blocks its worker on a subprocess (io.popen), under wrk
mkdir -p "$OUT/lua"
cat >"$OUT/lua/handler.lua" <<'LUA'
local M = {}
local function wait_child()
  local f = io.popen("sleep 0.02; echo done")
  local s = f:read("*a")
  f:close()
  return s
end
function M.handle() ngx.say(wait_child()) end
return M
LUA
port=$(free_port)
if start_nginx "$OUT/nginx" "$port" "$OUT/lua"; then
	wrk -t1 -c4 -d60s "http://127.0.0.1:$port/" >"$OUT/wrk.out" 2>&1 &
	WRK=$!
	sleep 1
	"$LF" -p "$TARGET_PID" -d 4 --mode wall -o "$OUT/nginx.folded" 2>"$OUT/nginx.err"
	kill -INT "$WRK" 2>/dev/null
	wait "$WRK"
	H="handle \\([^;]*handler.lua:8\\)(_\\[j\\])?;wait_child \\([^;]*handler.lua:2\\)(_\\[j\\])?"
	nn=$(total "$OUT/nginx.folded") hw=$(share "$OUT/nginx.folded" ";$H(;[^;]*)*;\\[off-CPU: [a-z_]+\\]")
	check "nginx: the worker's 4 s counted ($nn samples)" sh -c "[ $nn -ge 380 ] && [ $nn -le 410 ]"
	check "nginx: >= 80% of the worker's time waits for the child under the handler ($hw%)" [ "$hw" -ge 80 ]
	# (anon_pipe_read since Linux 6.15)
	expect_stack "nginx: the wait is a pipe read" "$OUT/nginx.folded" ";$H(;[^;]*)*;\\[off-CPU: [a-z_]*pipe_read\\]"
else
	fail "nginx: started" "see $OUT/nginx"
fi
finish
