#!/usr/bin/env bash
# Builds the guest's initramfs for the VM tests.
#
#   tests/vm/initramfs.sh OUT.cpio.gz KDIR RELEASE
#
# Guest user space: busybox-static for the basics, bash, jq, util-linux's sfdisk,
# dmsetup, mdadm, mke2fs and the kernel's blktrace for the test script, and the tool itself, each with the shared libraries `ldd`
# names; the test scripts from tests/vm/; and the modules the tests load (with their
# dependencies, decompressed, in load order) from KDIR/lib/modules/RELEASE.
set -eEuo pipefail
trap 'echo "$(basename "$0"): line $LINENO: $BASH_COMMAND failed" >&2' ERR
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$1 kdir=$2 rel=$3
# dm, md RAID1 and dm-crypt (xts and ecb are looked up by name at table load: the
# guest has no modprobe, so they are loaded first where they are modules).
MODULES=(virtio_pci virtio_blk virtio_scsi sd_mod nvme loop ecb xts dm_mod dm_crypt raid1)

stage=$(mktemp -d "${TMPDIR:-/tmp}/bb-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib/modules,proc,sys,dev,tmp,run,etc,root,vm}

. "$ROOT/tests/vm/stage.sh"

add_guest_userspace "$ROOT"
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
	ko=$(modprobe -d "$kdir" -S "$rel" --show-depends "$m" 2>/dev/null |
		sed -n 's/^insmod \([^ ]*\).*/\1/p' | tail -1)
	[ -z "$ko" ] || add_module "$ko" "$stage/lib/modules/extra/$m.ko"
done
echo "$rel" > "$stage/etc/kernel-release"

pack_cpio "$out"
