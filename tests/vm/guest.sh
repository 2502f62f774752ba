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
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

# scsi_debug_up LABEL: load scsi_debug (made by initramfs.sh) and wait for its disk, once
# the kernel's scan has read it and it answers (before any busy); its name in $sd. On
# failure a skip (no module for this kernel) or a FAIL under LABEL, the module unloaded,
# and status 1. The caller unloads it after its tests: rmmod scsi_debug.
SD_DIR=/sys/bus/pseudo/drivers/scsi_debug
scsi_debug_up() {
	local ko=/lib/modules/extra/scsi_debug.ko
	sd=""
	if [ ! -e "$ko" ]; then
		skip "$1: no scsi_debug module for this kernel"
		return 1
	fi
	if ! insmod "$ko" dev_size_mb=16 statistics=1; then
		not_ok "$1: insmod scsi_debug failed"
		return 1
	fi
	for _ in $(seq 1 100); do
		set -- "$1" "$SD_DIR"/adapter*/host*/target*/*/block/*
		[ -e "$2" ] && [ "$(cat "$2/size")" -gt 0 ] &&
			dd if="/dev/${2##*/}" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null &&
			sd=${2##*/} && return 0
		sleep 0.1
	done
	not_ok "$1: scsi_debug made no disk that reads"
	rmmod scsi_debug || not_ok "$1: rmmod scsi_debug failed"
	return 1
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
# The disks, found the way a user would: NVMe by whether sysfs puts them in a subsystem.
NVME_SINGLE="" NVME_HEAD="" NVME_PATHS=""
for d in /sys/block/nvme*n*; do
	n=$(basename "$d")
	[ -e "$d/dev" ] || continue # a hidden path disk
	if readlink -f "$d" | grep -q /nvme-subsystem/; then
		NVME_HEAD=$n
		s=${n#nvme}; s=${s%%n*}; ns=${n##*n}
		NVME_PATHS=$(cd /sys/block && ls -d nvme"${s}"c*n"${ns}" 2>/dev/null | tr '\n' ' ')
	else
		NVME_SINGLE=$n
	fi
done
echo "disks: vda vdb sda nvme $NVME_SINGLE, multipath head $NVME_HEAD over $NVME_PATHS"

# 1. Exact requests for 32 MiB of 1 MiB O_DIRECT reads and writes, in huge-page
# buffers (one segment each), on every kind of disk; both program flavours.
members() { # DISK: what diskstats counts the requests under
	if [ "$1" = "$NVME_HEAD" ]; then echo "$NVME_PATHS"; else echo "$1"; fi
}
for disk in vda sda $NVME_SINGLE $NVME_HEAD; do
	[ -n "$disk" ] || continue
	m=$(members "$disk")
	want=$((32 * $(per_io "$disk" $MiB)))
	for rw in read write; do
		field=1; [ $rw = write ] && field=5
		extra=(); [ $rw = write ] && extra=(--destructive)
		for flavour in tp_btf raw_tp; do
			t="$disk $rw $flavour"
			force=(); [ $flavour = raw_tp ] && force=(--raw-tp)
			c0=$(diskstat $field $m)
			run "$disk-$rw-$flavour" --trace "$disk" --raw --rw $rw --bs 1M --size 32M \
				--direct --hugepages "${extra[@]}" "${force[@]}" \
				--json "$W/r.json" || continue
			c1=$(diskstat $field $m)
			j=$W/r.json
			expect_eq "$t: flavour" "$(jqv "$j" .tracer.flavour)" $flavour
			expect_eq "$t: huge-page buffers" "$(jqv "$j" .runs[0].app.huge_pages)" true
			expect_eq "$t: requests" "$(jqv "$j" ".runs[0].block.$rw.requests")" $want
			expect_eq "$t: requests == diskstats" "$((c1 - c0))" $want
			expect_eq "$t: bytes" "$(jqv "$j" ".runs[0].block.$rw.bytes")" $((32 * MiB))
			expect_eq "$t: every request timed" "$(jqv "$j" .runs[0].block.device_ns.count)" \
				$want
			# psync has one I/O in flight: the requests it became, at most.
			expect_cmp "$t: queue depth <= $((want / 32)) (psync)" \
				"$(jqv "$j" .runs[0].block.queue_depth.max)" "<=" $((want / 32))
		done
	done
done

# 2. Splits by max_sectors_kb: 256 KiB turns each 1 MiB bio into four requests.
set_sysfs /sys/block/vda/queue/max_sectors_kb 256
if run split --trace vda --raw --rw read --bs 1M --size 32M --direct --hugepages \
	--json "$W/split.json"; then
	expect_eq "split: 128 requests" "$(jqv "$W/split.json" .runs[0].block.read.requests)" 128
	expect_eq "split: all 256 KiB" "$(jqv "$W/split.json" .runs[0].block.request_bytes.max)" \
		262144
	expect_eq "split: limit-bound max_sectors 1.0" \
		"$(jqv "$W/split.json" .runs[0].block.limit_bound.max_sectors)" 1
	expect_eq "split: 3 splits per 1 MiB bio" "$(jqv "$W/split.json" .runs[0].block.splits)" 96
fi
restore_all

# 3. The partition filter: traced vdb1 sees its own reads, not vdb2's.
printf 'label: dos\n2048,65536\n67584,65536\n' | sfdisk -q /dev/vdb > /dev/null 2>&1
blockdev --rereadpt /dev/vdb 2>/dev/null
i=0
while [ ! -e /dev/vdb2 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if [ -e /dev/vdb1 ] && [ -e /dev/vdb2 ]; then
	p0=$(diskstat 1 vdb1)
	q0=$(diskstat 1 vdb2)
	run part --trace vdb1 --json "$W/part.json" -- sh -c \
		'dd if=/dev/vdb1 of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null &&
		 dd if=/dev/vdb2 of=/dev/null bs=64k count=8 iflag=direct 2>/dev/null' &&
		expect_eq "partition: only vdb1's reads" \
			"$(jqv "$W/part.json" .runs[0].block.read.requests)" $(($(diskstat 1 vdb1) - p0))
	expect_eq "partition: vdb1 diskstats" "$(($(diskstat 1 vdb1) - p0))" 16
	expect_eq "partition: vdb2 diskstats (not traced)" "$(($(diskstat 1 vdb2) - q0))" 8
else
	not_ok "partition: vdb1/vdb2 did not appear"
fi

# 4. Queue depth is bounded by the I/O depth, and reaches above 1.
for disk in $NVME_SINGLE vda; do
	c0=$(diskstat 1 "$disk")
	if run "depth-$disk" --trace "$disk" --raw --rw randread --bs 4k --size 8M --direct \
		--engine io_uring --iodepth 8 --json "$W/qd.json"; then
		j=$W/qd.json
		expect_cmp "$disk iodepth 8: max depth <= 8" \
			"$(jqv "$j" .runs[0].block.queue_depth.max)" "<=" 8
		expect_cmp "$disk iodepth 8: max depth > 1" \
			"$(jqv "$j" .runs[0].block.queue_depth.max)" ">" 1
		expect_eq "$disk iodepth 8: requests == diskstats" \
			"$(jqv "$j" .runs[0].block.read.requests)" $(($(diskstat 1 "$disk") - c0))
		# Neighbouring random offsets may merge: every 4 KiB read is one or the other.
		expect_eq "$disk iodepth 8: requests + merges == 2048 reads" \
			"$(jqv "$j" '.runs[0].block.read.requests + .runs[0].block.merges')" 2048
	fi
done

# 4b. What the kernel does around the requests, named: buffered 512 B reads are read-ahead
# (REQ_RAHEAD, read through CO-RE on every kernel), and a flush's empty pre-flush write
# completes without being issued (not a request "issued before tracing").
blockdev --flushbufs /dev/vda
c0=$(diskstat 1 vda)
if run ra-vda --trace vda --json "$W/ra.json" -- dd if=/dev/vda of=/dev/null bs=512 count=4096; then
	expect_eq "read-ahead: requests == diskstats reads" \
		"$(jqv "$W/ra.json" .runs[0].block.read.requests)" $(($(diskstat 1 vda) - c0))
	expect_eq "read-ahead: every read request is read-ahead" \
		"$(jqv "$W/ra.json" .runs[0].block.read_ahead.requests)" \
		"$(jqv "$W/ra.json" .runs[0].block.read.requests)"
	expect_eq "read-ahead: named in the first finding" \
		"$(jqv "$W/ra.json" '.runs[0].findings[0].kind')" read_ahead
fi
if run flush-vda --trace vda --json "$W/flush.json" -- \
	dd if=/dev/zero of=/dev/vda bs=64k count=16 oflag=direct conv=fsync; then
	expect_cmp "fsync: the empty pre-flush write counted as never issued" \
		"$(jqv "$W/flush.json" .runs[0].block.unissued)" ">=" 1
	expect_eq "fsync: no completion called issued before tracing" \
		"$(jqv "$W/flush.json" .runs[0].block.untracked)" 0
fi

# 4c. --snoop, both flavours: a record per write the disk completed, each naming dd (its
# process read through BTF where the kernel has bpf_get_current_task_btf, 5.11, else
# by helpers), issued directly (vda) and through mq-deadline on sda, where each request
# is inserted first and its process comes from the insert.
sched0=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/block/sda/queue/scheduler)
echo mq-deadline > /sys/block/sda/queue/scheduler
for disk in vda sda; do
	for flavour in tp_btf raw_tp; do
		force=(); [ $flavour = raw_tp ] && force=(--raw-tp)
		c0=$(diskstat 5 "$disk")
		run "snoop-$disk-$flavour" --trace "$disk" "${force[@]}" --snoop "$W/s.snoop" -- \
			dd if=/dev/zero of=/dev/"$disk" bs=64k count=32 oflag=direct || continue
		c1=$(diskstat 5 "$disk")
		"$BB" --snoop-text "$W/s.snoop" > "$W/s.txt"
		t="snoop $disk $flavour ($(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/block/$disk/queue/scheduler))"
		expect_eq "$t: a record per write" "$(awk 'NR > 1 && $5 == "write"' "$W/s.txt" | wc -l)" \
			$((c1 - c0))
		expect_eq "$t: each names dd, one process" \
			"$(awk 'NR > 1 && $5 == "write" { print $2, $3 }' "$W/s.txt" | sort -u | wc -l) \
$(awk 'NR > 1 && $5 == "write" { print $3 }' "$W/s.txt" | sort -u)" "1 dd"
	done
done
echo "$sched0" > /sys/block/sda/queue/scheduler

# The issue program that keeps lost completions out of the depth needs bpf_loop (5.17).
if run walk -v --trace vda -- true; then
	if awk -v v="$(uname -r)" 'BEGIN { split(v, a, "."); exit !(a[1] > 5 || (a[1] == 5 && a[2] >= 17)) }'; then
		want=1
	else
		want=0
	fi
	expect_eq "depth walk loaded exactly where bpf_loop is ($(uname -r))" \
		"$(grep -c "depth without lost completions" "$W/walk.err")" $want
	# A disk of one queue counts per CPU where a program can read other CPUs' values (5.19).
	if awk -v v="$(uname -r)" 'BEGIN { split(v, a, "."); exit !(a[1] > 5 || (a[1] == 5 && a[2] >= 19)) }'; then
		want=1
	else
		want=0
	fi
	expect_eq "one-queue disks counted per CPU exactly where bpf_map_lookup_percpu_elem is ($(uname -r))" \
		"$(grep -c "one-queue disks counted per CPU" "$W/walk.err")" $want
fi

# 5. A --set sweep: each value in effect for its runs, the original restored.
orig=$(cat /sys/block/sda/queue/max_sectors_kb)
if run sweep --trace sda --raw --rw read --bs 1M --size 8M --direct --hugepages \
	--set max_sectors_kb=128,512 --json "$W/sweep.json"; then
	expect_eq "sweep: 128 KiB requests at 128" \
		"$(jqv "$W/sweep.json" .runs[0].block.request_bytes.max)" 131072
	expect_eq "sweep: 512 KiB requests at 512" \
		"$(jqv "$W/sweep.json" .runs[1].block.request_bytes.max)" 524288
fi
expect_eq "sweep: max_sectors_kb restored" "$(cat /sys/block/sda/queue/max_sectors_kb)" "$orig"

# 6. info, per driver, against sysfs.
info() { # DISK: info --json into $W/info.json
	"$BB" info "$1" --json > "$W/info.json" 2> "$W/info.err" ||
		not_ok "info $1: $(cat "$W/info.err")"
}
info vda
expect_eq "info vda: driver" "$(jqv "$W/info.json" .device.driver)" virtio_blk
expect_eq "info vda: virtio queue depth = nr_tags" \
	"$(jqv "$W/info.json" .device.virtio_blk.queue_depth)" "$(cat /sys/block/vda/mq/0/nr_tags)"
expect_eq "info vda: hardware queues" "$(jqv "$W/info.json" .device.nr_hw_queues)" \
	"$(ls /sys/block/vda/mq | wc -l)"
info sda
expect_eq "info sda: driver" "$(jqv "$W/info.json" .device.driver)" sd
expect_eq "info sda: SCSI queue depth" "$(jqv "$W/info.json" .device.scsi_queue_depth)" \
	"$(cat /sys/block/sda/device/queue_depth)"
if [ -n "$NVME_SINGLE" ]; then
	info "$NVME_SINGLE"
	expect_eq "info $NVME_SINGLE: driver" "$(jqv "$W/info.json" .device.driver)" nvme
	expect_eq "info $NVME_SINGLE: queues" "$(jqv "$W/info.json" .device.nvme.queues)" \
		"$(ls /sys/block/"$NVME_SINGLE"/mq | wc -l)"
	expect_eq "info $NVME_SINGLE: max_hw_sectors_kb" \
		"$(jqv "$W/info.json" .device.limits.max_hw_sectors_kb)" \
		"$(cat /sys/block/"$NVME_SINGLE"/queue/max_hw_sectors_kb)"
fi
if [ -n "$NVME_HEAD" ]; then
	info "$NVME_HEAD"
	first=${NVME_PATHS%% *}
	expect_eq "info $NVME_HEAD: driver" "$(jqv "$W/info.json" .device.driver)" nvme
	expect_eq "info $NVME_HEAD: paths" "$(jqv "$W/info.json" '[.device.paths[].name] | join(" ")') " \
		"$NVME_PATHS"
	expect_eq "info $NVME_HEAD: not bio-based" "$(jqv "$W/info.json" .device.bio_based)" false
	expect_eq "info $NVME_HEAD: queues of its paths" \
		"$(jqv "$W/info.json" .device.nr_hw_queues)" "$(ls /sys/block/"$first"/mq | wc -l)"
	expect_eq "info $NVME_HEAD: depth of its paths" "$(jqv "$W/info.json" .device.max_tags)" \
		"$(cat /sys/block/"$first"/mq/0/nr_tags)"
	# One path disk by its name: no device node, traced by name, only its requests.
	c0=$(diskstat 1 "$first")
	if run path --trace "$first" --json "$W/path.json" -- \
		dd if=/dev/"$NVME_HEAD" of=/dev/null bs=64k count=32 iflag=direct; then
		expect_eq "path $first: requests == its diskstats" \
			"$(jqv "$W/path.json" .runs[0].block.read.requests)" $(($(diskstat 1 "$first") - c0))
	fi
	# The head's hardware queues are its paths' (the head itself has none).
	want=0
	for p in $NVME_PATHS; do want=$((want + $(ls /sys/block/"$p"/mq | wc -l))); done
	if run head-queues --trace "$NVME_HEAD" --json "$W/head.json" -- \
		dd if=/dev/"$NVME_HEAD" of=/dev/null bs=64k count=32 iflag=direct; then
		expect_eq "$NVME_HEAD: hardware queues == its paths' ($want)" \
			"$(jqv "$W/head.json" '.runs[0].block.hw_queues.count // 1')" "$want"
		[ "$want" -le 1 ] || expect_eq "$NVME_HEAD: the queues' requests == its reads" \
			"$(jqv "$W/head.json" '[.runs[0].block.hw_queues.queues[].requests] | add')" \
			"$(jqv "$W/head.json" .runs[0].block.read.requests)"
	fi
else
	skip "no NVMe multipath head came up"
fi

# 7. A loop device in the guest, on a tmpfs file.
truncate -s 64M /tmp/loop.img
if L=$(losetup -f --show /tmp/loop.img); then
	l=$(basename "$L")
	c0=$(diskstat 1 "$l")
	run loop --trace "$l" --json "$W/loop.json" -- \
		dd if="$L" of=/dev/null bs=64k count=64 iflag=direct &&
		expect_eq "loop: requests == diskstats" \
			"$(jqv "$W/loop.json" .runs[0].block.read.requests)" $(($(diskstat 1 "$l") - c0))
	expect_eq "loop: 64 reads in diskstats" "$(($(diskstat 1 "$l") - c0))" 64
	losetup -d "$L"
else
	not_ok "loop: cannot attach a loop device"
fi
rm -f /tmp/loop.img

# 8. Stacks: dm and md over vdc and vdd.
. "$(dirname "${BASH_SOURCE[0]}")/guest-stack.sh"

# 9. Fleets: ten disks in one set of programs, and serve.
. "$(dirname "${BASH_SOURCE[0]}")/guest-fleet.sh"

# 10. Requeues: scsi_debug gives requests back.
. "$(dirname "${BASH_SOURCE[0]}")/guest-requeue.sh"

# 11. --blktrace beside the kernel's own blktrace, and import.
. "$(dirname "${BASH_SOURCE[0]}")/guest-blktrace.sh"

[ $FAIL -eq 0 ] || { echo "--- kernel log"; dmesg | tail -30; }
echo "RESULT passed=$PASS failed=$FAIL skipped=$SKIP"
