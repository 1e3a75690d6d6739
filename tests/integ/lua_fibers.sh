#!/bin/sh
# Requests on user-level contexts (tests/progs/fiber_host.cc): a boost::context fiber per
# request, or makecontext/swapcontext, calling a Lua handler that burns 50/30/20 in three named
# functions (tests/lua/fiber_handler.lua), for Lua 5.4 and LuaJIT. A stack that starts on such a
# context ends at the context's entry under the documented [fiber] root and counts as complete;
# never [unwind: ...] for it. The names are exact, the split within 3 points, and the host's C++
# frames come out demangled.
. "$(dirname "$0")/../lib.sh"

for rt in lua5.4 luajit; do
	case $rt in
	luajit) flags="-I/usr/include/luajit-2.1 -lluajit-5.1" ;;
	lua5.4) flags="-I/usr/include/lua5.4 -llua5.4" ;;
	esac
	h=$OUT/fh-$rt
	# shellcheck disable=SC2086
	if ! g++ -O2 -o "$h" "$ROOT/tests/progs/fiber_host.cc" $flags -lboost_context 2>"$h.build"; then
		fail "$rt: build" "$(head -3 "$h.build") (needs g++ and libboost-context-dev)"
		continue
	fi
	for mode in boost ucontext; do
		n=$rt-$mode
		f=$OUT/$n.folded
		bg_start "$h" "$mode" "$ROOT/tests/lua/fiber_handler.lua"
		sleep 0.5
		"$LF" -p "$LAST_PID" -F 499 -d 5 -o "$f" 2>"$OUT/$n.err"
		kill "$LAST_PID" 2>/dev/null
		# handle, a global called from C, is named as Lua's traceback names it; the host is
		# C++: its frames read as written (serve_request, not _ZL13serve_requestv)
		P="^fh-$rt;\\[fiber\\];[^;]+(;[^;]+)*;serve_request;lua_pcallk?;handle \\([^;]*fiber_handler.lua:13\\)(_\\[j\\])?"
		# burn's loop may run in a trace; then perhaps native frames (the kernel's, an interrupt's)
		E="(_\\[j\\])?(;\\[trace [0-9]+\\])?(;[^;(]*)*\$" B=";burn \\([^;]*fiber_handler.lua:3\\)"
		a=$(count "$f" "$P;burn_fifty \\([^;]*fiber_handler.lua:9\\)$B$E")
		b=$(count "$f" "$P;burn_thirty \\([^;]*fiber_handler.lua:10\\)$B$E")
		c=$(count "$f" "$P;burn_twenty \\([^;]*fiber_handler.lua:11\\)$B$E")
		t=$((a + b + c)) all=$(total "$f")
		check "$n: the three functions named under the handler under its fiber's root in >= 90% of samples ($t of $all)" \
			[ $((t * 100)) -ge $((all * 90)) ]
		split_5_3_2 "$n" "$a" "$b" "$c"
		check "$n: at most 1% of samples end in an unwind marker" [ "$(share "$f" '\[unwind:')" -le 1 ]
		check "$n: no C++ frame left mangled ($(count "$f" ';_Z'))" [ "$(count "$f" ';_Z')" = 0 ]
		c=$(sed -n 's/.* \([0-9.]*\)% complete.*/\1/p' "$OUT/$n.err")
		check "$n: the summary counts fiber stacks complete ($c%)" awk -v c="$c" 'BEGIN { exit !(c >= 99) }'
	done
done
finish
