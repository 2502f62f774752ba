#!/usr/bin/env bash
# Installs the Debian packages blktrace-bench needs to build, test, package and
# benchmark (tools/deps.sh [GROUP...], GROUP one of build, test, deb, vm, xen, bench,
# arm64, vm-arm64, all; each group includes build; all = build, test, deb and bench, what `make
# check` needs: its bench smoke test runs the peers), and says what it installs.
# Quiet when everything is there.
# The only place that installs anything: the Makefile calls it, never apt-get.
set -euo pipefail

# libmicrohttpd-dev: serve's /metrics endpoint.
# libxen-dev: xenstore.h (info reads a xen-blkfront disk's backend through libxenstore,
# opened at run time, as libmicrohttpd is), and libxenstore4 that the guests' tests load.
build=(clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev liburing-dev libjansson-dev
       libmicrohttpd-dev libxen-dev pkg-config make gcc)
# The completion and man page tests load them as a user's shell and man do;
# libclang-rt-dev: libFuzzer and the sanitizers' runtimes for clang (make fuzz);
# clang-format: make check's format check; chromium and imagemagick: the HTML reports
# opened in a real browser, its screenshot measured (tests/e2e/test_html.sh); udev:
# udevadm test applies the rule apply writes (tests/e2e/test_tune.sh); prometheus (and its
# promtool), curl and python3: serve tested against a real Prometheus server and bad HTTP
# clients; libbpf-tools: biolatency, the peer our device time is checked against
# (tests/e2e/test_latency.sh); blktrace: blkparse, btt, iowatcher and btrecord/btreplay,
# the peers that read --blktrace's files; strace and passwd: a user's swap timed between a
# check and a use (tests/e2e/test_state_dir.sh, strace's delay injection), the user made
# and removed by useradd and userdel; procps: pgrep, a FIFO's reader found waiting.
test=(libcmocka-dev fio bpftrace jq e2fsprogs util-linux fdisk coreutils bash-completion
      man-db libclang-rt-dev clang-format chromium imagemagick udev prometheus curl python3
      libbpf-tools blktrace strace passwd procps)
# make deb: dpkg-buildpackage, debhelper, lintian; the package build runs the unit tests.
deb=(build-essential debhelper dpkg-dev lintian libcmocka-dev)
# make bench: the workload and the peers it measures us against (libbpf-tools:
# biolatency, bitesize, biosnoop; bpftrace and its bitesize.bt), jq for the results.
bench=(fio bpftrace libbpf-tools jq util-linux coreutils)
# make vmtest: qemu, the guest's user space and the kernel packages' tools.
# dmsetup, mdadm, mke2fs: the stacks the guests build (dm-linear, dm-crypt, RAID1, ext4);
# blktrace: the kernel's own tracer and blkparse, the guests' oracle of --blktrace.
vm=(qemu-system-x86 busybox-static cpio kmod xz-utils zstd jq util-linux fdisk bpftool apt dpkg
    dmsetup mdadm e2fsprogs blktrace)
# make xentest: the same. Its guests' user space is vmtest's (tests/vm/stage.sh copies it
# into each, dmsetup and mdadm included), with busybox, kmod's modprobe and util-linux's
# flock for the hotplug scripts, and mke2fs -d and debugfs for their disks; Xen itself and
# the kernels come from Debian's archive through the tests' own apt configuration
# (tests/vm/apt.sh).
xen=("${vm[@]}")
# make ARCH=arm64, make deb ARCH=arm64: the cross compiler and the libraries of the build
# group for arm64 (multiarch: dpkg gets the arm64 architecture), pkgconf:arm64 for its
# aarch64-linux-gnu-pkg-config, crossbuild-essential-arm64 for dpkg-buildpackage -a arm64.
# Not libxen-dev:arm64: it would replace the machine's own libxen-dev (it is not
# Multi-Arch: same), whose headers, the only part used, serve every architecture.
arm64=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross crossbuild-essential-arm64 file pkgconf:arm64
       libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 liburing-dev:arm64
       libjansson-dev:arm64 libmicrohttpd-dev:arm64)
# make vmtest ARCH=arm64 and make xentest ARCH=arm64 (with the vm or xen group and arm64):
# qemu-system-aarch64, and readelf (binutils) for the libraries of the arm64 binaries the
# guests get (tests/vm/stage.sh).
vm_arm64=(qemu-system-arm binutils)
want=("${build[@]}")
foreign=()
[ $# -gt 0 ] || set -- all
for group; do
	case $group in
	build) ;;
	test) want+=("${test[@]}") ;;
	deb) want+=("${deb[@]}") ;;
	vm) want+=("${vm[@]}") ;;
	xen) want+=("${xen[@]}") ;;
	bench) want+=("${bench[@]}") ;;
	arm64) want+=("${arm64[@]}") foreign+=(arm64) ;;
	vm-arm64) want+=("${vm_arm64[@]}") ;;
	all) want+=("${test[@]}" "${deb[@]}" "${bench[@]}") ;;
	*)
		echo "usage: tools/deps.sh [GROUP...]: build, test, deb, vm, xen, bench, arm64, vm-arm64, all" >&2
		exit 2
		;;
	esac
done

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run as root or: apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
for a in "${foreign[@]}"; do
	if ! dpkg --print-foreign-architectures | grep -qx "$a"; then
		echo "deps: adding the $a architecture to dpkg (multiarch)"
		dpkg --add-architecture "$a"
	fi
done
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
