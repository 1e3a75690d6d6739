#!/bin/sh
# Installs the Debian packages lua-flame's build (no argument), demo (--demo), tests (--test)
# or the aarch64 cross build and its tests under qemu (--arm64) need, and a deb-src entry for the
# machine's own Debian mirror so scripts/build-deps.sh can fetch library sources.
# Idempotent: installs only what is missing.
set -eu

BUILD_PKGS="clang llvm bpftool musl-tools musl-dev linux-libc-dev libc6-dev make gcc g++ git \
  dpkg-dev pkg-config file m4 bison flex gawk ca-certificates"
DEMO_PKGS="lua5.4"
# node and npm come with the machine (NodeSource); Debian's npm would conflict with them.
TEST_PKGS="sysbench libboost-context-dev lua5.1 lua5.2 lua5.3 lua5.4 luajit2 libxml2-utils nginx libnginx-mod-http-lua wrk \
  haproxy redis-server redis-tools tarantool libclang-rt-14-dev curl iproute2 binutils \
  liblua5.1-0-dev liblua5.2-dev liblua5.3-dev liblua5.4-dev golang-go valgrind chromium time \
  libluajit2-5.1-dev libc6-dbg gdb debootstrap jq zlib1g-dev \
  qemu-system-x86 busybox-static cpio dnsdist trafficserver apache2 tmux linux-perf texlive-binaries"
# The aarch64 cross build and its tests under qemu. musl-dev:arm64 brings the aarch64 musl
# C library and its compiler wrapper (aarch64-linux-musl-gcc, which runs the cross gcc);
# musl has no kernel headers, linux-libc-dev-arm64-cross has arm64's; the cross g++ brings
# the aarch64 libsupc++ (its demangler). busybox-static:arm64 is not here: it cannot be
# installed beside the amd64 one, and the arm64 tests fetch it with 'apt-get download'.
ARM64_PKGS="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu binutils-aarch64-linux-gnu linux-libc-dev-arm64-cross \
  musl-dev:arm64 qemu-user-static qemu-system-arm"

SRCLIST=/etc/apt/sources.list.d/lua-flame-src.sources

. "$(dirname "$0")/debian-mirror.sh"

add_deb_src() {
	if grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ /etc/apt/sources.list 2>/dev/null \
		|| grep -rqs '^deb-src ' /etc/apt/sources.list.d/ /etc/apt/sources.list 2>/dev/null; then
		return 0
	fi
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	mirror=$(debian_mirror "$codename" || true)
	if [ -z "$codename" ] || [ -z "$mirror" ]; then
		echo "lua-flame: no Debian mirror for '${codename:-unknown release}' in /etc/apt/sources.list*;" \
			"add a deb-src entry for Debian's sources by hand and retry" >&2
		exit 1
	fi
	[ "$(id -u)" = 0 ] || { echo "lua-flame: run 'sudo $0' once (it adds a deb-src entry for $mirror)" >&2; exit 1; }
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	{
		echo "Types: deb-src"
		echo "URIs: $mirror"
		echo "Suites: $codename $codename-updates"
		echo "Components: main"
		[ -f "$keyring" ] && echo "Signed-By: $keyring"
	} >"$SRCLIST"
	UPDATED=0
}

# arm64 packages come from the same Debian mirror; dpkg has to accept them first (and apt's
# lists then need the arm64 indexes, so the next install step refreshes them).
add_arm64() {
	if dpkg --print-foreign-architectures | grep -qx arm64; then
		# added by hand earlier, perhaps without an apt-get update since (asked only when
		# something is to be installed: apt-cache takes a second or two)
		[ -z "$todo" ] || apt-cache show musl-dev:arm64 >/dev/null 2>&1 || UPDATED=0
		return 0
	fi
	[ "$(id -u)" = 0 ] || { echo "lua-flame: run 'sudo $0 --arm64' once (it adds arm64 as a dpkg architecture)" >&2; exit 1; }
	dpkg --add-architecture arm64
	UPDATED=0
}

missing() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
	done
}

UPDATED=1
want=$BUILD_PKGS
case "${1:-}" in
--test) want="$BUILD_PKGS $TEST_PKGS" ;;
--demo) want="$BUILD_PKGS $DEMO_PKGS" ;;
--arm64) want="$BUILD_PKGS $ARM64_PKGS" ;;
esac
todo=$(missing $want)
[ -z "$todo" ] || [ "$(id -u)" = 0 ] || { echo "lua-flame: missing packages: $todo; run 'sudo $0 $*' once" >&2; exit 1; }
add_deb_src
case " $want " in *" musl-dev:arm64 "*) add_arm64 ;; esac
stamp=/var/lib/apt/lists/lua-flame-updated
if [ -n "$todo" ] || [ "$UPDATED" = 0 ]; then
	if [ "$UPDATED" = 0 ] || [ ! -e "$stamp" ]; then
		apt-get update -qq && touch "$stamp"
	fi
	if [ -n "$todo" ]; then
		echo "lua-flame: installing $(echo $todo | wc -w) Debian packages: $(echo $todo)" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $todo >/dev/null
	fi
fi
exit 0
