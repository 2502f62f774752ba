#!/usr/bin/env bash
# The guest's user space for an architecture that is not the machine's: Debian 12's
# packages of that architecture, unpacked into one directory, cached between runs.
#
#   tests/vm/sysroot.sh ARCH     ARCH: Debian's name (arm64); prints the directory
#
# An x86-64 machine cannot install bash:arm64 beside its own bash (neither is
# Multi-Arch: same), so the arm64 guests' busybox, bash, jq, util-linux, dmsetup,
# mdadm, mke2fs, bpftool and blktrace come from here, with every library they and the
# tool load: the packages' library dependencies, followed to the end (their other
# dependencies, perl or debconf, no guest runs). tests/vm/stage.sh copies from it.
# Downloads go through tests/vm/apt.sh: the machine's own apt configuration is never
# read or changed.
set -eEuo pipefail
trap 'echo "$(basename "$0"): line $LINENO: $BASH_COMMAND failed" >&2' ERR
arch=${1:?usage: tests/vm/sysroot.sh ARCH}
# What the guests run (tests/vm/stage.sh add_guest_userspace) and the libraries the tool
# links (libbpf, libelf, zlib, liburing, jansson) or opens (libmicrohttpd, libxenstore);
# for the Xen test bed (tests/xen/), kmod (the guests' modprobe) and libfdt, which Xen's
# toolstack loads on arm64 (the toolstack itself comes from tests/xen/packages.sh).
PKGS=(busybox-static bash jq fdisk util-linux mount dmsetup mdadm e2fsprogs bpftool blktrace
      libc6 libbpf1 libelf1 zlib1g liburing2 libjansson4 libmicrohttpd12 libxenstore4 kmod libfdt1)
# Debian 12's, as the machine's own user space is (the tool is built against bookworm's).
REL=bookworm

VMTEST_ARCH=$arch
. "$(dirname "${BASH_SOURCE[0]}")/apt.sh"
# Unpacked already: said without the lock or the lists (each guest's initramfs asks).
dir=$CACHE/sysroot/$arch-$REL-$(echo "${PKGS[*]}" | md5sum | cut -c1-12)
[ -f "$dir/.complete" ] && { echo "$dir"; exit 0; }
apt_ready
if [ ! -f "$dir/.complete" ]; then
	# The library packages each one depends on (Depends and Pre-Depends), to the end: a
	# level at a time, one apt-cache for each (it reads every list each time it starts).
	seen=" " todo=("${PKGS[@]}")
	while [ ${#todo[@]} -gt 0 ]; do
		for p in "${todo[@]}"; do seen+="$p "; done
		mapfile -t todo < <(apt-cache "${APTO[@]}" -t "$REL" depends --no-recommends \
			--no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
			"${todo[@]/%/:$arch}" |
			sed -n 's/^ *\(Pre\)\{0,1\}Depends: \(lib[^ :<>]*\).*/\2/p' | sort -u |
			while read -r p; do [[ $seen == *" $p "* ]] || echo "$p"; done)
	done
	read -ra all <<< "$seen"
	rm -rf "$dir.tmp"
	apt_extract "$dir.tmp" "${all[@]/%/:$arch/$REL}"
	touch "$dir.tmp/.complete"
	rm -rf "$dir" && mv "$dir.tmp" "$dir"
fi
echo "$dir"
