# A page of the stack that is not in memory, just above the innermost frame (the kernel's
# never-written gap above a process's first frames, a page a server swapped out): the stack
# still comes out whole, and the walk's read ahead meets that page once per CPU, not on every
# sample (a user read that faults costs as much as hundreds that do not).
. "$(dirname "$0")/../lib.sh"

command -v perf >/dev/null || { fail perf "perf not installed (apt-get install linux-perf)"; finish; }
perf list 2>/dev/null | grep -q 'exceptions:page_fault_kernel' ||
	{ fail perf "no exceptions:page_fault_kernel tracepoint on this kernel ($(uname -r))"; finish; }
gcc -O2 -g0 -o "$OUT/cold_stack" "$ROOT/tests/progs/cold_stack.c" || { fail build "gcc failed"; finish; }
bg_start "$OUT/cold_stack" 10
sleep 0.3
# the target's page faults taken in the kernel while it is sampled: the reads that fault
perf stat -x, -e exceptions:page_fault_kernel -p "$LAST_PID" -o "$OUT/pf" -- sleep 2.4 2>"$OUT/perf.err" & pf=$!
"$LF" -p "$LAST_PID" -d 2 -F 499 -o "$OUT/cold.folded" 2>"$OUT/stderr"
check "exit status 0" [ $? = 0 ]
wait "$pf"
chain=$(printf 'chain;%.0s' $(seq 11))
s=$(share "$OUT/cold.folded" "^cold_stack;_start;__libc_start_main;__libc_start_call_main;main;${chain}cold_mid;spin\$")
check "the whole stack past the page not in memory in $s% of samples (95% or more)" [ "$s" -ge 95 ]
n=$(total "$OUT/cold.folded")
f=$(awk -F, '/page_fault_kernel/ { print $1 + 0 }' "$OUT/pf")
check "faulting reads: ${f:-none counted} in $n samples (one per CPU at most: $(nproc))" \
	sh -c "[ -n '$f' ] && [ $n -ge 300 ] && [ $f -le $(nproc) ]"
finish
