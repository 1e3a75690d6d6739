# Debian's servers that embed Lua, under load, each with a handler that burns 50/30/20 in three
# named Lua functions (tests/lua/server_burn.lua, ts_remap.lua): dnsdist with one Lua state shared
# by its threads (LuaAction) and with one per thread (LuaFFIPerThreadAction), and Apache Traffic
# Server with its Lua plugin (tslua, a pool of states its threads share), and Apache's mod_lua
# (a state per request; handler tests/lua/request.lua). Each profile must name
# the three functions under the handler and the host's call, split 50/30/20 within 3 points, root
# every thread's stacks and show Lua frames only on the threads that run Lua.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/targets.sh"

gcc -O2 -o "$OUT/udp_blast" "$ROOT/tests/progs/udp_blast.c" 2>"$OUT/udp_blast.build" ||
	{ fail "udp_blast: build" "$(head -3 "$OUT/udp_blast.build")"; finish; }

# profile NAME PID: 8 s of PID at 499 Hz, per thread, into $OUT/NAME.folded (about 4000 samples
# of the thread running Lua: a share of 20% is then known to within a point)
profile() {
	"$LF" -p "$2" --threads -F 499 -d 8 --stats -o "$OUT/$1.folded" 2>"$OUT/$1.err"
}

# profile_http NAME PID PORT: once the server answers from its Lua handler, profile it under load
profile_http() {
	for _ in $(seq 50); do curl -sf -m 1 "http://127.0.0.1:$3/" >/dev/null && break; sleep 0.2; done
	check "$1: answers from its Lua handler" curl -sf -m 2 "http://127.0.0.1:$3/"
	wrk -t1 -c4 -d12s "http://127.0.0.1:$3/" >"$OUT/wrk-$1.out" 2>&1 &
	PIDS_TO_KILL="$PIDS_TO_KILL $!"
	sleep 1
	profile "$1" "$2"
}

# checks NAME PREFIX FILE LINES LUA_THREAD_RE [NAMED% [SPLIT_POINTS]]: the profile's stacks (see
# the top of this file). PREFIX: the stack's regex from the host's call into the VM to the handler;
# LINES: where burn_fifty, burn_thirty, burn_twenty and burn are defined in FILE.
checks() {
	n=$1 f=$OUT/$1.folded P=$2 h=$3 lt=$5 named=${6:-95} points=${7:-3}
	# shellcheck disable=SC2086
	set -- $4
	# burn's loop runs in a trace: its label says so, and the trace follows it; then perhaps
	# native frames (PUC Lua's arithmetic, the kernel's frames of an interrupt)
	E="(_\\[j\\])?(;\\[trace [0-9]+\\])?(;[^;(]*)*\$" B=";burn \\([^;]*$h:$4\\)"
	a=$(count "$f" "$P;burn_fifty \\([^;]*$h:$1\\)$B$E")
	b=$(count "$f" "$P;burn_thirty \\([^;]*$h:$2\\)$B$E")
	c=$(count "$f" "$P;burn_twenty \\([^;]*$h:$3\\)$B$E")
	t=$((a + b + c)) all=$(count "$f" "$h:")
	check "$n: the three functions named under the handler in >= $named% of the samples in its Lua ($t of $all)" \
		[ $((t * 100)) -ge $((all * named)) ]
	split_5_3_2 "$n" "$a" "$b" "$c" "$points"
	n_all=$(total "$f") rooted=$(count "$f" '^[^;]*;[^;]*-[0-9]+;clone3;start_thread;')
	check "$n: stacks rooted at the thread's start in >= 99% of samples ($rooted of $n_all)" \
		[ $((rooted * 100)) -ge $((n_all * 99)) ]
	other=$(grep -Ev "^[^;]*;$lt-[0-9]+;" "$f" | grep -Ec ' \([^;()]*:[0-9]+\)(;| |$)')
	check "$n: no Lua frame on a thread that does not run Lua ($other stacks)" [ "$other" = 0 ]
	stray=$(grep -E ' \([^;()]*:[0-9]+\)(;| |$)' "$f" | grep -Evc ';lua_pcallk?;')
	check "$n: Lua frames only under the host's call into the VM ($stray stacks elsewhere)" [ "$stray" = 0 ]
	m=$(count "$f" '\[unwind:')
	check "$n: at most 0.1% of samples end in an unwind marker ($m of $n_all)" [ $((m * 1000)) -le "$n_all" ]
}

# dnsdist, both ways of running Lua; its UDP listener's thread runs the actions
for mode in shared per-thread; do
	port=$(free_port)
	case $mode in
	shared) action="LuaAction(dofile(\"$ROOT/tests/lua/server_burn.lua\"))" ;;
	per-thread) action="LuaFFIPerThreadAction('return dofile(\"$ROOT/tests/lua/server_burn.lua\")')" ;;
	esac
	cat >"$OUT/dnsdist-$mode.conf" <<CONF
setLocal("127.0.0.1:$port")
setSecurityPollSuffix("")
addAction(AllRule(), $action)
CONF
	bg_start dnsdist --supervised --disable-syslog -C "$OUT/dnsdist-$mode.conf"
	dd=$LAST_PID
	sleep 1.5
	"$OUT/udp_blast" "$port" 12 &
	PIDS_TO_KILL="$PIDS_TO_KILL $!"
	sleep 1
	profile "dnsdist-$mode" "$dd"
	kill "$dd" 2>/dev/null
	# the handler is a global called from C: named as Lua's traceback names it
	checks "dnsdist-$mode" ";lua_pcall;answer \\([^;]*server_burn.lua:14\\)" server_burn.lua "6 7 8 1" \
		'dnsdist/udpClie'
done

# Traffic Server, from a runroot of its own under $OUT, answering from its remap handler
R=$OUT/ats port=$(free_port)
mkdir -p "$R/etc" "$R/var" "$R/run" "$R/log" "$R/cache"
cp -r /etc/trafficserver/. "$R/etc/"
cat >"$R/runroot.yaml" <<YAML
prefix: $R
exec_prefix: /usr
bindir: /usr/bin
sbindir: /usr/sbin
sysconfdir: $R/etc
datadir: $R/cache
includedir: /usr/include
libdir: /usr/lib/trafficserver
libexecdir: /usr/lib/trafficserver/modules
localstatedir: $R/var
runtimedir: $R/run
logdir: $R/log
cachedir: $R/cache
YAML
sed -i "s/^CONFIG proxy.config.http.server_ports STRING .*/CONFIG proxy.config.http.server_ports STRING $port/
s/^CONFIG proxy.config.admin.user_id STRING .*/CONFIG proxy.config.admin.user_id STRING #-1/" "$R/etc/records.config"
cat >>"$R/etc/records.config" <<'REC'
CONFIG proxy.config.exec_thread.autoconfig INT 0
CONFIG proxy.config.exec_thread.limit INT 2
CONFIG proxy.config.http.cache.http INT 0
REC
echo "$R/cache 64M" >"$R/etc/storage.config"
echo "map / http://127.0.0.1:1/ @plugin=tslua.so @pparam=$ROOT/tests/lua/ts_remap.lua" >"$R/etc/remap.config"
TS_RUNROOT=$R/runroot.yaml traffic_server >"$R/ts.out" 2>&1 &
ts=$!
PIDS_TO_KILL="$PIDS_TO_KILL $ts"
profile_http trafficserver "$ts" "$port"
# tslua runs each remap script in globals of its own, not package.loaded's _G: like Lua's own
# traceback, the profile has no name for do_remap
checks trafficserver ";lua_pcall;\\? \\([^;]*ts_remap.lua:12\\)" ts_remap.lua "6 7 8 1" '\[ET_NET_[0-9]+\]'
kill "$ts" 2>/dev/null

# Apache's mod_lua, whose default scope gives every request a Lua state of its own (closed when
# the request ends): its handler serve loads tests/lua/request.lua and calls handle
A=$OUT/apache port=$(free_port)
mkdir -p "$A" && chmod 755 "$A"
cat >"$A/serve.lua" <<LUA
dofile("$ROOT/tests/lua/request.lua")
function serve(r)
  r.content_type = "text/plain"
  r:puts(handle(10000) .. "\n")
  return apache2.OK
end
LUA
cat >"$A/httpd.conf" <<CONF
ServerRoot $A
ServerName localhost
Listen 127.0.0.1:$port
PidFile $A/httpd.pid
ErrorLog $A/error.log
LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule lua_module /usr/lib/apache2/modules/mod_lua.so
User www-data
Group www-data
LuaMapHandler ^/ $A/serve.lua serve
CONF
bg_start apache2 -X -f "$A/httpd.conf"
ap=$LAST_PID
profile_http apache "$ap" "$port"
# handle is called from serve's code, serve from C: named by the global that holds it. Each
# request's state is new, found by its shape in whichever register holds it, and closed right
# after burn_twenty: the functions it ran are named as their twins in earlier requests' states
# were (content fingerprints), so the last function's samples keep their names too. A request
# lasts about one sample period and the worker's waits end on the sampling interrupt (timer
# slack): with one fixed period the split followed the position of each function in the
# request, not its time, and only the sampler's random periods keep it within 2 points of the
# 50.0/30.0/20.0 the handler's own thread CPU clock measures.
R="$ROOT/tests/lua/request.lua"
checks apache ";lua_pcallk;serve \\([^;]*serve.lua:2\\);handle \\($R:13\\)" request.lua "9 10 11 3" apache2 99 2
f=$OUT/apache.folded
# named right: under serve and handle, with no frame gone or called '?'
all=$(count "$f" "$R:")
named=$(count "$f" ";serve \\([^;]*serve.lua:2\\);handle \\($R:13\\)(;[^?[][^;]*)*\$")
check "apache: >= 99.5% of the samples in its Lua named right ($named of $all)" [ $((named * 1000)) -ge $((all * 995)) ]
gone=$(count "$f" '\[lua: function gone\]') n_all=$(total "$f") unnamed=$(count "$f" "$R:[0-9]+\\);\\? \\(")
check "apache: functions freed before they were named in at most 0.5% of samples ($gone of $n_all)" \
	[ $((gone * 1000)) -le $((n_all * 5)) ]
check "apache: no function of the handler called '?' ($unnamed samples)" [ "$unnamed" = 0 ]
said=$(sed -n 's/.*: \([0-9]*\) samples (.*before its name could be read.*/\1/p' "$OUT/apache.err")
check "apache: the summary counts them (${said:-none} said)" [ "${said:-0}" = "$gone" ]
finish
