# Outputs written by root in a directory other users can write: a symlink planted at the
# output name by an unprivileged user is replaced, never followed; no temporary file has a
# predictable name; files are 0600 unless --output-mode says otherwise; /dev/stdout and pipes
# are written in place; a directory given as the output is refused before recording.
. "$(dirname "$0")/../lib.sh"

D=$OUT/shared
mkdir -p "$D" && chmod 1777 "$D"
echo "precious" >"$OUT/victim" && chmod 0644 "$OUT/victim"
bg_start lua5.4 "$ROOT/tests/progs/demo.lua"
T=$LAST_PID
sleep 0.3

# An unprivileged user plants links where the outputs will go.
for f in perf.folded perf.svg; do
	setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$OUT/victim" "$D/$f"
done
check "the links are nobody's" [ "$(stat -c %U "$D/perf.folded")" = nobody ]
"$LF" -q -p "$T" -d 1 -o "$D/perf.folded" -o "$D/perf.svg" >"$OUT/run.log" 2>&1
check "recording through planted links: exit 0" [ $? = 0 ]
check "the victim file is untouched" [ "$(cat "$OUT/victim")" = precious ]
check "the folded output replaced the link with a file" sh -c "[ -f '$D/perf.folded' ] && [ ! -L '$D/perf.folded' ]"
check "the SVG replaced the link with a file" sh -c "[ -f '$D/perf.svg' ] && [ ! -L '$D/perf.svg' ]"
check "outputs are 0600 by default" [ "$(stat -c %a "$D/perf.folded")" = 600 ]
check "no temporary file is left" sh -c "! ls -A '$D' | grep -v '^perf\.\(folded\|svg\)$'"

# The same user races lua-flame: once it runs, links at every name derived from its PID.
"$LF" -q -p "$T" -d 2 -o "$D/race.folded" >"$OUT/race.log" 2>&1 &
lfp=$!
sleep 0.7
for n in "race.folded.tmp.$lfp" ".race.folded.tmp.$lfp" "race.folded.$lfp" "race.folded~"; do
	setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$OUT/victim" "$D/$n"
done
wait $lfp
check "racing links at names derived from the PID: exit 0" [ $? = 0 ]
check "racing links: the victim file is untouched" [ "$(cat "$OUT/victim")" = precious ]
check "racing links: the output is a regular file" sh -c "[ -f '$D/race.folded' ] && [ ! -L '$D/race.folded' ]"
rm -f "$D"/race.folded.* "$D"/.race.folded.* "$D/race.folded~"

"$LF" -q -p "$T" -d 1 --output-mode 0644 -o "$D/shared.folded" >"$OUT/mode.log" 2>&1
check "--output-mode 0644 gives 0644" [ "$(stat -c %a "$D/shared.folded")" = 644 ]
expect_bad_mode=$("$LF" -p "$T" -d 1 --output-mode 999 -o "$D/x.folded" 2>&1; echo "rc=$?")
check "--output-mode rejects a non-octal mode (exit 2)" sh -c "echo '$expect_bad_mode' | grep -q 'rc=2'"

# Special files are written in place.
"$LF" -q -p "$T" -d 1 --format folded -o /dev/stdout >"$OUT/stdout.folded" 2>"$OUT/stdout.err"
check "-o /dev/stdout writes to standard output" [ -s "$OUT/stdout.folded" ]
check "/dev/stdout is still a link" [ -L /dev/stdout ]
[ -L /dev/stdout ] || { rm -f /dev/stdout; ln -s /proc/self/fd/1 /dev/stdout; } # a broken binary must not break the machine
mkfifo "$OUT/pipe"
cat "$OUT/pipe" >"$OUT/from-pipe" &
reader=$!
"$LF" -q -p "$T" -d 1 --format folded -o "$OUT/pipe" >/dev/null 2>&1
wait $reader
check "a named pipe is written in place" [ -s "$OUT/from-pipe" ]
check "the named pipe is still a pipe" [ -p "$OUT/pipe" ]

# A directory as the output: refused at once, before recording.
start=$(date +%s)
"$LF" -p "$T" -d 5 --format svg -o "$D" >"$OUT/dir.out" 2>"$OUT/dir.err"
rc=$?
check "an output that is a directory: exit 2 ($rc)" [ "$rc" = 2 ]
check "... said before recording (within 3 s, -d 5)" [ $(( $(date +%s) - start )) -lt 4 ]
check "... with a message that names it" grep -q "is a directory" "$OUT/dir.err"
finish
