# Sourced (`. scripts/debian-kernel.sh`) by the qemu harnesses that boot Debian's own cloud kernels:
# fetch_kernel SUITE ARCH downloads a suite's newest cloud kernel once, and debian_apt gives apt a
# private configuration per suite and architecture (the machine's own sources stay untouched).
# Caches: .cache/kernels/SUITE for amd64 (the layout test-kernels.sh always had), SUITE-ARCH else.

# Callers that set ROOT (the checkout) are honoured; a plain `. scripts/debian-kernel.sh` from the
# checkout's top works too.
DK_ROOT=${ROOT:-$(pwd)}
[ -f "$DK_ROOT/scripts/debian-mirror.sh" ] || {
	echo "debian-kernel: $DK_ROOT/scripts/debian-mirror.sh is missing: source this from the checkout's top or set ROOT" >&2
	return 2
}
DK_CACHE=$DK_ROOT/.cache/kernels
. "$DK_ROOT/scripts/debian-mirror.sh"

dk_log() { echo "debian-kernel: $*" >&2; }

# debian_apt_dir SUITE ARCH: the private apt directory of SUITE for ARCH.
debian_apt_dir() {
	if [ "$2" = amd64 ]; then echo "$DK_CACHE/$1"; else echo "$DK_CACHE/$1-$2"; fi
}

# debian_apt SUITE ARCH TOOL ARGS...: apt-get/apt-cache with SUITE's private configuration; the
# architecture is forced so that an arm64 index is read on this amd64 machine without dpkg
# having arm64 as a foreign architecture.
debian_apt() {
	_dk_d=$(debian_apt_dir "$1" "$2") _dk_a=$2 _dk_t=$3
	shift 3
	$_dk_t -o Dir::Etc::SourceList="$_dk_d/apt.sources" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$_dk_d/lists" -o Dir::Cache="$_dk_d/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root \
		-o APT::Architecture="$_dk_a" -o APT::Architectures="$_dk_a" "$@"
}

# debian_apt_update SUITE ARCH: writes SUITE's sources (this machine's mirror) and reads its
# index, once; later calls reuse the lists.
debian_apt_update() {
	_dk_d=$(debian_apt_dir "$1" "$2")
	ls "$_dk_d"/lists/*_Packages* >/dev/null 2>&1 && return 0
	_dk_m=$(debian_mirror "$(. /etc/os-release && echo "$VERSION_CODENAME")")
	[ -n "$_dk_m" ] || { dk_log "no Debian mirror in /etc/apt/sources.list*: add this machine's Debian mirror there"; return 2; }
	mkdir -p "$_dk_d/lists/partial" "$_dk_d/cache/archives/partial" "$_dk_d/deb"
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nArchitectures: %s\nSigned-By: %s\n' \
		"$_dk_m" "$1" "$2" /usr/share/keyrings/debian-archive-keyring.gpg >"$_dk_d/apt.sources"
	debian_apt "$1" "$2" apt-get update -qq >"$_dk_d/apt.log" 2>&1 ||
		{ dk_log "apt-get update for $1 ($2) failed: $(tail -1 "$_dk_d/apt.log") (see $_dk_d/apt.log)"; return 1; }
}

# fetch_kernel SUITE [ARCH]: prints the path of the suite's newest cloud kernel for ARCH (amd64
# unless given), downloading and unpacking it once.
fetch_kernel() {
	_dk_s=$1 _dk_a=${2:-amd64}
	case $_dk_a in amd64 | arm64) ;; *) dk_log "fetch_kernel: architecture $_dk_a is not amd64 or arm64"; return 2 ;; esac
	_dk_d=$(debian_apt_dir "$_dk_s" "$_dk_a")
	_dk_k=$(ls "$_dk_d"/root/boot/vmlinuz-* 2>/dev/null | head -1)
	[ -n "$_dk_k" ] && { echo "$_dk_k"; return 0; }
	debian_apt_update "$_dk_s" "$_dk_a" || return 1
	# The metapackage names the versioned image (linux-image-6.1.0-NN-cloud-ARCH) it depends on.
	_dk_p=$(debian_apt "$_dk_s" "$_dk_a" apt-cache show "linux-image-cloud-$_dk_a" |
		sed -n 's/^Depends: \(linux-image-[^ ,]*\).*/\1/p' | head -1)
	[ -n "$_dk_p" ] || { dk_log "no linux-image-cloud-$_dk_a in $_dk_s: is $_dk_s a Debian suite with cloud kernels?"; return 1; }
	dk_log "downloading $_dk_p ($_dk_s, $_dk_a)"
	(cd "$_dk_d/deb" && debian_apt "$_dk_s" "$_dk_a" apt-get download -qq "$_dk_p" >>"$_dk_d/apt.log" 2>&1) ||
		{ dk_log "download of $_dk_p failed (see $_dk_d/apt.log)"; return 1; }
	dpkg-deb -x "$_dk_d"/deb/"$_dk_p"_*.deb "$_dk_d/root" || { dk_log "unpacking $_dk_p failed"; return 1; }
	ls "$_dk_d"/root/boot/vmlinuz-* | head -1
}
