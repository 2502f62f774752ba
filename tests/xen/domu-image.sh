#!/usr/bin/env bash
# Builds a Xen PV guest of one kernel for `make xentest`, the way a Debian guest is laid
# out: a small initramfs that loads xen-blkfront with modprobe (so /etc/modprobe.d in
# the initramfs counts, as Debian's initramfs-tools copies it there) and mounts the root
# file system from a xen-blkfront disk, and that root as an ext4 image.
#
#   tests/xen/domu-image.sh OUTDIR KDIR RELEASE XENDIR [TOOL]
#
# OUTDIR gets vmlinuz, initrd.img and root.img. The root holds the test user space
# (tests/vm/stage.sh's), xenstore-utils from XENDIR (the oracle of what the backend
# offers), the checks (tests/xen/guest-xen.sh), /sbin/init (tests/xen/domu-init), and
# /usr/sbin/update-initramfs: a stand-in for initramfs-tools' that rebuilds
# /boot/initrd.img as the base initramfs plus the root's /etc/modprobe.d, which is what
# dom0 boots the guest with next time (as pygrub reads /boot from a guest's disk).
# TOOL: the tool's binary (default: the one built in the tree). VMTEST_ARCH=arm64: user
# space from tests/vm/sysroot.sh, and TOOL and XENDIR's xenstore-utils of arm64.
set -eEuo pipefail
trap 'echo "$(basename "$0"): line $LINENO: $BASH_COMMAND failed" >&2' ERR
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$1 kdir=$2 rel=$3 xdir=$4 tool=${5:-$ROOT/blktrace-bench}
case ${VMTEST_ARCH:-amd64} in
amd64) ;;
arm64) sysroot=$("$ROOT/tests/vm/sysroot.sh" arm64) ;;
*) echo "domu-image: no guests of '$VMTEST_ARCH' (amd64, arm64)" >&2; exit 2 ;;
esac
. "$ROOT/tests/vm/stage.sh"
[ -z "${sysroot:-}" ] || SYSROOT=$sysroot TRIPLET=aarch64-linux-gnu
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/bb-domu.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The initramfs: busybox, kmod's modprobe and xen-blkfront with its modules.dep.
stage=$work/initrd
mkdir -p "$stage"/{bin,sbin,proc,sys,dev,newroot,etc/modprobe.d,lib/modules/"$rel"}
add_bin "$(guest_bin busybox)" /bin/busybox
add_bin "$(guest_bin kmod)" /sbin/kmod
ln -s kmod "$stage/sbin/modprobe"
while read -r ko; do
	dest=$stage/lib/modules/$rel/${ko#"$kdir/lib/modules/$rel/"}
	dest=${dest%.xz} dest=${dest%.zst}
	mkdir -p "$(dirname "$dest")"
	add_module "$ko" "$dest"
done < <(module_files "$kdir" "$rel" xen-blkfront)
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ ! -f "$kdir/lib/modules/$rel/$f" ] || cp "$kdir/lib/modules/$rel/$f" "$stage/lib/modules/$rel/"
done
depmod -b "$stage" "$rel"
cp "$ROOT/tests/xen/domu-initrd-init" "$stage/init"
chmod +x "$stage/init"
pack_cpio "$out/initrd.img"

# The root file system.
stage=$work/root
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,root,boot,mnt,xentest}
mkdir -p "$stage"/{etc/modprobe.d,var/lib,lib/modules/"$rel"}
add_guest_userspace "$tool"
for b in read write ls list exists; do
	add_bin "$xdir/usr/bin/xenstore-$b" "/usr/bin/xenstore-$b" "$xdir"
done
cp "$ROOT/tests/vm/guest-lib.sh" "$ROOT"/tests/xen/guest-*.sh "$stage/xentest/"
cp "$ROOT/tests/xen/domu-init" "$stage/sbin/init"
cp "$ROOT/tests/xen/update-initramfs" "$stage/usr/sbin/update-initramfs"
chmod +x "$stage/sbin/init" "$stage/usr/sbin/update-initramfs"
cp "$out/initrd.img" "$stage/boot/initrd.base"
echo "$rel" > "$stage/etc/kernel-release"
rm -f "$out/root.img"
mke2fs -q -t ext4 -L xentest-root -d "$stage" "$out/root.img" 320M
cp "$kdir/vmlinuz" "$out/vmlinuz"
