#!/bin/sh
# Builds the static musl libraries lua-flame links against (zlib, libelf from elfutils,
# libbpf) from Debian's source packages into DEPS (default .cache/deps). Each library is
# rebuilt only when its installed archive is missing.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEPS=${DEPS:-$ROOT/.cache/deps}
PREFIX=$DEPS/prefix
SRC=$DEPS/src
CC=musl-gcc
JOBS=$(nproc)
mkdir -p "$PREFIX/lib" "$PREFIX/include" "$SRC"

log() { echo "build-deps: $*" >&2; }

# musl-gcc does not search /usr/include; libbpf needs the kernel UAPI headers.
uapi_headers() {
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
	ar rcs "$PREFIX/lib/libelf.a" "$o"/*.o
	cp "$s/libelf/libelf.h" "$s/libelf/gelf.h" "$s/libelf/nlist.h" "$PREFIX/include/"
	mkdir -p "$PREFIX/include/elfutils"
	cp "$s/libelf/elf-knowledge.h" "$PREFIX/include/elfutils/" 2>/dev/null || true
}

build_libbpf() {
	[ -f "$PREFIX/lib/libbpf.a" ] && return 0
	fetch libbpf
	log "building libbpf"
	mkdir -p "$DEPS/obj-libbpf"
	make -s -C "$SRC/libbpf/src" -j"$JOBS" CC=$CC BUILD_STATIC_ONLY=1 \
		OBJDIR="$DEPS/obj-libbpf" DESTDIR="$PREFIX" PREFIX= LIBDIR=/lib INCLUDEDIR=/include \
		EXTRA_CFLAGS="-O2 -fPIC -Wno-error -I$PREFIX/include" PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" install \
		>"$DEPS/libbpf-build.log" 2>&1 || { echo "build-deps: libbpf failed, see $DEPS/libbpf-build.log" >&2; exit 1; }
}

uapi_headers
build_zlib
build_libelf
build_libbpf
log "static libraries ready in $PREFIX/lib"
