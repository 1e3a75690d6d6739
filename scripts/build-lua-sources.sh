#!/bin/sh
# Builds Lua interpreters newer than Debian 12 ships (Debian unstable's lua5.5, lua5.4 and luajit,
# OpenResty's LuaJIT) from Debian's source packages, fetched through a private apt configuration (the
# machine's sources stay untouched), into .cache/lua-sid: once, then a quick check. Prints what it
# builds and errors.
#
#   scripts/build-lua-sources.sh         fetch and build what is missing
#   scripts/build-lua-sources.sh --dir   print the directory holding the builds
# Each build VERSION has VERSION/src (the upstream tree, `make linux`, unstripped lua) and
# VERSION/lua-stripped (stripped as Debian's packaging does); luajit-VERSION/src/luajit for LuaJIT.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=$ROOT/.cache/lua-sid
SUITE=${LUA_SID_SUITE:-sid}
PKGS=${LUA_SID_PKGS:-lua5.5 lua5.4 luajit}
. "$ROOT/scripts/debian-mirror.sh"
log() { echo "build-lua-sources: $*" >&2; }

[ "${1:-}" = --dir ] && { echo "$DIR"; exit 0; }
mkdir -p "$DIR"
# .cache may be shared by several checkouts: one build at a time
exec 9>"$DIR/.lock"
flock 9

papt() { # TOOL ARGS...: apt with lua-flame's private configuration for the unstable suite
	t=$1; shift
	$t -o Dir::Etc::SourceList="$DIR/apt/apt.sources" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$DIR/apt/lists" -o Dir::Cache="$DIR/apt/cache" -o Debug::NoLocking=1 "$@"
}

apt_ready=0
apt_setup() {
	[ $apt_ready = 1 ] && return 0
	mirror=$(debian_mirror "$(. /etc/os-release && echo "$VERSION_CODENAME")")
	[ -n "$mirror" ] || { log "no Debian mirror in /etc/apt/sources.list*: add one, or put Lua sources in $DIR by hand"; exit 1; }
	mkdir -p "$DIR/apt/lists/partial" "$DIR/apt/cache/archives/partial"
	printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' "$mirror" "$SUITE" \
		/usr/share/keyrings/debian-archive-keyring.gpg >"$DIR/apt/apt.sources"
	papt apt-get update -qq >"$DIR/apt/update.log" 2>&1 \
		|| { log "apt-get update of $SUITE from $mirror failed: $(tail -1 "$DIR/apt/update.log")"; exit 1; }
	apt_ready=1
}

# build PKG: fetches PKG's source package once, builds its upstream tarball once.
build() {
	pkg=$1
	done_mark=$(ls "$DIR"/"$pkg"-*/.built 2>/dev/null | head -1)
	[ -n "$done_mark" ] && return 0
	d=$DIR/pkg-$pkg
	if ! ls "$d"/"${pkg}"_*.orig.tar.* >/dev/null 2>&1; then
		apt_setup
		rm -rf "$d" && mkdir -p "$d"
		# Only the upstream tarball is used (apt checks it against the suite's Sources index); a
		# mirror missing the Debian packaging files still serves it.
		(cd "$d" && papt apt-get source -qq --download-only "$pkg" >"$d/source.log" 2>&1) || true
		ls "$d"/"${pkg}"_*.orig.tar.* >/dev/null 2>&1 \
			|| { log "apt-get source $pkg ($SUITE) failed: $(grep -m1 '^E:' "$d/source.log")"; exit 1; }
	fi
	tgz=$(ls "$d"/"${pkg}"_*.orig.tar.* | head -1)
	case $pkg in
	luajit*) ver=$(basename "$tgz" | sed "s/^${pkg}_//; s/\.orig\.tar\..*//") ;;
	*) ver=$(basename "$tgz" | sed 's/^[^_]*_\([^.]*\.[^.]*\.[0-9]*\).*/\1/') ;;
	esac
	out=$DIR/$pkg-$ver
	rm -rf "$out" && mkdir -p "$out"
	tar -xf "$tgz" -C "$out" --strip-components=1
	case $pkg in
	luajit*) # OpenResty's LuaJIT: a plain make gives src/luajit with the VM linked in
		log "building LuaJIT $ver from Debian's $pkg source package ($SUITE)"
		make -s -C "$out" -j2 >"$out/build.log" 2>&1 \
			|| { log "make of $pkg $ver failed, see $out/build.log"; exit 1; } ;;
	*)
		log "building Lua $ver from Debian's $pkg source package ($SUITE)"
		make -s -C "$out" -j2 linux >"$out/build.log" 2>&1 \
			|| { log "make linux of $pkg $ver failed, see $out/build.log"; exit 1; }
		cp "$out/src/lua" "$out/lua-stripped"
		strip --strip-all "$out/lua-stripped" ;;
	esac
	touch "$out/.built"
}

for p in $PKGS; do build "$p"; done
