# --mode alloc: tests/lua/alloc_split.lua's three functions allocate 5:3:2 while one of them
# burns CPU; the bytes split 50/30/20 under lua5.4, Lua 5.1 and LuaJIT with the JIT on, and
# burn() (CPU, no allocation) does not appear. The pprof output carries alloc_space; -F, which
# alloc mode's own pacing would ignore, is refused; lua-flame killed with SIGKILL leaves the target
# running at its own pace (no probe left in it).
. "$(dirname "$0")/../lib.sh"

P=$ROOT/tests/lua/alloc_split.lua
# a function's frame, innermost (or with a LuaJIT trace of it after it)
fn() { echo ";$1 \\([^;]*alloc_split.lua:[0-9]+\\)(_\\[j\\];\\[trace [0-9]+\\])?(;[^;(]*)*\$"; }
for vm in lua5.4 lua5.1 luajit; do
	command -v "$vm" >/dev/null || { fail "$vm" "$vm is not installed (scripts/install-packages.sh --test)"; continue; }
	f=$OUT/$vm.folded
	"$LF" --mode alloc -d 12 -o "$f" -o "$OUT/$vm.pb.gz" -o "$OUT/$vm.svg" -- "$vm" "$P" 12 \
		>"$OUT/$vm.out" 2>"$OUT/$vm.err"
	check "$vm: recorded" grep -q 'allocations sampled' "$OUT/$vm.err"
	split_5_3_2 "$vm: bytes" "$(count "$f" "$(fn five)")" "$(count "$f" "$(fn three)")" "$(count "$f" "$(fn two)")" 5
	check "$vm: burn(), which allocates nothing, is not in the profile" [ "$(count "$f" "burn \\(")" = 0 ]
	check "$vm: every byte under one of the three" \
		[ "$(count "$f" "($(fn five)|$(fn three)|$(fn two))")" -ge $(($(total "$f") * 98 / 100)) ]
	check "$vm: the SVG counts bytes" grep -q 'bytes' "$OUT/$vm.svg"
	check "$vm: pprof names alloc_space and alloc_objects" \
		sh -c "gzip -dc '$OUT/$vm.pb.gz' | grep -a -q alloc_space && gzip -dc '$OUT/$vm.pb.gz' | grep -a -q alloc_objects"
	if command -v go >/dev/null; then
		b=$(go tool pprof -sample_index=alloc_space -raw "$OUT/$vm.pb.gz" 2>/dev/null |
			awk '/^Samples:/ { on = 1; next } on && /^ *[0-9]+ +[0-9]+:/ { sub(/:.*/, ""); t += $2 } END { print t + 0 }')
		check "$vm: go tool pprof reads the same bytes as the folded output ($b)" [ "$b" = "$(total "$f")" ]
	fi
done

"$LF" --mode alloc -F 99 -p 1 -o "$OUT/x.folded" 2>"$OUT/rate.err"
rc=$?
check "-F: refused (exit 2), saying how alloc mode paces itself" sh -c "[ $rc = 2 ] && grep -q 'takes no -F' '$OUT/rate.err'"

LUA_FLAME_NO_BPF_LOOP=1 "$LF" --mode alloc -d 1 -o "$OUT/old.folded" -- true 2>"$OUT/old.err"
rc=$?
check "a kernel without bpf_loop: refused (exit 2), saying what to do instead" \
	sh -c "[ $rc = 2 ] && grep -q 'needs a kernel with bpf_loop' '$OUT/old.err'"

# SIGKILL in the middle of windows: the rounds per second of CPU after it are the target's own
if command -v lua5.4 >/dev/null; then
	lua5.4 "$P" 2 >"$OUT/alone.out"
	bg_start lua5.4 "$P"
	T=$LAST_PID
	"$LF" --mode alloc -p "$T" -o "$OUT/killed.folded" 2>"$OUT/killed.err" &
	L=$!
	sleep 3
	kill -9 "$L"
	wait "$L" 2>/dev/null
	check "SIGKILL: the target still runs" kill -0 "$T"
	kill "$T"
	lua5.4 "$P" 2 >"$OUT/after.out"
	alone=$(cat "$OUT/alone.out") after=$(cat "$OUT/after.out")
	check "SIGKILL: a new run of the workload keeps its pace ($after rounds against $alone)" \
		[ "$after" -ge $((alone * 8 / 10)) ]
fi
finish
