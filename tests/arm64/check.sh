# Host side of the arm64 tests: splits the console of tests/arm64/guest.sh (written by
# scripts/test-arm64.sh) into its runs and asserts the guest's environment, the native stacks of
# tests/progs/unwind.c as tests/integ/native_dwarf.sh expects them (with arm64 glibc's roots), and
# the Lua stacks tests/kernel/check.sh expects of lua5.4 and luajit.
# usage: [ARM64_SMOKE=1] sh tests/arm64/check.sh CONSOLE   (ARM64_SMOKE=1: environment only)
CONSOLE=${1:?usage: sh tests/arm64/check.sh CONSOLE}
OUT=$(cd "$(dirname "$0")/../.." && pwd)/tests/out/arm64-check
. "$(dirname "$0")/../lib.sh"
SMOKE=${ARM64_SMOKE:-0}
# lib.sh's pass and fail, counted for the closing line
PASSED=0
pass() { echo "PASS: $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL: $1: $2"; FAILED=$((FAILED + 1)); }

# Runs into $OUT/NAME.{rc,log,folded}; ==INFO lines into $OUT/info; kernel and done markers.
split_console() {
	tr -d '\r' <"$1" | awk -v d="$OUT" '
		# the console may put terminal codes before a marker
		{ i = index($0, "=="); if (i > 1 && substr($0, i) ~ /^==[A-Z]/) $0 = substr($0, i) }
		/^==BEGIN / { n = $2; sub(/^rc=/, "", $3); print $3 > (d "/" n ".rc"); f = d "/" n ".log"; next }
		/^==FOLDED / { f = d "/" $2 ".folded"; printf "" > f; next }
		/^==END / { f = ""; next }
		/^==KERNEL / { print $2 > (d "/kernel") }
		/^==INFO / { sub(/^==INFO /, ""); print > (d "/info"); next }
		/^==NO-LUA-FLAME/ { print "none" > (d "/no-lua-flame") }
		/^==DONE/ { print "done" > (d "/done") }
		f != "" { print > f }'
}

# info KEY: the value the guest reported for KEY (the rest of its ==INFO line)
info() { awk -v k="$1" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }' "$OUT/info" 2>/dev/null; }

# share_of NAME REGEX MIN [SHOWN]: at least MIN% of the samples of run NAME match REGEX (SHOWN
# stands for a long REGEX in the messages).
share_of() {
	_n=$(total "$OUT/$1.folded" 2>/dev/null || echo 0)
	_got=$(share "$OUT/$1.folded" "$2" 2>/dev/null || echo 0)
	_re=${4:-$2}
	if [ "$_n" -gt 0 ] && [ "$_got" -ge "$3" ]; then pass "$1: $_got% of $_n match $_re"; else fail "$1" "$_got% of $_n samples (< $3%) match $_re"; fi
}

# complete NAME: lua-flame exited 0 and --stats says at least 99% of the stacks were complete
complete() {
	check "$1: lua-flame exited 0" [ "$(cat "$OUT/$1.rc" 2>/dev/null)" = 0 ]
	_c=$(sed -n 's/.* \([0-9.]*\)% complete.*/\1/p' "$OUT/$1.log" 2>/dev/null | head -1)
	check "$1: at least 99% of stacks complete (${_c:-none}%)" awk -v c="${_c:-0}" 'BEGIN { exit !(c >= 99) }'
}

check_environment() {
	check "the guest booted Debian's arm64 cloud kernel ($(cat "$OUT/kernel" 2>/dev/null))" grep -q 'cloud-arm64$' "$OUT/kernel"
	check "the guest ran to the end (console has ==DONE)" [ -e "$OUT/done" ]
	check "the guest is aarch64 ($(info machine))" [ "$(info machine)" = aarch64 ]
	check "the kernel has BTF" [ "$(info btf)" = /sys/kernel/btf/vmlinux ]
	p=$(info perf_event_paranoid)
	check "perf_event_paranoid is readable ($p; root is not bound by it)" sh -c "[ -n '$p' ] && [ '$p' -eq '$p' ] 2>/dev/null"
	check "a cpu-clock perf event counts ($(grep '^probe perf-cpu-clock' "$OUT/info"))" grep -q '^probe perf-cpu-clock ok' "$OUT/info"
	check "a BPF program loads ($(grep '^probe bpf' "$OUT/info"))" grep -q '^probe bpf-prog-load ok' "$OUT/info"
	# cycles need the emulated PMU: lua-flame samples on cpu-clock, so this is only reported
	echo "  note: $(grep '^probe perf-cycles' "$OUT/info"); PMUs: $(info pmu)"
	check "Debian's arm64 lua5.4 runs ($(info lua5.4))" sh -c "[ '$(info lua5.4-runs)' = 42 ] && echo '$(info lua5.4)' | grep -q '^Lua 5\.4'"
	check "Debian's arm64 luajit runs ($(info luajit))" sh -c "[ '$(info luajit-runs)' = 42 ] && echo '$(info luajit)' | grep -q '^LuaJIT 2\.1'"
	check "the cross-built /unwind runs on the CPU (state $(info unwind-state))" [ "$(info unwind-state)" = R ]
}

# arm64 glibc 2.36 (gdb on Debian's libc6 with libc6-dbg's symbols): the main thread starts in
# _start -> __libc_start_main (the global name of __libc_start_main_impl) -> __libc_start_call_main,
# and a pthread in clone.S's thread_start -> start_thread (no clone3 on aarch64 before 2.37).
ROOTS='^unwind;_start;__libc_start_main;__libc_start_call_main;main;'
check_native() {
	for r in native-deep native-pac native-plt native-signal native-threads; do complete "$r"; done
	recs=$(printf 'recurse;%.0s' $(seq 151))
	share_of native-deep "${ROOTS}deep_main;${recs}spin\$" 95 "${ROOTS}deep_main;recurse x151;spin\$"
	# the same program built with pointer authentication: signed return addresses on the stack,
	# DW_CFA_AARCH64_negate_ra_state in its CFI
	share_of native-pac "^unwind-pac;_start;__libc_start_main;__libc_start_call_main;main;deep_main;${recs}spin\$" 95 \
		"^unwind-pac;...;deep_main;recurse x151;spin\$"
	check "native-deep: more than 150 frames in one stack" \
		awk -F';' '{ if (NF > 155) found = 1 } END { exit !found }' "$OUT/native-deep.folded"
	share_of native-plt "${ROOTS}plt_main;lib_work;lib_leaf\$" 95
	# raise calls pthread_kill, which branches to __pthread_kill_implementation without a frame
	# of its own (a tail call: no return address names it); the handler returns to the vdso's
	# __kernel_rt_sigreturn (mov x8, #139; svc #0), which has no CFI in Debian's 6.1 arm64 vdso:
	# the unwinder must know its signal frame.
	share_of native-signal "${ROOTS}signal_main;raise;__pthread_kill_implementation;__kernel_rt_sigreturn;handler;in_handler;spin\$" 90
	share_of native-threads '^unwind;thread_start;start_thread;thread_a;chain_a1;chain_a2;spin$' 40
	share_of native-threads '^unwind;thread_start;start_thread;thread_b;chain_b1;chain_b2;spin$' 40
}

. "$(dirname "$0")/../kernel/split_checks.sh" # check_split, pct

# LuaJIT's traces: arm64's leave no trace number in vmstate; lua-flame tells them by their
# machine code's address from a table it refreshes while recording, so a trace made since the
# last refresh is [trace] without its number.
check_jit() { # RUN: jit.lua's profile
	r=$1 f=$OUT/$1.folded
	complete "$r"
	n=$(total "$f" 2>/dev/null || echo 0)
	[ "$n" -gt 0 ] || return 0
	J='\[trace( [0-9]+)?\]'
	jit=$(share "$f" "$J")
	check "$r: samples in compiled traces ($jit%)" [ "$jit" -ge 30 ]
	traced=$(count "$f" ";$J")
	owned=$(count "$f" "\\)_\\[j\\];$J")
	check "$r: every trace sample is attributed to a Lua function ($owned of $traced)" [ "$owned" = "$traced" ]
	numbered=$(count "$f" ';\[trace [0-9]+\]')
	check "$r: traces named by their number in >= 90% of trace samples ($numbered of $traced)" \
		[ $((numbered * 10)) -ge $((traced * 9)) ]
	# a helper the trace calls (lj_vm_modi for i % 7) keeps the trace's frame: its caller is
	# the trace, not the VM's caller
	jitted=$(count "$f" '_\[j\]')
	marked=$(count "$f" '_\[j\];\[trace')
	check "$r: samples in a traced function have its trace's frame in >= 99% ($marked of $jitted)" \
		[ $((marked * 100)) -ge $((jitted * 99)) ]
	a=$(pct "$(count "$f" ';burn_a \(/jit\.lua:8\)(_\[j\])?;work ')" "$n")
	b=$(pct "$(count "$f" ';burn_b \(/jit\.lua:9\)(_\[j\])?;work ')" "$n")
	check "$r: burn_a() 60% +-8 ($a%)" near "$a" 60 8
	check "$r: burn_b() 40% +-8 ($b%)" near "$b" 40 8
}

if [ ! -s "$CONSOLE" ]; then
	fail console "$CONSOLE is empty or missing (qemu did not start? see scripts/test-arm64.sh's messages)"
	echo "arm64: $PASSED passed, $FAILED failed"
	finish
fi
split_console "$CONSOLE"
check_environment
if [ "$SMOKE" = 1 ]; then
	echo "  note: ARM64_SMOKE=1: no lua-flame in the guest, its runs are not checked"
else
	check "the guest had lua-flame" [ ! -e "$OUT/no-lua-flame" ]
	check_native
	for r in lua5.5-p lua5.4-p lua5.3-p lua5.2-p lua5.1-p luajit-p luajit2-p lua5.4-cmd; do check_split "$r" "$OUT/$r.folded" "$OUT/$r.rc"; done
	for r in luajit-jit luajit2-jit; do check_jit "$r"; done
	grep -h -E 'error|fail|refused|warning' "$OUT"/*.log 2>/dev/null | sort | uniq -c | head -5 | sed 's/^/  /'
fi
echo "arm64: $PASSED passed, $FAILED failed"
finish
