#!/bin/sh
# Installs the Debian packages lua-flame's build and tests need, and adds a deb-src
# entry for Debian's own mirror so scripts/build-deps.sh can fetch library sources.
# Idempotent: installs only what is missing.
set -eu

BUILD_PKGS="clang llvm bpftool musl-tools musl-dev linux-libc-dev libc6-dev make gcc \
  dpkg-dev pkg-config file m4 bison flex gawk"
# node and npm come with the machine (NodeSource); Debian's npm would conflict with them.
TEST_PKGS="lua5.1 lua5.2 lua5.3 lua5.4 luajit2 libxml2-utils nginx libnginx-mod-http-lua wrk \
  haproxy redis-server redis-tools tarantool libclang-rt-14-dev curl iproute2 binutils \
  liblua5.1-0-dev liblua5.2-dev liblua5.3-dev liblua5.4-dev golang-go valgrind chromium time \
  libluajit2-5.1-dev libc6-dbg gdb"

add_deb_src() {
	if grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ /etc/apt/sources.list 2>/dev/null \
		|| grep -rqs '^deb-src ' /etc/apt/sources.list.d/ /etc/apt/sources.list 2>/dev/null; then
		return 0
	fi
	cat >/etc/apt/sources.list.d/lua-flame-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	UPDATED=0
}

missing() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
	done
}

UPDATED=1
add_deb_src
want=$BUILD_PKGS
[ "${1:-}" = "--test" ] && want="$BUILD_PKGS $TEST_PKGS"
todo=$(missing $want)
stamp=/var/lib/apt/lists/partial/../lua-flame-updated
if [ -n "$todo" ] || [ "$UPDATED" = 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "lua-flame: missing packages: $todo; run 'sudo $0' once" >&2
		exit 1
	fi
	if [ "$UPDATED" = 0 ] || [ ! -e "$stamp" ]; then
		apt-get update -qq && touch "$stamp"
	fi
	[ -n "$todo" ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $todo >/dev/null
fi
exit 0
