#!/bin/sh
# Builds the static musl libraries lua-flame links against (zlib, libelf from elfutils,
# libbpf) from Debian's source packages into DEPS (default .cache/deps; with ARCH=arm64, the
# aarch64 ones, default .cache/deps-arm64). Each library is rebuilt only when its installed
# archive is missing.
set -eu
# The libraries' own makes take their -j here: a parent make's flags (-n of a dry run above
# all) must not reach them.
unset MAKEFLAGS MFLAGS MAKELEVEL

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARCH=${ARCH:-x86_64}
JOBS=$(nproc)
case $ARCH in
x86_64 | x86 | amd64)
	DEPS=${DEPS:-$ROOT/.cache/deps}
	SRC=${SRC:-$DEPS/src}
	CC=musl-gcc
	AR=ar
	CROSS=
	;;
arm64 | aarch64)
	DEPS=${DEPS:-$ROOT/.cache/deps-arm64}
	# Sources do not depend on the target: the x86-64 build's unpacked trees are shared
	# (read only: everything arm64 builds goes under DEPS).
	SRC=${SRC:-$ROOT/.cache/deps/src}
	CC=aarch64-linux-musl-gcc
	AR=aarch64-linux-gnu-ar
	CROSS=aarch64-linux-gnu
	command -v "$CC" >/dev/null && command -v "$AR" >/dev/null || {
		echo "build-deps: $CC or $AR is missing; run 'scripts/install-packages.sh --arm64' (as root) and retry" >&2
		exit 1
	}
	;;
*)
	echo "build-deps: ARCH=$ARCH is not one this script builds for (x86_64 or arm64)" >&2
	exit 1
	;;
esac
PREFIX=$DEPS/prefix
mkdir -p "$PREFIX/lib" "$PREFIX/include" "$SRC"

log() { echo "build-deps: $*" >&2; }

# musl-gcc does not search /usr/include; libbpf needs the kernel UAPI headers. For arm64
# they are the cross ones (linux-libc-dev-arm64-cross): asm/ differs between architectures.
uapi_headers() {
	if [ -n "$CROSS" ]; then
		for d in linux asm asm-generic; do
			[ -d "/usr/$CROSS/include/$d" ] || {
				echo "build-deps: /usr/$CROSS/include/$d is missing; run 'scripts/install-packages.sh --arm64' (it installs linux-libc-dev-arm64-cross)" >&2
				exit 1
			}
			[ -e "$PREFIX/include/$d" ] || ln -s "/usr/$CROSS/include/$d" "$PREFIX/include/$d"
		done
		return 0
	fi
	for d in linux asm-generic; do
		[ -e "$PREFIX/include/$d" ] || ln -s "/usr/include/$d" "$PREFIX/include/$d"
	done
	[ -e "$PREFIX/include/asm" ] || ln -s "/usr/include/$(gcc -print-multiarch)/asm" "$PREFIX/include/asm"
}

# fetch PKG: unpacks Debian's source package PKG (patches applied) into $SRC/PKG.
fetch() {
	[ -d "$SRC/$1" ] && return 0
	log "fetching Debian source of $1"
	tmp=$SRC/.dl-$1
	rm -rf "$tmp" && mkdir -p "$tmp"
	(cd "$tmp" && apt-get source -qq "$1" >/dev/null 2>&1) || {
		echo "build-deps: 'apt-get source $1' failed; run scripts/install-packages.sh (adds a deb-src entry) and retry" >&2
		exit 1
	}
	dir=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -1)
	mv "$dir" "$SRC/$1" && rm -rf "$tmp"
}

build_zlib() {
	[ -f "$PREFIX/lib/libz.a" ] && return 0
	fetch zlib
	if [ -n "$CROSS" ]; then
		# The shared source tree may hold the x86-64 build's objects (zlib builds in its
		# tree), so the cross build runs zlib's configure from a directory of its own.
		log "building zlib ($ARCH)"
		o=$DEPS/obj-zlib
		rm -rf "$o" && mkdir -p "$o"
		(cd "$o" && CC=$CC AR=$AR RANLIB=$CROSS-ranlib CFLAGS="-O2 -fPIC" \
			"$SRC/zlib/configure" --static --prefix="$PREFIX" >/dev/null \
			&& make -s -j"$JOBS" libz.a >/dev/null && make -s install >/dev/null) || {
			echo "build-deps: zlib ($ARCH) failed; see $o/configure.log" >&2
			exit 1
		}
		return 0
	fi
	log "building zlib"
	(cd "$SRC/zlib" && CC=$CC CFLAGS="-O2 -fPIC" ./configure --static --prefix="$PREFIX" >/dev/null \
		&& make -s -j"$JOBS" libz.a >/dev/null && make -s install >/dev/null)
}

# elfutils' configure rejects musl, but libelf's sources build with a small config.h.
build_libelf() {
	[ -f "$PREFIX/lib/libelf.a" ] && return 0
	fetch elfutils
	log "building libelf"
	s=$SRC/elfutils
	o=$DEPS/obj-libelf
	rm -rf "$o" && mkdir -p "$o"
	cat >"$o/config.h" <<'CFG'
#define HAVE_ERR_H 1
#define HAVE_DECL_MEMRCHR 1
#define HAVE_DECL_RAWMEMCHR 0
#define HAVE_DECL_POWEROF2 0
#define HAVE_DECL_MEMPCPY 0
#define HAVE_DECL_REALLOCARRAY 1
#define HAVE_VISIBILITY 1
#define USE_LOCKS 0
#define PACKAGE_NAME "elfutils"
#define PACKAGE_VERSION "0.188"
#define _GNU_SOURCE 1
#include <eu-config.h>
#define assert_perror(e) ((void)(e))
CFG
	for f in "$s"/libelf/*.c; do
		$CC -O2 -fPIC -std=gnu99 -DHAVE_CONFIG_H -D_GNU_SOURCE -DSHARED_OBJECT_FOR_LIBELF=0 \
			-I"$o" -I"$s/libelf" -I"$s/lib" -I"$s" -I"$PREFIX/include" \
			-w -c "$f" -o "$o/$(basename "$f" .c).o"
	done
	$AR rcs "$PREFIX/lib/libelf.a" "$o"/*.o
	cp "$s/libelf/libelf.h" "$s/libelf/gelf.h" "$s/libelf/nlist.h" "$PREFIX/include/"
	mkdir -p "$PREFIX/include/elfutils"
	cp "$s/libelf/elf-knowledge.h" "$PREFIX/include/elfutils/" 2>/dev/null || true
}

build_libbpf() {
	[ -f "$PREFIX/lib/libbpf.a" ] && return 0
	fetch libbpf
	log "building libbpf"
	mkdir -p "$DEPS/obj-libbpf"
	make -s -C "$SRC/libbpf/src" -j"$JOBS" CC=$CC AR=$AR BUILD_STATIC_ONLY=1 \
		OBJDIR="$DEPS/obj-libbpf" DESTDIR="$PREFIX" PREFIX= LIBDIR=/lib INCLUDEDIR=/include \
		EXTRA_CFLAGS="-O2 -fPIC -Wno-error -I$PREFIX/include" PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" install \
		>"$DEPS/libbpf-build.log" 2>&1 || { echo "build-deps: libbpf failed, see $DEPS/libbpf-build.log" >&2; exit 1; }
}

uapi_headers
build_zlib
build_libelf
build_libbpf
log "static libraries ($ARCH) ready in $PREFIX/lib"
