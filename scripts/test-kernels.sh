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
. "$ROOT/scripts/debian-kernel.sh" # fetch_kernel SUITE ARCH, cached in .cache/kernels/SUITE for amd64
log() { echo "test-kernels: $*" >&2; }
[ "$(id -u)" = 0 ] || { log "needs root"; exit 2; }
[ -x "$ROOT/lua-flame" ] || { log "./lua-flame is missing: run make first"; exit 2; }
for t in qemu-system-x86_64 busybox cpio; do
	command -v $t >/dev/null || { log "$t is missing: run scripts/install-packages.sh --test"; exit 2; }
done
mkdir -p "$KC" "$OUT"

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
	cp "$ROOT/tests/lua/deep.lua" "$TREE/deep.lua"
	cp "$ROOT/tests/kernel/guest.sh" "$TREE/init" && chmod +x "$TREE/init"
	cp "$ROOT/tests/kernel/guest_lib.sh" "$TREE/guest_lib.sh"
	cp "$ROOT/scripts/verifier-figures.sh" "$TREE/verifier-figures.sh"
	(cd "$TREE" && find . | cpio -o -H newc --quiet | gzip -1) >"$KC/initramfs.gz"
}

build_initramfs
rc=0
for s in $KERNELS; do
	k=$(fetch_kernel "$s" amd64) || { rc=1; continue; }
	log "booting $(basename "$k") ($s) under qemu ($ACCEL)"
	start=$(date +%s)
	timeout 600 qemu-system-x86_64 -accel "$ACCEL" -cpu max -m 2048 -smp 2 -kernel "$k" -initrd "$KC/initramfs.gz" \
		-append 'console=ttyS0 quiet panic=-1' -nographic -no-reboot </dev/null >"$OUT/$s.console" 2>&1 || true
	log "$s: guest finished in $(( $(date +%s) - start )) s"
done
sh "$ROOT/tests/kernel/check.sh" $KERNELS || rc=1
exit $rc
