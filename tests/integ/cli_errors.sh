# Every bad input gets a one-line error that says what to do, and exit status 2.
. "$(dirname "$0")/../lib.sh"

# expect_err NAME STATUS PATTERN ARGS...: lua-flame ARGS exits STATUS and stderr matches PATTERN.
expect_err() {
	_n=$1 want=$2 pat=$3; shift 3
	"$@" >"$OUT/out" 2>"$OUT/err"
	rc=$?
	if [ "$rc" != "$want" ]; then fail "$_n" "exit $rc, expected $want: $(cat "$OUT/err")"; return; fi
	if ! grep -qE "$pat" "$OUT/err"; then fail "$_n" "message '$(cat "$OUT/err")' lacks /$pat/"; return; fi
	pass "$_n"
}

dead=$(sh -c 'echo $$')
expect_err "no such PID" 2 "no such process: PID $dead" "$LF" -p "$dead" -d 1
expect_err "kernel thread" 2 "kernel thread" "$LF" -p 2 -d 1
expect_err "unknown option" 2 "unknown option '--bogus'" "$LF" --bogus -p 1
expect_err "no target" 2 "no target" "$LF" -d 1
expect_err "bad PID list" 2 "invalid PID list" "$LF" -p 12x
expect_err "frequency out of range" 2 "invalid frequency" "$LF" -p 1 -F 0
expect_err "unknown extension" 2 "cannot tell the format" "$LF" -p 1 -o out.xyz
sleep 600 & SLEEPER=$!  # killed at the end; long enough for a slow machine
PIDS_TO_KILL="$PIDS_TO_KILL $SLEEPER"
expect_err "output directory missing" 2 "cannot write $OUT/missing/x.folded" "$LF" -p "$SLEEPER" -d 1 -o "$OUT/missing/x.folded"
chmod 0555 "$OUT" && mkdir -p "$OUT/ro" && chmod 0555 "$OUT/ro"
if [ "$(id -u)" = 0 ]; then
	# root writes anywhere on a normal filesystem; a read-only bind mount is what stops it
	mkdir -p "$OUT/romnt" 2>/dev/null; chmod 0755 "$OUT"; mkdir -p "$OUT/romnt"
	mount --bind -o ro "$OUT/romnt" "$OUT/romnt" 2>/dev/null && mount -o remount,bind,ro "$OUT/romnt" 2>/dev/null
	expect_err "output directory read-only" 2 "cannot write .*romnt/x.folded: Read-only" "$LF" -p "$SLEEPER" -d 1 -o "$OUT/romnt/x.folded"
	umount "$OUT/romnt" 2>/dev/null
fi
chmod 0755 "$OUT"
expect_err "no BTF" 2 "no BTF" env LUA_FLAME_BTF=/nonexistent/vmlinux "$LF" -p "$SLEEPER" -d 1 -o "$OUT/x.folded"
expect_err "--btf: a missing file" 2 "no BTF: cannot read /nonexistent/vmlinux" \
	"$LF" --btf /nonexistent/vmlinux -p "$SLEEPER" -d 1 -o "$OUT/x.folded"
head -c 4096 /dev/urandom >"$OUT/not-btf"
expect_err "--btf: a file that is not BTF" 2 "BTF file .*not-btf (cannot be used|failed)" \
	"$LF" --btf "$OUT/not-btf" -p "$SLEEPER" -d 1 -o "$OUT/x.folded"
# The kernel's own BTF given as a file: the program loads from it and records.
cp /sys/kernel/btf/vmlinux "$OUT/vmlinux.btf"
"$LF" -q --btf "$OUT/vmlinux.btf" -p "$SLEEPER" -d 1 -o "$OUT/btf.folded" >"$OUT/btf.out" 2>&1
check "--btf with this kernel's BTF as a file records (exit 0)" [ $? = 0 ]
check "--btf: the folded output is written" [ -f "$OUT/btf.folded" ]
# Kernel facilities refused the way containers and hardened kernels refuse them: a
# seccomp filter makes bpf() or perf_event_open fail as Docker's default profile does.
if gcc -O2 -o "$OUT/deny_syscall" "$ROOT/tests/progs/deny_syscall.c"; then
	D=$OUT/deny_syscall
	expect_err "BPF unavailable (no bpf syscall)" 2 "no BPF support.*CONFIG_BPF_SYSCALL" \
		"$D" bpf ENOSYS "$LF" -p "$SLEEPER" -d 1 -o "$OUT/x.folded"
	expect_err "BPF refused (lockdown or container)" 2 "refused bpf\(\).*lockdown.*seccomp" \
		"$D" bpf EPERM "$LF" -p "$SLEEPER" -d 1 -o "$OUT/x.folded"
	expect_err "perf events restricted" 2 "perf events are restricted.*seccomp" \
		"$D" perf_event_open EACCES "$LF" -p "$SLEEPER" -d 1 -o "$OUT/x.folded"
else
	fail "build deny_syscall" "gcc failed"
fi
# A target that dies between the checks and the start of sampling: gdb holds lua-flame
# just before it starts sampling and the target is killed there.
if command -v gdb >/dev/null; then
	sleep 30 & VICTIM=$!
	PIDS_TO_KILL="$PIDS_TO_KILL $VICTIM"
	gdb -q -batch -ex 'set startup-with-shell off' -ex 'break sampler_attach' -ex run \
		-ex "shell kill -9 $VICTIM; while grep -qs '^State:.*[RSD]' /proc/$VICTIM/status; do sleep 0.05; done" \
		-ex continue \
		--args "$LF" -p "$VICTIM" -d 1 -o "$OUT/startup.folded" >"$OUT/gdb.out" 2>&1
	if grep -q "exited with code 02" "$OUT/gdb.out" &&
		grep -q "PID $VICTIM (sleep) exited while lua-flame was starting" "$OUT/gdb.out" &&
		grep -q "lua-flame .*-- COMMAND" "$OUT/gdb.out"; then
		pass "PID exited during start-up"
	else
		fail "PID exited during start-up" "$(tail -5 "$OUT/gdb.out")"
	fi
else
	echo "SKIP: PID exited during start-up: needs gdb (apt-get install gdb)"
fi
expect_err "-p and a command" 2 "either -p PID or -- COMMAND" "$LF" -p 1 -- true
expect_err "argument without --" 2 "unexpected argument 'lua5.4'.*after '--'" "$LF" lua5.4 x.lua
expect_err "command not found" 2 "cannot run 'no-such-command-lf': No such file.*PATH" \
	"$LF" -d 1 -o "$OUT/x.folded" -- no-such-command-lf
expect_err "option without value" 2 "option '-F' needs a value" "$LF" -p 1 -F
expect_err "dump of a kernel thread" 2 "kernel thread" "$LF" dump -p 2
expect_err "dump without PID" 2 "dump needs exactly one process" "$LF" dump
expect_err "dump with two PIDs" 2 "dump needs exactly one process" "$LF" dump -p 1,2
expect_err "dump with -o" 2 "dump .* takes no '-o'" "$LF" dump -p 1 -o x.svg
if command -v setpriv >/dev/null; then
	cp "$LF" "$OUT/lf" && chmod 0755 "$OUT/lf"
	expect_err "not permitted" 2 "not permitted.*CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE" \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$OUT/lf" -p "$SLEEPER" -d 1 -o /tmp/lf-nobody.folded
	# CAP_BPF alone is not enough: without CAP_PERFMON there are no perf events to attach to.
	expect_err "CAP_BPF without CAP_PERFMON" 2 "not permitted.*CAP_PERFMON" \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+bpf,+sys_ptrace \
		--ambient-caps=-all,+bpf,+sys_ptrace "$OUT/lf" -p "$SLEEPER" -d 1 -o /tmp/lf-nobody.folded
fi
# An idle target gives zero samples: still exit 0, a valid empty output, and a message.
"$LF" -p "$SLEEPER" -d 1 -o "$OUT/idle.folded" 2>"$OUT/err"
check "idle target exits 0" [ $? = 0 ]
check "idle target writes an empty folded file" [ -f "$OUT/idle.folded" ] && [ ! -s "$OUT/idle.folded" ]
check "idle target says there were no samples" grep -q "no samples" "$OUT/err"
check "no temporary files left" sh -c "! ls '$OUT' | grep -q '\.tmp\.'"
finish
