#!/bin/bash
# The checks `make vmtest` runs inside each guest (tests/vm/vmtest.sh boots it; its
# init runs this with the report on the second serial port). Every count is checked
# against the guest's own /proc/diskstats, the oracle the tool never reads.
#
# Disks: vda, vdb (virtio-blk), sda (virtio-scsi), one single-path NVMe namespace and
# one NVMe multipath head with two hidden path disks, and a loop device on a tmpfs
# file. The images are scratch files of the host: writing to them is safe.
#
# Output: "  ok   NAME" / "  FAIL NAME" lines, the tool's -vv output and the kernel
# log after a failure, and a last line "RESULT passed=N failed=N skipped=N".
set -u
BB=/usr/sbin/blktrace-bench
W=/tmp/vm
PASS=0 FAIL=0 SKIP=0
MiB=1048576
mkdir -p "$W"

ok() { PASS=$((PASS + 1)); echo "  ok   $1"; }
not_ok() { FAIL=$((FAIL + 1)); echo "  FAIL $1"; }
skip() { SKIP=$((SKIP + 1)); echo "  skip $1"; }
expect_eq() { # NAME ACTUAL EXPECTED
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else not_ok "$1: got '$2', expected '$3'"; fi
}
expect_cmp() { # NAME A OP B
	if awk -v a="$2" -v b="$4" "BEGIN { exit !(a $3 b) }"; then
		ok "$1 ($2 $3 $4)"
	else
		not_ok "$1: expected $2 $3 $4"
	fi
}
jqv() { jq -r "$2" "$1" 2>/dev/null; }

# diskstat FIELD NAME...: FIELD summed over the named disks (Documentation/admin-
# guide/iostats.rst: 1 reads completed, 3 sectors read, 5 writes completed, 7 sectors
# written). Hidden disks are listed by name too (as 0 0 on 5.10).
diskstat() {
	local f=$1
	shift
	awk -v f="$f" -v names=" $* " 'index(names, " " $3 " ") { s += $(f + 3) } END { print s + 0 }' \
		/proc/diskstats
}

# run NAME ARGS...: the tool, its stderr kept; on failure the -vv rerun and dmesg.
run() {
	local name=$1 rc
	shift
	"$BB" "$@" > "$W/$name.out" 2> "$W/$name.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		not_ok "$name: exit $rc: $(head -c 600 "$W/$name.err")"
		echo "--- $name: blktrace-bench -vv $*"
		"$BB" -vv "$@" 2>&1 | tail -40
		echo "--- kernel log"
		dmesg | tail -20
		return 1
	fi
	return 0
}

sysfs_restore=()
set_sysfs() { sysfs_restore+=("$1=$(cat "$1")"); echo "$2" > "$1"; }
restore_all() {
	local i
	for ((i = ${#sysfs_restore[@]} - 1; i >= 0; i--)); do
		echo "${sysfs_restore[i]#*=}" > "${sysfs_restore[i]%%=*}"
	done
	sysfs_restore=()
}

# Requests one I/O of BS bytes becomes on DISK when the buffer is one segment.
per_io() { # DISK BS
	local max=$(($(cat "/sys/block/$1/queue/max_sectors_kb") * 1024))
	echo $(((($2) + max - 1) / max))
}

echo "kernel $(uname -r)"
. /vm/guest-stack.sh
echo "RESULT passed=$PASS failed=$FAIL skipped=$SKIP"
