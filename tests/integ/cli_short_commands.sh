# Commands that end within a second (-- COMMAND, 50-500 ms here): their stacks are named after
# the process is gone, so every native frame must be named from the files opened while it
# ran, as a long run names them: no [unknown], nearly every sample rooted at _start (or the
# loader's start), and the Lua part readable.
. "$(dirname "$0")/../lib.sh"

# run NAME COMM CALL COMMAND...: profiles COMMAND at 999 Hz and checks it. CALL: the native
# frames through which the interpreter runs the Lua code (empty: no Lua), below which every
# sample must go on with a Lua frame. Samples taken while exit_group tears the address space
# down have no user stack left to root, and are not counted.
run() {
	name=$1 comm=$2 call=$3
	shift 3
	f="$OUT/$name.folded"
	"$LF" -F 999 -o "$f" -- "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	t=$(($(total "$f") - $(count "$f" '\[unwind: process exiting\]')))
	# (an address the unwinder found in no mapping, after [unwind: unmapped pc], is unknown indeed)
	u=$(($(count "$f" '\[unknown\]') - $(count "$f" '\[unwind: unmapped pc\];\[unknown\]')))
	r=$(count "$f" "^$comm;(_start|ld-linux-x86-64\\.so\\.2\\+0x[0-9a-f]+)(;|\$)")
	check "$name: some samples ($t)" [ "$t" -ge 10 ]
	check "$name: no [unknown] frame ($u of $t)" [ "$u" = 0 ]
	# One sample of slack: LuaJIT's interpreter in the few milliseconds before its VM is
	# found, or crt code run at exit, ends short of the root now and then.
	check "$name: at least 99% rooted at _start or the loader's start ($r of $t)" [ $((r * 100 + 100)) -ge $((t * 99)) ]
	if [ -n "$call" ]; then
		c=$(count "$f" "^$comm;_start;.*$call")
		l=$(count "$f" "^$comm;_start;.*$call[^;]* \\([^;]*:[0-9]+\\)(_\\[j\\])?(;|\$)")
		check "$name: the Lua code runs in most samples ($c of $t)" [ $((c * 2)) -ge "$t" ]
		check "$name: at least 99% of those have its Lua frames ($l of $c)" [ $((l * 100 + 100)) -ge $((c * 99)) ]
	fi
	if [ "$u" != 0 ]; then
		check "$name: the summary does not say 100.0% complete with [unknown] frames" \
			sh -c "! grep -q '100.0% complete' '$OUT/$name.err'"
	fi
}

PUC='^lua5\.4;_start;__libc_start_main;__libc_start_call_main;lua5\.4\+0x[0-9a-f]+;lua_pcallk;'
C54=';lua_pcallk;(lua5\.4\+0x[0-9a-f]+;){2,3}lua_pcallk;'
C51=';lua_pcall;'

run lua54-50ms lua5\\.4 "$C54" lua5.4 -e 'local x = 0 for i = 1, 2e6 do x = x + i % 7 end'
run lua54-200ms lua5\\.4 "$C54" lua5.4 -e 'local x = 0 for i = 1, 1e7 do x = x + i % 7 end'
# The same chain of native frames down to the Lua code as a long run names.
m=$(count "$OUT/lua54-200ms.folded" "${PUC}lua5\\.4\\+0x[0-9a-f]+;lua5\\.4\\+0x[0-9a-f]+;lua5\\.4\\+0x[0-9a-f]+;lua_pcallk;main chunk \\(\\(command line\\):0\\)\$")
t=$(total "$OUT/lua54-200ms.folded")
check "lua54-200ms: the main chunk under the interpreter's own frames ($m of $t)" [ $((m * 10)) -ge $((t * 8)) ]

cat >"$OUT/short.lua" <<'LUA'
local function leaf(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local function mid(n) return leaf(n) + #tostring(n) end
local parts = {}
for i = 1, 600 do mid(20000) parts[#parts + 1] = ("%d"):format(i) end
print(#table.concat(parts))
LUA
run lua51-script lua5\\.1 "$C51" lua5.1 "$OUT/short.lua"
run lua54-script lua5\\.4 "$C54" lua5.4 "$OUT/short.lua"
expect_stack "lua54-script: leaf under mid under the main chunk" "$OUT/lua54-script.folded" \
	'main chunk \([^;]*short\.lua:0\);mid \([^;]*short\.lua:2\);leaf \([^;]*short\.lua:1\)$'
run luajit-script luajit "$C51" luajit "$OUT/short.lua"
run luajit-joff luajit "$C51" luajit -joff "$OUT/short.lua"
# No Lua at all: the shell's own frames.
run sh-loop sh '' sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done'
finish
