#!/bin/bash
# The checks `make xentest` runs inside each Xen PV guest (tests/xen/domu-init runs it at
# every boot; BOOT is the boot's number). Every count is checked against the guest's own
# /proc/diskstats, what the backend offers against xenstore-read, the segments against
# what xen-blkfront's rules give.
#
# Disks (dom0's loop devices, served by blkback): xvda (raw reads and writes), xvdb
# (partitioned here), xvdc (ext4, the seeds' dd experiment), xvdz (this root).
# bbsweep=1 on the kernel command line (dom0 gives it to one guest): the checks that
# span reboots too, one step a boot, where /xentest/step says; the script writes
# /xentest/next "reboot" when it wants the next boot. bbmq=1 (one more boot of one guest,
# with 2 vCPUs): the multi-queue checks of guest-mq.sh instead.
#
# Forks cost ~50 ms here and jq ~2 s (PV under TCG): one jq call reads every value of a
# file it needs (vals).
set -u
. /xentest/guest-lib.sh
STEP_FILE=/xentest/step
SWEEP=0 MQ=0
for arg in $(cat /proc/cmdline); do
	case $arg in bbsweep=1) SWEEP=1 ;; bbmq=1) MQ=1 ;; esac
done
step=$(cat "$STEP_FILE" 2> /dev/null || echo 1)
echo "kernel $(uname -r), boot ${BOOT:-1}, step $step of the sweep checks (bbsweep=$SWEEP)"

# vals FILE FILTER...: the filters' values, tab-separated, into the array V (one element
# a filter, "" for what the file does not have).
vals() {
	local f=$1 n=$(($# - 1)) i prog="" filter IFS=$'\t'
	shift
	for filter in "$@"; do prog+="${prog:+,}($filter)"; done
	read -r -a V <<< "$(jq -r "[$prog] | map(tostring) | @tsv" "$f" 2> /dev/null)"
	for ((i = ${#V[@]}; i < n; i++)); do V[i]=""; done
}
reboot_next() { echo "$1" > "$STEP_FILE"; echo reboot > /xentest/next; sync; }
param() { cat /sys/module/xen_blkfront/parameters/max_indirect_segments; }
q() { cat "/sys/block/$1/queue/$2"; }

# The xvda read check: 32 MiB of 1 MiB direct reads = 32 x ceil(256 pages / segments)
# requests of segments x 4 KiB (the last of each MiB smaller when segments do not divide
# 256), equal to diskstats; both program flavours unless one is named.
read_check() { # LABEL [FLAVOUR...]
	local label=$1 seg per want size c0 flavour force j rc flavours=("${@:2}")
	[ ${#flavours[@]} -gt 0 ] || flavours=(tp_btf raw_tp)
	seg=$(q xvda max_segments)
	per=$(((256 + seg - 1) / seg))
	want=$((32 * per))
	size=$((seg * 4096))
	for flavour in "${flavours[@]}"; do
			force=()
			[ "$flavour" = raw_tp ] && force=(--raw-tp)
			j=$W/read-$flavour.json
			c0=$(diskstat 1 xvda)
			# The raw_tp run takes the ring's kprobes too: both sets, on kernels with fentry.
			[ "$flavour" = raw_tp ] && export BLKTRACE_BENCH_KPROBES=1
			run "read-$label-$flavour" --trace xvda --raw --rw read --bs 1M --size 32M --direct \
				"${force[@]}" --json "$j"
			rc=$?
			unset BLKTRACE_BENCH_KPROBES
			[ $rc = 0 ] || continue
			vals "$j" .tracer.flavour .runs[0].block.read.requests \
				.runs[0].block.request_bytes.p50 .runs[0].block.request_bytes.max \
				.runs[0].block.segments.max .runs[0].findings[0].kind \
				.runs[0].findings[0].text '.tracer.skipped_runs // 0'
			t="xvda $label $flavour ($seg segments)"
			expect_eq "$t: flavour" "${V[0]}" "$flavour"
			# Short by no more than the runs of our programs the kernel skipped (one
			# issuing from the event channel's interrupt while it ran), as at iodepth below.
			if [ "${V[7]}" = 0 ]; then
				expect_eq "$t: requests" "${V[1]}" "$want"
			else
				echo "  ($t: the kernel skipped ${V[7]} runs of our programs)"
				expect_cmp "$t: requests <= $want" "${V[1]}" "<=" "$want"
				expect_cmp "$t: requests + skipped runs >= $want" $((V[1] + V[7])) ">=" "$want"
			fi
			expect_eq "$t: requests == diskstats" "$(($(diskstat 1 xvda) - c0))" "$want"
			expect_eq "$t: request size p50" "${V[2]}" "$size"
			expect_eq "$t: largest request" "${V[3]}" "$size"
			expect_eq "$t: segments per request, largest" "${V[4]}" "$seg"
			expect_eq "$t: the first finding is the segment cap" "${V[5]}" max_segments
			case "${V[6]}" in
			*xen_blkfront.max_indirect_segments*) ok "$t: the finding names the parameter" ;;
			*) not_ok "$t: the finding names the parameter: ${V[6]}" ;;
			esac
			ring_check "$t" "$j" "$seg" "$want" "${V[7]}" "$flavour"
	done
}

# The ring's view of those reads (the probes on xen-blkfront): every request on the
# ring, direct (<= 11 grants: BLKIF_MAX_SEGMENTS_PER_REQUEST) or indirect as the
# segments decide, its grants per request exactly the block layer's segments per
# request, bucket by bucket, and a backend time for each.
ring_check() { # LABEL JSON SEGMENTS REQUESTS SKIPPED FLAVOUR
	local t="$1 ring" j=$2 seg=$3 want=$4 skipped=$5 how kind other
	# fentry where the module has BTF and the kernel can attach a trampoline to a
	# function (ftrace's direct calls: arm64 has them from 6.4), kprobes otherwise.
	how=fentry
	[ -e /sys/kernel/btf/xen_blkfront ] && [ "$6" != raw_tp ] &&
		grep -q ' register_ftrace_direct$' /proc/kallsyms || how=kprobe
	[ "$seg" -gt 11 ] && kind=indirect other=direct || kind=direct other=indirect
	vals "$j" .tracer.xen_ring_probes .runs[0].block.xen_ring.requests \
		".runs[0].block.xen_ring.$kind" ".runs[0].block.xen_ring.$other" \
		.runs[0].block.xen_ring.grants \
		'[.runs[0].block.segments.buckets[] | .lo * .count] | add' \
		"(.runs[0].block.xen_ring.grants_$kind.buckets == .runs[0].block.segments.buckets)" \
		.runs[0].block.xen_ring.indirect_pages .runs[0].block.xen_ring.backend_ns.count \
		.runs[0].block.xen_ring.unmatched .runs[0].block.read.requests \
		".runs[0].block.xen_ring.grants_$kind.max"
	expect_eq "$t: probes" "${V[0]}" $how ||
		echo "  ($t: $(jq -r '.tracer.xen_ring_note // "no note"' "$j"))"
	expect_eq "$t: none $other" "${V[3]}" 0
	expect_eq "$t: most grants in a request == the segments" "${V[11]}" "$seg"
	expect_eq "$t: nothing unmatched" "${V[9]}" 0
	# Where the kernel skipped runs of our programs (tracer.skipped_runs, the ring's
	# included), each count is short by no more than those.
	if [ "$skipped" != 0 ]; then
		expect_cmp "$t: requests on the ring <= diskstats" "${V[1]}" "<=" "$want"
		expect_cmp "$t: requests on the ring + skipped runs >= diskstats" \
			$((V[1] + skipped)) ">=" "$want"
		return
	fi
	# Kprobes: the kernel skips, and counts nowhere, a kprobe that fires while another of
	# ours runs on the CPU (a request dispatched from an interrupt that came during one):
	# now and then a request goes unseen (1 of 768 once, on 5.10).
	if [ $how = kprobe ] && [ "${V[1]}" != "$want" ]; then
		echo "  ($t: $((want - V[1])) requests unseen by the kprobes)"
		expect_cmp "$t: requests on the ring <= diskstats" "${V[1]}" "<=" "$want"
		expect_cmp "$t: requests on the ring >= diskstats - 2" "${V[1]}" ">=" $((want - 2))
		expect_eq "$t: all $kind" "${V[2]}" "${V[1]}"
		return
	fi
	expect_eq "$t: requests on the ring == diskstats" "${V[1]}" "$want"
	expect_eq "$t: all $kind" "${V[2]}" "$want"
	expect_eq "$t: grants == 8192 (32 MiB / 4 KiB)" "${V[4]}" 8192
	if [ $kind = indirect ]; then
		expect_eq "$t: one page of indirect descriptors each" "${V[7]}" "$want"
	else
		expect_eq "$t: no indirect pages" "${V[7]}" 0
	fi
	expect_eq "$t: a backend time for each request" "${V[8]}" "$want"
	expect_eq "$t: grants == the block layer's segments" "${V[4]}" "${V[5]}"
	expect_eq "$t: grants per request == segments per request, bucket by bucket" "${V[6]}" true
}

# What info says of xvda, against sysfs and xenstore (xenstore-read, Debian's client).
info_check() { # LABEL
	local t="info xvda ($1)" be fe reason
	"$BB" info xvda --json > "$W/info.json" 2> "$W/info.err" ||
		{ not_ok "$t: $(cat "$W/info.err")"; return; }
	"$BB" info xvda > "$W/info.txt" 2>&1
	vals "$W/info.json" .device.driver .device.xen_blkfront.segments \
		.device.xen_blkfront.max_indirect_segments .device.xen_blkfront.max_request_bytes \
		.device.xen_blkfront.backend.max_indirect_segments \
		.device.xen_blkfront.segments_in_effect .device.xen_blkfront.segments_reason \
		.device.xen_blkfront.frontend .device.xen_blkfront.xenstore_error \
		.device.xen_blkfront.backend.persistent_grants .device.xen_blkfront.ring_requests
	fe=device/vbd/51712
	be=$(xenstore-read "$(xenstore-read $fe/backend)/feature-max-indirect-segments")
	expect_eq "$t: driver" "${V[0]}" vbd
	expect_eq "$t: segments == queue/max_segments" "${V[1]}" "$(q xvda max_segments)"
	expect_eq "$t: max_indirect_segments == the module's" "${V[2]}" "$(param)"
	expect_eq "$t: largest request" "${V[3]}" "$(($(q xvda max_segments) * 4096))"
	expect_eq "$t: the frontend's node" "${V[7]}" $fe
	expect_eq "$t: xenstore read" "${V[8]}" null
	expect_eq "$t: the backend's offer == xenstore-read's" "${V[4]}" "$be"
	expect_eq "$t: segments in effect == queue/max_segments" "${V[5]}" "$(q xvda max_segments)"
	reason=module_asks
	[ "$(param)" -gt 11 ] || reason=module_turns_off
	[ "$(param)" -le "$be" ] || reason=backend_caps
	expect_eq "$t: why the segments are what they are" "${V[6]}" $reason
	expect_eq "$t: persistent grants, as both sides say" "${V[9]}" \
		"$([ "$(xenstore-read $fe/feature-persistent 2> /dev/null)" = 1 ] &&
			[ "$(xenstore-read "$(xenstore-read $fe/backend)/feature-persistent")" = 1 ] &&
			echo 1 || echo 0)"
	expect_eq "$t: a one-page ring holds 32 requests" "${V[10]}" 32
	grep -q "^  backend offers  *$be indirect segments" "$W/info.txt" &&
		ok "$t: the text says the backend's offer" ||
		not_ok "$t: the text says the backend's offer"
}

# The partition filter: xvdb1 traced, xvdb2's reads beside it not counted.
partition_check() {
	local p0 q0 i=0
	if [ ! -b /dev/xvdb2 ]; then
		printf 'label: dos\n2048,65536\n67584,65536\n' | sfdisk -q /dev/xvdb > /dev/null 2>&1
		blockdev --rereadpt /dev/xvdb 2> /dev/null
	fi
	while [ ! -b /dev/xvdb2 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -b /dev/xvdb2 ] || { not_ok "partition: xvdb1/xvdb2 did not appear"; return; }
	p0=$(diskstat 1 xvdb1)
	q0=$(diskstat 1 xvdb2)
	run part --trace xvdb1 --json "$W/part.json" -- sh -c \
		'dd if=/dev/xvdb1 of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null &&
		 dd if=/dev/xvdb2 of=/dev/null bs=64k count=8 iflag=direct 2>/dev/null' || return
	vals "$W/part.json" .runs[0].block.read.requests
	expect_eq "partition xvdb1: its reads alone" "${V[0]}" $(($(diskstat 1 xvdb1) - p0))
	expect_eq "partition xvdb1: diskstats" $(($(diskstat 1 xvdb1) - p0)) 16
	expect_eq "partition xvdb2: diskstats (not traced)" $(($(diskstat 1 xvdb2) - q0)) 8
}

# Two disks in one run, a result each.
two_disks_check() {
	local a0 b0
	a0=$(diskstat 1 xvda)
	b0=$(diskstat 1 xvdb)
	run two --trace xvda,xvdb --json "$W/two.json" -- sh -c \
		'dd if=/dev/xvda of=/dev/null bs=64k count=24 iflag=direct 2>/dev/null &&
		 dd if=/dev/xvdb of=/dev/null bs=64k count=8 iflag=direct 2>/dev/null' || return
	vals "$W/two.json" '.results[] | select(.device.name == "xvda") | .runs[0].block.read.requests' \
		'.results[] | select(.device.name == "xvdb") | .runs[0].block.read.requests'
	expect_eq "xvda,xvdb: xvda's reads == diskstats" "${V[0]}" $(($(diskstat 1 xvda) - a0))
	expect_eq "xvda,xvdb: xvdb's reads == diskstats" "${V[1]}" $(($(diskstat 1 xvdb) - b0))
}

# Writes ended by fsync: the writes as diskstats counts them. The fsync's flush is an
# empty write with REQ_PREFLUSH that the kernel's flush machinery completes without
# issuing (the tool's "unissued"), after a flush request of its own (the tool's flush):
# diskstats counts the empty write as a write, and the flush request only where the
# kernel accounts flushes (field 15; 0 on 6.1's xen-blkfront).
fsync_check() {
	local w0 f0
	w0=$(diskstat 5 xvda)
	f0=$(diskstat 15 xvda)
	run fsync --trace xvda --raw --rw write --bs 1M --size 8M --fsync --destructive \
		--json "$W/fsync.json" || return
	vals "$W/fsync.json" .runs[0].block.write.requests .runs[0].block.unissued \
		.runs[0].block.flush.requests
	expect_eq "fsync: writes + the empty pre-flush write == diskstats writes" \
		$((V[0] + V[1])) $(($(diskstat 5 xvda) - w0)) ||
		jq -c '.runs[0].block | del(.request_bytes, .segments, .queue_depth, .device_ns,
			.queue_ns, .total_ns, .bytes_per_segment)' "$W/fsync.json" | head -c 2000
	expect_cmp "fsync: a flush request issued" "${V[2]}" ">=" 1
	f0=$(($(diskstat 15 xvda) - f0))
	[ "$f0" = 0 ] || expect_eq "fsync: flushes == diskstats (kernel counts them)" "${V[2]}" "$f0"
}

# Queue depth on io_uring: never above the I/O depth, nor above what the ring holds (32
# requests a page: the disk's tags); at 64 the requests beyond the ring wait in the guest.
depth_check() {
	local depth c0 tags ring
	tags=$(cat /sys/block/xvda/mq/0/nr_tags)
	for depth in 4 32 64; do
		c0=$(diskstat 1 xvda)
		run "depth-$depth" --trace xvda --raw --rw randread --bs 4k --size 8M --direct \
			--engine io_uring --iodepth $depth --json "$W/qd.json" || continue
		vals "$W/qd.json" .runs[0].block.queue_depth.max .runs[0].block.read.requests \
			'.runs[0].block.read.requests + .runs[0].block.merges + .runs[0].block.request_merges' \
			'.tracer.skipped_runs // 0' .runs[0].block.xen_ring.fulls \
			.runs[0].block.xen_ring.full_share .runs[0].block.xen_ring.occupancy.max \
			.runs[0].block.xen_ring.requests
		ring=$((depth < tags ? depth : tags))
		# The ring (32 slots) fills at iodepth 32 and above, never below.
		if [ $depth -lt "$tags" ]; then
			expect_eq "iodepth $depth: the ring never full" "${V[4]}" 0
			expect_cmp "iodepth $depth: ring slots in use <= $depth" "${V[6]}" "<=" $depth
		else
			expect_cmp "iodepth $depth: the ring filled" "${V[4]}" ">" 0
			expect_eq "iodepth $depth: ring slots in use, most == $tags" "${V[6]}" "$tags"
			awk -v s="${V[5]}" 'BEGIN { exit !(s > 0) }' &&
				ok "iodepth $depth: full a share of the time (${V[5]})" ||
				not_ok "iodepth $depth: full a share of the time (${V[5]})"
		fi
		expect_cmp "iodepth $depth: max depth <= $ring (iodepth, ring of $tags)" "${V[0]}" "<=" $ring
		expect_cmp "iodepth $depth: max depth > 1" "${V[0]}" ">" 1
		# A read is a request, a bio merged into one, or a request merged into another. Where
		# the kernel skipped a run of our programs (one issuing from the event channel's
		# interrupt while it ran on the one vCPU) the counts fall short by no more than that.
		if [ "${V[3]}" = 0 ]; then
			expect_eq "iodepth $depth: requests on the ring == diskstats" "${V[7]}" \
				$(($(diskstat 1 xvda) - c0))
			expect_eq "iodepth $depth: requests == diskstats" "${V[1]}" $(($(diskstat 1 xvda) - c0))
			expect_eq "iodepth $depth: requests + merges == 2048 reads" "${V[2]}" 2048
		else
			echo "  (iodepth $depth: the kernel skipped ${V[3]} runs of our programs)"
			expect_cmp "iodepth $depth: requests <= diskstats" "${V[1]}" "<=" \
				$(($(diskstat 1 xvda) - c0))
			expect_cmp "iodepth $depth: requests + skipped runs >= diskstats" \
				$((V[1] + V[3])) ">=" $(($(diskstat 1 xvda) - c0))
			expect_cmp "iodepth $depth: requests on the ring + skipped runs >= diskstats" \
				$((V[7] + V[3])) ">=" $(($(diskstat 1 xvda) - c0))
			expect_cmp "iodepth $depth: requests + merges + skipped runs >= 2048 reads" \
				$((V[2] + V[3])) ">=" 2048
		fi
	done
}

# The seeds' dd workload traced on both sides at once: the guest asks dom0 (its own
# xenstore node data/bb, which dom0 can read and write: "want"), dom0 starts tracing the
# loop device blkback serves xvda from and answers "tracing", the guest runs the reads
# and says "done", and dom0's trace ends. The results go out for the host's
# `compare GUEST.json DOM0.json` (tests/xen/dom0-checks.sh).
link_check() {
	local i=0 state
	xenstore-write data/bb want || { not_ok "linked run: xenstore-write data/bb"; return; }
	while state=$(xenstore-read data/bb 2> /dev/null) && [ "$state" != tracing ] && [ $i -lt 480 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	if [ "$state" != tracing ]; then
		not_ok "linked run: dom0 did not start tracing (data/bb: $state)"
		xenstore-write data/bb "done"
		return
	fi
	ok "linked run: dom0 traces xvda's disk"
	run link --trace xvda --raw --rw read --bs 1M --size 32M --direct --json "$W/link.json"
	xenstore-write data/bb "done"
	cp "$W/link.json" /xentest/results/link-guest.json
	cp "$W/link.out" /xentest/results/link-guest.txt
}

# The exporter of a xen-blkfront disk: the ring's families, counting what the ring took.
serve_check() {
	local serve port i got r0 series
	ip link set lo up 2> /dev/null || ifconfig lo 127.0.0.1 up 2> /dev/null
	"$BB" serve --trace xvda --listen 127.0.0.1:0 --duration 120 2> "$W/serve.err" &
	serve=$!
	for i in $(seq 1 600); do grep -q 'serving http' "$W/serve.err" && break; sleep 0.1; done
	port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$W/serve.err")
	if [ -z "$port" ]; then
		not_ok "serve did not start: $(head -c 300 "$W/serve.err")"
		kill -TERM "$serve" 2> /dev/null
		wait "$serve"
		return
	fi
	r0=$(diskstat 1 xvda)
	dd if=/dev/xvda of=/dev/null bs=1M count=16 iflag=direct 2> /dev/null
	r0=$(($(diskstat 1 xvda) - r0))
	series='blktrace_bench_xen_ring_requests_total{device="xvda",driver="vbd",kind="indirect"}'
	[ "$(q xvda max_segments)" -gt 11 ] ||
		series='blktrace_bench_xen_ring_requests_total{device="xvda",driver="vbd",kind="direct"}'
	got=$(scrape "$port" "$series" "$r0")
	expect_eq "serve: the ring's requests == diskstats ($r0)" "$got" "$r0"
	kill -TERM "$serve" 2> /dev/null
	wait "$serve"
}

# Where xen_blkfront has no BTF (5.10), the probes read its structures by a layout taken
# as known rather than relocated: that path is checked at 0 (11 segments, direct) and 256
# segments too, a boot each (the module's parameter in modprobe.d and the initramfs
# rebuilt, as the sweep does), then the file goes.
RING_CONF=/etc/modprobe.d/blktrace-bench-ring.conf
ring_boots() {
	local rs next
	rs=$(cat /xentest/ringstep 2> /dev/null || echo 1)
	case $rs in
	1) echo "options xen_blkfront max_indirect_segments=0" > $RING_CONF && next=2 ;;
	2) echo "options xen_blkfront max_indirect_segments=256" > $RING_CONF && next=3 ;;
	*)
		rm -f $RING_CONF
		update-initramfs -u > /dev/null
		echo "done" > /xentest/ringstep
		return
		;;
	esac
	update-initramfs -u > /dev/null
	echo $next > /xentest/ringstep
	echo reboot > /xentest/next
	sync
}

facts() {
	local d
	for d in /sys/block/xvd?; do
		echo "  ${d##*/}: max_segments=$(q "${d##*/}" max_segments)" \
			"max_hw_sectors_kb=$(q "${d##*/}" max_hw_sectors_kb)" \
			"nr_requests=$(q "${d##*/}" nr_requests) scheduler=$(q "${d##*/}" scheduler)"
	done
	echo "  xen_blkfront: $(cd /sys/module/xen_blkfront/parameters && grep . ./* | tr '\n' ' ')"
}
facts

# The multi-queue boot (dom0 gives one guest 2 vCPUs and bbmq=1 after its other boots):
# its own checks only (guest-mq.sh).
if [ $MQ = 1 ]; then
	. /xentest/guest-mq.sh
	[ $FAIL -eq 0 ] || { echo "--- kernel log"; dmesg | tail -30; }
	echo "RESULT passed=$PASS failed=$FAIL skipped=$SKIP"
	exit 0
fi

# Every boot: the reads, and what info says, at the segments this boot has.
label="boot $step"
[ $SWEEP = 1 ] || label="boot ${BOOT:-1}"
read_check "$label"
info_check "$label"
if [ "$step" = 1 ] && [ "${BOOT:-1}" = 1 ]; then
	link_check
	serve_check
	partition_check
	two_disks_check
	fsync_check
	depth_check
fi
[ $SWEEP = 1 ] && . /xentest/guest-sweep.sh
[ $SWEEP = 1 ] || [ -e /sys/kernel/btf/xen_blkfront ] || [ "$(cat /xentest/ringstep 2> /dev/null)" = "done" ] ||
	ring_boots
[ $FAIL -eq 0 ] || { echo "--- kernel log"; dmesg | tail -30; }
echo "RESULT passed=$PASS failed=$FAIL skipped=$SKIP"
