#!/usr/bin/env bash
# Installs the Debian packages blktrace-bench needs to build, test and benchmark
# (tools/deps.sh [build|vm|all]),
# and says what it installs. Quiet when everything is already there.
set -euo pipefail

build=(clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev liburing-dev libjansson-dev
       pkg-config make gcc)
# libclang-rt-dev: libFuzzer and the sanitizers' runtimes for clang (make fuzz)
test=(libcmocka-dev fio bpftrace jq e2fsprogs util-linux fdisk coreutils libclang-rt-dev)
# make vmtest: qemu, the guest's user space and the kernel packages' tools.
vm=(qemu-system-x86 busybox-static cpio kmod xz-utils zstd jq util-linux fdisk bpftool
    apt dpkg)
case "${1:-all}" in
build) want=("${build[@]}") ;;
vm) want=("${build[@]}" "${vm[@]}") ;;
*) want=("${build[@]}" "${test[@]}") ;;
esac

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
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
