#!/bin/bash
# --blktrace and import in the guest (sourced by guest.sh, which defines run, ok, not_ok,
# expect_eq, expect_cmp, diskstat, jqv, set_sysfs, restore_all, W, MiB). The oracle is
# the kernel's own blktrace (debugfs works in the guest): it traces the same disk over
# the same workload, and blkparse must print the same events of both traces (action,
# RWBS, sector, size, process); then diskstats, and our own import of both traces.

grep -q " /sys/kernel/debug " /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug

# The events the kernel logs that we do not (plugs, unplugs) aside, per action letter;
# with `plus_skipped`, the events the kernel skipped our programs for added (btrace.h).
actions() { # JSON [plus_skipped]: "C=N D=N ..." of the trace's first set
	jqv "$1" '.blktrace as $b | reduce (if "'"${2:-}"'" == "" then {} else ($b.skipped_runs_by_action // {})
		end | to_entries[]) as $e ($b.sets[0].actions | del(.P, .U, .UT);
		.[$e.key] = ((.[$e.key] // 0) + $e.value)) | to_entries | sort_by(.key) |
		map("\(.key)=\(.value)") | join(" ")'
}
# Every event of a trace as blkparse prints it, plugs and unplugs aside, sorted: action,
# RWBS, sector, blocks, bytes, pid and process. The CPU, sequence and time differ.
events() { # DIR DEV
	blkparse -q -i "$2" -D "$1" -f '%a %d %S %n %N %p %C\n' 2> /dev/null |
		awk '$1 != "P" && $1 != "U" && $1 != "UT" && !/^Input file /' | sort
}

# against_kernel NAME JSON DIR KDIR DEV: our trace (DIR, JSON) against the kernel's (KDIR),
# per action with what the kernel skipped our programs for, then event by event when it
# skipped none. Returns 1 when it skipped some: what needs every event cannot hold.
against_kernel() {
	local t=$1 j=$2 dir=$3 kdir=$4 dev=$5 skipped
	if ! "$BB" import "$kdir" --json "$kdir.json" > /dev/null 2> "$kdir.import.err"; then
		not_ok "$t: import of the kernel's trace: $(head -c 400 "$kdir.import.err")"
	elif grep -q "left out" "$kdir.import.err"; then # a trace stopped mid-write: read as blkparse
		echo "  note $t: import of the kernel's trace: $(grep "left out" "$kdir.import.err")"
	fi
	expect_eq "$t: per action, with what the kernel skipped, as the kernel's blktrace" \
		"$(actions "$j" plus_skipped)" "$(actions "$kdir.json")"
	skipped=$(jqv "$j" '.blktrace.skipped_runs_by_action | to_entries | map("\(.key) \(.value)") | join(", ")')
	if [ -n "$skipped" ]; then
		# Seen on 7.3: the kernel ran one of our programs less often than its own tracer.
		skip "$t: every event, and what needs them all: the kernel skipped ($skipped)"
		return 1
	fi
	events "$dir" "$dev" > "$dir.ev"
	events "$kdir" "$dev" > "$kdir.ev"
	expect_eq "$t: every event as the kernel's blktrace logs it ($(wc -l < "$dir.ev"))" \
		"$(diff "$dir.ev" "$kdir.ev" | grep '^[<>]' | head -8 | tr '\n' ' ')" ""
}

# kernel_trace DEV OUT CMD...: the kernel's blktrace of DEV into OUT while ours runs CMD.
kernel_trace() {
	local dev=$1 out=$2 pid i
	shift 2
	rm -rf "$out" && mkdir -p "$out"
	blktrace -d "/dev/$dev" -D "$out" -o "$dev" > "$out.log" 2>&1 &
	pid=$!
	# It is tracing once its per-CPU files exist.
	for ((i = 0; i < 100; i++)); do
		[ -e "$out/$dev.blktrace.0" ] && break
		sleep 0.1
	done
	"$@"
	local rc=$?
	kill -INT "$pid" 2> /dev/null
	wait "$pid"
	return $rc
}

# B1. Writes that merge (buffered, then sync), 1 MiB direct writes split in four, and
# direct and buffered reads, in both program flavours, beside the kernel's blktrace.
# The command waits until vda has nothing in flight: its figures end at its exit, the
# --blktrace files when the tool detaches, and read-ahead the last dd issued and the
# disk completed after its exit was in the files only (5.10 counted 102 of 103
# completions, 7.3 96 of 103).
set_sysfs /sys/block/vda/queue/max_sectors_kb 256
for flavour in tp_btf raw_tp; do
	force=()
	[ $flavour = raw_tp ] && force=(--raw-tp)
	t="blktrace vda $flavour"
	r0=$(diskstat 1 vda) w0=$(diskstat 5 vda)
	if kernel_trace vda "$W/kbt" run "bt-$flavour" --trace vda --blktrace "$W/bt" \
		--json "$W/bt.json" "${force[@]}" -- sh -c '
		dd if=/dev/zero of=/dev/vda bs=4k count=512 2>/dev/null && sync &&
		dd if=/dev/zero of=/dev/vda bs=1M count=4 seek=8 oflag=direct 2>/dev/null &&
		dd if=/dev/vda of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null &&
		echo 3 > /proc/sys/vm/drop_caches &&
		dd if=/dev/vda of=/dev/null bs=4k count=256 2>/dev/null && i=0 &&
		while read -r r w < /sys/block/vda/inflight && [ $((r + w)) -gt 0 ] &&
			[ $((i += 1)) -le 500 ]; do sleep 0.01; done && [ "$i" -le 500 ]'; then
		j=$W/bt.json
		reads=$(($(diskstat 1 vda) - r0)) writes=$(($(diskstat 5 vda) - w0))
		expect_eq "$t: flavour" "$(jqv "$j" .tracer.flavour)" $flavour
		expect_eq "$t: nothing lost" "$(jqv "$j" .blktrace.lost)" 0
		expect_eq "$t: no event written after a later one of its CPU" \
			"$(jqv "$j" .blktrace.late)" 0
		if against_kernel "$t" "$j" "$W/bt" "$W/kbt" vda; then
			expect_eq "$t: completed reads == diskstats" \
				"$(jqv "$j" .blktrace.sets[0].total.reads_completed)" "$reads"
			expect_eq "$t: completed writes == diskstats" \
				"$(jqv "$j" .blktrace.sets[0].total.writes_completed)" "$writes"
			# The live figures are the aggregate's, whose programs the kernel may
			# skip too, as it does blktrace's on 7.3: equal when it skipped none,
			# short by no more than it skipped otherwise.
			agg=$(jqv "$j" .tracer.skipped_runs)
			if ! [[ $agg =~ ^[0-9]+$ ]]; then
				not_ok "$t: the aggregate's skipped runs: got '$agg', not a count"
			elif run "bt-import-$flavour" import "$W/bt" --json "$W/imp.json"; then
				for k in read.requests write.requests read.bytes write.bytes merges \
					splits completed; do
					imp=$(jqv "$W/imp.json" ".runs[0].block.$k")
					live=$(jqv "$j" ".runs[0].block.$k")
					if [ "$agg" = 0 ]; then
						expect_eq "$t: import == live: $k" "$imp" "$live"
					elif [[ $k != *bytes ]]; then
						expect_cmp "$t: live <= import: $k" "$live" "<=" "$imp"
						expect_cmp "$t: import - live <= skipped by the aggregate: $k" \
							"$((imp - live))" "<=" "$agg"
					fi
				done
			fi
		fi
		expect_cmp "$t: bios merged" "$(jqv "$j" .blktrace.sets[0].actions.M)" ">" 0
		expect_cmp "$t: 3 splits per 1 MiB write at least" \
			"$(jqv "$j" .blktrace.sets[0].actions.X)" ">=" 12
		# The kernel's trace through import: the same requests as diskstats.
		expect_eq "$t: import of the kernel's trace: reads" \
			"$(jqv "$W/kbt.json" .runs[0].block.read.requests)" "$reads"
		expect_eq "$t: import of the kernel's trace: writes" \
			"$(jqv "$W/kbt.json" .runs[0].block.write.requests)" "$writes"
	else
		not_ok "$t: blktrace: $(tail -3 "$W/kbt.log" 2> /dev/null)"
	fi
done
restore_all

# B2. A partition: its bios are remapped (A) onto the disk, and only its I/O is traced.
# vdb2's reads start past its first sector: the kernel's own filter takes the sector
# after a partition's end as its own (act_log_check: sector > end_lba), ours does not.
if [ -e /dev/vdb1 ]; then
	if kernel_trace vdb1 "$W/kbt1" run bt-part --trace vdb1 --blktrace "$W/bt1" \
		--json "$W/bt1.json" -- sh -c '
		dd if=/dev/vdb1 of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null &&
		dd if=/dev/vdb2 of=/dev/null bs=64k count=8 skip=1 iflag=direct 2>/dev/null'; then
		j=$W/bt1.json
		expect_eq "blktrace vdb1: the file set is the partition's" \
			"$(jqv "$j" .blktrace.sets[0].name)" vdb1
		expect_eq "blktrace vdb1: its device number" "$(jqv "$j" .blktrace.sets[0].device)" \
			"$(cat /sys/class/block/vdb1/dev)"
		expect_eq "blktrace vdb1: 16 remaps, 16 reads" \
			"$(jqv "$j" '.blktrace.sets[0].actions | "\(.A) \(.C)"')" "16 16"
		against_kernel "blktrace vdb1" "$j" "$W/bt1" "$W/kbt1" vdb1
	fi
else
	skip "blktrace: no partition vdb1"
fi

# B3. Requeues (R): scsi_debug answers every 4th command "host busy" (guest-requeue.sh
# says how), beside the kernel's blktrace; then import counts them as in its trace.
if scsi_debug_up "blktrace requeue"; then
	echo 4 > "$SD_DIR/every_nth"
	echo 0x8000 > "$SD_DIR/opts" # SDEBUG_OPT_HOST_BUSY
	kernel_trace "$sd" "$W/kbtr" run bt-requeue --trace "$sd" --blktrace "$W/btr" \
		--json "$W/btr.json" -- dd if=/dev/zero of="/dev/$sd" bs=4k count=64 oflag=direct
	echo 0 > "$SD_DIR/opts"
	echo 0 > "$SD_DIR/every_nth"
	j=$W/btr.json
	expect_eq "blktrace requeue: no event written after a later one of its CPU" \
		"$(jqv "$j" .blktrace.late)" 0
	expect_cmp "blktrace requeue: R logged" "$(jqv "$j" '.blktrace.sets[0].actions.R // 0')" \
		">" 0
	against_kernel "blktrace requeue" "$j" "$W/btr" "$W/kbtr" "$sd" &&
		run bt-requeue-import import "$W/btr" --json "$W/btri.json" &&
		expect_eq "blktrace requeue: import of ours == import of the kernel's: requeues" \
			"$(jqv "$W/btri.json" .runs[0].block.requeues)" \
			"$(jqv "$W/kbtr.json" .runs[0].block.requeues)"
	rmmod scsi_debug || not_ok "blktrace requeue: rmmod scsi_debug failed"
fi
