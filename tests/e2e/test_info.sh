#!/usr/bin/env bash
# `info` against the kernel's own sysfs on real loop disks (whole disk and partition),
# and the limit-bound finding of a traced write on the xen-blkfront 11-segment
# emulation: max_sectors_kb=44.
. "$(dirname "$0")/lib.sh"

FIX="$ROOT/tests/fixtures/sysfs"

make_loop A 64M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
q=/sys/block/$a/queue

# 1. Every limit info prints, text and JSON, is what sysfs says.
"$BB" info "$a" > "$TMP/info.txt" 2> "$TMP/info.err"
expect_eq "info: exit status" "$?" 0
"$BB" info "$A" --json > "$TMP/info.json"
expect_eq "info --json: exit status" "$?" 0
expect_true "info --json: valid JSON" jq -e . "$TMP/info.json"
expect_eq "info --json: schema" "$(jqv "$TMP/info.json" .schema)" "blktrace-bench/1"
expect_eq "info --json: schema, device and the stack" \
	"$(jqv "$TMP/info.json" 'keys | join(",")')" "device,schema,stack"
# The loop device's backing file is on tmpfs: nothing to trace under it, and it says so.
expect_eq "info --json: no layers under a loop device on tmpfs" \
	"$(jqv "$TMP/info.json" '.stack.layers | length')" 0
expect_true "info --json: the note names the backing file" \
	jq -e '.stack.note | test("backing file .* without a block device")' "$TMP/info.json"
expect_eq "info: nothing on stderr for a loop disk" "$(cat "$TMP/info.err")" ""
expect_true "info: names the disk" grep -q "^$a ($(cat /sys/block/$a/dev)), 64 MiB, driver loop" \
	"$TMP/info.txt"
expect_eq "json: major:minor" "$(jqv "$TMP/info.json" '"\(.device.major):\(.device.minor)"')" \
	"$(cat /sys/block/$a/dev)"
expect_eq "json: size_bytes" "$(jqv "$TMP/info.json" .device.size_bytes)" \
	"$(($(cat /sys/block/$a/size) * 512))"
for l in max_sectors_kb max_hw_sectors_kb max_segments max_segment_size nr_requests \
	read_ahead_kb wbt_lat_usec nomerges logical_block_size physical_block_size; do
	if [ ! -r "$q/$l" ]; then
		expect_eq "json: $l absent is null" "$(jqv "$TMP/info.json" .device.limits.$l)" null
		continue
	fi
	v=$(cat "$q/$l")
	expect_eq "json: $l" "$(jqv "$TMP/info.json" .device.limits.$l)" "$v"
	expect_eq "text: $l" "$(awk -v l="$l" '$1 == l { print $2 }' "$TMP/info.txt")" "$v"
done
rot=$(cat "$q/rotational")
expect_eq "json: rotational" "$(jqv "$TMP/info.json" .device.limits.rotational)" \
	"$([ "$rot" = 1 ] && echo true || echo false)"
expect_eq "text: rotational" "$(awk '$1 == "rotational" { print $2 }' "$TMP/info.txt")" "$rot"
sched=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$q/scheduler")
expect_eq "json: scheduler" "$(jqv "$TMP/info.json" .device.limits.scheduler)" "${sched:-none}"
expect_eq "text: scheduler" "$(awk '$1 == "scheduler" { print $2 }' "$TMP/info.txt")" \
	"${sched:-none}"
expect_eq "json: write_cache" "$(jqv "$TMP/info.json" .device.limits.write_cache)" \
	"$(cat "$q/write_cache")"
nhw=$(find "/sys/block/$a/mq" -mindepth 1 -maxdepth 1 -name '[0-9]*' | wc -l)
expect_eq "json: nr_hw_queues" "$(jqv "$TMP/info.json" .device.nr_hw_queues)" "$nhw"
expect_true "text: hardware queues" grep -q "^  hardware queues *$nhw " "$TMP/info.txt"
tags=$(cat /sys/block/$a/mq/*/nr_tags | sort -n | tail -1)
expect_eq "json: max_tags" "$(jqv "$TMP/info.json" .device.max_tags)" "$tags"
expect_eq "json: driver" "$(jqv "$TMP/info.json" .device.driver)" loop
expect_eq "json: loop.backing_file" "$(jqv "$TMP/info.json" .device.loop.backing_file)" \
	"$(cat /sys/block/$a/loop/backing_file)"
expect_eq "json: loop.dio" "$(jqv "$TMP/info.json" .device.loop.dio)" \
	"$([ "$(cat /sys/block/$a/loop/dio)" = 1 ] && echo true || echo false)"
expect_eq "json: bio_based" "$(jqv "$TMP/info.json" .device.bio_based)" false
expect_eq "json: xen_blkfront null" "$(jqv "$TMP/info.json" .device.xen_blkfront)" null
expect_eq "json: no partitions" "$(jqv "$TMP/info.json" '.device.partitions | length')" 0
if [ -d /sys/module/loop/parameters ]; then
	for p in /sys/module/loop/parameters/*; do
		n=$(basename "$p")
		expect_eq "json: module parameter $n" \
			"$(jqv "$TMP/info.json" ".device.module_parameters.$n")" "$(cat "$p")"
	done
else
	skip "loop is built in without parameters"
fi
# The largest request: max_sectors_kb or max_segments full segments, whichever is smaller.
by_sec=$(($(cat "$q/max_sectors_kb") * 1024))
by_seg=$(($(cat "$q/max_segments") * $(cat "$q/max_segment_size")))
big=$((by_sec < by_seg ? by_sec : by_seg))
expect_eq "json: max_request_bytes" "$(jqv "$TMP/info.json" .device.max_request_bytes)" "$big"
expect_eq "json: max_request_limit" "$(jqv "$TMP/info.json" .device.max_request_limit)" \
	"$( ((by_sec < by_seg)) && echo max_sectors_kb || { ((by_sec > by_seg)) && echo max_segments ||
		echo max_sectors_kb+max_segments; })"
expect_true "text: largest request" grep -q "^largest request: .*, set by max_" "$TMP/info.txt"

# 2. A partitioned loop disk: the partition resolves to its disk plus its range.
make_loop P 64M /dev/shm -P || { not_ok "losetup -P"; finish; exit 1; }
p=$(basename "$P")
if ! printf 'label: dos\nstart=2048, size=40960, type=83\nstart=43008, type=83\n' |
	sfdisk -q "$P" > "$TMP/sfdisk.out" 2>&1; then
	not_ok "sfdisk: $(head -1 "$TMP/sfdisk.out")"
fi
udevadm settle 2>/dev/null || true
# A kernel without partition parsers (CONFIG_MSDOS_PARTITION off, as here) rescans to
# nothing: partx reads the table itself and adds the partitions with BLKPG.
[ -e "/sys/class/block/${p}p1" ] || partx -a "$P" 2> "$TMP/partx.err" ||
	not_ok "partx -a: $(head -1 "$TMP/partx.err")"
udevadm settle 2>/dev/null || true
for i in 1 2 3 4 5 6 7 8 9 10; do [ -e "/sys/class/block/${p}p2" ] && break; sleep 0.2; done
if [ -e "/sys/class/block/${p}p1" ]; then
	pp=/sys/class/block/${p}p1
	"$BB" info "${p}p1" --json > "$TMP/part.json"
	expect_eq "partition: exit status" "$?" 0
	expect_eq "partition: disk name" "$(jqv "$TMP/part.json" .device.name)" "$p"
	expect_eq "partition: name" "$(jqv "$TMP/part.json" .device.partition.name)" "${p}p1"
	expect_eq "partition: major:minor" \
		"$(jqv "$TMP/part.json" '"\(.device.partition.major):\(.device.partition.minor)"')" \
		"$(cat "$pp/dev")"
	expect_eq "partition: start" "$(jqv "$TMP/part.json" .device.partition.start_sector)" \
		"$(cat "$pp/start")"
	expect_eq "partition: sectors" "$(jqv "$TMP/part.json" .device.partition.sectors)" \
		"$(cat "$pp/size")"
	expect_eq "partition: start 2048, 40960 sectors (sfdisk)" \
		"$(cat "$pp/start"),$(cat "$pp/size")" "2048,40960"
	expect_eq "partition: the disk's limits" \
		"$(jqv "$TMP/part.json" .device.limits.max_sectors_kb)" \
		"$(cat /sys/block/$p/queue/max_sectors_kb)"
	expect_eq "partition: both partitions listed" \
		"$(jqv "$TMP/part.json" '[.device.partitions[] | "\(.name)@\(.start_sector)+\(.sectors)"] | join(",")')" \
		"${p}p1@2048+40960,${p}p2@43008+$(cat "/sys/class/block/${p}p2/size")"
	"$BB" info "/dev/${p}p1" > "$TMP/part.txt"
	expect_true "partition text: range line" grep -q \
		"^partition ${p}p1 ($(cat "$pp/dev")): start sector 2048, 40960 sectors" "$TMP/part.txt"
	"$BB" info "$(cat "$pp/dev")" --json > "$TMP/part2.json"
	expect_eq "partition by MAJ:MIN" "$(jqv "$TMP/part2.json" .device.partition.name)" "${p}p1"
	"$BB" info "$p" > "$TMP/disk.txt"
	expect_true "disk text: lists its partitions" grep -q "^  ${p}p2 " "$TMP/disk.txt"
else
	not_ok "partition ${p}p1 did not appear"
fi

# 3. max_sectors_kb=44: each 1 MiB O_DIRECT write is 23 requests of 44 KiB and a 12 KiB
#    tail, so the cap is the finding, for 23/24 of the requests.
set_sysfs "$q/max_sectors_kb" 44
"$BB" --trace "$a" --json "$TMP/cap.json" -- \
	dd if=/dev/zero of="$A" bs=1M count=16 oflag=direct status=none > "$TMP/cap.txt"
expect_eq "cap: exit status" "$?" 0
expect_eq "cap: 16 x 24 write requests" "$(jqv "$TMP/cap.json" .runs[0].block.write.requests)" 384
expect_eq "cap: largest request 44 KiB" "$(jqv "$TMP/cap.json" .runs[0].block.request_bytes.max)" \
	45056
expect_eq "cap: first finding kind" "$(jqv "$TMP/cap.json" '.runs[0].findings[0].kind')" \
	max_sectors_kb
expect_cmp "cap: finding share ~1" "$(jqv "$TMP/cap.json" '.runs[0].findings[0].share')" ">=" 0.95
expect_eq "cap: finding text" \
	"$(jqv "$TMP/cap.json" '.runs[0].findings[0].text | test("capped at 44 KiB by max_sectors_kb=44")')" \
	true
expect_eq "cap: the device object says so too" "$(jqv "$TMP/cap.json" .device.max_request_bytes)" \
	45056
expect_true "cap: text report ends with the finding" \
	grep -A1 -q "^  findings:" "$TMP/cap.txt"
expect_true "cap: text finding sentence" grep -q "capped at 44 KiB by max_sectors_kb=44" \
	"$TMP/cap.txt"
echo "$(cat "$q/max_hw_sectors_kb")" > "$q/max_sectors_kb"

# 4. Uncapped: 64 KiB writes are what the application wrote.
"$BB" --trace "$a" --json "$TMP/app.json" -- \
	dd if=/dev/zero of="$A" bs=64k count=64 oflag=direct status=none > /dev/null
expect_eq "uncapped: kind" "$(jqv "$TMP/app.json" '.runs[0].findings[0].kind')" uncapped
expect_eq "uncapped: share" "$(jqv "$TMP/app.json" '.runs[0].findings[0].share')" 1

# 5. xen-blkfront (fixture): the driver-probe notice, once, on stderr only.
printf 'ffffffff81000000 T _stext\n' > "$TMP/kallsyms"
BLKTRACE_BENCH_SYSFS="$FIX/xen-backend-limited" BLKTRACE_BENCH_KALLSYMS="$TMP/kallsyms" \
	"$BB" info xvda --json > "$TMP/xen.json" 2> "$TMP/xen.err"
expect_eq "xen: exit status" "$?" 0
expect_eq "xen: notice once" "$(grep -c 'driver probes not available' "$TMP/xen.err")" 1
expect_true "xen: notice text" grep -q "^blktrace-bench: xen-blkfront driver probes not available (blkif_queue_rq and blkif_interrupt not in $TMP/kallsyms; .*); showing the block-layer view$" "$TMP/xen.err"
expect_eq "xen: JSON stays clean" "$(jqv "$TMP/xen.json" .device.xen_blkfront.backend_limited)" true
expect_eq "xen: boot parameter" "$(jqv "$TMP/xen.json" .device.xen_blkfront.boot_parameter)" \
	"xen_blkfront.max_indirect_segments=32"
BLKTRACE_BENCH_SYSFS="$FIX/xen-backend-limited" BLKTRACE_BENCH_KALLSYMS="$TMP/kallsyms" \
	"$BB" info xvda > "$TMP/xen.txt" 2> /dev/null
expect_true "xen text: the backend limits it" \
	grep -q "the module asks for 32 segments but the backend limits it to 11" "$TMP/xen.txt"

# 6. What xenstore says of the xen disk: the fake of tests/fixtures/xenstore (blkback offers
# 256, the module asks for 32, 512, or turns them off), tapdisk's none, and none at all.
XS="$ROOT/tests/fixtures/xenstore"
xs_info() { # TREE FAKE [--json]
	BLKTRACE_BENCH_SYSFS="$FIX/$1" BLKTRACE_BENCH_XENSTORE="$2" \
		BLKTRACE_BENCH_KALLSYMS="$TMP/kallsyms" "$BB" info xvda ${3:-} 2> /dev/null
}
xs_info xen-seg32 "$XS/blkback.txt" --json > "$TMP/xs32.json"
expect_eq "xenstore: exit status" "$?" 0
expect_eq "xenstore: the backend offers 256" \
	"$(jqv "$TMP/xs32.json" .device.xen_blkfront.backend.max_indirect_segments)" 256
expect_eq "xenstore: 32 in effect" \
	"$(jqv "$TMP/xs32.json" .device.xen_blkfront.segments_in_effect)" 32
expect_eq "xenstore: the ring" "$(jqv "$TMP/xs32.json" \
	'.device.xen_blkfront | "\(.queues) x \(.ring_pages) x \(.ring_requests)"')" "2 x 1 x 32"
expect_eq "xenstore: read whole" "$(jqv "$TMP/xs32.json" .device.xen_blkfront.xenstore_error)" null
xs_info xen-seg11 "$XS/blkback.txt" > "$TMP/xs11.txt"
expect_true "xenstore 0: 11 segments, 44 KiB, the guest's doing" grep -q \
	"^  segments in effect     11: max_indirect_segments=11 turns indirect descriptors off" \
	"$TMP/xs11.txt"
expect_true "xenstore 0: 44 KiB" grep -q "^  largest request        44 KiB (11 segments x 4 KiB)$" \
	"$TMP/xs11.txt"
xs_info xen-seg512 "$XS/blkback.txt" --json > "$TMP/xs512.json"
expect_eq "xenstore 512: the backend caps it" \
	"$(jqv "$TMP/xs512.json" '.device.xen_blkfront | "\(.max_indirect_segments) \(.segments_in_effect) \(.segments_reason)"')" \
	"512 256 backend_caps"
xs_info xen-backend-limited "$XS/tapdisk.txt" > "$TMP/tap.txt"
expect_true "tapdisk: no indirect descriptors" grep -q \
	"^  segments in effect     11: the backend offers no indirect descriptors (as XCP-ng's tapdisk does)$" \
	"$TMP/tap.txt"
xs_info xen-seg32 "$TMP/no-such-xenstore" > "$TMP/noxs.txt"
expect_eq "xenstore unreadable: exit status" "$?" 0
expect_eq "xenstore unreadable: one line" "$(grep -c "xenstore" "$TMP/noxs.txt")" 1
expect_true "xenstore unreadable: sysfs's view stays" grep -q \
	"^  segments               32 (negotiated: queue/max_segments)$" "$TMP/noxs.txt"

BLKTRACE_BENCH_SYSFS="$FIX/dm" "$BB" info dm-0 > "$TMP/dm.txt" 2> "$TMP/dm.err"
expect_true "dm: the stack under it, traced with it" grep -q "^stack (traced with dm-0):" "$TMP/dm.txt"
expect_true "dm: vda2 under it" grep -q "^    vda2 .* disk (virtio_blk)$" "$TMP/dm.txt"
expect_true "dm: vdb under it" grep -q "^    vdb .* disk (virtio_blk)$" "$TMP/dm.txt"
BLKTRACE_BENCH_SYSFS="$FIX/dm" "$BB" info md0 --json > "$TMP/md.json"
expect_eq "md0 --json: the mirrors" "$(jqv "$TMP/md.json" '[.stack.layers[] | .device.name + ":" + .role] | join(",")')" \
	"vdc:disk (virtio_blk), raid1 member,vdd:disk (virtio_blk), raid1 member"
expect_eq "dm: no probe notice" "$(cat "$TMP/dm.err")" ""

finish
