#!/usr/bin/env bash
# The cross build (CI, after make check): tests/cross.sh ARCH (arm64) runs `make
# ARCH=ARCH` and `make deb ARCH=ARCH` on this machine and checks what they made: an
# executable for ARCH, BPF objects built against vmlinux/ARCH (their BTF has the
# architecture's own types), and a package of that architecture, accepted by lintian
# (tools/deb.sh fails otherwise), holding it. Prints ok/FAIL lines and
# "RESULT passed=N failed=N skipped=N"; exits non-zero on a failure.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/e2e/assert.sh
. tests/e2e/assert.sh

arch=${1:-arm64}
case $arch in
arm64) elf="ARM aarch64" deb_arch=arm64 own="cpu_context|user_pt_regs" ;;
*) echo "cross: unknown architecture '$arch' (arm64)" >&2; exit 2 ;;
esac
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

tools/deps.sh "$arch" deb || { not_ok "tools/deps.sh $arch deb"; finish; exit 1; }
# expect_true says ok or FAIL and returns 0 either way: what depends on a build asks make.
if make --no-print-directory -j2 ARCH="$arch" > /dev/null; then
	ok "make ARCH=$arch"
	bin=build/$arch/blktrace-bench
	expect_true "the binary is an $elf executable" \
		sh -c "file -b '$bin' | grep -q '^ELF 64-bit LSB .*$elf'"
	# Each object's BTF (kept in the skeleton) has types of the vmlinux.h it was built
	# against: the architecture's own (arm64: thread_struct's cpu_context within
	# task_struct, or the kprobes' user_pt_regs), none of x86's (thread_struct's fsbase,
	# pt_regs' orig_ax: each object built for x86 has one of them).
	for o in blkio blktrace blkfront; do
		t=$(bpftool btf dump file "build/$arch/$o.bpf.o" 2> /dev/null)
		expect_true "$o.bpf.o built against vmlinux/$arch" grep -Eq "'($own)'" <<< "$t"
		expect_true "$o.bpf.o has no type of x86's" sh -c "! grep -Eq \"'(fsbase|orig_ax)'\"" <<< "$t"
	done
else
	not_ok "make ARCH=$arch"
fi
if make --no-print-directory deb ARCH="$arch" > /dev/null; then
	ok "make deb ARCH=$arch"
	d=$(ls build/deb-"$deb_arch"/blktrace-bench_*_"$deb_arch".deb 2> /dev/null | head -1)
	expect_true "a .deb of $deb_arch" test -n "$d"
	expect_eq "its architecture" "$(dpkg-deb -f "$d" Architecture 2> /dev/null)" "$deb_arch"
	x=$(mktemp -d)
	dpkg-deb -x "$d" "$x" 2> /dev/null
	expect_true "it holds an $elf /usr/sbin/blktrace-bench" \
		sh -c "file -b '$x/usr/sbin/blktrace-bench' | grep -q '$elf'"
	rm -rf "$x"
else
	not_ok "make deb ARCH=$arch"
fi
# The machine's own build is untouched: its libraries are all still there (libxen-dev
# is not installable for two architectures: the arm64 group leaves it alone).
expect_true "the native build's packages still installed (tools/deps.sh build)" \
	sh -c "tools/deps.sh build 2>&1 | grep -q 'installing' && exit 1; exit 0"
expect_true "the native pkg-config still finds xenstore" pkg-config --exists xenstore
finish
