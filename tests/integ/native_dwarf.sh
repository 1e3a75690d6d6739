# Native stacks without frame pointers: a program built -O2 -fomit-frame-pointer burns CPU
# in known chains (deep recursion, PLT into a shared library, a signal handler, the vdso,
# a dlopen'ed library, two threads); every chain must come out frame by frame.
. "$(dirname "$0")/../lib.sh"

P=$ROOT/tests/progs
CF="-O2 -fomit-frame-pointer -g0"
gcc $CF -shared -fPIC -o "$OUT/libunwtest.so" "$P/unwind_lib.c" &&
gcc $CF -shared -fPIC -o "$OUT/libunwdl.so" "$P/unwind_dl.c" &&
gcc $CF -o "$OUT/unwind" "$P/unwind.c" -L"$OUT" -lunwtest -Wl,-rpath,"$OUT" -ldl -lpthread ||
	{ fail build "gcc failed"; finish; }
check "test program has no frame pointer setup in recurse" \
	sh -c "! objdump -d '$OUT/unwind' | awk '/<recurse>:/,/ret/' | grep -q 'mov *%rsp,%rbp'"

ROOTS='^unwind;_start;__libc_start_main;__libc_start_call_main;main;'

# profile NAME MODE...: runs the test program in MODE, profiles it 3 s into $OUT/NAME.folded.
profile() {
	_p=$1; shift
	bg_start "$OUT/unwind" "$@"
	sleep 0.3
	"$LF" -p "$LAST_PID" -d 3 --stats -o "$OUT/$_p.folded" 2>"$OUT/$_p.err"
	kill "$LAST_PID" 2>/dev/null
}

# expect NAME REGEX MIN: at least MIN% of the samples of NAME match REGEX.
expect() {
	got=$(share "$OUT/$1.folded" "$2")
	if [ "$got" -ge "$3" ]; then pass "$1: $got% match $2"; else fail "$1" "$got% (< $3%) match $2"; fi
}

profile deep deep 150
recs=$(printf 'recurse;%.0s' $(seq 151))
expect deep "${ROOTS}deep_main;${recs}spin\$" 95
check "deep: more than 150 frames in one stack" \
	awk -F';' '{ if (NF > 155) found = 1 } END { exit !found }' "$OUT/deep.folded"

# Deeper than the record: the outermost 64 frames (the root side, where flame graphs
# aggregate) and the innermost 127 stay, with the exact count of those left out between:
# _start..main, deep_main, 1001 recurse and spin are 1007 frames, 816 of them left out.
profile deeper deep 1000
outer=$(printf 'recurse;%.0s' $(seq 59)); inner=$(printf 'recurse;%.0s' $(seq 126))
expect deeper "${ROOTS}deep_main;${outer}\\[native: 816 frames elided\\];${inner}spin\$" 95
# (the loop recurses anew every 0.1 s, so a few samples rightly catch a shallower stack
# on its way in or out; those end in recurse, not spin)
check "deeper: every sample in spin has 816 frames elided" \
	sh -c "! grep ';spin\\(;\\| \\)' '$OUT/deeper.folded' | grep -o '\\[native: [0-9]* frames elided\\]' | grep -qv ': 816 '"

profile plt plt
expect plt "${ROOTS}plt_main;lib_work;lib_leaf\$" 95

# With LD_BIND_NOT every call goes through ld.so's lazy-binding trampoline, whose CFA is
# kept in rbx while it realigns the stack for xsave: it must unwind like any frame.
# (_dl_runtime_resolve_fxsave, _xsave or _xsavec, as the CPU has it)
bg_start env LD_BIND_NOT=1 "$OUT/unwind" resolve
sleep 0.3
"$LF" -p "$LAST_PID" -F 999 -d 3 --stats -o "$OUT/resolve.folded" 2>"$OUT/resolve.err"
kill "$LAST_PID" 2>/dev/null
expect resolve "${ROOTS}resolve_main;_dl_runtime_resolve_[a-z]+(;|\$)" 90
expect resolve "${ROOTS}resolve_main;_dl_runtime_resolve_[a-z]+;_dl_fixup;" 5

profile signal signal
expect signal "${ROOTS}signal_main;raise;[^;]*;__restore_rt;handler;in_handler;spin\$" 90

profile vdso vdso
# every sample rooted: in clock_gettime (the vdso), or in the loop's own few instructions
expect vdso "${ROOTS}vdso_main(;clock_gettime|\$)" 95
expect vdso "${ROOTS}vdso_main;clock_gettime;(__vdso_)?clock_gettime" 50

profile dlopen dlopen "$OUT/libunwdl.so"
expect dlopen "${ROOTS}dlopen_main;dl_work;dl_leaf\$" 90

profile threads threads
expect threads '^unwind;clone3;start_thread;thread_a;chain_a1;chain_a2;spin$' 40
expect threads '^unwind;clone3;start_thread;thread_b;chain_b1;chain_b2;spin$' 40

# A walk takes the frames past one that the last walk reached in the same state from that
# walk, once the stack memory it read is checked to hold the same: the two chains taken in
# turns share every frame below turn_mid's caller, which must still be told apart.
profile turns turns
expect turns "${ROOTS}turns_main;turn_a;turn_mid;turn_inner;spin\$" 35
expect turns "${ROOTS}turns_main;turn_b;turn_mid;turn_inner;spin\$" 35
expect turns "${ROOTS}turns_main;turn_[ab];turn_mid;turn_inner(;spin)?\$" 97
n=$(sed -n 's/.*stats: samples \([0-9]*\).*/\1/p' "$OUT/deep.err")
r=$(sed -n 's/.*outer frames replayed \([0-9]*\).*/\1/p' "$OUT/deep.err")
check "deep: the outer frames of 90% of the samples or more replayed (${r:-0} of ${n:-0})" \
	test "${r:-0}" -ge $((${n:-1} * 9 / 10 + 1))
# ... and every step taken (the tests' reference) gives the same stack, replaying nothing
export LUA_FLAME_NO_REPLAY=1
profile deep_ref deep 150
unset LUA_FLAME_NO_REPLAY
expect deep_ref "${ROOTS}deep_main;${recs}spin\$" 95
check "deep_ref: nothing replayed with LUA_FLAME_NO_REPLAY=1" sh -c "! grep -q 'outer frames replayed' '$OUT/deep_ref.err'"

for f in deep deeper plt resolve signal vdso threads turns; do
	c=$(sed -n 's/.* \([0-9.]*\)% complete.*/\1/p' "$OUT/$f.err")
	check "$f: at least 99% of stacks complete ($c%)" awk -v c="$c" 'BEGIN { exit !(c >= 99) }'
done
finish
