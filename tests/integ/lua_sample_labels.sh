#!/bin/sh
# A Lua frame is labelled with what ran when the sample was taken: 24 chunks loaded, run and
# dropped in turn (tests/lua/chunks.lua, each may reuse the memory of the last) keep their own
# names and shares, on Debian's lua5.4 and on LuaJIT with the JIT on and off; and a process
# that exits while hot (tests/lua/exit_hot.lua) has its last samples named. Each chunk runs
# 150 ms of CPU (60 ms shows the same, but with counts that vary more on a busy machine).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

C=tests/lua/chunks.lua
X=tests/lua/exit_hot.lua
G=tests/lua/churn.lua
N=24
MS=150
J='(_\[j\])?'   # the frame may run in a compiled trace

# bad_lua FILE: samples with a Lua function frame that is unnamed, unreadable, or gone (every
# function of these scripts has a name).
bad_lua() { count "$1" '\[lua: function gone\]|\[unreadable\]|;\? \('; }

# chunks NAME CMD...: profiles CMD running the chunks (started once lua-flame samples) and
# checks the stack of every chunk and its share.
chunks() {
	name=$1; shift
	F=$OUT/$name.folded
	rm -f "$OUT/go"; mkfifo "$OUT/go"
	exec 3<>"$OUT/go"   # read-write: opening it does not wait for the other end
	"$@" "$C" "$N" "$MS" wait <"$OUT/go" &   # (bg_start would give it /dev/null for stdin)
	tp=$!
	PIDS_TO_KILL="$PIDS_TO_KILL $tp"
	# attach once the interpreter runs and waits for the line (its VM made), not to the shell
	# that is still starting it
	for _ in $(seq 100); do
		case $(readlink "/proc/$tp/exe") in *lua*) [ "$(cut -d' ' -f3 "/proc/$tp/stat")" = S ] && break ;; esac
		sleep 0.05
	done
	"$LF" -p "$tp" -F 999 -o "$F" 2>"$OUT/$name.err" &
	lp=$!
	for _ in $(seq 100); do grep -q 'profiling PID' "$OUT/$name.err" && break; sleep 0.1; done
	echo go >&3
	exec 3>&-
	wait "$lp"
	# each chunk's function under the chunk's main function (or that one alone, starting or
	# ending), under the script's main chunk, and no Lua frame further in
	: >"$OUT/$name.counts"
	for i in $(seq "$N"); do
		count "$F" ";main chunk \\($C:0\\);chunk \\(chunk$i:0\\)$J(;spin \\(chunk$i:2\\)$J)?(;[^;(]*)*\$" \
			>>"$OUT/$name.counts"
	done
	all=$(count "$F" '\(chunk[0-9]+:')
	sum=$(awk '{ s += $1 } END { print s + 0 }' "$OUT/$name.counts")
	check "$name: every sample in a chunk has the exact stack ($sum of $all)" [ "$sum" = "$all" ]
	# MS ms of CPU each at 999 Hz: about MS samples, the same for every chunk
	off=$(awk -v n="$N" -v ms="$MS" '{ c[NR] = $1; s += $1 } END { m = s / n; bad = ""
		for (i = 1; i <= n; i++) if (c[i] < 0.8 * m || c[i] > 1.2 * m) bad = bad " " i ":" c[i]
		if (m < 0.8 * ms || m > 1.2 * ms) bad = bad " mean:" m
		print bad }' "$OUT/$name.counts")
	check "$name: $N chunks within 20% of their share ($(tr '\n' ' ' <"$OUT/$name.counts"))" [ -z "$off" ]
	b=$(bad_lua "$F")
	check "$name: no Lua frame unnamed or gone ($b samples)" [ "$b" = 0 ]
	check "$name: the summary counts no unnamed frame" sh -c "! grep -q 'function gone' '$OUT/$name.err'"
}

# exits NAME CMD...: profiles the script that runs late() only in its last 50 ms and exits
# from inside it, and checks that those last samples are named.
exits() {
	name=$1; shift
	F=$OUT/$name.folded
	"$LF" -F 999 -o "$F" -- "$@" "$X" 0.4 0.05 2>"$OUT/$name.err"
	early=$(count "$F" ";main chunk \\($X:0\\);early \\($X:7\\)$J(;[^;(]*)*\$")
	late=$(count "$F" ";main chunk \\($X:0\\);late \\($X:13\\)$J(;[^;(]*)*\$")
	# at 999 Hz: about 400 samples of early() (fewer if the VM is found late), 50 of late()
	check "$name: the function before is named ($early samples; 200-480)" sh -c "[ $early -ge 200 ] && [ $early -le 480 ]"
	check "$name: the function running at exit is named ($late samples; 30-70)" sh -c "[ $late -ge 30 ] && [ $late -le 70 ]"
	b=$(bad_lua "$F")
	check "$name: no Lua frame unnamed or gone ($b samples)" [ "$b" = 0 ]
	# the main chunk's own code between the two calls takes a few samples at most
	other=$(($(count "$F" ";main chunk \\($X:0\\)") - early - late))
	check "$name: no other stack under the main chunk ($other samples; at most 5)" [ "$other" -le 5 ]
	# what the host's lua_pcall runs is the main chunk, never a function of unknown kind
	q=$(count "$F" ';lua_pcallk?;\?(;|$)')
	check "$name: no bare ? under lua_pcall ($q samples)" [ "$q" = 0 ]
}

# churns NAME CMD...: profiles chunks that live about a millisecond each.
churns() {
	name=$1; shift
	F=$OUT/$name.folded
	"$LF" -F 999 -o "$F" -- "$@" "$G" 2 2>"$OUT/$name.err"
	t=$(total "$F")
	named=$(count "$F" ";main chunk \\($G:0\\);f \\(gen[0-9]+:0\\)$J(;[^;(]*)*\$")
	gone=$(count "$F" '\[lua: function gone\]')
	said=$(sed -n 's/.*: \([0-9]*\) samples (.*before its name could be read.*/\1/p' "$OUT/$name.err")
	check "$name: the summary counts the frames not named (${said:-none} said, $gone in the profile)" \
		[ "${said:-0}" = "$gone" ]
	# a stack with a Lua function gone is rooted but not whole: not "complete" (the summary
	# rounds to a tenth of a point, so it is compared with the share without them, rounded so)
	pct=$(sed -n 's/.* \([0-9]*\.[0-9]\)% complete.*/\1/p' "$OUT/$name.err")
	most=$(awk -v t="$t" -v g="$gone" 'BEGIN { printf "%.1f", t ? 100 * (t - g) / t : 100 }')
	check "$name: complete ($pct%) leaves out the $gone of $t samples with a function gone (<= $most%)" \
		awk -v p="${pct:-100}" -v m="$most" 'BEGIN { exit !(p + 0 <= m + 0) }'
	# named as they run, not after the fact, which would miss nearly all of them
	check "$name: most samples named ($named of $t; gone $gone)" \
		sh -c "[ $((named * 100)) -ge $((t * 75)) ] && [ $((gone * 100)) -le $((t * 10)) ]"
}

chunks "lua5.4 chunks" lua5.4
chunks "luajit chunks" luajit -jon
chunks "luajit -joff chunks" luajit -joff
exits "lua5.4 exit while hot" lua5.4
exits "luajit exit while hot" luajit -jon
exits "luajit -joff exit while hot" luajit -joff
churns "lua5.4 churn" lua5.4
churns "luajit churn" luajit -jon
finish
