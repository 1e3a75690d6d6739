# Native frames without a symbol are labelled FILE+0xSTART, START the initial location of
# the FDE covering them, so one function is one box: on Debian's stripped lua5.4 running the
# demo workload, every lua5.4+0x... label must be an FDE start as `readelf -wf` reports it,
# with far fewer distinct labels than --addresses (each frame's own address) gives for the
# same samples.
. "$(dirname "$0")/../lib.sh"

LUA=/usr/bin/lua5.4
# labels FILE: the distinct lua5.4+0x... frame labels of a folded file, as bare hex numbers.
labels() { sed 's/ [0-9]*$//' "$1" | tr ';' '\n' | sed -n 's/^lua5\.4+0x\([0-9a-f]*\)$/\1/p' | sort -u; }

# The independent reference: initial locations of every FDE ("pc=START..END").
readelf -wf "$LUA" | sed -n 's/.* FDE .*pc=0*\([0-9a-f]*\)\.\..*/\1/p' | sed 's/^$/0/' | sort -u >"$OUT/fde_starts"
check "readelf lists the FDEs of $LUA ($(wc -l <"$OUT/fde_starts"))" [ "$(wc -l <"$OUT/fde_starts")" -ge 100 ]

# Both recordings sample the same process at the same time, so they see the same code.
cd "$ROOT" && bg_start "$LUA" tests/progs/demo.lua
sleep 0.5
"$LF" -p "$LAST_PID" -d 5 -F 997 -o "$OUT/start.folded" 2>"$OUT/start.err" &
REC=$!
"$LF" -p "$LAST_PID" -d 5 -F 997 --addresses -o "$OUT/addr.folded" 2>"$OUT/addr.err"
wait "$REC"
kill "$LAST_PID"
labels "$OUT/start.folded" >"$OUT/start.labels"
labels "$OUT/addr.folded" >"$OUT/addr.labels"
n=$(wc -l <"$OUT/start.labels") na=$(wc -l <"$OUT/addr.labels")
not_fde=$(comm -23 "$OUT/start.labels" "$OUT/fde_starts" | wc -l)
check "default: $n distinct lua5.4+0x labels, each an FDE start ($not_fde are not)" \
	sh -c "[ $n -ge 5 ] && [ $not_fde = 0 ]"
check "default: $n distinct labels, at most half of --addresses' $na" [ $((2 * n)) -le "$na" ]
addr_not_fde=$(comm -23 "$OUT/addr.labels" "$OUT/fde_starts" | wc -l)
check "--addresses: $addr_not_fde of $na labels are not FDE starts (at least one)" [ "$addr_not_fde" -ge 1 ]
# The Lua frames are untouched by the grouping: the merge still hides the VM's frames.
expect_stack "default: the demo's Lua functions under lua_pcallk" "$OUT/start.folded" \
	';lua_pcallk;main chunk \(tests/progs/demo\.lua:0\);handle \(tests/progs/demo\.lua:22\);'
finish
