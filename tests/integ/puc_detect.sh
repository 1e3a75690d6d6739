#!/bin/sh
# Finds the PUC Lua version inside Debian's real binaries (read as plain files) and checks it
# against three independent sources: the package version, the interpreter's own -v banner and a
# grep for the lua_ident string. Also checks that a layout table exists for every version found,
# and that LuaJIT and a program merely linking Lua are not mistaken for a PUC Lua core.
. "$(dirname "$0")/../lib.sh"

T=$ROOT/build/tests/test_puc_layouts
[ -x "$T" ] || make -C "$ROOT" -s build/tests/test_puc_layouts >"$OUT/build.log" 2>&1
if [ ! -x "$T" ]; then
	fail build "build/tests/test_puc_layouts could not be built (see $OUT/build.log)"
	finish
fi

# Upstream version of a Debian package: 5.4.4-3+deb12u1 -> 5.4.4.
pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null | sed 's/^[0-9]*://; s/-[^-]*$//'; }
# The version in lua_ident, found by grep rather than by our parser.
identver() { grep -aoE '\$Lua(Version)?: Lua [0-9]+\.[0-9]+(\.[0-9]+)?' "$1" | head -1 | sed 's/.* //'; }
# detect FILE: "VERSION KIND RANGE" as printed by the test binary.
detect() { "$T" --detect "$1" | cut -d' ' -f2-; }

# check_core NAME FILE EXPECTED KIND: FILE holds PUC Lua EXPECTED found by KIND, with a layout.
check_core() {
	name=$1 file=$2 want=$3 kind=$4
	if [ ! -f "$file" ]; then fail "$name" "$file is not installed"; return; fi
	got=$(detect "$file")
	set -- $got
	if [ "${1:-}" != "$want" ]; then fail "$name" "found '$got', expected $want"; return; fi
	if [ "${2:-}" != "$kind" ]; then fail "$name" "found by '${2:-}', expected $kind"; return; fi
	case ${3:-} in
		5.*-5.*) pass "$name" ;;
		*) fail "$name" "no layout table for $want ($got)" ;;
	esac
}

for v in 5.1 5.2 5.3 5.4; do
	bin=/usr/bin/lua$v
	want=$(pkgver "lua$v")
	if [ -z "$want" ]; then fail "lua$v" "package lua$v is not installed"; continue; fi
	check_core "lua$v-binary" "$bin" "$want" ident
	banner=$("$bin" -v 2>&1 | sed -n 's/^Lua \([0-9.]*\) .*/\1/p')
	check "lua$v-banner-agrees" [ "$banner" = "$want" ]
	check "lua$v-ident-agrees" [ "$(identver "$bin")" = "$want" ]
done

# Newer releases built from Debian unstable's source packages, stripped (scripts/build-lua-sources.sh).
if "$ROOT/scripts/build-lua-sources.sh"; then
	for d in "$("$ROOT/scripts/build-lua-sources.sh" --dir)"/lua5.*-*/; do
		want=${d%/}; want=${want##*-}
		check_core "lua$want-sid" "$d/lua-stripped" "$want" ident
		check "lua$want-sid-banner-agrees" sh -c "'$d/lua-stripped' -v | grep -q '^Lua $want '"
	done
else
	fail sid-lua "scripts/build-lua-sources.sh failed"
fi

lib=$(ldconfig -p | awk '/liblua5\.3\.so\.0 .*x86-64/ { print $NF; exit }')
check_core liblua5.3 "${lib:-/usr/lib/x86_64-linux-gnu/liblua5.3.so.0}" "$(pkgver liblua5.3-0)" ident

# Redis embeds its own Lua 5.1 copy: the ident string is the only witness besides the source.
redis=/usr/bin/redis-server
if [ -f "$redis" ]; then
	rv=$(identver "$redis")
	case $rv in 5.1.*) check_core redis-server "$redis" "$rv" ident ;;
		*) fail redis-server "grep finds Lua '$rv' in $redis, expected 5.1.x" ;; esac
else
	fail redis-server "$redis is not installed"
fi

# HAProxy links liblua5.3: the executable itself has no Lua core, the library it maps does.
hap=/usr/sbin/haproxy
if [ -f "$hap" ]; then
	check haproxy-binary-has-no-core [ "$(detect "$hap")" = none ]
	hlib=$(ldd "$hap" | awk '/liblua/ { print $3; exit }')
	if [ -n "$hlib" ]; then
		check_core haproxy-liblua "$hlib" "$(pkgver liblua5.3-0)" ident
	else
		fail haproxy-liblua "ldd shows no liblua for $hap"
	fi
else
	fail haproxy "$hap is not installed"
fi

# LuaJIT says "Lua 5.1" as _VERSION but is not PUC Lua.
lj=$(command -v luajit || true)
if [ -n "$lj" ]; then
	check luajit-not-puc [ "$(detect "$(readlink -f "$lj")")" = none ]
else
	fail luajit "luajit is not installed"
fi
ljlib=$(ldconfig -p | awk '/libluajit-5\.1\.so\.2 .*x86-64/ { print $NF; exit }')
[ -z "$ljlib" ] || check libluajit-not-puc [ "$(detect "$ljlib")" = none ]

finish
