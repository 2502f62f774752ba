#!/usr/bin/env bash
# Builds dom0's whole file system, as an initramfs, for the Xen test bed.
#
#   tests/xen/dom0-initramfs.sh OUT.cpio.gz XENDIR RELEASE [TOOL]
#
# XENDIR is tests/xen/packages.sh's tree (Xen 4.17's tools and dom0's kernel RELEASE);
# TOOL the tool's binary (default: the one built in the tree). VMTEST_ARCH=arm64: user
# space from tests/vm/sysroot.sh, the toolstack and TOOL of arm64.
# Dom0 needs no root disk: busybox-static and bash, util-linux's losetup, the toolstack
# (xl, xenstored, xenconsoled, xen-init-dom0, the hotplug scripts and xenstore-utils)
# with their libraries, blktrace-bench, and the modules for blkback and for the virtio disk that carries
# the guests in and the results out. No udev: its coldplug alone costs ~25 s under TCG.
set -eEuo pipefail
trap 'echo "$(basename "$0"): line $LINENO: $BASH_COMMAND failed" >&2' ERR
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$1 xdir=$2 rel=$3 tool=${4:-$ROOT/blktrace-bench}
LIBEXEC=/usr/lib/xen-4.17
# virtio and ext4: the payload disk; loop: the guests' disks; the rest: what xl needs
# (xenfs: /proc/xen; evtchn, gntdev, gntalloc, privcmd: the device files libxl opens).
MODULES=(virtio_pci virtio_blk ext4 loop xenfs xen-evtchn xen-gntdev xen-gntalloc xen-privcmd
	 xen-blkback)
case ${VMTEST_ARCH:-amd64} in
amd64) libdir=/lib/x86_64-linux-gnu ;;
arm64)
	# virt's payload disk is a virtio-mmio device; ext4 asks the crypto API for crc32c,
	# which no module dependency names (x86 loads crc32c-intel for it).
	MODULES+=(virtio_mmio crc32c_generic)
	sysroot=$("$ROOT/tests/vm/sysroot.sh" arm64)
	libdir=/lib/aarch64-linux-gnu
	;;
*) echo "dom0-initramfs: no dom0 of '$VMTEST_ARCH' (amd64, arm64)" >&2; exit 2 ;;
esac

stage=$(mktemp -d "${TMPDIR:-/tmp}/bb-dom0.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib/modules,proc,sys,dev,tmp,run,etc,root,payload}
mkdir -p "$stage"/var/{lib/xen,log/xen/console,lock} && ln -s /run "$stage/var/run"
. "$ROOT/tests/vm/stage.sh"
[ -z "${sysroot:-}" ] || SYSROOT=$sysroot TRIPLET=aarch64-linux-gnu

add_bin "$(guest_bin busybox)" /bin/busybox
add_bin "$(guest_bin bash)" /bin/bash
add_bin "$(guest_bin losetup)" /sbin/losetup
# The hotplug scripts lock with flock, which busybox-static lacks.
add_bin "$(guest_bin flock)" /usr/bin/flock
# glibc loads it for pthread_cancel, which xl calls: ldd does not name it.
add_bin "$SYSROOT$libdir/libgcc_s.so.1" "$libdir/libgcc_s.so.1"
for b in xl xenstored xenconsoled xen-init-dom0 libxl-save-helper; do
	add_bin "$xdir$LIBEXEC/bin/$b" "$LIBEXEC/bin/$b" "$xdir"
done
# The tool itself: dom0's view of the guests' disks (the loop devices blkback serves), and
# serve's HTTP server, which it opens itself (xl brings libxenstore).
add_bin "$tool" /usr/bin/blktrace-bench
add_dlopened libmicrohttpd.so.12
# xenstore-utils: one binary under every name (hard links in the package).
for b in "$xdir"/usr/bin/xenstore-*; do
	[ -L "$b" ] || add_bin "$b" "/usr/bin/${b##*/}" "$xdir"
done
mkdir -p "$stage/etc/xen"
cp -a "$xdir/etc/xen/scripts" "$xdir/etc/xen/xl.conf" "$stage/etc/xen/"
# XENTEST_DEBUG=1: the hotplug script traces itself into /var/log/xen/xen-hotplug.log, which
# dom0.sh shows when xl create fails.
[ -z "${XENTEST_DEBUG:-}" ] ||
	sed -i '2i PS4='"'"'+ $$ '"'"'; set -x' "$stage/etc/xen/scripts/block"
cp "$ROOT/tests/xen/block-xentest" "$stage/etc/xen/scripts/"
cp "$ROOT/tests/xen/dom0-init" "$stage/init"
cp "$ROOT/tests/xen/dom0.sh" "$stage/dom0.sh"
chmod +x "$stage/init" "$stage/etc/xen/scripts/block-xentest"
add_modules_numbered "$xdir" "$rel" /lib/modules "${MODULES[@]}"
pack_cpio "$out"
