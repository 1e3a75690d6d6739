# Hosts that link the shared Lua library (liblua5.3) or LuaJIT library (libluajit-5.1) and
# whose own read-only data also holds a copy of that runtime's version string: the runtime
# is the library that holds the VM, not the host; coroutine bodies and table.sort comparators
# keep their frames, and no stack comes out inverted. Stripped hosts, as shipped.
# And hosts with Lua linked in statically and stripped to no symbol at all (Debian's liblua5.4.a,
# its C++ build liblua5.4-c++.a, liblua5.1.a): the runtime and its VM are found in the host, and
# with no API symbol to tell where the host called the VM, every Lua stack still hangs under
# the host's own native root, in order, and resume and sort keep their frames down to the body
# and the comparator they call. Each host is also run 20 times in all under
# `lua-flame -- HOST`: the VM it makes at once is found in every run, never lost to a race.
. "$(dirname "$0")/../lib.sh"

build_host() { # NAME CFLAGS LIB DECOY
	gcc -O2 -s -o "$OUT/$1" $2 -DDECOY="\"$4\"" "$ROOT/tests/progs/embed_host.c" -l"$3" 2>"$OUT/$1.build" ||
		{ fail "$1: build" "$(cat "$OUT/$1.build")"; return 1; }
	check "$1: the host's own data holds the decoy version string" grep -Fq "$4" "$OUT/$1"
}

record_host() { # NAME: 3 s of the host running the workload, into $OUT/NAME.folded (F) and .log
	bg_start "$OUT/$1" "$ROOT/tests/lua/embed_work.lua"
	sleep 0.5
	"$LF" -p "$LAST_PID" -d 3 -F 499 -o "$OUT/$1.folded" >"$OUT/$1.log" 2>&1
	check "$1: exit status 0" [ $? = 0 ]
	kill "$LAST_PID" 2>/dev/null
	F=$OUT/$1.folded
	lua=$(share "$F" 'main chunk \(')
	check "$1: >= 90% of samples carry Lua frames ($lua%)" [ "$lua" -ge 90 ]
}

profile_host() { # NAME LIBRE RESUME SORT
	record_host "$1"
	check "$1: the runtime is the library ($2), not the host" grep -Eq " in [^ ]*$2" "$OUT/$1.log"
	check "$1: the run line does not name the host as the runtime" sh -c "! grep -Eq ' in [^ ]*/$1,' '$OUT/$1.log'"
	# Lua names neither a coroutine's body nor a comparator called by sort: '?' (line defined)
	co=$(share "$F" "driver \\([^;]*\\);$3;(.*;)?\\? \\([^;]*embed_work\\.lua:8\\);work \\(")
	check "$1: coroutine body under $3 ($co%)" [ "$co" -ge 15 ]
	# (LuaJIT runs work() in a trace and the comparator in the interpreter: there the comparator
	# itself has 14-20% of the samples, table.sort's own code most of the rest of the sort's)
	so=$(share "$F" "sorter \\([^;]*\\);$4;(.*;)?\\? \\([^;]*embed_work\\.lua:14\\)")
	check "$1: comparator under $4 ($so%)" [ "$so" -ge 10 ]
	inv=$(count "$F" '\([^;]*:[0-9]+\);(.*;)?(_start|__libc_start_main|main);')
	check "$1: no stack with the host's root above a Lua frame ($inv samples)" [ "$inv" = 0 ]
}

build_static() { # NAME COMPILER LUAVERSION LIB
	$2 -O2 -static -s -o "$OUT/$1" -I"/usr/include/lua$3" -DDECOY='"none"' $([ "$2" = g++ ] && echo "-x c++") \
		"$ROOT/tests/progs/embed_host.c" -x none "/usr/lib/x86_64-linux-gnu/$4" -lm 2>"$OUT/$1.build"
	check "$1: builds (static, stripped)" [ -x "$OUT/$1" ] || { cat "$OUT/$1.build" >&2; return 1; }
	check "$1: no symbol table" sh -c "! readelf -S '$OUT/$1' | grep -q '\.symtab'"
}

profile_static() { # NAME LUAVERSION RESUMEFRAMES
	record_host "$1"
	check "$1: the host holds the runtime and its VM" grep -Eq ": Lua $2\.[0-9]+ in $OUT/$1, 1 VM found" "$OUT/$1.log"
	# the host's native root (_start .. main, unnamed) is the same under every Lua stack
	roots=$(grep 'main chunk (' "$F" | sed 's/;main chunk (.*//' | sort -u)
	check "$1: one native root under every Lua stack ($(echo "$roots" | wc -l))" [ "$(echo "$roots" | wc -l)" = 1 ]
	check "$1: the root is native frames of the host" sh -c "echo '$roots' | grep -Eq '^$1(;$1\+0x[0-9a-f]+){3,}\$'"
	# resume's own frames down to the body, as gdb shows them: auxresume, lua_resume, and in the
	# C++ build of 5.4 also unroll (luaD_rawrunprotected and resume inlined into lua_resume),
	# which the host with its symbols leaves out below lua_resume
	co=$(share "$F" "driver \\([^;]*\\);resume;($1\\+0x[0-9a-f]+;){$3}\\? \\([^;]*embed_work\\.lua:8\\);work \\(")
	check "$1: coroutine body under resume and its $3 frames ($co%)" [ "$co" -ge 15 ]
	so=$(share "$F" "sorter \\([^;]*\\);sort;$1\\+0x")
	check "$1: sort's own frames right under sort ($so%)" [ "$so" -ge 30 ]
	# a sample taken as yield throws back to lua_resume may still show the coroutine inside it
	direct=$(share "$F" ";(sort|resume);\\? \\(")
	check "$1: a Lua function right under sort or resume, without their frames, in < 0.5% ($direct%)" \
		[ "$direct" = 0 ]
	inv=$(count "$F" '\([^;]*:[0-9]+\);(.*;)?main chunk \(')
	check "$1: no Lua frame above the main chunk ($inv samples)" [ "$inv" = 0 ]
}

command_runs() { # NAME RUNS: the host under -- COMMAND, each run >= 90% Lua frames
	low=""
	for r in $(seq "$2"); do
		EMBED_SECS=1 "$LF" -q -F 499 -o "$OUT/$1-cmd.folded" -- "$OUT/$1" "$ROOT/tests/lua/embed_work.lua" \
			>"$OUT/$1-cmd.log" 2>&1
		p=$(share "$OUT/$1-cmd.folded" 'main chunk \(')
		[ "$p" -ge 90 ] || low="$low run $r: $p%"
	done
	check "$1: -- COMMAND, $2 runs, each >= 90% Lua frames${low:+ (}${low# }${low:+)}" [ -z "$low" ]
}

for v in "static54 gcc 5.4 liblua5.4.a 2" "static54cxx g++ 5.4 liblua5.4-c++.a 3" "static51 gcc 5.1 liblua5.1.a 2"; do
	set -- $v
	build_static "$1" "$2" "$3" "$4" && profile_static "$1" "$3" "$5" && command_runs "$1" 4
done

if build_host puc_host "-I/usr/include/lua5.3" lua5.3 '$LuaVersion: Lua 5.3.6  Copyright (C) 1994-2020 Lua.org, PUC-Rio $'; then
	profile_host puc_host 'liblua5\.3\.so' resume sort
	command_runs puc_host 4
fi
if build_host lj_host "-I/usr/include/luajit-2.1" luajit-5.1 'LuaJIT 2.1.0-beta3'; then
	profile_host lj_host 'libluajit-5\.1\.so' 'coroutine\.resume' 'table\.sort'
	command_runs lj_host 4
fi
finish
