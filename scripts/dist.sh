#!/bin/sh
# `make dist`: dist.sh NAME [BINARY [ARCH]] writes the release tarball dist/NAME.tar.gz with
# BINARY (default lua-flame) stripped, the README and the doc/ pages it links to (the man page
# among them), lua-flame's licence, the licences of the libraries linked into the binary (from
# the very source trees it was built from) and a SHA256SUMS of everything inside. ARCH: x86_64 (default) or aarch64; DEPS: the
# static libraries' build directory of that architecture (.cache/deps or .cache/deps-arm64).
set -eu
NAME=$1
BIN=${2:-lua-flame}
ARCH=${3:-x86_64}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case $ARCH in
x86_64)
	DEPS=${DEPS:-$ROOT/.cache/deps}
	SRC=$DEPS/src
	STRIP=strip
	GCC=gcc
	MUSLPKG=musl-dev
	;;
aarch64)
	# The arm64 libraries were built from the x86-64 build's source trees (build-deps.sh).
	DEPS=${DEPS:-$ROOT/.cache/deps-arm64}
	SRC=$ROOT/.cache/deps/src
	STRIP=aarch64-linux-gnu-strip
	GCC=aarch64-linux-gnu-gcc
	MUSLPKG=musl-dev:arm64
	;;
*)
	echo "dist: architecture $ARCH is not x86_64 or aarch64" >&2
	exit 1
	;;
esac
cd "$ROOT"
[ -x "$BIN" ] || { echo "dist: ./$BIN is missing; run make first (make ARCH=arm64 for aarch64)" >&2; exit 1; }

stage=dist/$NAME
rm -rf "$stage" "dist/$NAME.tar.gz" && mkdir -p "$stage/licenses"
cp "$BIN" "$stage/lua-flame"
$STRIP --strip-all "$stage/lua-flame"
cp README.md LICENSE "$stage/"
# the README's links into doc/ hold in the tarball as in the tree
mkdir -p "$stage/doc" && cp doc/lua-flame.1 doc/*.md "$stage/doc/"

# libsupc++ comes from gcc's libstdc++ dev package: libstdc++-N-dev for the host compiler,
# libstdc++-N-dev-arm64-cross for the cross one, whose licence is in gcc-N-cross-base.
gccver=$($GCC -dumpversion)
# The cross one is built from its own source package (gcc-N-cross, versioned on its own).
if [ "$ARCH" = x86_64 ]; then
	GCCDOC=/usr/share/doc/gcc-$gccver-base
	supcxxsrc="gcc-$gccver $(dpkg-query -W -f='${Version}' "libstdc++-$gccver-dev")"
else
	GCCDOC=/usr/share/doc/gcc-$gccver-cross-base
	supcxxsrc=$(dpkg-query -W -f='${source:Package} ${source:Version}' "libstdc++-$gccver-dev-arm64-cross")
fi
srcversion() { sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$SRC/$1/debian/changelog"; }
need() { [ -f "$1" ] || { echo "dist: $1 is missing (the static libraries' sources); run 'make deps' (for aarch64: 'make ARCH=arm64 deps')" >&2; exit 1; }; }
for f in "$SRC/libbpf/LICENSE.BSD-2-Clause" "$SRC/libbpf/LICENSE.LGPL-2.1" "$SRC/elfutils/COPYING-GPLV2" \
	"$SRC/elfutils/COPYING-LGPLV3" "$SRC/zlib/LICENSE" /usr/share/doc/musl/copyright "$GCCDOC/copyright"; do need "$f"; done
cp "$SRC/libbpf/LICENSE.BSD-2-Clause" "$stage/licenses/libbpf.BSD-2-Clause"
cp "$SRC/libbpf/LICENSE.LGPL-2.1" "$stage/licenses/libbpf.LGPL-2.1"
cp "$SRC/elfutils/COPYING-GPLV2" "$stage/licenses/libelf.GPL-2.0"
cp "$SRC/elfutils/COPYING-LGPLV3" "$stage/licenses/libelf.LGPL-3.0"
cp "$SRC/zlib/LICENSE" "$stage/licenses/zlib.Zlib"
cp /usr/share/doc/musl/copyright "$stage/licenses/musl.MIT"
cp "$GCCDOC/copyright" "$stage/licenses/libsupc++.GPL-3.0-with-GCC-exception"
musl=$(dpkg-query -W -f='${Version}' "$MUSLPKG")
commit=$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
row() { printf '  %-10s %-28s %-34s %s\n' "$@"; }
{
	echo "lua-flame $commit is free software under the GNU General Public License version 2 (LICENSE)."
	echo "Its binary is statically linked with these libraries, built from Debian's source packages:"
	echo
	row library "Debian source package" "licence (the one lua-flame uses)" "what it asks of this binary"
	row libbpf "libbpf $(srcversion libbpf)" "LGPL-2.1 OR BSD-2-Clause (BSD)" "keep its notice and licence"
	row libelf "elfutils $(srcversion elfutils)" "GPL-2.0+ OR LGPL-3.0+ (GPL-2.0+)" "source on request, as lua-flame"
	row zlib "zlib $(srcversion zlib)" "Zlib" "nothing for binaries"
	row musl "musl $musl" "MIT" "keep its notice and licence"
	row libsupc++ "$supcxxsrc" \
		"GPL-3.0+ WITH GCC-exception-3.1" "nothing (the runtime library exception)"
	echo
	echo "The complete corresponding source of this binary is lua-flame's source at commit $commit and"
	echo "the Debian source packages above ('apt-get source libbpf=VERSION' and so on); lua-flame's"
	echo "scripts/build-deps.sh shows how they are built. The licence texts are in this folder."
} >"$stage/licenses/README"
(cd "$stage" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
when=$(git log -1 --format=%ct 2>/dev/null || date +%s)
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$when" -C dist -czf "dist/$NAME.tar.gz" "$NAME"
(cd dist && sha256sum "$NAME.tar.gz" >"$NAME.tar.gz.sha256")
echo "dist: dist/$NAME.tar.gz ($(wc -c <"dist/$NAME.tar.gz") bytes); binary $(wc -c <"$BIN") bytes," \
	"$(wc -c <"$stage/lua-flame") stripped"
