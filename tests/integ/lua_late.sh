# A process profiled with -p that loads Lua only later (dlopen of liblua5.3 after 1.5 s of
# native work): lua-flame picks the runtime and its VM up while recording, within a second.
# A command whose host sets itself up for 0.3 s before it makes its Lua state: the state's
# heap is not there when lua-flame reads the command's maps, and is found at its first sample.
# A host that makes its state 0.5 s in, in memory it maps then far from the rest: the first
# sample in it asks for the maps at once, and the state is found within a tenth of a second.
. "$(dirname "$0")/../lib.sh"

gcc -O2 -o "$OUT/late_lua" "$ROOT/tests/progs/late_lua.c" -ldl 2>"$OUT/build" || { fail build "$(cat "$OUT/build")"; finish; }
rm -f "$OUT/go"
bg_start "$OUT/late_lua" "$OUT/go" "$ROOT/tests/lua/embed_work.lua"
target=$LAST_PID
"$LF" -p "$target" -d 4 -F 499 -o "$OUT/late.folded" >"$OUT/late.log" 2>&1 &
lf=$!
# The program loads Lua one second after lua-flame has started sampling.
for _ in $(seq 300); do grep -q '^lua-flame: profiling PID' "$OUT/late.log" && break; sleep 0.1; done
touch "$OUT/go"
wait $lf
check "exit status 0" [ $? = 0 ]
check "no Lua runtime at the start" grep -q 'no Lua runtime found' "$OUT/late.log"
F=$OUT/late.folded
check "the runtime is found while recording (liblua5.3)" grep -Eq 'Lua 5\.3\.[0-9]+ in [^ ]*liblua5\.3\.so[^ ]*, 1 VM' "$OUT/late.log"
native=$(share "$F" ';main;native_burn')
lua=$(share "$F" 'main chunk \([^;]*embed_work\.lua:0\);driver \(')
inlib=$(share "$F" 'liblua5\.3')
check "native phase seen ($native%)" [ "$native" -ge 15 ]
check "Lua frames in >= 50% of the samples ($lua%; the Lua phase is ~70%)" [ "$lua" -ge 50 ]
nolua=$(count "$F" 'liblua5\.3')
with=$(count "$F" 'liblua5\.3.*main chunk|main chunk.*liblua5\.3')
check "samples in liblua5.3 without Lua frames: at most one second's worth ($((nolua - with)) of $(total "$F"))" \
	[ $((nolua - with)) -le 499 ]
check "some samples in liblua5.3 at all ($inlib%)" [ "$inlib" -ge 1 ]

gcc -O2 -shared -fPIC -o "$OUT/slow_start.so" "$ROOT/tests/progs/slow_start.c" 2>"$OUT/build_so" ||
	{ fail "build slow_start.so" "$(cat "$OUT/build_so")"; finish; }
for lua in lua5.1 lua5.4; do
	F=$OUT/slow-$lua.folded
	"$LF" -F 499 -o "$F" -- env LD_PRELOAD="$OUT/slow_start.so" $lua "$ROOT/tests/lua/exit_hot.lua" 2 0.05 \
		>"$OUT/slow-$lua.log" 2>&1
	check "$lua, state made late: exit status 0" [ $? = 0 ]
	early=$(share "$F" ';early \(')
	check "$lua, state made late: early() named in >= 95% of the samples ($early%)" [ "$early" -ge 95 ]
done

gcc -O2 -I/usr/include/lua5.4 -o "$OUT/far_state" "$ROOT/tests/progs/far_state.c" -llua5.4 2>"$OUT/build_far" ||
	{ fail "build far_state" "$(cat "$OUT/build_far")"; finish; }
F=$OUT/far.folded
"$LF" -F 499 -o "$F" -- "$OUT/far_state" 0.5 "$ROOT/tests/lua/exit_hot.lua" 2 0.05 >"$OUT/far.log" 2>&1
check "state in memory mapped later: exit status 0" [ $? = 0 ]
early=$(share "$F" ';early \(')
check "state in memory mapped later: early() named in >= 93% of the samples ($early%)" [ "$early" -ge 93 ]
finish
