# Sourced by the /init of the qemu tests' initramfs (tests/kernel/guest.sh, tests/arm64/guest.sh),
# where the harnesses put it as /guest_lib.sh: mounts what lua-flame needs, and prints a run's
# output between the markers the host's check scripts split the console by.
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp /run /usr/sbin /sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
export PATH=/usr/bin:/bin:/usr/sbin:/sbin

emit() { # NAME RC: prints the run's messages and its folded output between markers
	echo "==BEGIN $1 rc=$2"
	cat "/tmp/$1.log"
	echo "==FOLDED $1"
	cat "/tmp/$1.folded" 2>/dev/null
	echo "==END $1"
}
