# Host side of the arm64 tests: splits the console of tests/arm64/guest.sh (written by
# scripts/test-arm64.sh) into its runs and asserts the guest's environment, the native stacks of
# tests/progs/unwind.c as tests/integ/native_dwarf.sh expects them (with arm64 glibc's roots), and
# the Lua stacks tests/kernel/check.sh expects of lua5.4 and luajit, and those the host's tests
# expect of jit_shape.lua, a wall-clock profile, heap snapshots and Debian's nginx, HAProxy and Redis.
# usage: [ARM64_SMOKE=1] [ARM64_CASES=A,B...] sh tests/arm64/check.sh DIR/SUITE.console
# (ARM64_SMOKE=1: the environment only; ARM64_CASES: the runs the guest was given)
CONSOLE=${1:?usage: sh tests/arm64/check.sh CONSOLE}
RUN=$(basename "$CONSOLE" .console) # the suite whose kernel the guest booted
OUT=$(cd "$(dirname "$0")/../.." && pwd)/tests/out/arm64-check/$RUN
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../heap_lib.sh"
SMOKE=${ARM64_SMOKE:-0}
# lib.sh's pass and fail, counted for the closing line
PASSED=0
pass() { echo "PASS: $RUN: $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL: $RUN: $1: $2"; FAILED=$((FAILED + 1)); }

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
check_native() { # RUN
	complete "$1"
	recs=$(printf 'recurse;%.0s' $(seq 151))
	case $1 in
	native-deep)
		share_of native-deep "${ROOTS}deep_main;${recs}spin\$" 95 "${ROOTS}deep_main;recurse x151;spin\$"
		check "native-deep: more than 150 frames in one stack" \
			awk -F';' '{ if (NF > 155) found = 1 } END { exit !found }' "$OUT/native-deep.folded" ;;
	# the same program built with pointer authentication: signed return addresses on the
	# stack, DW_CFA_AARCH64_negate_ra_state in its CFI
	native-pac)
		share_of native-pac "^unwind-pac;_start;__libc_start_main;__libc_start_call_main;main;deep_main;${recs}spin\$" 95 \
			"^unwind-pac;...;deep_main;recurse x151;spin\$" ;;
	native-plt) share_of native-plt "${ROOTS}plt_main;lib_work;lib_leaf\$" 95 ;;
	# raise calls pthread_kill, which branches to __pthread_kill_implementation without a frame
	# of its own (a tail call: no return address names it); the handler returns to the vdso's
	# __kernel_rt_sigreturn (mov x8, #139; svc #0), which has no CFI in Debian's 6.1 arm64
	# vdso: the unwinder must know its signal frame.
	native-signal)
		share_of native-signal "${ROOTS}signal_main;raise;__pthread_kill_implementation;__kernel_rt_sigreturn;handler;in_handler;spin\$" 90 ;;
	native-threads)
		share_of native-threads '^unwind;thread_start;start_thread;thread_a;chain_a1;chain_a2;spin$' 40
		share_of native-threads '^unwind;thread_start;start_thread;thread_b;chain_b1;chain_b2;spin$' 40 ;;
	esac
}

. "$(dirname "$0")/../kernel/split_checks.sh" # check_split, check_wall, pct
. "$(dirname "$0")/../server_checks.sh"      # check_nginx, check_haproxy, check_redis
JS=/jit_shape\.lua DS=/deep\.lua
. "$(dirname "$0")/../deep_checks.sh"        # check_deep
. "$(dirname "$0")/../jit_shape_checks.sh"   # check_jit_shape

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

# A heap snapshot of heap_shapes.lua under ROOT: its total against the VM's count, its
# structures under their paths against the guest's own measures (the log's SIZE lines).
check_heap() { # RUN ROOT
	r=$1 f=$OUT/$1.folded
	check "$r: heap exits 0" [ "$(cat "$OUT/$r.rc" 2>/dev/null)" = 0 ]
	set -- "$r" "$2" $(sed -n 's/.*: snapshot \([0-9]*\) bytes in .*the VM counts \([0-9]*\) bytes.*/\1 \2/p' "$OUT/$r.log")
	check "$r: snapshot ${3:-none} bytes within 1% of the VM's count ${4:-none}" within "${3:-0}" "${4:-1}" 10
	sed -n 's/^SIZE //p' "$OUT/$r.log" >"$OUT/$r.sizes"
	shape_paths "$r" "$f" "$OUT/$r.sizes" "$2"
}

# Every run of the guest, in its order; ARM64_CASES=A,B,... (as the guest was given) checks those
ALL="native-deep native-plt native-signal native-threads native-pac lua5.5-p lua5.4-p lua5.4-deep lua5.3-p lua5.2-p lua5.1-p \
luajit-p luajit-jit luajit2-p luajit2-jit tarantool-p tarantool-jit luajit-shape luajit2-shape luajit-returns luajit2-returns \
lua5.4-wall heap-lua5.4 heap-luajit2 container nginx haproxy redis lua5.4-cmd"

# check_run RUN: the checks of one run
check_run() {
	r=$1 f=$OUT/$1.folded
	case $r in
	native-*) check_native "$r" ;;
	*-p | lua5.4-cmd) check_split "$r" "$f" "$OUT/$r.rc" ;;
	lua5.4-deep) complete "$r"; check_deep "$r" "$f" "$OUT/$r.log" 300 ;;
	luajit-jit | luajit2-jit) check_jit "$r" ;;
	tarantool-jit)
		check "$r: Tarantool's fork found ($(grep -o 'LuaJIT [^,]*' "$OUT/$r.log" | head -1))" \
			grep -q 'LuaJIT .*(tarantool GC64) in /usr/bin/luajit-tarantool, 1 VM found' "$OUT/$r.log"
		check_jit "$r" ;;
	luajit-shape) check_jit_shape "$r" "upstream GC64" "$f" "$OUT/$r.log" on ;;
	luajit2-shape) check_jit_shape "$r" "openresty GC64" "$f" "$OUT/$r.log" on ;;
	# a sample taken while the interpreter returns stands in the caller, found from where BASE
	# was before the return moved it (2-3% were a lone frame under lua_cpcall before; 2% with
	# BASE taken as it is). arm64's interpreter keeps whole numbers apart, and an addition of
	# a whole number and a constant calls C.
	luajit-returns | luajit2-returns)
		share_of "$r" ';main chunk \(/returns\.lua:0\)(;two \(/returns\.lua:4\)(;luajit2?\+0x[0-9a-f]+)*)?(;[^;]*_\[k\])*$' 99 ;;
	container)
		check_split "$r" "$f" "$OUT/$r.rc"
		# named by its path on the host, which a chroot's directory gives
		check "$r: the interpreter found in the container (/tmp/ct/opt/lua5.4-ct)" \
			grep -q 'Lua 5\.4\.[0-9]* in /tmp/ct/opt/lua5\.4-ct' "$OUT/$r.log"
		check "$r: the process is PID 1 in its container" grep -q '\[PID 1 in its container\]' "$OUT/$r.log" ;;
	# The on-CPU share is counted by the cpu-clock timer, whose expiries a guest on an emulated
	# arm64 CPU sometimes handles late: perf then counts one tick where two were due (264 of 297
	# in one run). The time off the CPU is counted exactly whatever the timer does.
	lua5.4-wall) check_wall "$r" "$f" "$OUT/$r.rc" 297 15 ;;
	heap-lua5.4) check_heap "$r" lua5.4 ;;
	heap-luajit2) check_heap "$r" luajit2 ;;
	nginx) complete "$r"; check_nginx "$r" "$f" "$OUT/$r.log" /usr/lib/aarch64-linux-gnu ;;
	haproxy) complete "$r"; check_haproxy "$r" "$f" "$OUT/$r.log" /usr/lib/aarch64-linux-gnu ;;
	redis) complete "$r"; check_redis "$r" "$f" "$OUT/$r.log" ;;
	*) fail "$r" "no checks for this run (a name in ARM64_CASES that the guest does not know?)" ;;
	esac
}

if [ ! -s "$CONSOLE" ]; then
	fail console "$CONSOLE is empty or missing (qemu did not start? see scripts/test-arm64.sh's messages)"
	echo "arm64 $RUN ($(cat "$OUT/kernel" 2>/dev/null)): $PASSED passed, $FAILED failed"
	finish
fi
split_console "$CONSOLE"
check_environment
if [ "$SMOKE" = 1 ]; then
	echo "  note: ARM64_SMOKE=1: no lua-flame in the guest, its runs are not checked"
else
	check "the guest had lua-flame" [ ! -e "$OUT/no-lua-flame" ]
	for r in $(echo "${ARM64_CASES:-$ALL}" | tr , ' '); do check_run "$r"; done
	grep -h -E 'error|fail|refused|warning' "$OUT"/*.log 2>/dev/null | sort | uniq -c | head -5 | sed 's/^/  /'
fi
echo "arm64 $RUN ($(cat "$OUT/kernel" 2>/dev/null)): $PASSED passed, $FAILED failed"
finish
