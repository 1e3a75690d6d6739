#!/bin/sh
# /init of the kernel-test initramfs: mounts what lua-flame needs, profiles Debian's lua5.4,
# lua5.1 and luajit running split.lua with -p and with -- COMMAND, lua5.4 and luajit in a
# recursion 300 deep, records a dump and a wall-clock profile, takes the verifier's figures, prints every output between markers on the console for the host to
# check, and powers off.
. /guest_lib.sh # mounts, emit
SECS=${SECS:-4}
echo "==KERNEL $(uname -r)"

for lua in lua5.4 lua5.1 luajit; do
	$lua /split.lua &
	pid=$!
	sleep 1
	/lua-flame --stats -p "$pid" -d "$SECS" -F 499 -o "/tmp/$lua-p.folded" >"/tmp/$lua-p.log" 2>&1
	rc=$?
	emit "$lua-p" $rc
	if [ $rc != 0 ] && [ "$lua" = lua5.4 ]; then # libbpf's and the verifier's words, for the log
		echo "==DEBUG"
		LUA_FLAME_DEBUG=1 /lua-flame -q -p "$pid" -d 1 -o /tmp/debug.folded 2>&1 | tail -60
		echo "==END DEBUG"
	fi
	if [ "$lua" = lua5.4 ]; then
		/lua-flame dump -p "$pid" >"/tmp/$lua-dump.log" 2>&1
		emit "$lua-dump" $?
	fi
	kill -9 "$pid"
	/lua-flame --stats -F 499 -o "/tmp/$lua-cmd.folded" -- $lua /split.lua "$SECS" >"/tmp/$lua-cmd.log" 2>&1
	emit "$lua-cmd" $?
done
# recursion 300 deep: the walk keeps its innermost and outermost frames (with bpf_loop)
for lua in lua5.4 luajit; do
	$lua /deep.lua 300 &
	pid=$!
	sleep 1
	/lua-flame --stats -p "$pid" -d "$SECS" -F 499 -o "/tmp/$lua-deep.folded" >"/tmp/$lua-deep.log" 2>&1
	emit "$lua-deep" $?
	kill -9 "$pid"
done
# wall mode: the scheduler's events and the time off the CPU (busybox's sh and sleep serve
# os.execute)
lua5.4 /wall_split.lua &
pid=$!
sleep 1
/lua-flame --stats -p "$pid" -d "$SECS" --mode wall -o /tmp/lua5.4-wall.folded >/tmp/lua5.4-wall.log 2>&1
emit lua5.4-wall $?
kill -9 "$pid"
# the verifier's work for each program, which check.sh prints for the kernel
sh /verifier-figures.sh /lua-flame >/tmp/verifier.log 2>&1
emit verifier $?
/lua-flame --version
echo "==DONE"
poweroff -f
