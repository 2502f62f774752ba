#!/usr/bin/env bash
# Builds the guest's initramfs for the VM tests.
#
#   tests/vm/initramfs.sh OUT.cpio.gz KDIR RELEASE [TOOL]
#
# Guest user space: busybox-static for the basics, bash, jq, util-linux's sfdisk,
# dmsetup, mdadm, mke2fs and the kernel's blktrace for the test script, and the tool itself, each with the shared libraries `ldd`
# names; the test scripts from tests/vm/; and the modules the tests load (with their
# dependencies, decompressed, in load order) from KDIR/lib/modules/RELEASE. TOOL: the
# tool's binary (default: the one built in the tree). VMTEST_ARCH=arm64: the guest's user
# space from tests/vm/sysroot.sh, and TOOL the arm64 build.
set -eEuo pipefail
trap 'echo "$(basename "$0"): line $LINENO: $BASH_COMMAND failed" >&2' ERR
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$1 kdir=$2 rel=$3 tool=${4:-$ROOT/blktrace-bench}
# dm, md RAID1 and dm-crypt (xts and ecb are looked up by name at table load: the
# guest has no modprobe, so they are loaded first where they are modules).
MODULES=(virtio_pci virtio_blk virtio_scsi sd_mod nvme loop ecb xts dm_mod dm_crypt raid1)
case ${VMTEST_ARCH:-amd64} in
amd64) ;;
arm64)
	# virt has one serial port: the report goes to a virtio console (tests/vm/vmtest.sh).
	MODULES+=(virtio_console)
	sysroot=$("$ROOT/tests/vm/sysroot.sh" arm64)
	;;
*) echo "initramfs: no guests of '$VMTEST_ARCH' (amd64, arm64)" >&2; exit 2 ;;
esac

stage=$(mktemp -d "${TMPDIR:-/tmp}/bb-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib/modules,proc,sys,dev,tmp,run,etc,root,vm}

. "$ROOT/tests/vm/stage.sh"
[ -z "${sysroot:-}" ] || SYSROOT=$sysroot TRIPLET=aarch64-linux-gnu

add_guest_userspace "$tool"
cp "$ROOT"/tests/vm/guest*.sh "$stage/vm/"
cp "$ROOT/tests/vm/init" "$stage/init"
chmod +x "$stage/init"

# Modules, in load order, for init to insmod (the guest has no modprobe).
add_modules_numbered "$kdir" "$rel" /lib/modules "${MODULES[@]}"
# Modules a test loads itself, with parameters of its own (scsi_debug: requeues,
# tests/vm/guest-requeue.sh): in lib/modules/extra, which init leaves alone. What they
# depend on (scsi_mod) is among the modules above.
mkdir -p "$stage/lib/modules/extra"
extra=(scsi_debug)
for m in "${extra[@]}"; do
	# None where the kernel is built without it (arm64's cloud kernels): the test says so.
	ko=$({ modprobe -d "$kdir" -S "$rel" --show-depends "$m" 2>/dev/null || true; } |
		sed -n 's/^insmod \([^ ]*\).*/\1/p' | tail -1)
	[ -z "$ko" ] || add_module "$ko" "$stage/lib/modules/extra/$m.ko"
done
echo "$rel" > "$stage/etc/kernel-release"

pack_cpio "$out"
