# The release and install targets: `make dist` writes a tarball for x86-64 and one for aarch64,
# each with a stripped static binary (x86-64's reports the same version and commit as
# ./lua-flame), the man page, README, licences and checksums that verify; `make install` puts the binary and man page under DESTDIR/PREFIX; every
# target `make help` names exists.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

make -s dist >"$OUT/dist.log" 2>&1
check "make dist succeeds" [ $? = 0 ]
# each architecture's tarball, its binary checked against the build's
for arch in x86_64 aarch64; do
	name=$(sed -n "s/^dist: dist\/\(lua-flame-[0-9]*\.[0-9]*\.[0-9]*-$arch-linux\)\.tar\.gz .*/\1/p" "$OUT/dist.log")
	check "make dist writes lua-flame-VERSION-$arch-linux.tar.gz (${name:-none})" [ -n "$name" ]
	[ -n "$name" ] || continue
	build=$LF machine=x86-64
	[ "$arch" = aarch64 ] && build=$ROOT/lua-flame-aarch64 machine='ARM aarch64'
	tar -xzf "dist/$name.tar.gz" -C "$OUT"
	d=$OUT/$name
	for f in lua-flame doc/lua-flame.1 README.md LICENSE SHA256SUMS licenses/README licenses/libbpf.BSD-2-Clause \
		licenses/libelf.GPL-2.0 licenses/zlib.Zlib licenses/musl.MIT; do
		check "$arch: tarball holds $f" [ -s "$d/$f" ]
	done
	for l in $(grep -o '](doc/[^)]*)' "$ROOT/README.md" | sed 's/^](//; s/)$//' | sort -u); do
		check "$arch: the README's link $l holds in the tarball" [ -s "$d/$l" ]
	done
	check "$arch: SHA256SUMS verifies every file" sh -c "cd '$d' && sha256sum --quiet -c SHA256SUMS"
	check "$arch: SHA256SUMS covers the binary" grep -q ' lua-flame$' "$d/SHA256SUMS"
	check "$arch: tarball checksum verifies" sh -c "cd '$ROOT/dist' && sha256sum --quiet -c '$name.tar.gz.sha256'"
	file "$d/lua-flame" >"$OUT/file-$arch"
	check "$arch: shipped binary is for $machine" grep -q "$machine" "$OUT/file-$arch"
	check "$arch: shipped binary is static" grep -q 'statically linked' "$OUT/file-$arch"
	check "$arch: shipped binary is stripped" grep -q ', stripped' "$OUT/file-$arch"
	check "$arch: shipped binary is smaller than the build" [ "$(wc -c <"$d/lua-flame")" -lt "$(wc -c <"$build")" ]
	[ "$arch" = x86_64 ] || continue
	"$d/lua-flame" --version >"$OUT/v.dist" 2>&1; "$LF" --version >"$OUT/v.build" 2>&1
	check "$arch: shipped binary reports the build's version and commit" cmp -s "$OUT/v.dist" "$OUT/v.build"
	lic=$d/LICENSE
done
check "licence of the BPF program matches LICENSE" sh -c \
	"grep -q 'GNU GENERAL PUBLIC LICENSE' '$lic' && grep -q 'Version 2, June 1991' '$lic' && grep -q 'SEC(\"license\") = \"GPL\"' '$ROOT/bpf/profile.bpf.c'"

inst=$OUT/inst
make -s install DESTDIR="$inst" PREFIX=/opt/lf >"$OUT/install.log" 2>&1
check "make install succeeds" [ $? = 0 ]
check "make install: binary" [ -x "$inst/opt/lf/bin/lua-flame" ]
check "make install: man page" [ -s "$inst/opt/lf/share/man/man1/lua-flame.1" ]

make -s help >"$OUT/help" 2>&1
for t in $(awk '$1 == "make" && NF > 1 { print $2 }' "$OUT/help"); do
	check "make help names '$t', and make knows it" make -n "$t" >/dev/null 2>&1
done
# scripts run directly (by make or by bench.sh) carry a #! line and must be executable
for s in "$ROOT"/scripts/*.sh; do
	head -1 "$s" | grep -q '^#!' && check "$(basename "$s") is executable" [ -x "$s" ]
done
check "make help names demo, test, bench, dist, install, clean" sh -c \
	"for t in demo test bench dist install clean; do grep -q \"^make \$t \" '$OUT/help' || exit 1; done"
finish
