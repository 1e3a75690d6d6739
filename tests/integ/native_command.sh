# Native stacks of a command lua-flame starts (-- COMMAND), on Debian's stripped lua5.4: the
# command's code (its loader, libc, lua5.4) must unwind from its first instruction, so no
# sample may find the process without tables ("process not ready") or a library not in
# them yet ("unmapped pc", which used to hit memcpy and __libc_start_call_main).
. "$(dirname "$0")/../lib.sh"

ROOTS='^lua5\.4;_start;__libc_start_main;__libc_start_call_main;'
# markers FILE: samples ending in an [unwind: ...] marker, except those taken while exit_group
# tears the address space down: their user stack is truly gone.
markers() {
	echo $(($(count "$1" '\[unwind: ') - $(count "$1" '\[unwind: process exiting\]')))
}

# Short runs, each one's start a large part of it: "process not ready" was 12-18 samples
# of every run at 999 Hz.
cat >"$OUT/short.lua" <<'LUA'
local function work(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local t, parts = os.clock(), {}
while os.clock() - t < 0.3 do
  work(1000)
  parts[#parts + 1] = ("%d"):format(#parts)
  if #parts > 100 then parts = { table.concat(parts) } end
end
LUA
total_all=0 marked_all=0
for r in 1 2 3 4 5; do
	"$LF" -q -F 999 -o "$OUT/short$r.folded" -- lua5.4 "$OUT/short.lua" 2>"$OUT/short$r.err"
	n=$(count "$OUT/short$r.folded" '\[unwind: process not ready\]')
	check "run $r: no 'process not ready' samples ($n of $(total "$OUT/short$r.folded"))" [ "$n" = 0 ]
	total_all=$((total_all + $(total "$OUT/short$r.folded")))
	marked_all=$((marked_all + $(markers "$OUT/short$r.folded")))
done
# At most 0.1%: a sample in code run at exit without unwind information (crti's .fini of a
# library) is rare but real.
check "5 runs: $marked_all of $total_all samples end in an unwind marker (at most 0.1%)" [ $((marked_all * 1000)) -le "$total_all" ]

# string.rep copies megabytes per call in memcpy, from the command's first instruction.
"$LF" -q -F 999 -o "$OUT/rep.folded" -- \
	lua5.4 -e 'local s = ("x"):rep(1e6) for i = 1, 4000 do local t = s:rep(4) end' 2>"$OUT/rep.err"
t=$(total "$OUT/rep.folded")
mc=$(count "$OUT/rep.folded" ';__memcpy[a-z0-9_]*(;[^;]*_\[k\])*$')
mr=$(count "$OUT/rep.folded" "${ROOTS}.*;__memcpy[a-z0-9_]*(;[^;]*_\\[k\\])*\$")
m=$(markers "$OUT/rep.folded")
check "string.rep: memcpy samples are many ($mc of $t)" [ "$mc" -ge $((t / 2)) ]
check "string.rep: every memcpy sample reaches _start ($mr of $mc)" [ "$mr" = "$mc" ]
check "string.rep: at most 0.1% of samples end in an unwind marker ($m of $t)" [ $((m * 1000)) -le "$t" ]
finish
