#!/bin/sh
# btf-from-image.sh IMAGE OUT: cuts the kernel's BTF blob (.BTF, what /sys/kernel/btf/vmlinux
# serves) out of a kernel image, so a vmlinux.h for another architecture can be dumped from a
# Debian kernel package without booting it. IMAGE: an arm64 Image, plain or gzip-compressed.
set -eu

[ $# = 2 ] || { echo "usage: $0 IMAGE OUT" >&2; exit 2; }
img=$1 out=$2
[ -r "$img" ] || { echo "btf-from-image: cannot read kernel image $img" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# Debian ships arm64 kernels as a plain Image on some releases and gzip on others (the boot
# loader unpacks it); the BTF bytes are only findable in the unpacked image.
if [ "$(od -An -tx1 -N2 "$img" | tr -d ' ')" = 1f8b ]; then
	gzip -dc "$img" >"$tmp/Image" || { echo "btf-from-image: $img looks gzip-compressed but does not unpack" >&2; exit 1; }
	img=$tmp/Image
fi
size=$(wc -c <"$img")

# u32 at byte offset $1 of the image (the BTF header is little-endian, as both targets are).
u32() { od -An -tu4 --endian=little -j "$1" -N4 "$img" | tr -d ' '; }

# struct btf_header: magic u16 0xeb9f, version u8 (1), flags u8, then hdr_len, type_off,
# type_len, str_off, str_len (u32 each, the offsets counted from the end of the header).
# The magic bytes can also occur by chance, so a candidate counts only when its header is
# self-consistent and fits in the image, and its string section starts with the empty string.
best_off='' best_len=0
for off in $(LC_ALL=C grep -obUaP '\x9f\xeb\x01\x00' "$img" | cut -d: -f1); do
	[ $((off + 24)) -le "$size" ] || continue
	hdr_len=$(u32 $((off + 4))) type_off=$(u32 $((off + 8))) type_len=$(u32 $((off + 12)))
	str_off=$(u32 $((off + 16))) str_len=$(u32 $((off + 20)))
	[ "$hdr_len" -ge 24 ] && [ "$hdr_len" -le 256 ] || continue
	[ "$type_len" -gt 0 ] && [ "$str_len" -gt 0 ] || continue
	[ $((type_off + type_len)) -le "$str_off" ] || continue
	total=$((hdr_len + str_off + str_len))
	[ $((off + total)) -le "$size" ] || continue
	[ "$(od -An -tx1 -j $((off + hdr_len + str_off)) -N1 "$img" | tr -d ' ')" = 00 ] || continue
	# vmlinux has one BTF blob; keep the largest should a chance match also pass.
	[ "$total" -gt "$best_len" ] && best_off=$off best_len=$total
done
[ -n "$best_off" ] || {
	echo "btf-from-image: no BTF blob in $img; the kernel needs CONFIG_DEBUG_INFO_BTF=y (or the image is packed in a format this script does not unpack)" >&2
	exit 1
}
tail -c +$((best_off + 1)) "$img" | head -c "$best_len" >"$tmp/btf"
mv "$tmp/btf" "$out"
