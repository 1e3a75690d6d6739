# lua-flame heap on Debian's stripped lua5.1-lua5.4 and a stripped Lua 5.5.1 (tests/lua/heap_shapes.lua): the
# snapshot's total against the VM's own count, four structures measured in-process under their
# paths, exact leaf paths, the target left running, and the errors of unusable targets.
. "$(dirname "$0")/../lib.sh"

W=tests/lua/heap_shapes.lua

. "$ROOT/tests/heap_lib.sh"

# shapes NAME BINARY ROOT
shapes() {
	n=$1 bin=$2 r=$3
	snap "$n" "$W" "$bin"
	F=$OUT/$n.folded S=$OUT/$n.sizes
	check "$n: heap exits 0" [ "$(cat "$OUT/$n.rc")" = 0 ]
	state=$(awk '{ print $3 }' "/proc/$LAST_PID/stat" 2>/dev/null)
	check "$n: the target runs on after the snapshot (state $state)" [ "$state" = S ] || [ "$state" = R ]
	vm=$(sed -n 's/.*the VM counts \([0-9]*\) bytes.*/\1/p' "$OUT/$n.err")
	check "$n: the VM's count is printed" [ -n "$vm" ]
	t=$(total "$F")
	check "$n: snapshot total $t within 1% of the VM's count $vm" within "$t" "${vm:-0}" 10
	grep -q 'held 1 thread for [0-9.]* ms' "$OUT/$n.err"
	check "$n: the pause is printed" [ $? = 0 ]
	shape_paths "$n" "$F" "$S" "$r"
	if command -v go >/dev/null; then
		go tool pprof -sample_index=inuse_space -top "$OUT/$n.pb.gz" >"$OUT/$n.pprof" 2>&1
		check "$n: go tool pprof reads the heap profile's inuse_space" grep -q '^Type: inuse_space' "$OUT/$n.pprof"
	fi
	pkill -P "$LAST_PID"; kill "$LAST_PID"
}

shapes lua54 /usr/bin/lua5.4 lua5.4
shapes lua51 /usr/bin/lua5.1 lua5.1
shapes lua52 /usr/bin/lua5.2 lua5.2
shapes lua53 /usr/bin/lua5.3 lua5.3
"$ROOT/scripts/build-lua-sources.sh" || fail lua55 "scripts/build-lua-sources.sh failed"
SID=$("$ROOT/scripts/build-lua-sources.sh" --dir)
shapes lua55 "$SID/lua5.5-5.5.1/lua-stripped" lua-stripped

# unusable targets: exit status 2 and a message that says what is wrong
"$LF" heap -p 999999 -o "$OUT/none.folded" 2>"$OUT/none.err"
check "no such PID: exit 2" [ $? = 2 ]
check "no such PID: said so" grep -q "PID 999999: no such process" "$OUT/none.err"
sleep 30 & PIDS_TO_KILL="$PIDS_TO_KILL $!"
"$LF" heap -p $! -o "$OUT/nolua.folded" 2>"$OUT/nolua.err"
check "a process without Lua: exit 2" [ $? = 2 ]
check "a process without Lua: said so" grep -q "no Lua runtime found" "$OUT/nolua.err"
"$LF" heap -o "$OUT/x.folded" 2>"$OUT/usage.err"
check "no -p: exit 2" [ $? = 2 ]
"$LF" heap -p 1 -o "$OUT/x.callgrind" 2>"$OUT/fmt.err"
check "callgrind output refused: exit 2" [ $? = 2 ]

# lua-flame killed by SIGKILL during the snapshot leaves the target running
cd "$ROOT" && bg_start /usr/bin/lua5.4 "$W" "$OUT/kill.sizes"
for _ in $(seq 100); do [ -f "$OUT/kill.sizes" ] && break; sleep 0.2; done
for d in 0.01 0.05 0.1; do
	"$LF" heap -p "$LAST_PID" -o "$OUT/kill.folded" 2>/dev/null & lf=$!
	sleep $d
	kill -9 $lf 2>/dev/null
	wait $lf 2>/dev/null
	sleep 0.1
	state=$(awk '{ print $3 }' "/proc/$LAST_PID/stat")
	check "SIGKILL after $d s: the target is not left stopped (state $state)" [ "$state" = S ] || [ "$state" = R ]
done
finish
