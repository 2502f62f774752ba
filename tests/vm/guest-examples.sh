#!/bin/bash
# The guide's stack examples (doc/guide.md), as real output from a guest:
#   VMTEST_GUEST=guest-examples.sh tests/vm/vmtest.sh 6.12; cat build/vm/6.12/report.txt
# 1. A 1 GiB image file on ext4 on an LVM-style dm-linear volume on dm-crypt on vdc, read
#    with 512 B and 128 KiB reads, caches dropped.
# 2. md RAID1 over vdc and vdd: a read-ahead sweep for buffered sequential reads.
BB=/usr/sbin/blktrace-bench
echo "kernel $(uname -r)"
key=$(printf '%064d' 0)
size=$(blockdev --getsz /dev/vdc)
# No udev in the guest: dmsetup mknodes makes the /dev/mapper names.
dmsetup create luks --noudevsync --table "0 $size crypt aes-xts-plain64 $key 0 /dev/vdc 0"
dmsetup mknodes luks
dmsetup create vg-lv --noudevsync --table "0 $((size - 8)) linear /dev/mapper/luks 0"
dmsetup mknodes vg-lv
mke2fs -q -F -t ext4 /dev/mapper/vg-lv
mkdir -p /mnt/lv && mount -t ext4 /dev/mapper/vg-lv /mnt/lv
dd if=/dev/zero of=/mnt/lv/vm.img bs=1M count=1024 conv=fsync 2> /dev/null
echo "\$ blktrace-bench --trace /dev/mapper/vg-lv --file /mnt/lv/vm.img --rw read --bs 512,128k --size 1G --drop-caches"
"$BB" --trace /dev/mapper/vg-lv --file /mnt/lv/vm.img --rw read --bs 512,128k --size 1G \
	--drop-caches 2>&1
umount /mnt/lv
dmsetup remove --noudevsync vg-lv
dmsetup remove --noudevsync luks

mdadm --create /dev/md0 --run --quiet --level=1 --raid-devices=2 --metadata=1.2 \
	--assume-clean --bitmap=none /dev/vdc /dev/vdd
echo
echo "\$ blktrace-bench --trace md0 --raw --rw read --bs 128k --size 256M --set read_ahead_kb=128,1024,4096 --repeat 3 --recommend --brief"
"$BB" --trace md0 --raw --rw read --bs 128k --size 256M --set read_ahead_kb=128,1024,4096 \
	--repeat 3 --recommend --brief 2>&1
echo "\$ blktrace-bench --trace md0 --raw --rw read --bs 128k --size 256M --set read_ahead_kb=4096 (the stack table)"
"$BB" --trace md0 --raw --rw read --bs 128k --size 256M --set read_ahead_kb=4096 2>&1 |
	sed -n '/^  stack/,$p'
mdadm --stop /dev/md0
echo "RESULT passed=1 failed=0 skipped=0"
