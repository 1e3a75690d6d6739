# A target woken by the sampling interrupt itself (a sleep the kernel ends on it within the
# timer slack, softirqs run at its exit) starts its work on a tick, and with one fixed period
# every sample fell the same time into that work. tests/progs/sleepy_phases.c works 5:3:2 in
# three functions between sleeps of 50 us; the profile's split must be the one its own thread
# CPU clock measures: within 2 points with the default slack of 50 us, and within 4 with a
# slack of 1 ms, where its every wake-up is on a tick (a fixed period gave 1/99/0 there).
. "$(dirname "$0")/../lib.sh"

gcc -O2 -o "$OUT/sleepy_phases" "$ROOT/tests/progs/sleepy_phases.c" 2>"$OUT/build.err" ||
	{ fail "sleepy_phases: build" "$(head -3 "$OUT/build.err")"; finish; }

# run NAME POINTS [SLACK_NS]: 5 s of sleepy_phases at 997 Hz, its split against its own
run() {
	rm -f "$OUT/$1.truth"
	bg_start "$OUT/sleepy_phases" "$OUT/$1.truth" ${3:+"$3"}
	sleep 0.3
	"$LF" -p "$LAST_PID" -F 997 -d 5 -o "$OUT/$1.folded" 2>"$OUT/$1.err"
	kill "$LAST_PID" && wait "$LAST_PID"
	check "$1: its own measurement written" [ -s "$OUT/$1.truth" ]
	read -r ta tb tc <"$OUT/$1.truth"
	f=$OUT/$1.folded
	a=$(count "$f" ';phase_fifty(;|$)') b=$(count "$f" ';phase_thirty(;|$)') c=$(count "$f" ';phase_twenty(;|$)')
	t=$((a + b + c)) d=$(($2 * 10))
	check "$1: the three phases sampled ($t of $(total "$f") samples)" [ "$t" -ge 1500 ]
	[ "$t" -gt 0 ] || return
	pa=$((1000 * a / t)) pb=$((1000 * b / t)) pc=$((1000 * c / t))
	check "$1: split $pa/$pb/$pc (tenths of a percent) within $d of its own $ta/$tb/$tc" \
		sh -c "n() { x=\$((\$1 - \$2)); [ \${x#-} -le $d ]; }; n $pa $ta && n $pb $tb && n $pc $tc"
}
run "default slack" 2
run "slack 1 ms" 4 1000000
finish
