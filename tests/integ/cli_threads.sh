# --threads adds a level "threadname-TID" below the process; `dump` prints each thread's
# current stack root first, and lists threads that are not on a CPU with their state.
. "$(dirname "$0")/../lib.sh"

P=$ROOT/tests/progs
CF="-O2 -fomit-frame-pointer -g0"
gcc $CF -shared -fPIC -o "$OUT/libunwtest.so" "$P/unwind_lib.c" &&
gcc $CF -shared -fPIC -o "$OUT/libunwdl.so" "$P/unwind_dl.c" &&
gcc $CF -o "$OUT/unwind" "$P/unwind.c" -L"$OUT" -lunwtest -Wl,-rpath,"$OUT" -ldl -lpthread ||
	{ fail build "gcc failed"; finish; }

bg_start "$OUT/unwind" threads
T=$LAST_PID
for _ in $(seq 50); do [ "$(ls /proc/$T/task | wc -l)" -ge 3 ] && break; sleep 0.1; done
tids=$(ls /proc/$T/task | grep -v "^$T\$" | sort -n)
"$LF" -p "$T" --threads -d 2 -o "$OUT/threads.folded" 2>"$OUT/threads.err"
check "--threads: exit 0" [ $? = 0 ]
for tid in $tids; do
	a=$(share "$OUT/threads.folded" "^unwind;unwind-$tid;clone3;start_thread;thread_a;chain_a1;chain_a2;spin\$")
	b=$(share "$OUT/threads.folded" "^unwind;unwind-$tid;clone3;start_thread;thread_b;chain_b1;chain_b2;spin\$")
	check "--threads: thread $tid has one chain under its own level (a ${a}%, b ${b}%)" \
		[ $((a + b)) -ge 40 ] && [ "$a" -lt 5 -o "$b" -lt 5 ]
done
check "--threads: the two threads run different chains" \
	[ "$(awk -F';' '/thread_a/ { print $2 }' "$OUT/threads.folded" | sort -u)" != \
	  "$(awk -F';' '/thread_b/ { print $2 }' "$OUT/threads.folded" | sort -u)" ]
check "--threads: the main thread (blocked in join) has no samples" sh -c "! grep -q '^unwind;unwind-$T;' '$OUT/threads.folded'"

# dump: every thread, the running ones with their stack root first, one frame a line.
"$LF" dump -p "$T" >"$OUT/dump.out" 2>"$OUT/dump.err"
check "dump: exit 0" [ $? = 0 ]
check "dump: says it is a sample" grep -q "a sample, not an exact snapshot" "$OUT/dump.out"
check "dump: lists all 3 threads" [ "$(grep -c '^Thread ' "$OUT/dump.out")" = 3 ]
check "dump: the main thread is not on a CPU, sleeping" grep -q "^Thread $T \"unwind\": not on a CPU while sampled (sleeping" "$OUT/dump.out"
for tid in $tids; do
	# the frames of this thread: the lines after its header up to the blank line
	awk -v t="Thread $tid " 'index($0, t) == 1 { on = 1; next } on && /^$/ { exit } on { print $1 }' \
		"$OUT/dump.out" >"$OUT/dump.$tid"
	chain=$(grep -E '^(start_thread|thread_.|chain_..|spin)$' "$OUT/dump.$tid" | tr '\n' ';')
	check "dump: thread $tid root first: $chain" \
		sh -c "echo '$chain' | grep -Eq '^start_thread;thread_(a;chain_a1;chain_a2|b;chain_b1;chain_b2);spin;\$'"
done

# dump of a Lua process: Lua frames in the stack.
cat >"$OUT/busy.lua" <<'LUA'
local function spin(n) local x = 0 for i = 1, n do x = x + i % 3 end return x end
while true do spin(100000) end
LUA
bg_start lua5.4 "$OUT/busy.lua"
sleep 0.3
"$LF" dump -p "$LAST_PID" >"$OUT/lua.out" 2>"$OUT/lua.err"
check "dump of Lua: names the runtime" grep -q "^Process $LAST_PID (lua5.4): Lua 5.4" "$OUT/lua.out"
check "dump of Lua: main chunk then spin, one a line" \
	sh -c "grep -A1 '^    main chunk ([^)]*busy.lua:0)\$' '$OUT/lua.out' | grep -q '^    spin ([^)]*busy.lua:1)\$'"
finish
