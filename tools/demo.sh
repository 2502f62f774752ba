#!/usr/bin/env bash
# make demo: a loop disk on /dev/shm, a traced dd on it, the report, and nothing
# left behind (also on Ctrl-C).
set -euo pipefail
cd "$(dirname "$0")/.."
BB=./blktrace-bench
[ "$(id -u)" -eq 0 ] || { echo "demo: needs root (loop devices and BPF)" >&2; exit 1; }

img=$(mktemp /dev/shm/blktrace-bench-demo.XXXXXX)
dev=
cleanup() {
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	rm -f "$img"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

truncate -s 512M "$img"
dev=$(losetup -f --show "$img")
name=$(basename "$dev")
echo "demo: $dev is a 512 MiB loop disk on /dev/shm"
echo
echo "\$ blktrace-bench info $name"
$BB info "$name"
echo
echo "\$ blktrace-bench --trace $name -- dd if=/dev/zero of=$dev bs=1M count=256 oflag=direct"
$BB --trace "$name" -- dd if=/dev/zero of="$dev" bs=1M count=256 oflag=direct
echo
echo "demo: done; $dev detached and its image removed"
