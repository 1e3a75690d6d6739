# Lua processes in containers (PID + mount namespaces, pivot_root; a user namespace too),
# profiled from the host by host PID: interpreters whose path on the host is another file or no
# file, files replaced while mapped, several containers at once, and lua-flame itself in a
# mount namespace of its own. Stacks must be those of the same files run on the host.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/container/lib.sh"

S='tests/lua/shape.lua'
L() { printf '%s \\(%s:%s\\)' "$1" "$S" "$2"; }   # regex of a Lua frame label
Q() { printf '\\? \\(%s:%s\\)' "$S" "$1"; }        # a frame Lua has no name for
TICK="$(L 'main chunk' 0);$(L tick 46)"

# starts FILE TEXT: percent of samples whose stack begins with TEXT (compared literally),
# among those not cut by the Lua depth limit (those keep only the innermost Lua frames).
starts() {
	P=$2 awk '/\[lua: depth limit\]/ { next } { n = $NF; t += n; if (index($0, ENVIRON["P"]) == 1) m += n }
		END { if (t == 0) print 0; else printf "%d\n", (100 * m / t) + 0.5 }' "$1"
}
# prefix FILE: the native frames under "main chunk" of most samples, root frame included.
prefix() {
	awk '{ n = $NF; i = index($0, ";main chunk ("); if (i) w[substr($0, 1, i)] += n }
		END { for (p in w) if (w[p] > best) { best = w[p]; bp = p } print bp }' "$1"
}
# pct_complete NAME: the "% complete" figure of the summary in $OUT/NAME.err, as an integer.
pct_complete() { sed -n 's/.* \([0-9]*\)\.[0-9]% complete.*/\1/p' "$OUT/$1.err"; }
# profile NAME PIDS [OPTIONS]: records PIDS for 4 s into $OUT/NAME.folded.
profile() { n=$1 p=$2; shift 2; "$LF" -p "$p" -d 4 -F 499 "$@" -o "$OUT/$n.folded" 2>"$OUT/$n.err"; }
# lua_stacks TAG FILE ROOTRE: the Lua frames of shape.lua, in order, under native frames.
lua_stacks() {
	expect_stack "$1: Lua -> Lua -> Lua in order, no C between" "$2" \
		"^$3.*;lua_pcallk;$TICK;$(L burn_a 10);$(L work 4)\$"
	expect_stack "$1: Lua -> C -> Lua callback (table.sort comparator)" "$2" \
		"^$3.*;$TICK;$(L sorter 19);sort;([^;]*;)*lua_callk?;$(Q 14);$(L work 4)\$"
	expect_stack "$1: coroutine frames under coroutine.resume" "$2" \
		"^$3.*;$TICK;$(L run_coro 37);resume;([^;]*;)*lua_resume;$(Q 30);$(L work 4)\$"
}
# app ROOT: shape.lua at /app/tests/lua in ROOT, so chunk names match the host runs.
app() { mkdir -p "$1/app/tests/lua" && cp "$ROOT/$S" "$1/app/tests/lua/"; }

# The same interpreter files run on the host give the native frames to expect.
cd "$ROOT" || exit 1
for v in 5.3 5.4; do
	bg_start "lua$v" "$S"
	sleep 0.3
	"$LF" -p "$LAST_PID" -d 2 -F 499 -o "$OUT/host$v.folded" 2>"$OUT/host$v.err"
	kill "$LAST_PID"
done
P53=$(prefix "$OUT/host5.3.folded" | sed 's/^lua5\.3;/lua5.4;/; s/;lua5\.3+0x/;lua5.4+0x/g')
P54=$(prefix "$OUT/host5.4.folded")
case $P53 in lua5.4\;_start\;*lua_pcallk\;) pass "host lua5.3: native frames under the Lua ones ($P53)" ;;
*) fail "host lua5.3 baseline" "unexpected prefix '$P53'" ;; esac
case $P54 in lua5.4\;_start\;*lua_pcallk\;) pass "host lua5.4: native frames under the Lua ones ($P54)" ;;
*) fail "host lua5.4 baseline" "unexpected prefix '$P54'" ;; esac

# 1. PID + mount namespaces: Debian's lua5.3 as /usr/bin/lua5.4, the host's path of lua5.4.
A_ROOT=$OUT/root-a
ct_root lua53as54 "$A_ROOT" && app "$A_ROOT"
ct_start "$A_ROOT" lua5.4 /bin/sh -c 'cd /app && exec /usr/bin/lua5.4 tests/lua/shape.lua'
A=$CONTAINER_PID
check "setup: PID $A is PID 1 in its container" grep -q "^NSpid:.*[[:space:]]1\$" "/proc/$A/status"
check "setup: /usr/bin/lua5.4 in the container's maps is not the host's file" \
	sh -c "grep -q ' /usr/bin/lua5.4\$' /proc/$A/maps && ! cmp -s /usr/bin/lua5.4 '$A_ROOT/usr/bin/lua5.4'"
profile pidns "$A" -o "$OUT/pidns.svg"
check "pidns: the run names the container-side PID" grep -q "profiling PID $A \\[PID 1 in its container\\]" "$OUT/pidns.err"
check "pidns: the SVG subtitle names host PID, container PID and command" \
	grep -q "lua5.4 tests/lua/shape.lua (PID $A \\[PID 1 in its container\\])" "$OUT/pidns.svg"
check "pidns: Lua 5.3.6 detected in the container's /usr/bin/lua5.4" \
	grep -q "PID $A: Lua 5\.3\.6 in /usr/bin/lua5\.4, 1 VM found" "$OUT/pidns.err"
c=$(pct_complete pidns)
check "pidns: ${c}% of stacks complete" [ "${c:-0}" -ge 99 ]
s=$(starts "$OUT/pidns.folded" "$P53")
check "pidns: ${s}% of stacks start with the host's frames for the same file (>= 98)" [ "$s" -ge 98 ]
if [ -d "$A_ROOT/usr/lib/debug/.build-id" ]; then
	check "pidns: libc symbols from the debug file inside the container" \
		[ "$(share "$OUT/pidns.folded" '^lua5\.4;_start;__libc_start_main;__libc_start_call_main;')" -ge 99 ]
else
	fail "pidns: libc symbols from the debug file inside the container" "libc6-dbg is not installed"
fi
lua_stacks pidns "$OUT/pidns.folded" "lua5\\.4;_start;"
s=$(share "$OUT/pidns.folded" "\\($S:")
check "pidns: ${s}% of samples carry a Lua stack (>= 95%)" [ "$s" -ge 95 ]

# 2. User namespace too, and a Lua 5.4 build whose files the host does not have at all:
# /opt/lua/bin/lua (stripped; symbols in a debug file in the container) on liblua5.4.so.0.
C_ROOT=$OUT/root-c
ct_root optlua "$C_ROOT" && app "$C_ROOT"
CT_OPTS=--user ct_start "$C_ROOT" lua /bin/sh -c 'cd /app && exec /opt/lua/bin/lua tests/lua/shape.lua'
C=$CONTAINER_PID
check "setup: PID $C is in a user namespace of its own" \
	sh -c "[ \"\$(readlink /proc/$C/ns/user)\" != \"\$(readlink /proc/self/ns/user)\" ]"
check "setup: /opt/lua does not exist on the host" [ ! -e /opt/lua ]
profile userns "$C"
check "userns: Lua 5.4.4 detected in /opt/lua/lib/liblua5.4.so.0" \
	grep -q "PID $C: Lua 5\.4\.4 in /opt/lua/lib/liblua5\.4\.so\.0, 1 VM found" "$OUT/userns.err"
c=$(pct_complete userns)
check "userns: ${c}% of stacks complete" [ "${c:-0}" -ge 99 ]
NAT_C='^lua;_start;__libc_start_main;[^;]*;main;lua_host_run;lua_host_call;lua_pcallk;'
s=$(share "$OUT/userns.folded" "$NAT_C")
check "userns: ${s}% of stacks have main;lua_host_run;lua_host_call from the container's debug file (>= 95)" \
	[ "$s" -ge 95 ]
lua_stacks userns "$OUT/userns.folded" "lua;_start;"

# 3. Several containers in one run: Lua 5.3 and Debian's Lua 5.4 both at /usr/bin/lua5.4,
# and the other Lua 5.4 build under /opt/lua.
B_ROOT=$OUT/root-b
ct_root lua54 "$B_ROOT" && app "$B_ROOT"
ct_start "$B_ROOT" lua5.4 /bin/sh -c 'cd /app && exec /usr/bin/lua5.4 tests/lua/shape.lua'
B=$CONTAINER_PID
profile multi "$A,$B,$C" --threads
for x in "$A 5.3.6 /usr/bin/lua5.4" "$B 5.4.4 /usr/bin/lua5.4" "$C 5.4.4 /opt/lua/lib/liblua5.4.so.0"; do
	# shellcheck disable=SC2086
	set -- $x
	check "multi: PID $1 is Lua $2 in $3" grep -q "PID $1: Lua $2 in $3, 1 VM found" "$OUT/multi.err"
done
c=$(pct_complete multi)
check "multi: ${c}% of stacks complete" [ "${c:-0}" -ge 99 ]
# per_pid TAG PID COMM NATIVE: the samples of one process, without the thread level.
per_pid() {
	grep "^$3;$3-$2;" "$OUT/multi.folded" | sed "s/^$3;$3-$2;/$3;/" >"$OUT/multi-$1.folded"
	n=$(total "$OUT/multi-$1.folded")
	s=$(starts "$OUT/multi-$1.folded" "$4")
	check "multi: $1 ($n samples): ${s}% start with the host's frames for its file (>= 98)" \
		sh -c "[ $n -ge 100 ] && [ $s -ge 98 ]"
}
per_pid lua53 "$A" lua5.4 "$P53"
per_pid lua54 "$B" lua5.4 "$P54"
grep "^lua;lua-$C;" "$OUT/multi.folded" | sed "s/^lua;lua-$C;/lua;/" >"$OUT/multi-opt.folded"
s=$(share "$OUT/multi-opt.folded" "$NAT_C")
check "multi: /opt/lua build: ${s}% of its stacks through lua_host_run (>= 98)" [ "$s" -ge 98 ]
for t in lua53 lua54 opt; do
	expect_stack "multi: $t: Lua -> Lua -> Lua" "$OUT/multi-$t.folded" ";lua_pcallk;$TICK;$(L burn_a 10);$(L work 4)\$"
done

# Without CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE /proc/PID/map_files cannot be opened:
# the container's files are then reached through /proc/PID/root.
NOCAP="setpriv --inh-caps=-sys_admin,-checkpoint_restore --bounding-set=-sys_admin,-checkpoint_restore"
F1=$(ls "/proc/$B/map_files" | head -1)
check "setup: map_files closed without CAP_SYS_ADMIN" sh -c "! $NOCAP cat /proc/$B/map_files/$F1 >/dev/null 2>&1"
$NOCAP "$LF" -p "$B" -d 4 -F 499 -o "$OUT/nocap.folded" 2>"$OUT/nocap.err"
check "nocap: Lua 5.4.4 detected in the container's /usr/bin/lua5.4" \
	grep -q "PID $B: Lua 5\.4\.4 in /usr/bin/lua5\.4, 1 VM found" "$OUT/nocap.err"
c=$(pct_complete nocap)
check "nocap: ${c}% of stacks complete" [ "${c:-0}" -ge 99 ]
s=$(starts "$OUT/nocap.folded" "$P54")
check "nocap: ${s}% of stacks start with the host's frames for the same file (>= 98)" [ "$s" -ge 98 ]
lua_stacks nocap "$OUT/nocap.folded" "lua5\\.4;_start;"

# 4. Files replaced while mapped: the interpreter deleted and another one put at its path,
# libc renamed over by another library. The mapped files are still what counts.
rm "$A_ROOT/usr/bin/lua5.4" && cp /usr/bin/lua5.1 "$A_ROOT/usr/bin/lua5.4"
libc=$A_ROOT/usr/lib/x86_64-linux-gnu/libc.so.6
cp "$A_ROOT/usr/lib/x86_64-linux-gnu/libm.so.6" "$libc.new" && mv "$libc.new" "$libc"
check "setup: the maps of PID $A show the interpreter deleted" grep -q ' /usr/bin/lua5.4 (deleted)$' "/proc/$A/maps"
profile replaced "$A"
check "replaced: still Lua 5.3.6 (not the new file's 5.1)" \
	grep -Eq "PID $A: Lua 5\.3\.6 in /usr/bin/lua5\.4( \(deleted\))?, 1 VM found" "$OUT/replaced.err"
c=$(pct_complete replaced)
check "replaced: ${c}% of stacks complete" [ "${c:-0}" -ge 99 ]
s=$(starts "$OUT/replaced.folded" "$P53")
check "replaced: ${s}% of stacks start with the frames of the file that was mapped (>= 98)" [ "$s" -ge 98 ]
lua_stacks replaced "$OUT/replaced.folded" "lua5\\.4;_start;"

# 5. lua-flame itself in a mount namespace of its own (host PID namespace, a root with
# nothing but lua-flame, sh, umount and /proc), profiling a process of the host and the one in
# the user-namespace container at once.
T_ROOT=$OUT/root-tool
ct_root base "$T_ROOT" && cp "$LF" "$T_ROOT/lua-flame"
mkdir -p "$OUT/tool"
bg_start lua5.4 "$S"
H=$LAST_PID
sleep 0.3
sh "$CT/run.sh" --host-pid --bind "$OUT/tool:/out" "$T_ROOT" \
	/lua-flame -p "$H,$C" -d 4 -F 499 -o /out/both.folded 2>"$OUT/tool.err"
check "tool: lua-flame in its own mount namespace exits 0" [ $? = 0 ]
kill "$H"
check "tool: sees Lua 5.4.4 in the host's /usr/bin/lua5.4" \
	grep -q "PID $H: Lua 5\.4\.4 in /usr/bin/lua5\.4, 1 VM found" "$OUT/tool.err"
check "tool: sees Lua 5.4.4 in the container's /opt/lua/lib/liblua5.4.so.0" \
	grep -q "PID $C: Lua 5\.4\.4 in /opt/lua/lib/liblua5\.4\.so\.0, 1 VM found" "$OUT/tool.err"
c=$(pct_complete tool)
check "tool: ${c}% of stacks complete" [ "${c:-0}" -ge 99 ]
grep '^lua5\.4;' "$OUT/tool/both.folded" >"$OUT/tool/host.folded"
grep '^lua;' "$OUT/tool/both.folded" >"$OUT/tool/opt.folded"
s=$(starts "$OUT/tool/host.folded" "$P54")
check "tool: host process: ${s}% of stacks start with the frames seen from the host (>= 98)" [ "$s" -ge 98 ]
lua_stacks tool "$OUT/tool/host.folded" "lua5\\.4;_start;"
s=$(share "$OUT/tool/opt.folded" "$NAT_C")
n=$(total "$OUT/tool/opt.folded")
check "tool: container process ($n samples): ${s}% through lua_host_run (>= 98)" \
	sh -c "[ $n -ge 100 ] && [ $s -ge 98 ]"
expect_stack "tool: container process: Lua -> Lua -> Lua" "$OUT/tool/opt.folded" \
	";lua_pcallk;$TICK;$(L burn_a 10);$(L work 4)\$"
# lua-flame itself in a child PID namespace (a sidecar, `docker exec`): its PIDs are that
# namespace's, and the kernel must filter by them.
unshare --pid --fork --mount --mount-proc sh -c \
	"cd '$ROOT' && lua5.4 tests/lua/shape.lua & sleep 0.3; '$LF' -p \$! -d 2 -o '$OUT/childns.folded'; kill \$!" \
	>"$OUT/childns.out" 2>&1
n=$(total "$OUT/childns.folded")
check "child PID namespace: samples recorded ($n)" [ "${n:-0}" -ge 20 ]
check "child PID namespace: Lua frames present" grep -q 'tick (tests/lua/shape.lua:46)' "$OUT/childns.folded"
finish
