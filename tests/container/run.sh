#!/bin/sh
# Runs a command in a container without a container engine: new PID, mount and UTS
# namespaces (and a user namespace with --user), ROOT bind-mounted onto itself, made the root
# with pivot_root, the old root detached. The host then sees container paths in /proc/PID/maps.
# Usage: run.sh [--user] [--host-pid] [--bind HOST_DIR:DIR]... ROOT CMD [ARGS...]
#   --user      also a user namespace in which the caller is root (unshare --map-root-user)
#   --host-pid  keep the host PID namespace (a new mount namespace only, /proc shows host PIDs)
#   --bind      bind-mount HOST_DIR at DIR inside the container (DIR is created)
# The unshare process execs in place of this script; the command is its only child, PID 1
# in the container, and gets SIGKILL when unshare dies (--kill-child).
set -e
flags="--pid --mount --uts"
binds=""
while :; do
	case $1 in
	--user) flags="$flags --user --map-root-user"; shift ;;
	--host-pid) flags=$(echo "$flags" | sed 's/--pid //'); shift ;;
	--bind) binds="$binds $2"; shift 2 ;;
	*) break ;;
	esac
done
root=$(cd "${1:?usage: run.sh [--user] [--host-pid] [--bind SRC:DST]... ROOT CMD [ARGS...]}" && pwd)
shift
[ $# -gt 0 ] || { echo "run.sh: no command" >&2; exit 2; }

# Runs inside the new namespaces, as the host's sh until pivot_root; then the container's own
# umount detaches the old root, so nothing of the host stays reachable by path.
# shellcheck disable=SC2016
setup='set -e
root=$1 binds=$2; shift 2
mount --make-rprivate /
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
for f in null zero urandom; do mount --bind "/dev/$f" "$root/dev/$f"; done
for b in $binds; do
	mkdir -p "$root${b#*:}"
	mount --bind "${b%%:*}" "$root${b#*:}"
done
hostname container 2>/dev/null || true
cd "$root"
pivot_root . oldroot
cd /
umount -l /oldroot
exec "$@"'
# shellcheck disable=SC2086
exec unshare $flags --kill-child sh -c "$setup" sh "$root" "$binds" "$@"
