# Hosts with their own copy of Lua 5.3 or 5.4 linked in statically (Debian's liblua5.x.a and
# its C++ build liblua5.x-c++.a), stripped to no symbol at all: a C function called from Lua
# that calls back into Lua (table.sort, string.gsub) keeps its native frames down to the call
# back, in order, as the same host with its symbols shows them (its twin built without -s,
# whose code is the same byte for byte). gdb on the twin says what the true stack is.
. "$(dirname "$0")/../lib.sh"

# run from the script's folder: its chunk name is static_callbacks.lua
run_host() { cd "$ROOT/tests/lua" && exec "$1" static_callbacks.lua; }
LIBDIR=/usr/lib/x86_64-linux-gnu

build_pair() { # NAME COMPILER LUAVERSION LIB: $OUT/NAME (stripped) and $OUT/NAME-syms
	for out in "$1 -s" "$1-syms"; do # the stripped host, then its twin
		$2 -O2 -static -o $OUT/$out -I"/usr/include/lua$3" -DDECOY='"none"' $([ "$2" = g++ ] && echo "-x c++") \
			"$ROOT/tests/progs/embed_host.c" -x none "$LIBDIR/$4" -lm 2>>"$OUT/$1.build"
	done
	check "$1: builds, and its twin with symbols" [ -x "$OUT/$1" ] && [ -x "$OUT/$1-syms" ] ||
		{ cat "$OUT/$1.build" >&2; return 1; }
	check "$1: no symbol table" sh -c "! readelf -S '$OUT/$1' | grep -q '\.symtab'"
	objcopy -O binary -j .text "$OUT/$1" "$OUT/$1.text"
	objcopy -O binary -j .text "$OUT/$1-syms" "$OUT/$1-syms.text"
	check "$1: the same code as its twin" cmp -s "$OUT/$1.text" "$OUT/$1-syms.text"
}

record() { # HOST: 3 s of it, into $OUT/HOST.folded
	bg_start run_host "$OUT/$1"
	sleep 0.5
	"$LF" -p "$LAST_PID" -d 3 -F 499 -o "$OUT/$1.folded" >"$OUT/$1.log" 2>&1
	check "$1: exit status 0" [ $? = 0 ]
	kill "$LAST_PID" 2>/dev/null
}

# The stripped host's labels FILE+0xSTART as its twin's symbols (the function starting there).
translate() { # NAME
	# C++ names as lua-flame writes them: demangled, without their parameters
	nm -C "$OUT/$1-syms" | awk '$2 ~ /^[tTwW]$/ { a = $1; sub(/^0+/, "", a); n = $3; sub(/\(.*/, "", n); print a, n }' \
		>"$OUT/$1.syms"
	awk -v host="$1" 'NR == FNR { sym[$1] = $2; next }
		{ n = split($0, f, ";"); out = ""
		  for (i = 1; i <= n; i++) {
			if (index(f[i], host "+0x") == 1) { a = substr(f[i], length(host) + 4); if (a in sym) f[i] = sym[a] }
			out = out (i > 1 ? ";" : "") f[i] }
		  print out }' "$OUT/$1.syms" "$OUT/$1.folded" >"$OUT/$1.named"
}

# The part of each stack from a C function's callee down to the Lua function it called, with
# its samples: "CALLEES;LUAFRAME N" for each stack holding LUAFRAME right under C function CFN.
tails() { # FILE CFN LUAFRAME
	awk -v cf="$2" -v lf="$3" '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		k = index(s, ";" cf ";"); if (!k) next
		t = substr(s, k + length(cf) + 2); j = index(t, lf); if (!j) next
		c[substr(t, 1, j - 1) lf] += n }
		END { for (x in c) print c[x], x }' "$1" | sort -rn
}

IN_CMP=';sort;(auxsort;)+sort_comp;lua_callk;luaD_callnoyield;(luaD_call;)?luaV_execute'

true_stack() { # NAME: gdb's backtrace of the twin inside the comparator's call, outermost first
	bg_start run_host "$OUT/$1-syms"
	sleep 0.3
	for i in $(seq 30); do
		gdb -q -p "$LAST_PID" -batch -ex bt 2>/dev/null |
			awk '/^#/ { f = $2 ~ /^0x/ ? $4 : $2; sub(/\(.*/, "", f); s = f (s ? ";" s : "") } END { print s }' >"$OUT/$1.gdb"
		# a stop inside the call's own entry (luaD_callnoyield, before luaV_execute) is not
		# the moment compared: wait for one inside the comparator's run
		grep -Eq "$IN_CMP" "$OUT/$1.gdb" && break
	done
	kill "$LAST_PID" 2>/dev/null
}

profile_pair() { # NAME
	record "$1"
	record "$1-syms"
	check "$1: the host holds the runtime" grep -Eq ": Lua 5\.[34]\.[0-9]+ in $OUT/$1, 1 VM found" "$OUT/$1.log"
	translate "$1"
	true_stack "$1"
	# what gdb sees between sort and the comparator's luaV_execute: lua-flame shows the frames
	# down to lua_callk and leaves out the VM's own (luaD_callnoyield, luaV_execute)
	check "$1: gdb: sort calls back through auxsort, sort_comp and lua_callk ($(cat "$OUT/$1.gdb"))" \
		grep -Eq "$IN_CMP" "$OUT/$1.gdb"
	for c in sort gsub; do
		# the twin names gsub's native frame by its symbol; Lua names the global comparator
		# (function 'cmp' in its traceback), not the local function gsub calls
		case $c in
		sort) line=9 l="cmp (static_callbacks.lua:9)" twin_c=sort ;;
		*) line=13 l="? (static_callbacks.lua:13)" twin_c=str_gsub ;;
		esac
		tails "$OUT/$1.named" "$c" "$l" >"$OUT/$1.$c.tails"
		tails "$OUT/$1-syms.folded" "$twin_c" "$l" >"$OUT/$1-syms.$c.tails"
		all=$(count "$OUT/$1.folded" ";$c;(.*;)?[^;]*\\(static_callbacks\\.lua:$line\\)")
		t=$(awk '{ t += $1 } END { print t + 0 }' "$OUT/$1.$c.tails")
		check "$1: every sample under $c that reaches its Lua callback has the frames between ($t of $all)" \
			sh -c "[ $t -ge 30 ] && [ $t = $all ]"
		[ "$c" = sort ] && want='^(auxsort;)+sort_comp;lua_callk;cmp \(' || want='^lua_callk;\? \('
		bad=$(RE=$want awk '{ x = $0; sub(/^[0-9]+ /, "", x); if (x !~ ENVIRON["RE"]) b += $1 } END { print b + 0 }' \
			"$OUT/$1.$c.tails")
		check "$1: $c's frames down to the callback, in gdb's order, named as in its twin ($bad of $t off)" \
			[ "$bad" = 0 ]
		# (a shape seen in 2% of the samples or more: rarer ones, such as one depth of auxsort's
		# recursion, may show in one run and not in the other)
		missing=$(awk -v min=$((t / 50 > 2 ? t / 50 : 2)) 'NR == FNR { x = $0; sub(/^[0-9]+ /, "", x); twin[x] = 1; next }
			{ x = $0; sub(/^[0-9]+ /, "", x); if (!(x in twin) && $1 > min) m++ } END { print m + 0 }' \
			"$OUT/$1-syms.$c.tails" "$OUT/$1.$c.tails")
		check "$1: each of $c's stacks seen in 2% of its samples is one its twin shows too ($missing not)" [ "$missing" = 0 ]
	done
}

for v in "static53 gcc 5.3 liblua5.3.a" "static54 gcc 5.4 liblua5.4.a" \
	"static53cxx g++ 5.3 liblua5.3-c++.a" "static54cxx g++ 5.4 liblua5.4-c++.a"; do
	set -- $v
	build_pair "$1" "$2" "$3" "$4" && profile_pair "$1"
done
finish
