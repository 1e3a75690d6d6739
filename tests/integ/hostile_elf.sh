# ELF files a hostile target controls cannot hang, crash or misdirect lua-flame: a library
# whose .shstrtab claims SHF_COMPRESSED (libelf would deadlock), one whose .eh_frame or .symtab
# claims 3 GiB of a sparse file (it would be read whole), a .gnu_debuglink leading
# to a FIFO (open would block), a debug directory that is a link into a root-only place
# (its names must stay out), and a mapped library truncated while recording (a mapping of
# it would SIGBUS). The target runs as nobody; a hang is cut at 25 s and fails.
. "$(dirname "$0")/../lib.sh"

W=$(mktemp -d /tmp/lf-hostile-elf.XXXXXX) && chmod 755 "$W"
SECRET=$(mktemp -d /tmp/lf-secret.XXXXXX) && chmod 700 "$SECRET"
mkdir -p "$W/base" && gcc -O1 -g -fPIC -shared -o "$W/base/libhostile.so" "$ROOT/tests/progs/hostile_lib_so.c" &&
	gcc -O1 -o "$W/prog" "$ROOT/tests/progs/hostile_lib.c" -L"$W/base" -lhostile ||
	{ fail build "gcc failed"; rm -rf "$W" "$SECRET"; finish; }
# stripped copy with a debug link, and its debug file
objcopy --only-keep-debug "$W/base/libhostile.so" "$W/base/libhostile.debug"
objcopy --strip-all --add-gnu-debuglink="$W/base/libhostile.debug" "$W/base/libhostile.so" "$W/base/stripped.so"

# compress_shstrtab FILE: ORs SHF_COMPRESSED into the flags of FILE's .shstrtab.
compress_shstrtab() {
	perl -e 'open(F, "+<", $ARGV[0]) or die; binmode F; read(F, $h, 64);
		my $shoff = unpack("Q<", substr($h, 0x28, 8)); my ($ent, $num, $str) = unpack("v3", substr($h, 0x3a, 6));
		my $at = $shoff + $str * $ent + 8; seek(F, $at, 0); read(F, $f, 8);
		seek(F, $at, 0); print F pack("Q<", unpack("Q<", $f) | 0x800); close F' "$1"
}

# huge_section FILE NAME SIZE: moves FILE's section NAME to the end of FILE, claiming SIZE
# bytes there, and extends FILE to hold them (sparse: the disk holds none of them).
huge_section() {
	perl -e 'my ($file, $want, $size) = @ARGV; open(F, "+<", $file) or die; binmode F; read(F, $h, 64);
		my $shoff = unpack("Q<", substr($h, 0x28, 8)); my ($ent, $num, $str) = unpack("v3", substr($h, 0x3a, 6));
		seek(F, $shoff, 0); read(F, $t, $ent * $num);
		my ($at, $len) = unpack("Q<2", substr($t, $str * $ent + 0x18, 16)); seek(F, $at, 0); read(F, $names, $len);
		for my $i (0 .. $num - 1) {
			next if unpack("Z*", substr($names, unpack("V", substr($t, $i * $ent, 4)))) ne $want;
			my $off = ((-s $file) + 4095) & ~4095;
			seek(F, $shoff + $i * $ent + 0x18, 0); print F pack("Q<2", $off, $size); close F;
			truncate($file, $off + $size) or die; exit 0;
		}
		die "no section $want\n"' "$@"
}

# run_case NAME DIR: profiles the program with its library from DIR for 2 s
# (the target as nobody); sets RC, SECS and RSS (lua-flame's peak, in KiB), the folded output
# in $OUT/NAME.folded.
start_target() {
	bg_start setpriv --reuid=nobody --regid=nogroup --clear-groups env LD_LIBRARY_PATH="$1" "$W/prog"
	TPID=$LAST_PID
	sleep 0.3
}
run_case() {
	start_target "$2"
	t0=$(date +%s%N)
	/usr/bin/time -f %M -o "$OUT/$1.rss" timeout -s KILL 25 "$LF" -p "$TPID" -d 2 -o "$OUT/$1.folded" \
		2>"$OUT/$1.err"
	RC=$?
	SECS=$((($(date +%s%N) - t0) / 1000000000))
	RSS=$(tail -n 1 "$OUT/$1.rss")
	kill "$TPID" 2>/dev/null
}

mkdir "$W/z" && cp "$W/base/libhostile.so" "$W/z/" && compress_shstrtab "$W/z/libhostile.so"
check "patched .shstrtab reads as compressed" sh -c "readelf -SW '$W/z/libhostile.so' 2>&1 | grep -q 'C'"
run_case compressed "$W/z"
check "compressed section names: exit 0, no hang (rc $RC, ${SECS}s)" [ "$RC" = 0 ]
check "compressed section names: said once, naming the file ($(grep -c 'libhostile.so is not read' "$OUT/compressed.err"))" \
	[ "$(grep -c "$W/z/libhostile.so is not read: a string table .* is compressed" "$OUT/compressed.err")" = 1 ]
# refused as a whole: no unwind table for the library, its frames by address
check "compressed section names: the program's own frames named" \
	grep -q '^prog;\[unwind: no table\];libhostile.so+0x[0-9a-f]*;spin;descend' "$OUT/compressed.folded"

# A section claiming 3 GiB counts as missing: no unwind table for the library (but its
# symbols), or no .symtab (but .dynsym); lua-flame stays small and quick, and says so once.
# huge_case NAME SECTION: the case for the library with SECTION made huge
huge_case() {
	mkdir "$W/$1" && cp "$W/base/libhostile.so" "$W/$1/" && huge_section "$W/$1/libhostile.so" "$2" 3221225472
	run_case "$1" "$W/$1"
	check "3 GiB $2: exit 0 within 5 s (rc $RC, ${SECS}s)" sh -c "[ $RC = 0 ] && [ $SECS -le 5 ]"
	check "3 GiB $2: peak RSS under 200 MB (${RSS} KiB)" [ "${RSS:-999999}" -lt 204800 ]
	check "3 GiB $2: said once, naming the file and section ($(grep -c 'libhostile.so: section' "$OUT/$1.err"))" \
		[ "$(grep -c "$W/$1/libhostile.so: section $2 is not read: .* 3072 MiB" "$OUT/$1.err")" = 1 ]
}
huge_case hugeeh .eh_frame
check "3 GiB .eh_frame: the program's frames, and the library's named, above [unwind: no table]" \
	grep -q '^prog;\[unwind: no table\];lib_inner;spin;descend' "$OUT/hugeeh.folded"
huge_case hugesym .symtab
check "3 GiB .symtab: whole stacks, the library's internal function by address" \
	grep -q ';main;lib_call;libhostile.so+0x[0-9a-f]*;spin;descend' "$OUT/hugesym.folded"

mkdir -p "$W/f/.debug" && cp "$W/base/stripped.so" "$W/f/libhostile.so" && mkfifo "$W/f/.debug/libhostile.debug"
run_case fifo "$W/f"
check "debug link to a FIFO: exit 0, no hang (rc $RC, ${SECS}s)" [ "$RC" = 0 ]
check "debug link to a FIFO: library frames by address" grep -q ';libhostile.so+0x[0-9a-f]*;spin;' "$OUT/fifo.folded"

mkdir -p "$W/d/.debug" && cp "$W/base/stripped.so" "$W/d/libhostile.so" && cp "$W/base/libhostile.debug" "$W/d/.debug/"
run_case debugdir "$W/d"
check "debug file in the library's .debug: exit 0" [ "$RC" = 0 ]
check "debug file in the library's .debug names lib_inner" grep -q ';lib_call;lib_inner;spin;' "$OUT/debugdir.folded"

mkdir "$W/s" && cp "$W/base/stripped.so" "$W/s/libhostile.so" && cp "$W/base/libhostile.debug" "$SECRET/" &&
	chmod 644 "$SECRET/libhostile.debug" && ln -s "$SECRET" "$W/s/.debug"
run_case symlink "$W/s"
check "debug dir linked into a root-only dir: exit 0" [ "$RC" = 0 ]
check "debug dir linked into a root-only dir: its names stay out" sh -c "! grep -q lib_inner '$OUT/symlink.folded'"
check "debug dir linked into a root-only dir: frames by address" grep -q ';libhostile.so+0x[0-9a-f]*;spin;' "$OUT/symlink.folded"

# the same link into a directory everyone may read: followed (distributions link debug files)
PUBLIC=$(mktemp -d /tmp/lf-public.XXXXXX) && chmod 755 "$PUBLIC" && cp "$W/base/libhostile.debug" "$PUBLIC/" &&
	chmod 644 "$PUBLIC/libhostile.debug"
mkdir "$W/p" && cp "$W/base/stripped.so" "$W/p/libhostile.so" && ln -s "$PUBLIC" "$W/p/.debug"
run_case public "$W/p"
check "debug dir linked to a public dir: exit 0" [ "$RC" = 0 ]
check "debug dir linked to a public dir: its names used" grep -q ';lib_call;lib_inner;spin;' "$OUT/public.folded"

mkdir "$W/t" && cp "$W/base/stripped.so" "$W/t/libhostile.so"
start_target "$W/t"
timeout -s KILL 25 "$LF" -p "$TPID" -d 4 -o "$OUT/truncated.folded" 2>"$OUT/truncated.err" &
LFP=$!
# truncated once lua-flame has read the library and labelled stacks through it
for i in $(seq 150); do grep -q "profiling PID" "$OUT/truncated.err" && break; sleep 0.1; done
sleep 1
truncate -s 0 "$W/t/libhostile.so"
wait "$LFP"
RC=$?
check "library truncated while recording: exit 0, no SIGBUS (rc $RC)" [ "$RC" = 0 ]
check "library truncated while recording: target still running" kill -0 "$TPID"
check "library truncated while recording: samples kept ($(total "$OUT/truncated.folded"))" \
	[ "$(total "$OUT/truncated.folded")" -gt 100 ]
rm -rf "$W" "$SECRET" "$PUBLIC"
finish
