#!/bin/sh
# `make test-kernels`: boots Debian's own cloud kernels (5.10 bullseye, 6.1 bookworm, 6.12 trixie
# by default; KERNELS picks suites) under qemu with an initramfs holding ./lua-flame, Debian's
# lua5.4, lua5.1 and luajit and tests/kernel/guest.sh, then checks on the host the stacks each
# kernel gave (tests/kernel/check.sh). Kernel packages come from this machine's own Debian mirror
# through a private apt configuration (the machine's sources stay untouched), cached in .cache/kernels.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KERNELS=${KERNELS:-bullseye bookworm trixie}
KC=$ROOT/.cache/kernels
OUT=$ROOT/tests/out/kernels
ACCEL=${QEMU_ACCEL:-tcg,thread=multi} # nested KVM is not dependable: TCG unless asked
. "$ROOT/scripts/debian-mirror.sh"
log() { echo "test-kernels: $*" >&2; }
[ "$(id -u)" = 0 ] || { log "needs root"; exit 2; }
[ -x "$ROOT/lua-flame" ] || { log "./lua-flame is missing: run make first"; exit 2; }
for t in qemu-system-x86_64 busybox cpio; do
	command -v $t >/dev/null || { log "$t is missing: run scripts/install-packages.sh --test"; exit 2; }
done
mirror=$(debian_mirror "$(. /etc/os-release && echo "$VERSION_CODENAME")")
[ -n "$mirror" ] || { log "no Debian mirror in /etc/apt/sources.list*"; exit 2; }
mkdir -p "$KC" "$OUT"

papt() { # SUITE TOOL ARGS...: apt with a private configuration for SUITE
	s=$1 t=$2; shift 2
	$t -o Dir::Etc::SourceList="$KC/$s/apt.sources" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$KC/$s/lists" -o Dir::Cache="$KC/$s/cache" -o Debug::NoLocking=1 "$@"
}

# fetch_kernel SUITE: prints the path of the suite's newest cloud kernel, downloading it once.
fetch_kernel() {
	s=$1 d=$KC/$1
	k=$(ls "$d"/root/boot/vmlinuz-* 2>/dev/null | head -1)
	[ -n "$k" ] && { echo "$k"; return 0; }
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/deb"
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' "$mirror" "$s" \
		/usr/share/keyrings/debian-archive-keyring.gpg >"$d/apt.sources"
	papt "$s" apt-get update -qq >"$d/apt.log" 2>&1 || { log "apt-get update for $s failed: $(tail -1 "$d/apt.log")"; return 1; }
	pkg=$(papt "$s" apt-cache show linux-image-cloud-amd64 | sed -n 's/^Depends: \(linux-image-[^ ,]*\).*/\1/p' | head -1)
	[ -n "$pkg" ] || { log "no cloud kernel package in $s"; return 1; }
	log "downloading $pkg ($s)"
	(cd "$d/deb" && papt "$s" apt-get download -qq "$pkg" >>"$d/apt.log" 2>&1) || { log "download of $pkg failed"; return 1; }
	dpkg-deb -x "$d"/deb/"$pkg"_*.deb "$d/root"
	ls "$d"/root/boot/vmlinuz-* | head -1
}

# copy_with_libs FILE: FILE and the shared libraries it loads, at their paths, into the tree.
copy_with_libs() {
	for f in "$1" $(ldd "$1" 2>/dev/null | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do
		mkdir -p "$TREE$(dirname "$f")"
		cp -L "$f" "$TREE$f"
	done
}

build_initramfs() {
	TREE=$KC/initramfs
	rm -rf "$TREE" && mkdir -p "$TREE/bin" "$TREE/usr/bin"
	cp "$(command -v busybox)" "$TREE/bin/busybox"
	ln -s busybox "$TREE/bin/sh"
	cp "$ROOT/lua-flame" "$TREE/lua-flame"
	for p in /usr/bin/lua5.4 /usr/bin/lua5.1 /usr/bin/luajit; do
		[ -x "$p" ] || { log "$p is missing: run scripts/install-packages.sh --test"; exit 2; }
		copy_with_libs "$(readlink -f "$p")"
		[ -e "$TREE$p" ] || ln -s "$(readlink -f "$p")" "$TREE$p"
	done
	cp "$ROOT/tests/kernel/split.lua" "$TREE/split.lua"
	cp "$ROOT/tests/lua/wall_split.lua" "$TREE/wall_split.lua"
	cp "$ROOT/tests/kernel/guest.sh" "$TREE/init" && chmod +x "$TREE/init"
	(cd "$TREE" && find . | cpio -o -H newc --quiet | gzip -1) >"$KC/initramfs.gz"
}

build_initramfs
rc=0
for s in $KERNELS; do
	k=$(fetch_kernel "$s") || { rc=1; continue; }
	log "booting $(basename "$k") ($s) under qemu ($ACCEL)"
	start=$(date +%s)
	timeout 600 qemu-system-x86_64 -accel "$ACCEL" -cpu max -m 2048 -smp 2 -kernel "$k" -initrd "$KC/initramfs.gz" \
		-append 'console=ttyS0 quiet panic=-1' -nographic -no-reboot </dev/null >"$OUT/$s.console" 2>&1 || true
	log "$s: guest finished in $(( $(date +%s) - start )) s"
done
sh "$ROOT/tests/kernel/check.sh" $KERNELS || rc=1
exit $rc
