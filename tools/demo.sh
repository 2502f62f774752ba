#!/usr/bin/env bash
# make demo: the xen-blkfront story on a loop disk in under a minute.
# xen-blkfront without indirect descriptors takes 11 segments x 4 KiB = 44 KiB per
# request; with its default 32 indirect segments 128 KiB; with 256, 1 MiB. A loop
# disk's max_sectors_kb emulates each. The seed workload is the mailing list's dd
# loop: 1 MiB writes with fsync, three times. Everything is removed afterwards, and
# max_sectors_kb restored, also on Ctrl-C. The sweep's report, with its charts, stays:
# demo-report.html in the source tree.
set -euo pipefail
cd "$(dirname "$0")/.."
BB=$PWD/blktrace-bench
report=$PWD/demo-report.html
[ "$(id -u)" -eq 0 ] || { echo "demo: needs root (loop devices and BPF)" >&2; exit 1; }

work=$(mktemp -d /dev/shm/blktrace-bench-demo.XXXXXX)
dev=
cleanup() {
	cd /
	mountpoint -q "$work/mnt" 2>/dev/null && umount "$work/mnt"
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

truncate -s 1G "$work/disk.img"
dev=$(losetup -f --show "$work/disk.img")
name=$(basename "$dev")
mkfs.ext4 -q "$dev"
mkdir "$work/mnt"
mount "$dev" "$work/mnt"
cd "$work/mnt"
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
echo "demo: $dev is a 1 GiB loop disk on /dev/shm with ext4 on it, mounted at $work/mnt"

say blktrace-bench info "$name"
"$BB" info "$name"

seed=(--rw write --bs 1M --size 256M --fsync --repeat 3)
say blktrace-bench --trace "$name" "${seed[@]}" --set max_sectors_kb=44,128,1024 --recommend --brief
"$BB" --trace "$name" "${seed[@]}" --set max_sectors_kb=44,128,1024 --recommend --brief \
	--json "$work/sweep.json" --html "$report"
echo
echo "demo: the sweep as a page with charts (request sizes stepping 44 -> 128 -> 1024 KiB"
echo "      under the throughput they gave): $report"

echo
echo "demo: a change that needs a reboot is validated with two saved results:"
say blktrace-bench --trace "$name" "${seed[@]}" --set max_sectors_kb=44 --brief --json before.json
"$BB" --trace "$name" "${seed[@]}" --set max_sectors_kb=44 --brief --json "$work/before.json" > /dev/null
say blktrace-bench --trace "$name" "${seed[@]}" --set max_sectors_kb=128 --brief --json after.json
"$BB" --trace "$name" "${seed[@]}" --set max_sectors_kb=128 --brief --json "$work/after.json" > /dev/null
if "$BB" compare --help > /dev/null 2>&1; then
	say blktrace-bench compare before.json after.json
	"$BB" compare "$work/before.json" "$work/after.json" || true
fi
echo
echo "demo: done; $dev detached, its image removed, max_sectors_kb restored;"
echo "      the sweep's report: $report"
