#!/bin/sh
# /init of the arm64 test initramfs (scripts/test-arm64.sh): mounts what lua-flame needs, reports
# the guest's environment, profiles the cross-built unwind test program, Debian's arm64 lua5.1 to
# lua5.4, luajit and luajit2, and Lua 5.5, prints every output between markers on the console for tests/arm64/check.sh, and
# powers off. No set -e: init must reach poweroff whatever a case does (an init that exits panics
# the kernel; panic=-1 and qemu's -no-reboot would end the run without ==DONE).
. /guest_lib.sh # mounts, emit
SECS=${SECS:-3}
LIMIT=35 # seconds one lua-flame run may take (3 s of sampling, start-up on an emulated CPU):
# 15 runs stay within test-arm64.sh's 600 s limit on qemu even if every run hangs
echo "==KERNEL $(uname -r)"
echo "==UPTIME boot $(cut -d' ' -f1 /proc/uptime)"

info() { echo "==INFO $*"; }

# The environment: what the profiler relies on, and that Debian's arm64 programs run here.
info machine "$(uname -m)"
info btf "$(ls /sys/kernel/btf/vmlinux 2>&1)"
info perf_event_paranoid "$(cat /proc/sys/kernel/perf_event_paranoid 2>&1)"
info pmu "$(ls /sys/bus/event_source/devices 2>&1 | tr '\n' ' ')"
/probe 2>&1 | sed 's/^/==INFO /'
info lua5.4 "$(lua5.4 -v 2>&1)"
info luajit "$(luajit -v 2>&1)"
info lua5.4-runs "$(lua5.4 -e 'print(6 * 7)' 2>&1)"
info luajit-runs "$(luajit -e 'print(6 * 7)' 2>&1)"
/unwind deep 150 &
pid=$!
sleep 1
# running means alive and on the CPU (state R) a second after its start
info unwind-state "$(cut -d' ' -f3 /proc/$pid/stat 2>&1)"
kill -9 $pid

# profile NAME COMMAND...: starts COMMAND, profiles it SECS seconds at 499 Hz, emits the result
profile() {
	name=$1
	shift
	"$@" &
	pid=$!
	sleep 1
	timeout -s KILL $LIMIT /lua-flame -p "$pid" -d "$SECS" -F 499 --stats -o "/tmp/$name.folded" >"/tmp/$name.log" 2>&1
	rc=$?
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	emit "$name" $rc
}

if [ ! -x /lua-flame ]; then
	# ARM64_SMOKE=1 on the host: the environment alone was the test
	echo "==NO-LUA-FLAME"
else
	start=$(cut -d' ' -f1 /proc/uptime)
	profile native-deep /unwind deep 150
	profile native-plt /unwind plt
	profile native-signal /unwind signal
	profile native-threads /unwind threads
	profile native-pac /unwind-pac deep 150
	profile lua5.5-p lua5.5 /split.lua
	profile lua5.4-p lua5.4 /split.lua
	profile lua5.3-p lua5.3 /split.lua
	profile lua5.2-p lua5.2 /split.lua
	profile lua5.1-p lua5.1 /split.lua
	profile luajit-p luajit /split.lua
	profile luajit-jit luajit /jit.lua
	profile luajit2-p luajit2 /split.lua
	profile luajit2-jit luajit2 /jit.lua
	# two seconds more of Lua: the emulated start-up and exit stay a small part of the run
	timeout -s KILL $LIMIT /lua-flame --stats -F 499 -o /tmp/lua5.4-cmd.folded -- lua5.4 /split.lua $((SECS + 2)) \
		>/tmp/lua5.4-cmd.log 2>&1
	emit lua5.4-cmd $?
	/lua-flame --version
	echo "==UPTIME cases $start $(cut -d' ' -f1 /proc/uptime)"
fi
echo "==DONE"
poweroff -f
