#!/bin/sh
# /init of the arm64 test initramfs (scripts/test-arm64.sh): mounts what lua-flame needs, reports
# the guest's environment, profiles the cross-built unwind test program, Debian's arm64 lua5.1 to
# lua5.4, luajit and luajit2, Lua 5.5, Tarantool's LuaJIT fork, and Debian's arm64 nginx, HAProxy
# and Redis, takes heap snapshots of lua5.4 and luajit2, prints every output between markers on
# the console for tests/arm64/check.sh, and powers off. No set -e: init must reach poweroff
# whatever a case does (an init that exits panics the kernel; panic=-1 and qemu's -no-reboot
# would end the run without ==DONE).
. /guest_lib.sh # mounts, emit
SECS=${SECS:-3}
LIMIT=35 # seconds one lua-flame run may take (3 s of sampling, start-up on an emulated CPU):
# 25 runs stay within test-arm64.sh's 1200 s limit on qemu even if every run hangs
echo "==KERNEL $(uname -r)"
echo "==UPTIME boot $(cut -d' ' -f1 /proc/uptime)"

info() { echo "==INFO $*"; }
ip link set lo up # the servers listen on 127.0.0.1

# lf_cases=A,B,... on the kernel's command line (ARM64_CASES on the host) runs those cases alone
CASES=$(sed -n 's/.*lf_cases=\([^ ]*\).*/\1/p' /proc/cmdline)
want() { [ -z "$CASES" ] || case ",$CASES," in *",$1,"*) true ;; *) false ;; esac; }

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

# record NAME PID [OPTIONS...]: profiles PID for SECS seconds at 499 Hz (OPTIONS may say
# otherwise), emits the result
record() {
	name=$1 pid=$2
	shift 2
	timeout -s KILL $LIMIT /lua-flame -p "$pid" -d "$SECS" -F 499 --stats "$@" -o "/tmp/$name.folded" >"/tmp/$name.log" 2>&1
	rc=$?
	emit "$name" $rc
	if [ $rc != 0 ] && [ ! -e /tmp/debugged ] && grep -q "loading the BPF program failed" "/tmp/$name.log"; then
		touch /tmp/debugged # once a run is enough
		echo "==DEBUG" # libbpf's and the verifier's words, for the log
		LUA_FLAME_DEBUG=1 timeout -s KILL $LIMIT /lua-flame -q -p "$pid" -d 1 -o /tmp/debug.folded 2>&1 | tail -60
		echo "==END DEBUG"
	fi
}

# profile NAME COMMAND...: starts COMMAND, records it, and kills it
profile() {
	name=$1
	shift
	want "$name" || return 0
	"$@" &
	pid=$!
	sleep 1
	record "$name" "$pid"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
}

# load URL: requests URL over and over in the background (LOAD is its PID)
load() {
	(while :; do wget -q -O /dev/null "$1"; done) >/dev/null 2>&1 &
	LOAD=$!
}

# children PID: the processes whose parent is PID (busybox has no pgrep)
children() { awk -v p="$1" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null; }

# stop PID...: kills the processes and their children
stop() {
	for p in "$@"; do kill -9 $(children "$p") "$p"; done 2>/dev/null
	wait 2>/dev/null
}

# ready URL: waits up to 20 s for URL to answer
ready() {
	for _ in $(seq 40); do wget -q -O /dev/null "$1" 2>/dev/null && return 0; sleep 0.5; done
	echo "==INFO not-ready $1"
	return 1
}

# nginx with the Lua module (OpenResty's LuaJIT, libluajit-5.1.so.2) answering from
# tests/lua/handler.lua, as tests/targets.sh starts it on the host; its one worker is recorded
nginx_case() {
	want nginx || return 0
	d=/tmp/nginx
	mkdir -p $d/logs /var/lib/nginx /var/log/nginx
	cat >$d/nginx.conf <<CONF
load_module /usr/lib/nginx/modules/ndk_http_module.so;
load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;
worker_processes 1;
error_log $d/error.log;
pid $d/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $d/tmp;
  lua_package_path "/lua/?.lua;;";
  server {
    listen 127.0.0.1:8080;
    location / { content_by_lua_block { require("handler").handle() } }
  }
}
CONF
	nginx -p $d -e $d/error.log -c $d/nginx.conf -g 'daemon off;' >$d/stderr 2>&1 &
	master=$!
	ready http://127.0.0.1:8080/ || cat $d/stderr $d/error.log | sed 's/^/==INFO nginx /'
	load http://127.0.0.1:8080/
	sleep 1
	record nginx "$(children $master | head -1)"
	stop $LOAD $master
}

# HAProxy (Lua 5.3, liblua5.3.so.0) serving tests/lua/haproxy_svc.lua, one thread
haproxy_case() {
	want haproxy || return 0
	cat >/tmp/haproxy.cfg <<CFG
global
  nbthread 1
  lua-load /lua/haproxy_svc.lua
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend fe
  bind 127.0.0.1:8081
  http-request use-service lua.busy
CFG
	haproxy -f /tmp/haproxy.cfg -db >/tmp/haproxy.out 2>&1 &
	hap=$!
	ready http://127.0.0.1:8081/ || sed 's/^/==INFO haproxy /' /tmp/haproxy.out
	load http://127.0.0.1:8081/
	sleep 1
	record haproxy $hap
	stop $LOAD $hap
}

# lua5.4 in a container (PID and mount namespaces, chroot) as a file at a path the host lacks,
# /opt/lua5.4-ct: lua-flame, outside, must find it through the process's root
container_case() {
	want container || return 0
	c=/tmp/ct
	mkdir -p $c/usr $c/lib $c/opt
	mount --bind /usr $c/usr && mount --bind /lib $c/lib
	cp /usr/bin/lua5.4 $c/opt/lua5.4-ct
	cp /split.lua $c/split.lua
	unshare -p -f -m chroot $c /opt/lua5.4-ct /split.lua &
	u=$!
	sleep 1
	record container "$(children $u | head -1)"
	stop $u
	umount $c/usr $c/lib
}

# redis-server (Lua 5.1 linked in) running the EVAL of tests/server_checks.sh
redis_case() {
	want redis || return 0
	. /server_checks.sh # REDIS_SCRIPT
	redis-server --port 6379 --save '' --daemonize no >/tmp/redis.out 2>&1 &
	red=$!
	for _ in $(seq 40); do redis-cli -p 6379 ping 2>/dev/null | grep -q PONG && break; sleep 0.5; done
	(while :; do redis-cli -p 6379 EVAL "$REDIS_SCRIPT" 0; done) >/dev/null 2>&1 &
	cli=$!
	sleep 1
	record redis $red
	stop $cli $red
}

# heap NAME INTERPRETER: a heap snapshot of tests/lua/heap_shapes.lua once it has measured its
# structures; the measurements go into the run's log as "SIZE NAME BYTES" lines
heap_case() {
	want "$1" || return 0
	rm -f "/tmp/$1.sizes"
	$2 /heap_shapes.lua "/tmp/$1.sizes" &
	pid=$!
	for _ in $(seq 300); do [ -f "/tmp/$1.sizes" ] && break; sleep 0.2; done
	timeout -s KILL $LIMIT /lua-flame heap -p "$pid" -o "/tmp/$1.folded" >"/tmp/$1.log" 2>&1
	rc=$?
	sed 's/^/SIZE /' "/tmp/$1.sizes" >>"/tmp/$1.log" 2>/dev/null
	emit "$1" $rc
	stop $pid
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
	profile lua5.4-deep lua5.4 /deep.lua 300
	profile lua5.3-p lua5.3 /split.lua
	profile lua5.2-p lua5.2 /split.lua
	profile lua5.1-p lua5.1 /split.lua
	profile luajit-p luajit /split.lua
	profile luajit-jit luajit /jit.lua
	profile luajit2-p luajit2 /split.lua
	profile luajit2-jit luajit2 /jit.lua
	profile tarantool-p luajit-tarantool /split.lua
	profile tarantool-jit luajit-tarantool /jit.lua
	# tests/lua/jit_shape.lua: coroutines, FFI, deep recursion, callbacks from C, [GC]; 8 s:
	# the split needs 300 samples in burn_a/b/c, and one run in many spends most of its time
	# in garbage() (900 of some 2,500 samples in [GC] seen, against 180 in others)
	SECS=8
	profile luajit-shape env LF_FFI_LIB=/libffitest.so luajit /jit_shape.lua
	profile luajit2-shape env LF_FFI_LIB=/libffitest.so luajit2 /jit_shape.lua
	SECS=3
	# a two-value function returned from by the interpreter (tests/lua/returns.lua)
	profile luajit-returns luajit -joff /returns.lua
	profile luajit2-returns luajit2 -joff /returns.lua
	# wall mode (99 Hz): the scheduler's events and the time off the CPU (busybox's sh and
	# sleep serve os.execute)
	if want lua5.4-wall; then
		lua5.4 /wall_split.lua &
		pid=$!
		sleep 1
		record lua5.4-wall $pid --mode wall -F 99
		stop $pid
	fi
	heap_case heap-lua5.4 lua5.4
	heap_case heap-luajit2 luajit2
	container_case
	nginx_case
	haproxy_case
	redis_case
	# two seconds more of Lua: the emulated start-up and exit stay a small part of the run
	if want lua5.4-cmd; then
		timeout -s KILL $LIMIT /lua-flame --stats -F 499 -o /tmp/lua5.4-cmd.folded -- lua5.4 /split.lua $((SECS + 2)) \
			>/tmp/lua5.4-cmd.log 2>&1
		emit lua5.4-cmd $?
	fi
	/lua-flame --version
	echo "==UPTIME cases $start $(cut -d' ' -f1 /proc/uptime)"
fi
echo "==DONE"
poweroff -f
