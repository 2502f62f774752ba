#!/bin/bash
# The checks of `make xentest`'s multi-queue boot (sourced by guest-xen.sh when dom0 gives
# bbmq=1): the guest has 2 vCPUs, and xen-blkfront gives xvda a ring per vCPU (blkback
# offers as many as dom0 has CPUs), each ring a hardware queue of the disk. Two jobs,
# one pinned to each vCPU, of 8 synchronous O_DIRECT readers each (busybox dd), under
# one trace of xvda, both program flavours. Asserted against the guest's /proc/diskstats,
# the queues sysfs lists, and the block layer's own queue of each request:
#   - every read counted, each queue's requests summing to them, both queues used;
#   - each queue's depth at most 8 (its one job), the disk's at most 16;
#   - on the ring side (xen-blkfront's probes): every request on a ring, each ring's
#     requests those of the hardware queue it serves, a backend time for each.
set -u
CPUS=$(grep -c '^processor' /proc/cpuinfo)
READERS=8 BLOCKS=32 BS=64k
queues=$(ls /sys/block/xvda/mq | wc -l)
echo "multi-queue boot: $CPUS vCPUs; xvda: $queues queues;" \
	"xen_blkfront.max_queues=$(cat /sys/module/xen_blkfront/parameters/max_queues 2> /dev/null)"

export CPUS READERS BLOCKS BS # pinned_readers' (guest-lib.sh)

expect_eq "xvda: a ring per vCPU, a hardware queue each" "$queues" "$CPUS"
for flavour in tp_btf raw_tp; do
	t="xvda mq $flavour" flag=() b=.runs[0].block r=.runs[0].block.xen_ring
	j=$W/mq-$flavour.json
	[ $flavour = raw_tp ] && flag=(--raw-tp) && export BLKTRACE_BENCH_KPROBES=1
	c0=$(diskstat 1 xvda)
	run "mq-$flavour" "${flag[@]}" --trace xvda --json "$j" -- bash -c "pinned_readers xvda"
	rc=$?
	unset BLKTRACE_BENCH_KPROBES
	[ $rc = 0 ] || continue
	want=$(($(diskstat 1 xvda) - c0))
	vals "$j" "$b.read.requests" '.tracer.skipped_runs // 0' "$b.hw_queues.count" \
		"[$b.hw_queues.queues[].requests] | add" \
		"[$b.hw_queues.queues[] | select(.requests > 0)] | length" \
		"[$b.hw_queues.queues[].max_depth] | max" "$b.queue_depth.max" \
		"$r.requests" "$r.backend_ns.count" "[$r.rings[].requests] | add" \
		"[$r.rings[] | select(.requests > 0)] | length" \
		"[$b.hw_queues.queues[] | [.queue, .requests]] == [$r.rings[] | [.ring, .requests]]" \
		"$r.unmatched" "$b.hw_queues.depth.max"
	expect_eq "$t: every 64 KiB read one request (diskstats)" "$want" \
		$((CPUS * READERS * BLOCKS))
	if [ "${V[1]}" = 0 ]; then
		expect_eq "$t: reads == diskstats" "${V[0]}" "$want"
		# Kprobes (the raw_tp run takes them): the kernel skips, and counts nowhere, one
		# that fires while another of ours runs on the CPU (guest-xen.sh's ring_check).
		if [ $flavour = raw_tp ] && [ "${V[7]}" != "$want" ]; then
			echo "  ($t: $((want - V[7])) requests unseen by the kprobes)"
			expect_cmp "$t: requests on the rings <= diskstats" "${V[7]}" "<=" "$want"
			expect_cmp "$t: requests on the rings >= diskstats - 2" "${V[7]}" ">=" \
				$((want - 2))
		else
			expect_eq "$t: requests on the rings == diskstats" "${V[7]}" "$want"
			expect_eq "$t: each ring's requests are its hardware queue's" "${V[11]}" true
			expect_eq "$t: a backend time for each request on the rings" "${V[8]}" "${V[7]}"
		fi
	else
		# Skipped runs (7.3: an issue from the event channel's interrupt on a CPU where
		# the issue program runs already): each count short by no more than those.
		echo "  ($t: the kernel skipped ${V[1]} runs of our programs)"
		expect_cmp "$t: reads <= diskstats" "${V[0]}" "<=" "$want"
		expect_cmp "$t: reads + skipped runs >= diskstats" $((V[0] + V[1])) ">=" "$want"
		expect_cmp "$t: requests on the rings <= diskstats" "${V[7]}" "<=" "$want"
		expect_cmp "$t: requests on the rings + skipped runs >= diskstats" \
			$((V[7] + V[1])) ">=" "$want"
		expect_cmp "$t: backend times <= diskstats" "${V[8]}" "<=" "$want"
		expect_cmp "$t: backend times + skipped runs >= diskstats" $((V[8] + V[1])) ">=" \
			"$want"
	fi
	expect_eq "$t: the tool sees $queues queues" "${V[2]}" "$queues"
	expect_eq "$t: the queues' requests sum to the reads" "${V[3]}" "${V[0]}"
	expect_eq "$t: every queue took requests" "${V[4]}" "$queues"
	expect_cmp "$t: each queue's depth <= $READERS (its one job)" "${V[5]}" "<=" $READERS
	expect_cmp "$t: its depth histogram's maximum <= $READERS" "${V[13]}" "<=" $READERS
	expect_cmp "$t: the disk's depth <= $((CPUS * READERS))" "${V[6]}" "<=" \
		$((CPUS * READERS))
	expect_eq "$t: the rings' requests sum to the ring total" "${V[9]}" "${V[7]}"
	expect_eq "$t: both rings used" "${V[10]}" "$queues"
	expect_eq "$t: nothing unmatched" "${V[12]}" 0
done
