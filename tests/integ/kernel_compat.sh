# The program for kernels before 5.15/5.17 (no bpf_loop, no bpf_task_pt_regs), run here with
# LUA_FLAME_NO_BPF_LOOP=1: it loads, says so in --stats, and unwinds native stacks to their root,
# also for samples taken in the kernel (user registers from the top of the task's kernel stack).
. "$(dirname "$0")/../lib.sh"

# A Lua loop that spends much of its time in write(2): many samples land in the kernel.
cat >"$OUT/syscalls.lua" <<'LUA'
local f = io.open("/dev/null", "w")
while true do
  for _ = 1, 1000 do f:write("x"); f:flush() end
end
LUA
bg_start lua5.4 "$OUT/syscalls.lua"
sleep 0.3
for mode in compat current; do
	if [ $mode = compat ]; then env=LUA_FLAME_NO_BPF_LOOP=1; else env=LUA_FLAME_UNUSED=1; fi
	env $env LUA_FLAME_DEBUG=verifier "$LF" --stats -p "$LAST_PID" -d 3 -F 499 -o "$OUT/$mode.folded" >"$OUT/$mode.log" 2>&1
	check "$mode: exit status 0" [ $? = 0 ]
	F=$OUT/$mode.folded
	n=$(total "$F")
	check "$mode: samples taken ($n)" [ "$n" -ge 100 ]
	kern=$(share "$F" '_\[k\]')
	check "$mode: samples in the kernel ($kern%)" [ "$kern" -ge 20 ]
	rooted=$(share "$F" '^lua5\.4;_start;.*_\[k\]')
	check "$mode: kernel samples keep their user stack down to _start ($rooted% of all, $kern% in the kernel)" \
		near "$rooted" "$kern" 1
	all=$(share "$F" '^lua5\.4;_start;')
	check "$mode: >= 99% of samples rooted at _start ($all%)" [ "$all" -ge 99 ]
done
check "compat: --stats says bpf_loop is not used" grep -q 'bpf_loop no' "$OUT/compat.log"
# 5.10's verifier takes some 2.5 times the instructions this kernel's does for the program without
# bpf_loop, and refuses it past a million (lua-flame then falls back to native stacks): each of
# its programs must stay well under 400K here.
most=$(grep -o 'processed [0-9]* insns' "$OUT/compat.log" | awk '$2 > m { m = $2 } END { print m + 0 }')
progs=$(grep -c 'processed [0-9]* insns' "$OUT/compat.log")
check "compat: four programs verified ($progs), the largest in $most instructions (< 400000)" \
	[ "$progs" -ge 4 -a "$most" -gt 0 -a "$most" -lt 400000 ]
check "current: --stats says bpf_loop is used" grep -q 'bpf_loop yes' "$OUT/current.log"
finish
