#!/bin/sh
# `lua-flame render` of a regular file drops the subtrees of frames too narrow to draw
# once the input has left them, and reads the file again with its lines sorted when the
# input comes back into one (unsorted input). From a pipe nothing is dropped: that is
# the reference. Every way must draw the same SVG, byte for byte.
. "$(dirname "$0")/../lib.sh"
cd "$OUT" || exit 1

# 40,000 stacks over a branching call graph: most subtrees are far below the minimum
# width. Siblings "f", "f2" and "f;..." make a byte-sorted file come back into "f" after
# "f2" (' ' < '2' < ';'), and "bad\377" cleans to the same frame as a literal U+FFFD.
awk 'BEGIN {
	srand(7)
	for (i = 0; i < 40000; i++) {
		st = "app;main"
		depth = 3 + int(rand() * 12)
		for (d = 0; d < depth; d++)
			st = st ";fn_" int(rand() * rand() * 40)
		print st, 1 + int(rand() * 20)
	}
	print "app;main;f 500"
	print "app;main;f2;x 300"
	print "app;main;f;y 400"
	print "app;main;f;y;z 1"
	printf "app;main;bad\377;q 200\n"
	printf "app;main;bad\357\277\275;q 100\n"
}' >raw.folded
LC_ALL=C sort raw.folded >sorted.folded
LC_ALL=C sort -r raw.folded >reversed.folded
want=$(awk '{ t += $NF } END { print t }' raw.folded)

draw() { # NAME ARGS...: renders into NAME.svg, PASS/FAIL on the exit status
	name=$1; shift
	if "$LF" render "$@" >"$name.svg" 2>"$name.err"; then pass "$name"; else fail "$name" "$(head -c 300 "$name.err")"; fi
}
pipe() { name=$1 in=$2; shift 2; cat "$in" | draw "$name" "$@"; }
pipe pipe_sorted sorted.folded -o - -
pipe pipe_raw raw.folded -o - -
draw file_sorted -o - sorted.folded
draw file_reversed -o - reversed.folded
draw file_raw -o - raw.folded
draw redirect_raw -o - - <raw.folded
draw file_sorted_minwidth0 --minwidth 0 -o - sorted.folded
pipe pipe_sorted_minwidth0 sorted.folded --minwidth 0 -o - -
draw file_raw_heaviest --heaviest --minwidth 2 -o - raw.folded
# the sorted lines shuffled, each count split over two lines: a stack repeated, to be summed
awk 'BEGIN { srand(3); for (i = 0; i < 1048576; i++) printf "%c", 1 + int(rand() * 255) }' >seed.bin
awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); h = int(c / 2) } h { print s, h } { print s, c - h }' \
	sorted.folded | shuf --random-source=seed.bin >split.folded
draw file_split -o - split.folded
pipe pipe_sorted_heaviest sorted.folded --heaviest --minwidth 2 -o - -

frames() { grep -c '^<g data-o=' "$1"; }
check total_in_svg grep -q "data-total=\"$want\"" pipe_sorted.svg
check frames_pruned test "$(frames pipe_sorted.svg)" -lt "$(frames pipe_sorted_minwidth0.svg)"
check frames_some test "$(frames pipe_sorted.svg)" -gt 50
check reentered_frame_drawn grep -q '<title>f$' pipe_sorted.svg
check cleaned_frames_merged test "$(grep -A1 '<title>bad.$' pipe_sorted.svg | tail -n 1 | cut -d' ' -f1)" = 300
check pipe_raw_same cmp pipe_sorted.svg pipe_raw.svg
check file_sorted_same cmp pipe_sorted.svg file_sorted.svg
check file_reversed_same cmp pipe_sorted.svg file_reversed.svg
check file_raw_same cmp pipe_sorted.svg file_raw.svg
check split_has_repeats test "$(sed 's/ [0-9]*$//' split.folded | sort | uniq -d | wc -l)" -gt 1000
check file_split_same cmp pipe_sorted.svg file_split.svg
check redirect_raw_same cmp pipe_sorted.svg redirect_raw.svg
check minwidth0_same cmp pipe_sorted_minwidth0.svg file_sorted_minwidth0.svg
check heaviest_same cmp pipe_sorted_heaviest.svg file_raw_heaviest.svg
finish
