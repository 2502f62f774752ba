#!/usr/bin/env bash
# make vmtest: the tool on the kernels and disks users have.
#
#   tests/vm/vmtest.sh [KERNEL...]      KERNEL: 5.10 6.1 6.12 newest (default: all)
#
# Boots each of Debian's cloud kernels (tests/vm/kernels.sh) under
# qemu-system-x86_64 with TCG (KVM stalls on the machines we develop on) and
# real disks: virtio-blk (vda, vdb; vdc and vdd for stacks), virtio-scsi (sda), a single-path NVMe
# controller and a two-controller NVMe subsystem (a multipath head with two
# hidden path disks). The guest (tests/vm/init) runs tests/vm/guest.sh and writes
# its report to a second serial port; this script collects the reports, prints
# them, and on a failure shows the guest's kernel log. Each kernel boots a second
# time with 4 vCPUs, a 4-queue virtio-blk disk and an NVMe controller of a queue per
# CPU, for tests/vm/guest-mq.sh (NAME-mq). Guests boot in parallel
# (VMTEST_JOBS at a time, default 2). Exit 0 when every guest passed.
# VMTEST_GUEST=NAME runs tests/vm/NAME in the guests instead of guest.sh.
# VMTEST_ARCH=arm64 (make vmtest ARCH=arm64): Debian's arm64 cloud kernels under
# qemu-system-aarch64's virt machine, the same disks on its PCIe bus, the guests' user
# space from tests/vm/sysroot.sh and the tool cross-built in build/arm64.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

JOBS=${VMTEST_JOBS:-2}
TIMEOUT=${VMTEST_TIMEOUT:-600}
export VMTEST_ARCH=${VMTEST_ARCH:-amd64}
# Per architecture: the tool, the machine, the kernel's console, and the report's device
# in the guest and qemu's arguments for it, REPORT standing for the report's file (arm64's
# virt has one serial port: a virtio console, /dev/hvc0 in the guest).
case $VMTEST_ARCH in
amd64)
	TOOL=./blktrace-bench OUT=${VMTEST_OUT:-build/vm} BUILD="make"
	QEMU=(qemu-system-x86_64 -machine q35 -cpu "${VMTEST_CPU:-qemu64,-cx16}")
	CONSOLE=ttyS0 REPORT_DEV=ttyS1 REPORT_ARGS=(-serial file:REPORT)
	;;
arm64)
	# -cpu max without pauth-impdef emulates pointer authentication's QARMA: slow.
	TOOL=build/arm64/blktrace-bench OUT=${VMTEST_OUT:-build/vm-arm64} BUILD="make ARCH=arm64"
	QEMU=(qemu-system-aarch64 -machine virt -cpu "${VMTEST_CPU:-max,pauth-impdef=on}")
	CONSOLE=ttyAMA0 REPORT_DEV=hvc0
	REPORT_ARGS=(-device virtio-serial-pci -chardev file,id=report,path=REPORT
		-device virtconsole,chardev=report)
	;;
*) echo "vmtest: no guests of '$VMTEST_ARCH' (amd64, arm64)" >&2; exit 2 ;;
esac
mkdir -p "$OUT"

[ -x "$TOOL" ] || { echo "vmtest: build the tool first ($BUILD)" >&2; exit 2; }
list=$(tests/vm/kernels.sh "$@") || { echo "vmtest: cannot fetch the kernels" >&2; exit 1; }

SCRATCH=$(mktemp -d /dev/shm/bb-vm.XXXXXX)
trap 'rm -rf "$SCRATCH"; kill $(jobs -p) 2>/dev/null' EXIT
trap 'exit 130' INT TERM

# One boot of the guest NAME, on fresh disks; qemu's status. NAME-mq: the multi-queue guest.
qemu_once() { # NAME KDIR
	local name=$1 kdir=$2 d=$OUT/$1 img=$SCRATCH/$1 rc
	rm -rf "$img" && mkdir -p "$img"
	if [[ $name == *-mq ]]; then
		qemu_mq "$name" "$kdir"
		rc=$?
		rm -rf "$img"
		return $rc
	fi
	for disk in vda vdb sda nvme mpath; do truncate -s 256M "$img/$disk.img"; done
	# vdc, vdd: the stacks (the guide's examples put a 1 GiB file on them); sparse.
	for disk in vdc vdd; do truncate -s 2G "$img/$disk.img"; done
	local drv=(if=none,format=raw,cache=none,aio=threads)
	timeout "$TIMEOUT" "${QEMU[@]}" -accel tcg -smp 2 -m 1024 \
		-nographic -no-reboot -monitor none -net none \
		-kernel "$kdir/vmlinuz" -initrd "$d/initramfs.cpio.gz" \
		-append "console=$CONSOLE panic=-1 quiet bbguest=${VMTEST_GUEST:-guest.sh} bbreport=$REPORT_DEV" \
		-serial "file:$d/console.log" "${REPORT_ARGS[@]/REPORT/$d/report.txt}" \
		-drive "file=$img/vda.img,id=vda,${drv[0]}" -device virtio-blk-pci,drive=vda \
		-drive "file=$img/vdb.img,id=vdb,${drv[0]}" -device virtio-blk-pci,drive=vdb \
		-drive "file=$img/vdc.img,id=vdc,${drv[0]}" -device virtio-blk-pci,drive=vdc \
		-drive "file=$img/vdd.img,id=vdd,${drv[0]}" -device virtio-blk-pci,drive=vdd \
		-device virtio-scsi-pci,id=scsi0 \
		-drive "file=$img/sda.img,id=sda,${drv[0]}" -device scsi-hd,drive=sda,bus=scsi0.0 \
		-drive "file=$img/nvme.img,id=nvme,${drv[0]}" -device nvme,serial=bbsingle,drive=nvme \
		-device nvme-subsys,id=subsys0,nqn=bb-mpath \
		-device nvme,serial=bbmpath,subsys=subsys0 -device nvme,serial=bbmpath,subsys=subsys0 \
		-drive "file=$img/mpath.img,id=mpath,${drv[0]}" -device nvme-ns,drive=mpath,shared=on \
		> "$d/qemu.log" 2>&1
	rc=$?
	rm -rf "$img"
	return $rc
}

# The multi-queue guest: 4 vCPUs; vda of 4 queues, an NVMe controller (a queue per CPU)
# and sda, which init waits for. One host thread runs the 4 vCPUs (thread=single): with a
# thread each, the kernel's patching of its own text while another vCPU runs it crashed
# 7.3's boot twice in a row once (an int3 Oops while the initramfs unpacks).
qemu_mq() { # NAME KDIR
	local name=$1 kdir=$2 d=$OUT/$1 img=$SCRATCH/$1 disk
	local opts=if=none,format=raw,cache=none,aio=threads
	for disk in vda sda nvme; do truncate -s 256M "$img/$disk.img"; done
	timeout "$TIMEOUT" "${QEMU[@]}" -accel tcg,thread=single -smp 4 -m 1024 \
		-nographic -no-reboot -monitor none -net none \
		-kernel "$kdir/vmlinuz" -initrd "$d/initramfs.cpio.gz" \
		-append "console=$CONSOLE panic=-1 quiet bbguest=guest-mq.sh bbreport=$REPORT_DEV" \
		-serial "file:$d/console.log" "${REPORT_ARGS[@]/REPORT/$d/report.txt}" \
		-drive "file=$img/vda.img,id=vda,$opts" -device virtio-blk-pci,drive=vda,num-queues=4 \
		-device virtio-scsi-pci,id=scsi0 \
		-drive "file=$img/sda.img,id=sda,$opts" -device scsi-hd,drive=sda,bus=scsi0.0 \
		-drive "file=$img/nvme.img,id=nvme,$opts" -device nvme,serial=bbmq,drive=nvme,max_ioqpairs=4 \
		> "$d/qemu.log" 2>&1
}

# The guest NAME booted, once more when its kernel crashed before the tests began (an
# int3 oops of the kernel patching its own text, under TCG: seen once on 6.12); the
# first console is kept as console-1.log. A crash once the tests ran is their result.
boot() { # NAME RELEASE KDIR
	local name=$1 rel=$2 kdir=$3 d=$OUT/$1 rc oops
	rm -rf "$d" && mkdir -p "$d"
	# What went wrong before qemu starts goes to setup.log, which the report shows.
	tests/vm/initramfs.sh "$d/initramfs.cpio.gz" "$kdir" "$rel" "$TOOL" 2> "$d/setup.log" ||
		{ echo "initramfs.sh exited $?" >> "$d/setup.log"; return 1; }
	qemu_once "$name" "$kdir"
	rc=$?
	oops=$(grep -m1 -o -E '(Oops|Kernel panic)[^[]*' "$d/console.log" 2> /dev/null)
	if [ ! -s "$d/report.txt" ] && [ -n "$oops" ]; then
		echo "vmtest: $name: the kernel crashed while booting (${oops% }): booting it again"
		mv "$d/console.log" "$d/console-1.log"
		qemu_once "$name" "$kdir"
		rc=$?
	fi
	return $rc
}

# Each kernel twice: the guest of every disk kind, and the multi-queue guest.
list=$(while read -r name rel kdir; do
	echo "$name $rel $kdir"
	[ -n "${VMTEST_GUEST:-}" ] || echo "$name-mq $rel $kdir"
done <<< "$list")

start=$(date +%s)
while read -r name rel kdir; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	echo "vmtest: booting $name ($rel)"
	boot "$name" "$rel" "$kdir" &
done <<< "$list"
wait

# A guest passed when its report ends in a RESULT line with failed=0; a guest that
# crashed, hung or never got that far failed, and its kernel log says why.
fail=0 passed=0 failed=0 skipped=0
while read -r name rel kdir; do
	d=$OUT/$name
	echo "=== $name ($rel)"
	cat "$d/report.txt" 2>/dev/null
	line=$(grep '^RESULT' "$d/report.txt" 2>/dev/null | tail -1)
	p=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$line")
	f=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$line")
	s=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$line")
	passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0})) skipped=$((skipped + ${s:-0}))
	if [ -z "$line" ] || [ "${f:-1}" -ne 0 ]; then
		fail=1
		if [ -z "$line" ] && [ ! -e "$d/qemu.log" ]; then
			failed=$((failed + 1))
			echo "  FAIL $name: the guest was not booted ($(tail -c 300 "$d/setup.log" 2>/dev/null))"
		elif [ -z "$line" ]; then
			failed=$((failed + 1))
			echo "  FAIL $name: the guest did not finish (qemu: $(tail -c 300 "$d/qemu.log"))"
		fi
		echo "--- $name: guest kernel log (last 40 lines of $d/console.log)"
		tail -40 "$d/console.log" 2>/dev/null
	fi
done <<< "$list"
echo "vmtest: $passed passed, $failed failed, $skipped skipped in $(( $(date +%s) - start )) s"
exit $fail
