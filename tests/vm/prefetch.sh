#!/usr/bin/env bash
# Downloads what the guest suites boot, ahead of them:
#
#   tests/vm/prefetch.sh [ARCH...]     ARCH: amd64 (make vmtest, make xentest), arm64
#                                      (the same with ARCH=arm64)
#
# The kernels of make vmtest (tests/vm/kernels.sh), Xen and dom0's kernel (tests/xen/
# packages.sh) of each architecture and, for arm64, the guests' user space (tests/vm/
# sysroot.sh). CI starts it in the background before make check, so that the downloads,
# bound by the network, overlap with the tests, bound by the CPUs. Each of those scripts
# holds the cache's lock while it runs (tests/vm/apt.sh): a suite that needs what is
# being fetched waits for it. What fails here is left to the suites, which fetch what is
# missing again and say why; prints one line per part, and exits 0.
cd "$(dirname "$0")/../.." || exit 0
[ $# -gt 0 ] || set -- amd64
for arch in "$@"; do
	start=$(date +%s)
	ok=yes
	VMTEST_ARCH=$arch tests/vm/kernels.sh > /dev/null || ok=no
	tests/xen/packages.sh "$arch" > /dev/null || ok=no
	[ "$arch" = amd64 ] || tests/vm/sysroot.sh "$arch" > /dev/null || ok=no
	echo "prefetch: $arch: $([ $ok = yes ] && echo done || echo "not all of it (the suites retry)") in $(($(date +%s) - start)) s"
done
exit 0
