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
sleep 30 & SLEEPER=$!
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
if command -v setpriv >/dev/null; then
	cp "$LF" "$OUT/lf" && chmod 0755 "$OUT/lf"
	expect_err "not permitted" 2 "not permitted.*CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE" \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$OUT/lf" -p "$SLEEPER" -d 1 -o /tmp/lf-nobody.folded
fi
# An idle target gives zero samples: still exit 0, a valid empty output, and a message.
"$LF" -p "$SLEEPER" -d 1 -o "$OUT/idle.folded" 2>"$OUT/err"
check "idle target exits 0" [ $? = 0 ]
check "idle target writes an empty folded file" [ -f "$OUT/idle.folded" ] && [ ! -s "$OUT/idle.folded" ]
check "idle target says there were no samples" grep -q "no samples" "$OUT/err"
check "no temporary files left" sh -c "! ls '$OUT' | grep -q '\.tmp\.'"
finish
