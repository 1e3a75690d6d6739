# Foundation: a C program built with frame pointers burns CPU in two known call chains
# with a 2:1 split; the folded output must hold both chains in order and the split.
. "$(dirname "$0")/../lib.sh"

gcc -O0 -fno-omit-frame-pointer -o "$OUT/fpchain" "$ROOT/tests/progs/fpchain.c" || { fail build "gcc failed"; finish; }
bg_start "$OUT/fpchain"
sleep 0.3
"$LF" -p "$LAST_PID" -d 4 -F 997 -o "$OUT/fp.folded" 2>"$OUT/stderr"
check "exit status 0" [ $? = 0 ]
F=$OUT/fp.folded
check "root frame is the process name" sh -c "! grep -qv '^fpchain;' '$F'"
a=$(share "$F" ';main;run;work_a;leaf_a$')
b=$(share "$F" ';main;run;work_b;leaf_b$')
check "chain a in order (main;run;work_a;leaf_a)" [ "$a" -gt 0 ]
check "chain b in order (main;run;work_b;leaf_b)" [ "$b" -gt 0 ]
check "nearly every sample in the two chains ($a% + $b%)" [ $((a + b)) -ge 97 ]
check "2:1 split (a=$a% expected 67±5)" near "$a" 67 5
check "summary names the output" grep -q "$F" "$OUT/stderr"
check "enough samples for the split ($(total "$F"))" [ "$(total "$F")" -ge 100 ]

# The walk takes the frames past one that the last walk reached in the same state from that
# walk: with frame pointers, each such frame's saved frame pointer must also hold what it did.
P=$ROOT/tests/progs
FP="-O2 -fno-omit-frame-pointer -g0"
gcc $FP -shared -fPIC -o "$OUT/libunwtest.so" "$P/unwind_lib.c" &&
gcc $FP -o "$OUT/unwind" "$P/unwind.c" -L"$OUT" -lunwtest -Wl,-rpath,"$OUT" -ldl -lpthread ||
	{ fail build "gcc failed"; finish; }
ROOTS='^unwind;_start;__libc_start_main;__libc_start_call_main;main;'
for mode in deep turns; do
	bg_start "$OUT/unwind" $mode 150
	sleep 0.3
	"$LF" -p "$LAST_PID" -d 3 -F 499 --stats -o "$OUT/$mode.folded" 2>"$OUT/$mode.err"
	kill "$LAST_PID" 2>/dev/null
done
recs=$(printf 'recurse;%.0s' $(seq 151))
d=$(share "$OUT/deep.folded" "${ROOTS}deep_main;${recs}spin\$")
check "deep 150 with frame pointers: the whole stack in $d% of samples (95% or more)" [ "$d" -ge 95 ]
n=$(sed -n 's/.*stats: samples \([0-9]*\).*/\1/p' "$OUT/deep.err")
r=$(sed -n 's/.*outer frames replayed \([0-9]*\).*/\1/p' "$OUT/deep.err")
check "deep 150 with frame pointers: outer frames of 90% of the samples or more replayed (${r:-0} of ${n:-0})" \
	test "${r:-0}" -ge $((${n:-1} * 9 / 10 + 1))
a=$(share "$OUT/turns.folded" "${ROOTS}turns_main;turn_a;turn_mid;turn_inner;spin\$")
b=$(share "$OUT/turns.folded" "${ROOTS}turns_main;turn_b;turn_mid;turn_inner;spin\$")
check "two chains taken in turns told apart with frame pointers (a $a%, b $b%: 35% or more each)" \
	sh -c "[ $a -ge 35 ] && [ $b -ge 35 ]"
finish
