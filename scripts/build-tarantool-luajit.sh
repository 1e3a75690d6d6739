#!/bin/sh
# Cross-builds Tarantool's LuaJIT fork (Debian's tarantool source) as a standalone aarch64 `luajit`
# in .cache/arm64/tarantool-luajit, once, and prints its path: Debian has no arm64 tarantool, and
# lua-flame's arm64 build needs a VM of that fork to profile.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=${LUAJIT_SRC_DIR:-$ROOT/.cache/src}
OUT=$ROOT/.cache/arm64/tarantool-luajit
CROSS=aarch64-linux-gnu-
SYSROOT=/usr/aarch64-linux-gnu
# The defines gen-luajit-layouts.sh's defines_of gives Tarantool's GC64 variant (arm64 is always
# GC64); Tarantool's build adds LUAJIT_SMART_STRINGS to every build.
DEFS="-DLUAJIT_SMART_STRINGS=1 -DLUAJIT_ENABLE_GC64=1"
# Built as Tarantool's cmake/luajit.cmake builds it, LuaJIT's src/Makefile with BUILDMODE=static:
# the VM linked into the executable, which exports the Lua API and links glibc dynamically, as a
# tarantool binary does.

die() { echo "build-tarantool-luajit: $*" >&2; exit 1; }

# The fork's tree inside the unpacked tarantool source, if any.
tree_of() {
	for d in "$SRC"/tarantool-*/third_party/luajit; do
		[ -f "$d/src/Makefile" ] && { echo "$d"; return 0; }
	done
	return 0
}

if [ -x "$OUT/luajit" ]; then
	echo "$OUT/luajit"
	exit 0
fi

for tool in "${CROSS}gcc" make gcc; do
	command -v "$tool" >/dev/null 2>&1 \
		|| die "$tool is missing; install the cross tools with 'sh scripts/install-packages.sh --arm64'"
done

tree=$(tree_of)
if [ -z "$tree" ]; then
	mkdir -p "$SRC"
	(cd "$SRC" && apt-get source -qq tarantool >/dev/null) \
		|| die "'apt-get source tarantool' failed in $SRC; it needs a deb-src entry (make adds one), or run 'sh scripts/gen-luajit-layouts.sh --check' once"
	tree=$(tree_of)
fi
[ -n "$tree" ] || die "no LuaJIT tree with a src/Makefile under $SRC/tarantool-*/third_party/luajit"

# A fresh copy each time: the Debian tree stays as unpacked, and a failed build leaves nothing
# that a later run would take for finished.
build=$OUT/build
rm -rf "$build"
mkdir -p "$build"
cp -a "$tree/src" "$tree/dynasm" "$build/"
# buildvm runs on the build machine but must see a 64-bit target, hence the host's 64-bit gcc.
make -C "$build/src" -j"$(nproc 2>/dev/null || echo 2)" HOST_CC=gcc CROSS="$CROSS" TARGET_SYS=Linux \
	BUILDMODE=static XCFLAGS="$DEFS" luajit >"$OUT/build.log" 2>&1 \
	|| die "building ${tree#"$ROOT"/} for aarch64 failed, see $OUT/build.log"

# Running it needs only the dynamic loader and libc, which the cross toolchain brings.
if command -v qemu-aarch64-static >/dev/null 2>&1 && [ -d "$SYSROOT/lib" ]; then
	got=$(qemu-aarch64-static -L "$SYSROOT" "$build/src/luajit" -e 'print(6*7)' 2>&1) || true
	[ "$got" = 42 ] || die "the aarch64 luajit built in $build does not run under qemu-aarch64-static: $got"
fi
cp "$build/src/luajit" "$OUT/luajit.new"
mv "$OUT/luajit.new" "$OUT/luajit"
rm -rf "$build"
echo "$OUT/luajit"
