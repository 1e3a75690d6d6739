# A target that keeps making huge Lua functions whose calls are costly to name from bytecode
# (tests/lua/hostile_protos.lua) cannot stall lua-flame: -d 5 ends within 7 s of sampling's
# start, SIGINT and SIGTERM within a second, and the calls it could not afford to name show
# as "?" under their chunk, never a wrong name.
. "$(dirname "$0")/../lib.sh"

ms() { echo $(($(date +%s%N) / 1000000)); }
# record NAME ARGS...: lua-flame on a fresh target in the background; T0 (ms) when sampling
# starts, LFP its PID.
record() {
	_n=$1; shift
	bg_start lua5.4 "$ROOT/tests/lua/hostile_protos.lua"
	TPID=$LAST_PID
	sleep 1   # a first huge chunk is running
	# (no `timeout` in between: the signals below must reach lua-flame itself, and timeout
	# passing SIGINT on to its process group may die of it first)
	"$LF" -p "$TPID" "$@" -o "$OUT/$_n.folded" 2>"$OUT/$_n.err" &
	LFP=$!
	(sleep 120; kill -9 "$LFP" 2>/dev/null) >/dev/null 2>&1 &
	PIDS_TO_KILL="$PIDS_TO_KILL $!"
	for i in $(seq 600); do grep -q "profiling PID" "$OUT/$_n.err" && break; sleep 0.05; done
	T0=$(ms)
}

record d5 -d 5
wait "$LFP"; RC=$?; T=$(($(ms) - T0)); kill "$TPID"
check "-d 5: exit 0 (rc $RC)" [ "$RC" = 0 ]
check "-d 5: done ${T} ms after sampling started (at most 7000)" [ "$T" -le 7000 ]
check "-d 5: samples in the generated chunks ($(count "$OUT/d5.folded" ';main chunk \(gen[0-9]+:0\)'))" \
	[ "$(count "$OUT/d5.folded" ';main chunk \(gen[0-9]+:0\)')" -gt 0 ]
check "-d 5: calls too costly to name are ?, under their chunk" \
	grep -qE ';main chunk \(gen[0-9]+:0\);\? \([^;]*hostile_protos\.lua:9\)' "$OUT/d5.folded"

for sig in INT TERM; do
	record "sig$sig"
	sleep 2
	t=$(ms); kill -s "$sig" "$LFP"; wait "$LFP"; RC=$?; T=$(($(ms) - t)); kill "$TPID"
	check "SIG$sig: exit 0 (rc $RC)" [ "$RC" = 0 ]
	check "SIG$sig: done ${T} ms after the signal (at most 1000)" [ "$T" -le 1000 ]
	check "SIG$sig: outputs written" [ "$(total "$OUT/sig$sig.folded")" -gt 0 ]
done
finish
