#!/usr/bin/env bash
# Fetches what `make xentest` boots besides the guests' kernels, cached between runs:
# Debian 12's Xen 4.17 (the hypervisor, xl and its libraries, xenstored, xenconsoled,
# the hotplug scripts, xenstore-utils) and its generic 6.1 kernel for dom0 (dom0 support
# and xen-blkback, which the cloud kernels lack).
#
#   tests/xen/packages.sh [ARCH]     ARCH: amd64 (default) or arm64;
#                                    prints "DIR DOM0_RELEASE"
#
# DIR holds the packages unpacked as they would be installed (usr/lib/xen-4.17, etc/xen,
# lib/modules/DOM0_RELEASE, boot/), plus xen (the hypervisor unzipped: on amd64 QEMU's
# -kernel loads it as a Multiboot image, on arm64 as a raw Image) and vmlinuz (dom0's
# kernel). Downloads go through tests/vm/apt.sh: the machine's own apt configuration is
# never read or changed.
set -eEuo pipefail
trap 'echo "$(basename "$0"): line $LINENO: $BASH_COMMAND failed" >&2' ERR
# The test bed's architecture names the lists, whatever VMTEST_ARCH says.
VMTEST_ARCH=${1:-amd64}
case $VMTEST_ARCH in
amd64 | arm64) ;;
*) echo "packages: no Xen test bed for '$VMTEST_ARCH' (amd64, arm64)" >&2; exit 2 ;;
esac
. "$(dirname "${BASH_SOURCE[0]}")/../vm/apt.sh"
apt_ready

XEN=4.17
SUITE='^bookworm(-security)?/'
# Libraries xl, xenstored and xenconsoled load that the host may not have; the rest of
# what they link (libc, libuuid, ...) is bookworm's, copied from the host.
PKGS=(xen-hypervisor-$XEN-$VMTEST_ARCH xen-utils-$XEN xen-utils-common xenstore-utils libxenmisc$XEN
      libxenstore4 libxentoolcore1 libxentoollog1 libxencall1 libxenevtchn1
      libxenforeignmemory1 libxengnttab1 libxendevicemodel1 libxenhypfs1 libyajl2)

# NAME's newest version in bookworm or bookworm-security.
newest() {
	apt-cache "${APTO[@]}" madison "$1" |
		awk -F' *[|] *' -v re="$SUITE" '{ split($3, s, " ") } s[2] ~ re { print $2 }' |
		sort -rV | sed -n 1p
}

xenver=$(newest "xen-hypervisor-$XEN-$VMTEST_ARCH")
[ -n "$xenver" ] || { echo "packages: no Xen $XEN in bookworm" >&2; exit 1; }
kmeta=$(newest "linux-image-$VMTEST_ARCH")
rel=$(apt-cache "${APTO[@]}" show "linux-image-$VMTEST_ARCH=$kmeta" |
	sed -n "s/^Depends:.*linux-image-\([^ ,]*-$VMTEST_ARCH\)\( .*\)\?\$/\1/p" | sed -n 1p)
[ -n "$rel" ] || { echo "packages: cannot read the release of linux-image-$VMTEST_ARCH=$kmeta" >&2; exit 1; }
dir=$CACHE/xen/$xenver+$rel
if [ ! -f "$dir/xen" ] || [ ! -f "$dir/vmlinuz" ]; then
	rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
	want=()
	for p in "${PKGS[@]}"; do
		v=$(newest "$p")
		[ -n "$v" ] || { echo "packages: no $p in bookworm" >&2; exit 1; }
		want+=("$p=$v")
	done
	# arm64's signed image is an EFI application; Xen boots the plain Image as dom0.
	kpkg=linux-image-$rel
	[ "$VMTEST_ARCH" = amd64 ] || kpkg+=-unsigned
	apt_extract "$dir.tmp" "${want[@]}" "$kpkg=$kmeta"
	x=$dir.tmp/boot/xen-$XEN-$VMTEST_ARCH
	if [ -f "$x.gz" ]; then gzip -dc "$x.gz" > "$dir.tmp/xen"; else mv "$x" "$dir.tmp/xen"; fi
	mv "$dir.tmp/boot/vmlinuz-$rel" "$dir.tmp/vmlinuz"
	rm -rf "$dir" && mv "$dir.tmp" "$dir"
fi
echo "$dir $rel"
