#!/bin/bash
# Stacked devices in the guest (sourced by guest.sh, which defines run, ok, not_ok,
# expect_eq, expect_cmp, diskstat, jqv, per_io, W, MiB): device-mapper, md RAID1,
# dm-crypt with a dm-linear "LV" and ext4 on top, and a loop device whose backing file
# is on ext4 on a disk, each traced from the top. Every layer is checked against its
# own /proc/diskstats line (dm and md count bios there, which is what the tool counts
# at a bio-based layer).

# dm_create NAME TABLE: a dm device without udev (the guest has none); its node,
# /dev/dm-N, comes from devtmpfs.
dm_create() { dmsetup create "$1" --noudevsync --table "$2"; }
dm_remove() { dmsetup remove --noudevsync "$1" 2>/dev/null; }
dm_kname() { # NAME: its kernel name, dm-N
	local b
	for b in /sys/block/dm-*; do
		[ "$(cat "$b/dm/name" 2>/dev/null)" = "$1" ] && basename "$b"
	done
}
sectors() { blockdev --getsz "$1"; }
# layer_eq NAME JSON DEVICE FIELD JQ_OP: the layer's count against DEVICE's diskstats delta
layer_count() { jqv "$1" "[.runs[0].layers[] | select(.device == \"$2\") | .block.$3.requests][0]"; }
layer_bytes() { jqv "$1" "[.runs[0].layers[] | select(.device == \"$2\") | .block.$3.bytes][0]"; }
snap() { for d in "$@"; do echo "$d $(diskstat 1 "$d") $(diskstat 5 "$d") $(diskstat 3 "$d") $(diskstat 7 "$d")"; done > "$W/snap"; }
# delta DEVICE FIELD(1 reads, 5 writes, 3 sectors read, 7 sectors written)
delta() {
	local col
	case $2 in 1) col=2 ;; 5) col=3 ;; 3) col=4 ;; 7) col=5 ;; esac
	echo $(($(diskstat "$2" "$1") - $(awk -v d="$1" -v c=$col '$1 == d { print $c }' "$W/snap")))
}

# S1. dm-linear over the whole of vdc: 32 bios of 1 MiB at the top, the requests on vdc.
if dm_create bblin "0 $(sectors /dev/vdc) linear /dev/vdc 0"; then
	dm=$(dm_kname bblin)
	snap "$dm" vdc
	if run dm-linear --trace "$dm" --raw --rw read --bs 1M --size 32M --direct --hugepages \
		--json "$W/dm.json"; then
		j=$W/dm.json
		expect_eq "dm-linear $dm: bios == diskstats" "$(jqv "$j" .runs[0].block.read.requests)" \
			"$(delta "$dm" 1)"
		expect_eq "dm-linear $dm: 32 bios" "$(jqv "$j" .runs[0].block.read.requests)" 32
		expect_eq "dm-linear $dm: bytes" "$(jqv "$j" .runs[0].block.read.bytes)" $((32 * MiB))
		expect_eq "dm-linear $dm: every bio timed" "$(jqv "$j" .runs[0].block.device_ns.count)" 32
		expect_eq "dm-linear: vdc is the layer under it" "$(jqv "$j" '.stack.layers[0].device.name')" vdc
		expect_eq "dm-linear: vdc requests == diskstats" "$(layer_count "$j" vdc read)" "$(delta vdc 1)"
		expect_eq "dm-linear: vdc requests" "$(layer_count "$j" vdc read)" $((32 * $(per_io vdc $MiB)))
		expect_eq "dm-linear: vdc bytes" "$(layer_bytes "$j" vdc read)" $((32 * MiB))
		grep -q "^  stack" "$W/dm-linear.out" && ok "dm-linear: the stack table" ||
			not_ok "dm-linear: no stack table in the text report"
	fi
	dm_remove bblin
else
	not_ok "dm-linear: dmsetup create failed"
fi

# S2. dm-linear over two disks, the boundary 512 KiB into a 1 MiB bio: dm splits that
# one bio, so the disks see one request more than there are bios.
half=$((16 * 2048 + 1024)) # sectors: 16.5 MiB
if dm_create bbspan "0 $half linear /dev/vdc 0
$half $half linear /dev/vdd 0"; then
	dm=$(dm_kname bbspan)
	snap "$dm" vdc vdd
	if run dm-span --trace "$dm" --raw --rw read --bs 1M --size 32M --direct --hugepages \
		--json "$W/span.json"; then
		j=$W/span.json
		expect_eq "dm-span: 32 bios at the top" "$(jqv "$j" .runs[0].block.read.requests)" 32
		expect_eq "dm-span: vdc == diskstats" "$(layer_count "$j" vdc read)" "$(delta vdc 1)"
		expect_eq "dm-span: vdd == diskstats" "$(layer_count "$j" vdd read)" "$(delta vdd 1)"
		expect_eq "dm-span: one request more than bios (the boundary)" \
			$(($(layer_count "$j" vdc read) + $(layer_count "$j" vdd read))) \
			$((32 * $(per_io vdc $MiB) + 1))
		expect_eq "dm-span: vdc has 16.5 MiB" "$(layer_bytes "$j" vdc read)" $((33 * MiB / 2))
	fi
	dm_remove bbspan
else
	not_ok "dm-span: dmsetup create failed"
fi

# S3. md RAID1 over vdc and vdd: every write on both mirrors, each read on one.
mdadm --create /dev/md0 --run --quiet --level=1 --raid-devices=2 --metadata=1.2 \
	--assume-clean --bitmap=none /dev/vdc /dev/vdd > "$W/mdadm.log" 2>&1
if [ -e /sys/block/md0/md ]; then
	# No "clean" superblock write a moment after the last write, outside the traced
	# window: the array marks itself dirty once, at the first write, and stays so.
	echo 0 > /sys/block/md0/md/safe_mode_delay
	snap md0 vdc vdd
	if run md-write --trace md0 --raw --rw write --destructive --bs 1M --size 64M --direct \
		--hugepages --json "$W/mdw.json"; then
		j=$W/mdw.json
		expect_eq "md0 write: bios == diskstats" "$(jqv "$j" .runs[0].block.write.requests)" \
			"$(delta md0 5)"
		expect_eq "md0 write: 64 bios" "$(jqv "$j" .runs[0].block.write.requests)" 64
		for m in vdc vdd; do
			expect_eq "md0 write: $m requests == diskstats" "$(layer_count "$j" $m write)" \
				"$(delta $m 5)"
			expect_eq "md0 write: $m bytes == diskstats" "$(layer_bytes "$j" $m write)" \
				$(($(delta $m 7) * 512))
			# Every byte, plus md's superblock updates (a few KiB).
			expect_cmp "md0 write: $m got every byte" "$(layer_bytes "$j" $m write)" ">=" $((64 * MiB))
			expect_cmp "md0 write: $m got little more" "$(layer_bytes "$j" $m write)" "<" $((65 * MiB))
		done
		grep -q "md0 writes: 64 MiB in 64 bios of 1 MiB became 128" "$W/md-write.out" &&
			ok "md0 write: the finding says x2" ||
			not_ok "md0 write: no x2 finding: $(grep 'md0 writes' "$W/md-write.out")"
	fi
	snap md0 vdc vdd
	if run md-read --trace md0 --raw --rw read --bs 1M --size 32M --direct --hugepages \
		--json "$W/mdr.json"; then
		j=$W/mdr.json
		expect_eq "md0 read: 32 bios" "$(jqv "$j" .runs[0].block.read.requests)" 32
		expect_eq "md0 read: bios == diskstats" "$(jqv "$j" .runs[0].block.read.requests)" \
			"$(delta md0 1)"
		expect_eq "md0 read: the mirrors read 32 MiB in all" \
			$(($(layer_bytes "$j" vdc read) + $(layer_bytes "$j" vdd read))) $((32 * MiB))
		for m in vdc vdd; do
			expect_eq "md0 read: $m == diskstats" "$(layer_count "$j" $m read)" "$(delta $m 1)"
		done
		grep -q "requests went" "$W/md-read.out" && ok "md0 read: the mirror shares" ||
			not_ok "md0 read: no mirror shares in the findings"
	fi
	# A read-ahead sweep on the array: each value in effect on md0, then restored.
	ra=$(cat /sys/block/md0/queue/read_ahead_kb)
	if run md-ra --trace md0 --raw --rw read --bs 4k --size 16M --set read_ahead_kb=128,1024 \
		--json "$W/mdra.json"; then
		j=$W/mdra.json
		expect_eq "md0 read-ahead sweep: 2 runs" "$(jqv "$j" '.runs | length')" 2
		expect_cmp "md0 read-ahead 1024: larger bios than at 128" \
			"$(jqv "$j" .runs[1].block.request_bytes.max)" ">" \
			"$(jqv "$j" .runs[0].block.request_bytes.max)"
	fi
	expect_eq "md0 read-ahead restored" "$(cat /sys/block/md0/queue/read_ahead_kb)" "$ra"
	# A member's setting, named DEV:KNOB: in effect on vdc for its runs, then restored.
	msk=$(cat /sys/block/vdc/queue/max_sectors_kb)
	if run md-member-set --trace md0 --raw --rw read --bs 1M --size 16M --direct --hugepages \
		--set vdc:max_sectors_kb=128,512 --json "$W/mdset.json"; then
		j=$W/mdset.json
		for r in 0 1; do
			want=$((r == 0 ? 128 : 512))
			expect_eq "md0 --set vdc:max_sectors_kb run $r: vdc limit recorded" \
				"$(jqv "$j" "[.runs[$r].layers[] | select(.device == \"vdc\") | .limits.max_sectors_kb][0]")" $want
			got=$(jqv "$j" "[.runs[$r].layers[] | select(.device == \"vdc\") | .block.request_bytes.max][0]")
			[ "$got" = 0 ] || expect_cmp "md0 --set vdc:max_sectors_kb run $r: vdc requests <= $want KiB" \
				"$got" "<=" $((want * 1024))
		done
	fi
	expect_eq "md0 --set vdc:max_sectors_kb: restored" "$(cat /sys/block/vdc/queue/max_sectors_kb)" "$msk"
	"$BB" --trace md0 --raw --rw read --bs 1M --size 1M --set vdx:max_sectors_kb=128 \
		> /dev/null 2> "$W/notunder.err"
	expect_eq "md0 --set vdx:...: refused (exit 2)" $? 2
	grep -q "vdx is not under md0 (its stack: md0, vdc, vdd)" "$W/notunder.err" &&
		ok "md0 --set vdx: names the stack" || not_ok "md0 --set vdx: $(cat "$W/notunder.err")"
	# A member of an array is not a raw write target.
	"$BB" --trace vdc --raw --rw write --destructive --bs 1M --size 1M --direct \
		> /dev/null 2> "$W/member.err"
	rc=$?
	expect_eq "md0 member vdc: raw write refused (exit 2)" $rc 2
	grep -q md0 "$W/member.err" && ok "md0 member: the refusal names md0" ||
		not_ok "md0 member: refusal does not name md0: $(cat "$W/member.err")"
	mdadm --stop /dev/md0 > /dev/null 2>&1
	mdadm --zero-superblock /dev/vdc /dev/vdd > /dev/null 2>&1
else
	not_ok "md0: mdadm --create failed: $(tail -3 "$W/mdadm.log")"
fi

# S4. ext4 on a dm-linear "LV" on dm-crypt on vdc: a file read with 512 B and 128 KiB
# reads, each layer against its diskstats.
key=$(printf '%064d' 0)
if dm_create bbcrypt "0 $(sectors /dev/vdc) crypt aes-xts-plain64 $key 0 /dev/vdc 0" &&
	crypt=$(dm_kname bbcrypt) &&
	dm_create bblv "0 $(($(sectors /dev/vdc) / 2)) linear /dev/$crypt 0" &&
	lv=$(dm_kname bblv) && mke2fs -q -F -t ext4 "/dev/$lv" > /dev/null 2>&1 &&
	mkdir -p /mnt/lv && mount -t ext4 "/dev/$lv" /mnt/lv; then
	dd if=/dev/zero of=/mnt/lv/img bs=1M count=16 conv=fsync 2> /dev/null
	snap "$lv" "$crypt" vdc
	fail0=$FAIL
	if run crypt --trace "$lv" --file /mnt/lv/img --rw read --bs 512,128k --size 16M \
		--drop-caches --json "$W/crypt.json"; then
		j=$W/crypt.json
		expect_eq "crypt stack: $crypt under $lv" "$(jqv "$j" .stack.layers[0].device.name)" "$crypt"
		expect_eq "crypt stack: vdc under $crypt" "$(jqv "$j" .stack.layers[1].device.name)" vdc
		# dm-crypt and dm-linear move each byte once: x1 at every layer.
		for r in 0 1; do
			top=$(jqv "$j" ".runs[$r].block.read.bytes")
			expect_cmp "crypt stack run $r: the file read from disk" "$top" ">=" $((15 * MiB))
			expect_eq "crypt stack run $r: $crypt bytes == $lv bytes" \
				"$(jqv "$j" "[.runs[$r].layers[] | select(.device == \"$crypt\") | .block.read.bytes][0]")" "$top"
			expect_eq "crypt stack run $r: vdc bytes == $lv bytes" \
				"$(jqv "$j" "[.runs[$r].layers[] | select(.device == \"vdc\") | .block.read.bytes][0]")" "$top"
		done
		# Every layer: the sum over the runs against its diskstats over the whole tool run.
		# Bytes are exact at every layer. The count a dm device puts in diskstats depends
		# on the kernel: the bios (6.12), or every piece it maps, the bios plus the
		# remainders it split off and resubmitted (7.x, dm-crypt bounding its reads).
		sum() { jqv "$j" "[.runs[].layers[] | select(.device == \"$1\") | .block.read.$2] | add"; }
		splits() { jqv "$j" "[.runs[].layers[] | select(.device == \"$1\") | .block.splits] | add"; }
		expect_eq "crypt stack: $lv bytes == diskstats" \
			"$(jqv "$j" '[.runs[].block.read.bytes] | add')" $(($(delta "$lv" 3) * 512))
		expect_eq "crypt stack: $crypt bytes == diskstats" "$(sum "$crypt" bytes)" \
			$(($(delta "$crypt" 3) * 512))
		expect_eq "crypt stack: vdc bytes == diskstats" "$(sum vdc bytes)" $(($(delta vdc 3) * 512))
		expect_eq "crypt stack: vdc requests == diskstats" "$(sum vdc requests)" "$(delta vdc 1)"
		n=$(delta "$crypt" 1) bios=$(sum "$crypt" requests)
		expect_cmp "crypt stack: $crypt diskstats >= its bios" "$n" ">=" "$bios"
		expect_cmp "crypt stack: $crypt diskstats <= its bios + splits" "$n" "<=" \
			$((bios + $(splits "$crypt")))
	fi
	[ "$FAIL" -eq "$fail0" ] || sed -n '/^run\|^  stack/,/^$/p;/findings:/,/^$/p' "$W/crypt.out"
	umount /mnt/lv
fi
[ -n "${lv:-}" ] || not_ok "crypt stack: cannot build dm-crypt + linear + ext4"
dm_remove bblv
dm_remove bbcrypt

# S5. A loop device whose backing file is on ext4 on vdd: the loop device and vdd traced
# together, vdd found through the backing file.
if mke2fs -q -F -t ext4 /dev/vdd > /dev/null 2>&1 && mkdir -p /mnt/vdd &&
	mount -t ext4 /dev/vdd /mnt/vdd; then
	dd if=/dev/urandom of=/mnt/vdd/backing bs=1M count=32 conv=fsync 2> /dev/null
	echo 3 > /proc/sys/vm/drop_caches
	if L=$(losetup -f --show /mnt/vdd/backing); then
		l=$(basename "$L")
		snap "$l" vdd
		if run loopstack --trace "$l" --json "$W/ls.json" -- \
			dd if="$L" of=/dev/null bs=4k count=2048 iflag=direct; then
			j=$W/ls.json
			expect_eq "loop stack: vdd holds the backing file" \
				"$(jqv "$j" '.stack.layers[0] | .device.name + " " + .link')" "vdd backing_file"
			expect_eq "loop stack: $l requests == diskstats" \
				"$(jqv "$j" .runs[0].block.read.requests)" "$(delta "$l" 1)"
			expect_eq "loop stack: vdd requests == diskstats" "$(layer_count "$j" vdd read)" \
				"$(delta vdd 1)"
			expect_cmp "loop stack: vdd read the 8 MiB" "$(layer_bytes "$j" vdd read)" ">=" \
				$((8 * MiB))
			grep -q "$l reads: .* on vdd" "$W/loopstack.out" && ok "loop stack: the finding" ||
				not_ok "loop stack: no finding for $l -> vdd"
		fi
		losetup -d "$L"
	fi
	umount /mnt/vdd
else
	not_ok "loop stack: cannot make ext4 on vdd"
fi

# info draws the stack.
if dm_create bbinfo "0 $(sectors /dev/vdc) linear /dev/vdc 0"; then
	dm=$(dm_kname bbinfo)
	"$BB" info "$dm" --json > "$W/info-dm.json" 2> "$W/info-dm.err"
	expect_eq "info $dm: kind" "$(jqv "$W/info-dm.json" .stack.kind)" "dm-linear"
	expect_eq "info $dm: vdc under it" "$(jqv "$W/info-dm.json" .stack.layers[0].device.name)" vdc
	"$BB" info "$dm" > "$W/info-dm.txt" 2>&1
	grep -q "^stack (traced with $dm)" "$W/info-dm.txt" && ok "info $dm: the stack drawn" ||
		not_ok "info $dm: no stack in the text"
	dm_remove bbinfo
fi
