#!/bin/sh
# Regenerates the CFI fuzzer's seed corpus (tests/fuzz/corpus/cfi-*) from system libraries:
# real .eh_frame sections, cut at entry boundaries to keep them small, a .debug_frame from a
# freshly compiled program, and a few deliberately damaged copies. The results are committed,
# so this only needs running to refresh them. Seed layout: see tests/fuzz/fuzz_cfi.c.
# The pprof reader's seeds (pprof-*) are lua-flame's own profiles, decompressed: written by
# build/tests/test_formats --convert, and one recorded from lua5.4 when ./lua-flame runs.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=$ROOT/tests/fuzz/corpus
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$DIR"

# addr FILE SECTION: the section's address, in hex.
addr() { readelf -SW "$1" | awk -v s="$2" '{ for (i = 1; i < NF; i++) if ($i == s) { print $(i + 2); exit } }'; }

# cut_at FILE SECTION MIN: offset of the first CIE/FDE at or past MIN bytes (empty if none).
cut_at() {
	readelf --debug-dump=frames "$1" 2>/dev/null |
		awk -v sec="$2" '/^Contents of the / { on = index($0, sec) > 0; next }
			on && / (CIE|FDE)/ { print $1 }' |
		while read -r hex; do
			if [ $((0x$hex)) -ge "$3" ]; then echo $((0x$hex)); break; fi
		done
}

# le64 HEX: the value as eight little-endian bytes (octal escapes: dash's printf has no \x).
le64() {
	v=$(printf '%016x' "0x$1")
	i=16; out=""
	while [ $i -gt 0 ]; do
		out="$out$(printf '\\%03o' "0x$(echo "$v" | cut -c$((i - 1))-$i)")"
		i=$((i - 2))
	done
	printf "$out"
}

# seed NAME FILE SECTION FLAGS [MAXBYTES]
seed() {
	name=$1 file=$2 sec=$3 flags=$4 max=${5:-}
	rm -f "$TMP/sec"; objcopy --dump-section "$sec=$TMP/sec" "$file" "$TMP/junk" 2>/dev/null || return 0
	[ -s "$TMP/sec" ] || return 0
	if [ -n "$max" ]; then
		n=$(cut_at "$file" "$sec" "$max")
		[ -n "$n" ] && head -c "$n" "$TMP/sec" >"$TMP/cut" && mv "$TMP/cut" "$TMP/sec"
	fi
	{ printf "\\$(printf '%03o' "$flags")"; le64 "$(addr "$file" "$sec")"; cat "$TMP/sec"; } >"$DIR/cfi-$name"
}

L=/usr/lib/x86_64-linux-gnu
seed libz "$L/libz.so.1" .eh_frame 0
seed ld-so "$L/ld-linux-x86-64.so.2" .eh_frame 0
seed libc-head "$L/libc.so.6" .eh_frame 0 23000      # PLT, signal frame (zRS), zPLR
seed lua54-head /usr/bin/lua5.4 .eh_frame 0 8000
[ -x /usr/bin/luajit ] && seed luajit-head /usr/bin/luajit .eh_frame 0 6000

cat >"$TMP/p.c" <<'C'
#include <stdio.h>
static int leaf(int x) { return x * 3; }
int big(int n) { char b[300]; snprintf(b, sizeof(b), "%d", n); return b[0] + leaf(n); }
int main(int argc, char **argv) { (void)argv; return big(argc); }
C
for opt in O0 O2; do
	gcc -g -$opt -fno-asynchronous-unwind-tables -o "$TMP/p" "$TMP/p.c"
	seed debug-frame-$opt "$TMP/p" .debug_frame 1
done

# Damaged copies: a CIE version bumped, an FDE length blown up, a cut mid-entry, and
# .debug_frame bytes read as .eh_frame.
cp "$DIR/cfi-libz" "$DIR/cfi-libz-badversion"
printf '\004' | dd of="$DIR/cfi-libz-badversion" bs=1 seek=$((9 + 8)) conv=notrunc 2>/dev/null
cp "$DIR/cfi-libz" "$DIR/cfi-libz-hugelen"
printf '\377\377\377\177' | dd of="$DIR/cfi-libz-hugelen" bs=1 seek=$((9 + 0x18)) conv=notrunc 2>/dev/null
head -c 5003 "$DIR/cfi-lua54-head" >"$DIR/cfi-lua54-cut"
# Rows added to the finished tables (flags bit 1): crti frames at each gap's start, and 3
# bytes into each gap.
{ printf '\002'; tail -c +2 "$DIR/cfi-libz"; } >"$DIR/cfi-libz-addrows"
{ printf '\016'; tail -c +2 "$DIR/cfi-lua54-head"; } >"$DIR/cfi-lua54-addrows"
{ printf '\000'; tail -c +2 "$DIR/cfi-debug-frame-O2"; } >"$DIR/cfi-debug-frame-as-eh"
# pprof: lua-flame's writer on hand-made stacks (hostile names included), a recording, a cut
conv() { "$ROOT/build/tests/test_formats" --convert "$TMP/in.folded" "$TMP/out.pb.gz" && zcat "$TMP/out.pb.gz" >"$DIR/pprof-$1"; }
if [ -x "$ROOT/build/tests/test_formats" ]; then
	printf 'app;main (a.lua:1);hot (a.lua:5) 10\napp;main (a.lua:1);gone (a.lua:12);string.rep 10\napp;main (a.lua:1) 50\n' >"$TMP/in.folded"
	conv pair
	printf 'app;<script>x</script> 5\napp;]]>&amp; 4\napp;ctl\001\033[1m 2\napp;bad\377utf8 2\napp;x (y:1)_[j];k_[k];lib.so+0x1a 3\n' >"$TMP/in.folded"
	conv hostile
fi
if [ -x "$ROOT/lua-flame" ]; then
	echo 'local function f() local t = os.clock() repeat until os.clock() - t > 0.2 end f()' >"$TMP/w.lua"
	"$ROOT/lua-flame" -q -F 499 -o "$TMP/w.pb.gz" -- lua5.4 "$TMP/w.lua" 2>/dev/null &&
		zcat "$TMP/w.pb.gz" >"$DIR/pprof-lua54"
fi
[ -f "$DIR/pprof-lua54" ] && head -c 700 "$DIR/pprof-lua54" >"$DIR/pprof-lua54-cut"
ls -l "$DIR"
