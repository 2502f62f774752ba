#!/usr/bin/env bash
# A partition as DEV: only I/O inside its sector range counts, filtered in BPF.
. "$(dirname "$0")/lib.sh"

command -v sfdisk > /dev/null || { skip "sfdisk missing (package fdisk)"; finish; exit 0; }
img=$(new_image) && _IMAGES+=("$img")
truncate -s 64M "$img"
printf 'label: gpt\n,24M\n,\n' | sfdisk -q "$img" || not_ok "sfdisk"
A=$(losetup -f --show -P "$img") && took_loop "$A" || { not_ok "losetup -P"; finish; exit 1; }
udevadm settle 2>/dev/null || true
# Not every kernel scans loop partitions at attach: add them by ioctl where it did not.
[ -b "${A}p1" ] || partx -a "$A" 2>/dev/null
udevadm settle 2>/dev/null || true
a=$(basename "$A")
[ -b "${A}p1" ] && [ -b "${A}p2" ] || { not_ok "partitions ${A}p1/p2 missing"; finish; exit 1; }

# Both edges of the boundary: p1's last 4 KiB block, whose next sector is p2's first,
# and p2's first 50 blocks.
p1_blocks=$(($(cat "/sys/class/block/${a}p1/size") / 8))
dd_both() {
	dd if=/dev/zero of="${A}p1" bs=4k count=30 oflag=direct status=none
	dd if=/dev/zero of="${A}p1" bs=4k seek=$((P1_BLOCKS - 1)) count=1 oflag=direct status=none
	dd if=/dev/zero of="${A}p2" bs=4k count=50 oflag=direct status=none
}
both="$(declare -f dd_both); A=$A P1_BLOCKS=$p1_blocks; dd_both"
w1=$(diskstat "${A}p1" 5) w2=$(diskstat "${A}p2" 5)
"$BB" --trace "${a}p1" --json "$TMP/p1.json" -- sh -c "$both" > /dev/null
expect_eq "p1: only its 31 writes" "$(jqv "$TMP/p1.json" .runs[0].block.write.requests)" 31
expect_eq "p1: diskstats of p1 agree" "$(($(diskstat "${A}p1" 5) - w1))" 31
expect_eq "p2: diskstats of p2 saw 50" "$(($(diskstat "${A}p2" 5) - w2))" 50
expect_eq "p1: named in the result" "$(jqv "$TMP/p1.json" .device.partition.name)" "${a}p1"
"$BB" --trace "${a}p2" --json "$TMP/p2.json" -- sh -c "$both" > /dev/null
expect_eq "p2: only its 50 writes, not p1's last block" \
	"$(jqv "$TMP/p2.json" .runs[0].block.write.requests)" 50
"$BB" --trace "$a" --json "$TMP/all.json" -- sh -c "$both" > /dev/null
expect_eq "whole disk: all 81 writes" "$(jqv "$TMP/all.json" .runs[0].block.write.requests)" 81
"$BB" --trace "$(cat /sys/class/block/${a}p2/dev)" --json "$TMP/mm.json" -- \
	sh -c "$both" > /dev/null
expect_eq "MAJ:MIN of p2: 50 writes" "$(jqv "$TMP/mm.json" .runs[0].block.write.requests)" 50

finish
