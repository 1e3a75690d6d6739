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
finish
