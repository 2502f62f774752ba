#!/usr/bin/env bash
# make xentest: the tool in Xen PV guests, through a real xen-blkfront and xen-blkback.
#
#   tests/xen/xentest.sh [KERNEL...]     KERNEL: 5.10 6.1 6.12 newest (default: all)
#
# Boots Debian 12's Xen 4.17 hypervisor under qemu-system-x86_64 with TCG (Xen's own CI
# does the same), a PV dom0 of Debian's generic 6.1 kernel whose whole file system is an
# initramfs (tests/xen/dom0-initramfs.sh), and in it, one after the other, a PV guest of
# each of Debian's cloud kernels (tests/xen/domu-image.sh) whose disks are loop devices
# of dom0 served by blkback. A virtio disk carries the guests in and their reports out.
# Exit 0 when every guest passed. XENTEST_OUT (default build/xen) keeps the console of
# Xen and dom0 (console.log, with every guest's console in it) and each guest's reports.
# VMTEST_ARCH=arm64 (make xentest ARCH=arm64): Xen on Arm, Debian 12's Xen 4.17 for
# arm64 under qemu-system-aarch64's virt machine with its virtualization extensions
# (Xen's own CI boots it so), dom0 of Debian's generic arm64 kernel, guests of its arm64
# cloud kernels, their user space from tests/vm/sysroot.sh and the tool of build/arm64.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

TIMEOUT=${XENTEST_TIMEOUT:-1500}
export VMTEST_ARCH=${VMTEST_ARCH:-amd64}
case $VMTEST_ARCH in
amd64) TOOL=$ROOT/blktrace-bench OUT=${XENTEST_OUT:-build/xen} BUILD=make ;;
arm64) TOOL=$ROOT/build/arm64/blktrace-bench OUT=${XENTEST_OUT:-build/xen-arm64} BUILD="make ARCH=arm64" ;;
*) echo "xentest: no Xen test bed for '$VMTEST_ARCH' (amd64, arm64)" >&2; exit 2 ;;
esac
rm -rf "$OUT" && mkdir -p "$OUT"

[ -x "$TOOL" ] || { echo "xentest: build the tool first ($BUILD)" >&2; exit 2; }
# The host's own build reads the results (tests/xen/dom0-checks.sh: compare).
[ -x ./blktrace-bench ] || { echo "xentest: build the tool for this machine too (make)" >&2; exit 2; }
start=$(date +%s)
list=$(tests/vm/kernels.sh "$@") || { echo "xentest: cannot fetch the kernels" >&2; exit 1; }
read -r xdir dom0rel < <(tests/xen/packages.sh "$VMTEST_ARCH") ||
	{ echo "xentest: cannot fetch Xen and dom0's kernel" >&2; exit 1; }

SCRATCH=$(mktemp -d "${TMPDIR:-/var/tmp}/bb-xen.XXXXXX")
trap 'rm -rf "$SCRATCH"; kill $(jobs -p) 2>/dev/null' EXIT
trap 'exit 130' INT TERM

# The payload: each guest's kernel, initramfs and root image, and dom0's configuration.
pay=$SCRATCH/payload
mkdir -p "$pay/guests" "$pay/results"
# The guests' images two at a time (two CPUs); each build's status in setup-NAME.rc.
names=()
while read -r name rel kdir; do
	names+=("$name")
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
	echo "xentest: building the $name guest ($rel)"
	{ tests/xen/domu-image.sh "$pay/guests/$name" "$kdir" "$rel" "$xdir" "$TOOL" \
		> "$OUT/setup-$name.log" 2>&1; echo $? > "$OUT/setup-$name.rc"; } &
done <<< "$list"
wait
for name in "${names[@]}"; do
	[ "$(cat "$OUT/setup-$name.rc" 2> /dev/null)" = 0 ] ||
		{ echo "xentest: cannot build the $name guest:"; tail -5 "$OUT/setup-$name.log"; exit 1; }
done
# The checks that span reboots run in one guest: Debian 12's 6.1 where it is booted. The
# multi-queue boot (2 vCPUs, a ring each) is 6.12's and the newest kernel's: 7.3 skips
# runs of our programs there (an issue from the interrupt while one runs), 6.12 not.
sweep=${names[0]} mq=""
for n in "${names[@]}"; do
	[ "$n" != 6.1 ] || sweep=6.1
	[ "$n" != 6.12 ] && [ "$n" != newest ] || mq+="${mq:+ }$n"
done
[ -n "$mq" ] || mq=${names[${#names[@]} - 1]}
cat > "$pay/xentest.conf" <<CONF
GUESTS="${names[*]}"
BOOT_TIMEOUT=${XENTEST_BOOT_TIMEOUT:-600}
MAX_BOOTS=10
SWEEP_GUEST=$sweep
MQ_GUESTS="$mq"
CONF
tests/xen/dom0-initramfs.sh "$SCRATCH/dom0.cpio.gz" "$xdir" "$dom0rel" "$TOOL" 2> "$OUT/setup-dom0.log" ||
	{ echo "xentest: cannot build dom0:"; tail -5 "$OUT/setup-dom0.log"; exit 1; }
mke2fs -q -t ext4 -d "$pay" "$SCRATCH/payload.img" 4G

echo "xentest: booting Xen ($(basename "$xdir")) with dom0 $dom0rel; guests: ${names[*]}"
t0=$(date +%s)
# bootscrub=0: Xen's boot-time scrub doubles QEMU's memory and halves its speed under TCG.
XEN_ARGS="loglvl=all guest_loglvl=all console_timestamps=boot dom0_max_vcpus=2 noreboot bootscrub=0"
DOM0_ARGS="console=hvc0 panic=-1"
if [ "$VMTEST_ARCH" = amd64 ]; then
	XEN_ARGS+=" dom0_mem=1024M,max:1024M"
	# Inside a Multiboot module's command line a comma is written twice.
	timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -cpu "${XENTEST_CPU:-qemu64,+svm}" -m 3G -smp 2 \
		-nographic -no-reboot -monitor none -net none \
		-kernel "$xdir/xen" -append "console=com1 com1=115200,8n1 $XEN_ARGS" \
		-initrd "$xdir/vmlinuz $DOM0_ARGS earlyprintk=xen,$SCRATCH/dom0.cpio.gz" \
		-drive "file=$SCRATCH/payload.img,if=virtio,format=raw,cache=unsafe" \
		-serial "file:$OUT/console.log" > "$OUT/qemu.log" 2>&1
else
	# Xen's Image near the start of RAM (0x40000000), the device tree QEMU makes 128 MiB
	# above it; dom0's kernel and initramfs where QEMU's guest-loader puts them (the
	# device tree's multiboot nodes tell Xen), 16 MiB above that, 2 MiB aligned. The
	# payload disk is virtio-mmio, a device-tree device that Xen hands to dom0 as it is.
	# Xen on Arm takes dom0_mem as one size (no max:).
	XEN_ARGS+=" dom0_mem=1024M"
	kaddr=$((0x49000000))
	iaddr=$(((kaddr + $(stat -c %s "$xdir/vmlinuz") + 0x3fffff) & ~0x1fffff))
	timeout "$TIMEOUT" qemu-system-aarch64 -accel tcg,thread=multi \
		-machine virt,virtualization=on,gic-version=3 -cpu cortex-a57 -m 3G -smp 2 \
		-nographic -no-reboot -monitor none -net none \
		-kernel "$xdir/xen" -append "console=dtuart dtuart=/pl011@9000000 $XEN_ARGS" \
		-device "guest-loader,addr=$(printf 0x%x $kaddr),kernel=$xdir/vmlinuz,bootargs=$DOM0_ARGS earlycon=xenboot" \
		-device "guest-loader,addr=$(printf 0x%x $iaddr),initrd=$SCRATCH/dom0.cpio.gz" \
		-drive "file=$SCRATCH/payload.img,if=none,id=payload,format=raw,cache=unsafe" \
		-device virtio-blk-device,drive=payload \
		-serial "file:$OUT/console.log" > "$OUT/qemu.log" 2>&1
fi
rc=$?
echo "xentest: qemu exited $rc after $(($(date +%s) - t0)) s"
debugfs -R "rdump /results $OUT" "$SCRATCH/payload.img" > /dev/null 2>&1

fail=0 passed=0 failed=0 skipped=0
for name in "${names[@]}"; do
	d=$OUT/results/$name
	echo "=== $name"
	lines=$(cat "$d"/boot-*.txt 2> /dev/null | grep '^RESULT')
	for f in "$d"/boot-*.txt; do [ -e "$f" ] && cat "$f"; done
	if [ -z "$lines" ]; then
		fail=1 failed=$((failed + 1))
		echo "  FAIL $name: no report (guest console: $d/console.log)"
		tail -40 "$d/console.log" 2> /dev/null
		continue
	fi
	while read -r line; do
		p=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$line")
		f=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$line")
		s=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$line")
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
		[ "$f" -eq 0 ] || fail=1
	done <<< "$lines"
done
# dom0's view of each guest's xvda (tests/xen/dom0.sh traced it), against the guest's.
echo "=== dom0"
tests/xen/dom0-checks.sh "$OUT/results" "${names[@]}" > "$OUT/dom0-checks.txt"
cat "$OUT/dom0-checks.txt"
line=$(grep '^RESULT' "$OUT/dom0-checks.txt")
p=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$line")
f=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$line")
passed=$((passed + ${p:-0})) failed=$((failed + ${f:-1}))
[ "${f:-1}" -eq 0 ] || fail=1
[ $fail -eq 0 ] || { echo "--- Xen and dom0 console (last 60 lines of $OUT/console.log)"; tail -60 "$OUT/console.log"; }
echo "xentest: $passed passed, $failed failed, $skipped skipped in $(($(date +%s) - start)) s"
exit $fail
