#!/bin/sh
# Builds the small root filesystems the container tests run in: host programs copied with
# the libraries `ldd` lists, placed where the host has a different file or none at all.
# Usage: mkroot.sh KIND [DIR]. Without DIR the root is cached under .cache/container-root/KIND,
# rebuilt only when missing or when this script or the host files it copies changed; prints
# its path.
# KIND: base (sh, umount), lua53as54 (Debian's lua5.3 at /usr/bin/lua5.4), lua54 (Debian's
# lua5.4), optlua (tests/container/lua_host.c on liblua5.4 under /opt/lua), nginx (nginx with
# the Lua module under /opt/nginx).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

kind=${1:?usage: mkroot.sh KIND [DIR]}
dir=${2:-}

# copy_path R PATH: PATH of the host into root R, keeping symlinks on the way, so the
# dynamic loader finds it under the same name as on the host.
copy_path() {
	cp_r=$1 cp_p=$2
	while :; do
		cp_d=$(readlink -f "$(dirname "$cp_p")")
		cp_b=$(basename "$cp_p")
		mkdir -p "$cp_r$cp_d"
		if [ -L "$cp_d/$cp_b" ]; then
			[ -e "$cp_r$cp_d/$cp_b" ] || [ -L "$cp_r$cp_d/$cp_b" ] || cp -P "$cp_d/$cp_b" "$cp_r$cp_d/$cp_b"
			cp_t=$(readlink "$cp_d/$cp_b")
			case $cp_t in /*) cp_p=$cp_t ;; *) cp_p=$cp_d/$cp_t ;; esac
		else
			[ -e "$cp_r$cp_d/$cp_b" ] || cp "$cp_d/$cp_b" "$cp_r$cp_d/$cp_b"
			return 0
		fi
	done
}

# copy_libs R BINARY: every library BINARY needs, as ldd resolves it on the host.
copy_libs() {
	for cl_lib in $(ldd "$2" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
		copy_path "$1" "$cl_lib"
	done
}

# install_bin R HOST_FILE CONTAINER_PATH: a host program at another path inside R.
install_bin() {
	mkdir -p "$1$(dirname "$3")"
	cp "$2" "$1$3"
	copy_libs "$1" "$2"
}

build_id() {
	readelf -n "$1" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p'
}

# debug_file R FILE: moves FILE's symbols and DWARF into R's /usr/lib/debug/.build-id and
# strips FILE, as distributions ship their -dbg packages.
debug_file() {
	df_id=$(build_id "$2")
	df_d=$1/usr/lib/debug/.build-id/$(echo "$df_id" | cut -c1-2)
	mkdir -p "$df_d"
	objcopy --only-keep-debug "$2" "$df_d/$(echo "$df_id" | cut -c3-).debug"
	strip --strip-all "$2"
}

# libc_debug R: libc's debug file (Debian's libc6-dbg, when installed) inside R, so stacks
# there name what only it knows (__libc_start_call_main) exactly as on the host.
libc_debug() {
	ld_id=$(build_id /usr/lib/x86_64-linux-gnu/libc.so.6)
	ld_f=/usr/lib/debug/.build-id/$(echo "$ld_id" | cut -c1-2)/$(echo "$ld_id" | cut -c3-).debug
	if [ -f "$ld_f" ]; then mkdir -p "$1$(dirname "$ld_f")" && cp "$ld_f" "$1$ld_f"; fi
}

# base R: the merged-/usr layout of Debian 12, mount points, and the few tools
# tests/container/run.sh needs after pivot_root.
base() {
	mkdir -p "$1/usr/bin" "$1/usr/sbin" "$1/usr/lib" "$1/usr/lib64" "$1/etc" \
		"$1/proc" "$1/sys" "$1/dev" "$1/tmp" "$1/oldroot" "$1/app"
	ln -s usr/bin "$1/bin"
	ln -s usr/sbin "$1/sbin"
	ln -s usr/lib "$1/lib"
	ln -s usr/lib64 "$1/lib64"
	for f in null zero urandom; do : >"$1/dev/$f"; done
	chmod 1777 "$1/tmp"
	for b_tool in /bin/sh /usr/bin/umount; do
		copy_path "$1" "$b_tool"
		copy_libs "$1" "$b_tool"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' \
		>"$1/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$1/etc/group"
	printf 'passwd: files\ngroup: files\nhosts: files\n' >"$1/etc/nsswitch.conf"
}

build() {
	r=$1
	base "$r"
	case $kind in
	base) ;;
	lua53as54)
		install_bin "$r" /usr/bin/lua5.3 /usr/bin/lua5.4
		libc_debug "$r"
		;;
	lua54)
		install_bin "$r" /usr/bin/lua5.4 /usr/bin/lua5.4
		libc_debug "$r"
		;;
	optlua)
		# A Lua 5.4 build of another shape: the VM in a shared library next to a small
		# host program, at paths the host does not have.
		mkdir -p "$r/opt/lua/bin" "$r/opt/lua/lib"
		gcc -O2 -g -Wall -Werror -I/usr/include/lua5.4 -o "$r/opt/lua/bin/lua" \
			"$HERE/lua_host.c" -llua5.4 -Wl,-rpath,/opt/lua/lib,--build-id,--export-dynamic-symbol=lua_host_run
		debug_file "$r" "$r/opt/lua/bin/lua"
		cp "$(readlink -f /usr/lib/x86_64-linux-gnu/liblua5.4.so.0)" "$r/opt/lua/lib/liblua5.4.so.0"
		copy_libs "$r" "$r/opt/lua/bin/lua"
		rm -f "$r/usr/lib/x86_64-linux-gnu/liblua5.4.so.0"*
		;;
	nginx)
		install_bin "$r" /usr/sbin/nginx /opt/nginx/sbin/nginx
		for m in ndk_http_module ngx_http_lua_module; do
			install_bin "$r" "/usr/lib/nginx/modules/$m.so" "/opt/nginx/modules/$m.so"
		done
		mkdir -p "$r/usr/share/lua" "$r/var/lib/nginx" "$r/var/log/nginx" "$r/srv"
		cp -R /usr/share/lua/5.1 "$r/usr/share/lua/5.1"
		libc_debug "$r"
		;;
	*) echo "mkroot.sh: unknown kind $kind" >&2; exit 2 ;;
	esac
	stamp >"$r/.mkroot"
}

# stamp: what a cached root was built from (this script, lua_host.c, the host's programs).
stamp() {
	{
		cat "$HERE/mkroot.sh" "$HERE/lua_host.c"
		ls -lL /usr/bin/lua5.3 /usr/bin/lua5.4 /usr/sbin/nginx /usr/lib/nginx/modules \
			/usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/liblua5.4.so.0 \
			/usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2 2>&1
	} | cksum | sed "s/^/$kind /"
}

if [ -n "$dir" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	build "$dir"
	echo "$dir"
	exit 0
fi
cache=$ROOT/.cache/container-root/$kind
if [ "$(cat "$cache/.mkroot" 2>/dev/null)" != "$(stamp)" ]; then
	tmp=$cache.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	trap 'rm -rf "$tmp"' EXIT
	build "$tmp"
	rm -rf "$cache"
	mv "$tmp" "$cache"
	trap - EXIT
fi
echo "$cache"
