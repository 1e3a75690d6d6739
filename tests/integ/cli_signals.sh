# Stopping a recording by signal: Ctrl-C (SIGINT) and SIGTERM stop it and write every
# output (exit 0); a second Ctrl-C while outputs are written quits at once (exit 130).
. "$(dirname "$0")/../lib.sh"

cat >"$OUT/busy.lua" <<'LUA'
local function spin(n) local x = 0 for i = 1, n do x = x + i % 3 end return x end
while true do spin(100000) end
LUA
bg_start lua5.4 "$OUT/busy.lua"
T=$LAST_PID

# wait_for FILE REGEX: waits (at most 20 s) until FILE has a line matching REGEX.
wait_for() { for _ in $(seq 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

# stop_with SIG: records T until SIG arrives, then checks exit status and outputs.
stop_with() {
	"$LF" -p "$T" -o "$OUT/$1.svg" -o "$OUT/$1.folded" 2>"$OUT/$1.err" &
	lf=$!
	wait_for "$OUT/$1.err" "profiling PID" || fail "$1: lua-flame starts" "$(cat "$OUT/$1.err")"
	wait_for "$OUT/$1.err" "profiling PID" && sleep 1 # let it take samples
	kill -"$1" "$lf"
	wait "$lf"
	rc=$?
	check "$1: exit status 0" [ "$rc" = 0 ]
	check "$1: folded profile with the Lua frames" grep -q ';spin ([^;]*busy.lua:1)' "$OUT/$1.folded"
	check "$1: a complete SVG" grep -q '</svg>' "$OUT/$1.svg"
	check "$1: summary printed" grep -q "samples (0 lost)" "$OUT/$1.err"
}
stop_with INT
stop_with TERM

# The second Ctrl-C: gdb holds lua-flame where it starts writing outputs after the first
# one, and delivers another SIGINT there.
if command -v gdb >/dev/null; then
	gdb -q -batch -ex 'set startup-with-shell off' -ex 'handle SIGINT nostop noprint pass' \
		-ex 'break output_write' -ex run -ex 'signal SIGINT' \
		--args "$LF" -p "$T" -o "$OUT/twice.folded" >"$OUT/twice.out" 2>&1 &
	g=$!
	wait_for "$OUT/twice.out" "profiling PID"
	kill -INT "$(pgrep -P "$g" -x lua-flame)"
	wait "$g"
	check "second Ctrl-C: exits at once with status 130" grep -q "exited with code 0202" "$OUT/twice.out"
	check "second Ctrl-C: no output, no temporary file" sh -c "! ls '$OUT' | grep -q twice.folded"
else
	echo "SKIP: second Ctrl-C: needs gdb (apt-get install gdb)"
fi

# With a command, the signal is passed on to it; lua5.4 ends with status 1 on SIGINT.
"$LF" -o "$OUT/cmd.folded" -- lua5.4 "$OUT/busy.lua" 2>"$OUT/cmd.err" &
lf=$!
wait_for "$OUT/cmd.err" "profiling PID" && sleep 1
kill -INT "$lf"
wait "$lf"
check "command: Ctrl-C passed on, lua5.4's status (1) returned" [ $? = 1 ]
check "command: profile written" grep -q ';spin ([^;]*busy.lua:1)' "$OUT/cmd.folded"
finish
