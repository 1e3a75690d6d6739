#!/bin/sh
# `make test-arm64`: boots Debian's arm64 cloud kernels (bookworm's 6.1, trixie's 6.12) under
# qemu-system-aarch64 (TCG) with an initramfs holding the aarch64 lua-flame ($LF_ARM64), Debian's
# arm64 busybox, lua5.1, lua5.2, lua5.3, lua5.4, luajit (upstream) and luajit2 (OpenResty's fork),
# nginx with its Lua module, HAProxy and Redis, and cross-built Lua 5.5, Tarantool's LuaJIT fork
# and tests/progs/unwind.c (also with pointer authentication); runs tests/arm64/guest.sh there and
# checks each console on the host (tests/arm64/check.sh). ARM64_SMOKE=1 boots without lua-flame: only the
# guest's environment (kernel, BTF, perf events, BPF, the arm64 programs) is checked.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# The kernels booted: bookworm's 6.1 runs every case of tests/arm64/guest.sh; trixie's 6.12 a
# subset that covers each unwinder and runtime family (ARM64_SUITES and ARM64_CASES narrow it).
SUITES=${ARM64_SUITES:-bookworm trixie}
TRIXIE_CASES=native-deep,native-pac,native-signal,lua5.4-p,lua5.4-deep,lua5.1-p,luajit2-jit,tarantool-jit,luajit2-shape,lua5.4-wall,container,nginx,lua5.4-cmd
SUITE=bookworm # the userland
AC=$ROOT/.cache/arm64            # arm64 userland: .debs, their unpacked tree, the initramfs
OUT=$ROOT/tests/out/arm64
LF_ARM64=${LF_ARM64:-$ROOT/lua-flame-aarch64}
SMOKE=${ARM64_SMOKE:-0}
ACCEL=${QEMU_ACCEL:-tcg,thread=multi} # an x86 host has no arm64 KVM: always TCG in practice
# Debian's arm64 userland the guest needs. lua5.4 and luajit carry their VMs linked in; the VMs'
# shared libraries come along for programs that load them. libc6-dbg gives glibc's own symbols
# (start_thread, __libc_start_call_main...: libc.so.6 is stripped), as libc6-dbg does on the host
# for tests/integ/native_dwarf.sh; only the files of libc.so.6 and the loader go in. The ELF
# check below catches a library missing from this list.
# luajit2 installs /usr/bin/luajit too: it is unpacked apart and goes in as /usr/bin/luajit2.
# The servers: nginx with the Lua module (OpenResty's LuaJIT from libluajit2-5.1-2, which
# Debian's module prefers), HAProxy (liblua5.3) and Redis (Lua 5.1 linked in), with the
# libraries they load.
PKGS="busybox-static lua5.1 lua5.2 lua5.3 lua5.4 liblua5.4-0 luajit luajit2 libc6 libc6-dbg libgcc-s1 \
  libreadline8 libtinfo6 \
  nginx libnginx-mod-http-lua libnginx-mod-http-ndk lua-resty-core lua-resty-lrucache libluajit2-5.1-2 libpcre3 \
  libpcre2-8-0 libssl3 zlib1g libcrypt1 haproxy liblua5.3-0 libopentracing-c-wrapper0 libopentracing1 libstdc++6 \
  libsystemd0 libcap2 libgcrypt20 liblz4-1 liblzma5 libzstd1 libgpg-error0 redis-server redis-tools libjemalloc2 \
  liblzf1 libatomic1"
. "$ROOT/scripts/debian-kernel.sh" # fetch_kernel, debian_apt: bookworm arm64 in .cache/kernels/bookworm-arm64
log() { echo "test-arm64: $*" >&2; }
t0=$(date +%s)

[ "$(id -u)" = 0 ] || { log "needs root (apt with a private configuration, dpkg-deb)"; exit 2; }
for t in qemu-system-aarch64 aarch64-linux-gnu-gcc cpio gzip dpkg-deb timeout; do
	command -v $t >/dev/null || { log "$t is missing: run scripts/install-packages.sh --test (or apt-get install qemu-system-arm gcc-aarch64-linux-gnu)"; exit 2; }
done
if [ "$SMOKE" = 1 ]; then
	log "ARM64_SMOKE=1: booting without lua-flame, checking the guest environment only"
elif [ ! -f "$LF_ARM64" ]; then
	log "$LF_ARM64 is missing: build it with 'make ARCH=arm64' (or set LF_ARM64; ARM64_SMOKE=1 boots without it)"
	exit 2
elif ! od -An -tx1 -j18 -N2 "$LF_ARM64" | grep -q 'b7 00'; then # e_machine 183: EM_AARCH64
	log "$LF_ARM64 is not an aarch64 ELF binary: build it with 'make ARCH=arm64'"
	exit 2
fi
mkdir -p "$AC/deb" "$OUT"

for k in $SUITES; do
	fetch_kernel "$k" arm64 >/dev/null || { log "could not get $k's arm64 kernel (see above)"; exit 1; }
done

# The userland .debs, downloaded once; a changed PKGS downloads again.
if [ "$(cat "$AC/deb/pkgs" 2>/dev/null)" != "$PKGS" ]; then
	log "downloading arm64 $PKGS"
	rm -rf "$AC/deb" "$AC/root" "$AC/luajit2" && mkdir -p "$AC/deb"
	(cd "$AC/deb" && debian_apt "$SUITE" arm64 apt-get download -qq $PKGS >"$AC/apt.log" 2>&1) ||
		{ log "apt-get download of arm64 packages failed: $(tail -1 "$AC/apt.log") (see $AC/apt.log)"; exit 1; }
	for d in "$AC"/deb/*.deb; do
		case $(basename "$d") in luajit2_*) dpkg-deb -x "$d" "$AC/luajit2" ;; *) dpkg-deb -x "$d" "$AC/root" ;; esac
	done
	echo "$PKGS" >"$AC/deb/pkgs"
fi

TREE=$AC/initramfs
rm -rf "$TREE" && mkdir -p "$TREE/bin" "$TREE/usr/bin" "$TREE/etc"
cp "$AC/root/bin/busybox" "$TREE/bin/busybox"
ln -s busybox "$TREE/bin/sh"
# The loader, libc and the rest as Debian lays them out (the interpreter path in the
# programs is /lib/ld-linux-aarch64.so.1); gconv and the docs stay out, nothing loads them.
(cd "$AC/root" && find lib usr/lib -path '*/gconv' -prune -o -path usr/lib/debug -prune -o \( -type f -o -type l \) -print |
	cpio -pdm --quiet "$TREE") || { log "copying the arm64 libraries failed"; exit 1; }
for f in "$AC"/root/lib/aarch64-linux-gnu/libc.so.6 "$AC"/root/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1; do
	id=$(readelf -n "$f" | sed -n 's/.*Build ID: //p')
	dbg=usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
	[ -f "$AC/root/$dbg" ] || { log "no libc6-dbg symbols for $f ($dbg): remove $AC/deb/pkgs and retry"; exit 1; }
	mkdir -p "$TREE/$(dirname "$dbg")" && cp "$AC/root/$dbg" "$TREE/$dbg"
done
for p in lua5.1 lua5.2 lua5.3 lua5.4 luajit; do
	f=$(readlink -f "$AC/root/usr/bin/$p")
	[ -f "$f" ] || { log "$p is not in the arm64 packages ($AC/root/usr/bin): remove $AC/deb/pkgs and retry"; exit 1; }
	cp "$f" "$TREE/usr/bin/$(basename "$f")"
	[ -e "$TREE/usr/bin/$p" ] || ln -s "$(basename "$f")" "$TREE/usr/bin/$p"
done
mkdir -p "$TREE/usr/sbin" "$TREE/usr/share"
for p in usr/sbin/nginx usr/sbin/haproxy usr/bin/redis-check-rdb usr/bin/redis-cli; do
	[ -f "$AC/root/$p" ] || { log "$p is not in the arm64 packages ($AC/root): remove $AC/deb/pkgs and retry"; exit 1; }
	cp "$AC/root/$p" "$TREE/$p"
done
ln -s redis-check-rdb "$TREE/usr/bin/redis-server"
cp -r "$AC/root/usr/share/lua" "$TREE/usr/share/lua" # lua-resty-core, which nginx's Lua module loads
# nginx's worker takes the user nobody
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$TREE/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$TREE/etc/group"
f=$(readlink -f "$AC/luajit2/usr/bin/luajit")
[ -f "$f" ] || { log "luajit2's luajit is not in $AC/luajit2: remove $AC/deb/pkgs and retry"; exit 1; }
cp "$f" "$TREE/usr/bin/luajit2"

# Tarantool's LuaJIT fork (Debian has no arm64 tarantool): cross-built once from Debian's
# tarantool source, the VM linked into the executable as in tarantool.
f=$("$ROOT/scripts/build-tarantool-luajit.sh") || { log "cross-building Tarantool's LuaJIT failed (see above)"; exit 1; }
cp "$f" "$TREE/usr/bin/luajit-tarantool"

# Lua 5.5, newer than Debian 12 has: the upstream tarball of Debian unstable's lua5.5 (as
# scripts/build-lua-sources.sh fetches it for the x86-64 tests), cross-built once and stripped
# as Debian's packaging does.
L55=$AC/lua5.5
if [ ! -x "$L55/lua-stripped" ]; then
	"$ROOT/scripts/build-lua-sources.sh" >&2 || { log "fetching Lua 5.5's sources failed (see above)"; exit 1; }
	tgz=$(ls "$ROOT"/.cache/lua-sid/pkg-lua5.5/lua5.5_*.orig.tar.* 2>/dev/null | head -1)
	[ -n "$tgz" ] || { log "no lua5.5 source tarball in .cache/lua-sid/pkg-lua5.5"; exit 1; }
	rm -rf "$L55" && mkdir -p "$L55/src"
	tar -xf "$tgz" -C "$L55/src" --strip-components=1
	make -s -C "$L55/src" -j2 linux CC=aarch64-linux-gnu-gcc AR="aarch64-linux-gnu-ar rcu" \
		RANLIB=aarch64-linux-gnu-ranlib >"$L55/build.log" 2>&1 || { log "cross-building Lua 5.5 failed, see $L55/build.log"; exit 1; }
	aarch64-linux-gnu-strip --strip-all -o "$L55/lua-stripped" "$L55/src/src/lua"
fi
cp "$L55/lua-stripped" "$TREE/usr/bin/lua5.5"

# The native unwinding target, as tests/integ/native_dwarf.sh builds it: no frame pointers, no
# debug info, glibc-linked and dynamic; its libraries sit at the root (rpath /).
P=$ROOT/tests/progs CF="-O2 -fomit-frame-pointer -g0" CC=aarch64-linux-gnu-gcc
{ $CC $CF -shared -fPIC -o "$TREE/libunwtest.so" "$P/unwind_lib.c" &&
	$CC $CF -shared -fPIC -o "$TREE/libunwdl.so" "$P/unwind_dl.c" &&
	$CC $CF -o "$TREE/unwind" "$P/unwind.c" -L"$TREE" -lunwtest -Wl,-rpath,/ -ldl -lpthread &&
	$CC $CF -mbranch-protection=standard -o "$TREE/unwind-pac" "$P/unwind.c" -L"$TREE" -lunwtest -Wl,-rpath,/ -ldl -lpthread &&
	$CC $CF -shared -fPIC -o "$TREE/libffitest.so" "$P/ffi_lib.c" &&
	$CC -O2 -o "$TREE/probe" "$ROOT/tests/arm64/probe.c"; } >"$OUT/build.log" 2>&1 ||
	{ log "cross-compiling the test programs failed: $(head -3 "$OUT/build.log")"; exit 1; }

# Every shared library a guest program needs must be in the tree: a missing one would only
# show as a cryptic loader error on the console.
missing=""
for f in "$TREE"/unwind "$TREE"/probe "$TREE"/usr/bin/lua5.[1-5] "$TREE"/usr/bin/luajit "$TREE"/usr/bin/luajit2 "$TREE"/usr/bin/luajit-tarantool \
	"$TREE"/usr/sbin/* "$TREE"/usr/bin/redis-* "$TREE"/usr/lib/nginx/modules/*.so; do
	f=$(readlink -f "$f")
	for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -e "$TREE/$n" ] || [ -e "$TREE/lib/aarch64-linux-gnu/$n" ] || [ -e "$TREE/usr/lib/aarch64-linux-gnu/$n" ] ||
			missing="$missing $(basename "$f"):$n"
	done
done
[ -z "$missing" ] || { log "libraries missing from the arm64 tree:$missing; add their packages to PKGS"; exit 1; }

[ "$SMOKE" = 1 ] || cp "$LF_ARM64" "$TREE/lua-flame"
cp "$ROOT/tests/kernel/split.lua" "$TREE/split.lua"
cp "$ROOT/tests/arm64/jit.lua" "$TREE/jit.lua"
mkdir -p "$TREE/lua"
cp "$ROOT/tests/lua/jit_shape.lua" "$ROOT/tests/lua/wall_split.lua" "$ROOT/tests/lua/deep.lua" "$ROOT/tests/lua/returns.lua" \
	"$ROOT/tests/lua/heap_shapes.lua" "$TREE/"
cp "$ROOT/tests/lua/handler.lua" "$ROOT/tests/lua/haproxy_svc.lua" "$TREE/lua/"
cp "$ROOT/tests/server_checks.sh" "$TREE/server_checks.sh"
cp "$ROOT/tests/arm64/guest.sh" "$TREE/init" && chmod +x "$TREE/init"
cp "$ROOT/tests/kernel/guest_lib.sh" "$TREE/guest_lib.sh"
(cd "$TREE" && find . | cpio -o -H newc --quiet | gzip -1) >"$AC/initramfs.gz"
log "initramfs ready ($(($(wc -c <"$AC/initramfs.gz") / 1024)) KiB, $(($(date +%s) - t0)) s)"

# boot SUITE: runs the guest on SUITE's arm64 kernel (the cases of ARM64_CASES, or the suite's
# own) into $OUT/SUITE.console, and checks it
boot() {
	kernel=$(fetch_kernel "$1" arm64) cases=${ARM64_CASES:-}
	[ "$1" = trixie ] && cases=${ARM64_CASES:-$TRIXIE_CASES}
	t1=$(date +%s)
	log "booting $(basename "$kernel") under qemu ($ACCEL)${cases:+, cases $cases}"
	# Debian's arm64 vmlinuz is a plain Image (not gzip'd): qemu takes it as it is. pauth-impdef
	# keeps -cpu max's pointer authentication cheap to emulate; the kernel and glibc still use it.
	timeout 1200 qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -m 2048 -smp 2 -accel "$ACCEL" \
		-kernel "$kernel" -initrd "$AC/initramfs.gz" -append "console=ttyAMA0 quiet panic=-1${cases:+ lf_cases=$cases}" \
		-nographic -no-reboot </dev/null >"$OUT/$1.console" 2>&1 || log "qemu exited with status $? (124: the 1200 s limit)"
	log "guest finished in $(($(date +%s) - t1)) s (console: $OUT/$1.console)"
	ARM64_SMOKE=$SMOKE ARM64_CASES=$cases sh "$ROOT/tests/arm64/check.sh" "$OUT/$1.console"
}

rc=0
for k in $SUITES; do boot "$k" || rc=1; done
log "total $(($(date +%s) - t0)) s"
exit $rc
