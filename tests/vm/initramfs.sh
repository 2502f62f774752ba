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

# A binary and every library it loads, at the same paths as on the host.
add_bin() {
	local bin=$1 dest=${2:-$1} lib
	mkdir -p "$stage$(dirname "$dest")"
	cp -L "$bin" "$stage$dest"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*' || true); do # none: static
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

add_bin /bin/busybox /bin/busybox
add_bin "$(command -v bash)" /bin/bash
add_bin "$(command -v jq)" /usr/bin/jq
add_bin "$(command -v sfdisk)" /usr/sbin/sfdisk
add_bin "$(command -v losetup)" /usr/sbin/losetup
add_bin "$(command -v blockdev)" /usr/sbin/blockdev
add_bin "$(command -v dmsetup)" /usr/sbin/dmsetup
add_bin "$(command -v mdadm)" /usr/sbin/mdadm
add_bin "$(command -v mke2fs)" /usr/sbin/mke2fs
add_bin "$ROOT/blktrace-bench" /usr/sbin/blktrace-bench
# serve opens libmicrohttpd itself (dlopen), so ldd does not name it: it and its libraries.
# awk reads to the end (no exit): a reader that leaves early can kill ldconfig with
# SIGPIPE, and with pipefail that ends this script without a word (seen under load).
mhd=$(/sbin/ldconfig -p | awk '/libmicrohttpd\.so\.12 .*x86-64/ && !f { f = $NF } END { print f }')
[ -n "$mhd" ] || { echo "initramfs: libmicrohttpd.so.12 not found (tools/deps.sh installs it)" >&2; exit 1; }
add_bin "$mhd"
# info and traces of xen-blkfront disks open libxenstore the same way (src/xen_store.c).
xs=$(/sbin/ldconfig -p | awk '/libxenstore\.so\.4 .*x86-64/ && !f { f = $NF } END { print f }')
[ -n "$xs" ] || { echo "initramfs: libxenstore.so.4 not found (tools/deps.sh installs it)" >&2; exit 1; }
add_bin "$xs"
add_bin "$(command -v bpftool)" /usr/sbin/bpftool
# The kernel's blktrace: the oracle of --blktrace (tests/vm/guest-blktrace.sh), and
# blkparse to set its events beside ours one by one.
add_bin "$(command -v blktrace)" /usr/sbin/blktrace
add_bin "$(command -v blkparse)" /usr/bin/blkparse
cp "$ROOT"/tests/vm/guest*.sh "$stage/vm/"
cp "$ROOT/tests/vm/init" "$stage/init"
chmod +x "$stage/init"

# Modules: modprobe resolves the dependencies from the kernel's own modules.dep.
depmod -b "$kdir" "$rel"
add_module() { # KO DEST: decompressed
	case $1 in
	*.xz) xz -dc "$1" > "$2" ;;
	*.zst) zstd -qdc "$1" > "$2" ;;
	*) cp "$1" "$2" ;;
	esac
}
n=0
for m in "${MODULES[@]}"; do
	modprobe -d "$kdir" -S "$rel" --show-depends "$m" 2>/dev/null |
		sed -n 's/^insmod \([^ ]*\).*/\1/p'
done | awk '!seen[$0]++' | while read -r ko; do
	n=$((n + 1))
	name=$(printf '%02d-%s' "$n" "$(basename "$ko" | sed 's/\.ko.*$//').ko")
	add_module "$ko" "$stage/lib/modules/$name"
done
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

(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
