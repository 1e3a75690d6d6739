#!/bin/sh
# Proves that the README's two commands work on a machine that has never built lua-flame: a clean
# Debian root made by debootstrap from this machine's own mirror (no clang, bpftool, musl, no
# .cache; git and make only), a fresh clone of this checkout inside it, then the commands run there under chroot with
# the host's /proc, /sys and /dev. Order A: `make -j2 demo`, then `make -j2 test`; order B: `make
# -j2 test`, then `make demo`. The test runs are limited to FRESH_TESTS (a tests/run.sh ONLY
# pattern; the full suite runs on the host anyway). Usage: scripts/fresh-machine.sh [A|B|AB]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ORDERS=${1:-AB}
FRESH_TESTS=${FRESH_TESTS:-lua_puc}
WORK=${FRESH_DIR:-$ROOT/.cache/fresh}
DEBS=/var/cache/apt/archives # .deb files only: every package is still installed anew in each root
. "$ROOT/scripts/debian-mirror.sh"

log() { echo "fresh-machine: $*"; }
[ "$(id -u)" = 0 ] || { echo "fresh-machine: needs root (debootstrap, chroot, BPF)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh-machine: debootstrap is missing: run scripts/install-packages.sh --test" >&2; exit 2; }
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
mirror=$(debian_mirror "$suite")
[ -n "$mirror" ] || { echo "fresh-machine: no Debian mirror for $suite in /etc/apt/sources.list*" >&2; exit 2; }

# One pristine minimal root per suite, made once and unpacked for each run.
base=$WORK/$suite-minbase.tar
if [ ! -s "$base" ]; then
	log "debootstrap $suite from $mirror"
	mkdir -p "$WORK" && rm -rf "$WORK/base"
	debootstrap --variant=minbase --cache-dir="$DEBS" "$suite" "$WORK/base" "$mirror" >"$WORK/debootstrap.log" 2>&1 \
		|| { tail -20 "$WORK/debootstrap.log"; exit 1; }
	# what a person has who just ran `git clone`: git and make, nothing of lua-flame's
	chroot "$WORK/base" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends git make ca-certificates' >>"$WORK/debootstrap.log" 2>&1 \
		|| { tail -20 "$WORK/debootstrap.log"; exit 1; }
	tar -C "$WORK/base" -cf "$base.tmp" . && mv "$base.tmp" "$base" && rm -rf "$WORK/base"
fi

# Ends every process whose root is $1 (workloads a failed run left behind), then its mounts.
teardown() {
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$1" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	sleep 0.5
	for m in var/cache/apt/archives dev/pts dev sys proc; do
		mountpoint -q "$1/$m" && umount -l "$1/$m"
	done
	return 0
}

in_root() { # DIR COMMAND: runs COMMAND in the clone inside DIR with a clean environment
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb CI=true \
		LANG=C.UTF-8 ONLY="$FRESH_TESTS" chroot "$1" sh -c "cd /src && $2"
}

run_order() { # ORDER FIRST SECOND
	dir=$WORK/root-$1
	teardown "$dir"; rm -rf "$dir" && mkdir -p "$dir"
	tar -C "$dir" -xf "$base"
	git clone -q "$ROOT" "$dir/src"
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
	mount -t proc proc "$dir/proc"; mount --rbind /sys "$dir/sys"; mount --rbind /dev "$dir/dev"
	mkdir -p "$dir$DEBS" && mount --bind "$DEBS" "$dir$DEBS"
	for tool in clang bpftool musl-gcc; do
		in_root "$dir" "! command -v $tool >/dev/null" || { log "order $1: $tool is already in the fresh root"; return 1; }
	done
	log "order $1: '$2' then '$3' in a fresh $suite root (no clang, bpftool, musl-gcc)"
	for cmd in "$2" "$3"; do
		start=$(date +%s)
		if in_root "$dir" "$cmd" >"$WORK/order-$1.log" 2>&1; then
			log "order $1: '$cmd' succeeded in $(( $(date +%s) - start )) s: $(grep -E '^demo: the hottest|^[0-9]+ passed, [0-9]+ failed' "$WORK/order-$1.log" | tail -1)"
		else
			log "order $1: '$cmd' FAILED after $(( $(date +%s) - start )) s; its last lines:"
			tail -25 "$WORK/order-$1.log" | sed 's/^/    /'
			teardown "$dir"; return 1
		fi
	done
	teardown "$dir"; rm -rf "$dir"
}

rc=0
case $ORDERS in *A*) run_order A "make -j2 demo" "make -j2 test" || rc=1 ;; esac
case $ORDERS in *B*) run_order B "make -j2 test" "make demo" || rc=1 ;; esac
[ $rc = 0 ] && log "the README's commands work on a fresh machine (orders: $ORDERS)"
exit $rc
