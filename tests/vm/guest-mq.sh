#!/bin/bash
# The checks of `make vmtest`'s multi-queue guest: 4 vCPUs, a virtio-blk disk of 4 queues
# (vda) and an NVMe namespace whose controller gets a queue per CPU, each queue served
# by its own CPU. Four jobs, one pinned to each CPU, of 8 synchronous O_DIRECT readers
# each (busybox dd: the guest has no fio; 8 readers keep at most 8 requests in flight,
# as one job at iodepth 8 does), under one trace of the disk, both program flavours.
# Asserted against the guest's own /proc/diskstats and the queues sysfs lists:
#   - every read counted (short by no more than the runs the kernel skipped, where it
#     skipped any), each queue's requests summing to them, all 4 queues used;
#   - each queue's depth at most 8 (its one job), the disk's at most 32;
#   - the queue depth histogram has every issue, the disk's a random 1 issue in 16, and
#     the disk's mean depth is above its queues' (the other queues' counts are summed).
# Output as tests/vm/guest.sh: ok/FAIL lines and "RESULT passed=N failed=N skipped=N".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

CPUS=$(grep -c '^processor' /proc/cpuinfo)
READERS=8 BLOCKS=48 BS=64k

NVME=""
for d in /sys/block/nvme*n*; do
	[ -e "$d/dev" ] && NVME=$(basename "$d") && break
done
echo "multi-queue guest: $CPUS CPUs; vda: $(ls /sys/block/vda/mq | wc -l) queues;" \
	"${NVME:-no nvme}: $(ls "/sys/block/$NVME/mq" 2> /dev/null | wc -l) queues"

export CPUS READERS BLOCKS BS # pinned_readers' (guest-lib.sh)

for disk in vda $NVME; do
	queues=$(ls "/sys/block/$disk/mq" | wc -l)
	expect_eq "$disk: a queue per CPU" "$queues" "$CPUS"
	for flavour in tp_btf raw_tp; do
		t="$disk $flavour"
		flag=""
		[ $flavour = raw_tp ] && flag=--raw-tp
		c0=$(diskstat 1 "$disk")
		run "mq-$disk-$flavour" $flag --trace "$disk" --json "$W/mq.json" -- \
			bash -c "pinned_readers $disk" || continue
		j=$W/mq.json b=.runs[0].block
		want=$(($(diskstat 1 "$disk") - c0))
		expect_eq "$t: every 64 KiB read one request (diskstats)" "$want" \
			$((CPUS * READERS * BLOCKS))
		reads=$(jqv "$j" "$b.read.requests")
		# Where the kernel skipped runs of our programs (7.3: a run of the issue program
		# on a CPU where it is running already), the count is short by no more than those.
		skipped=$(jqv "$j" '.tracer.skipped_runs // 0')
		if [ "$skipped" = 0 ]; then
			expect_eq "$t: reads == diskstats" "$reads" "$want"
		else
			echo "  ($t: the kernel skipped $skipped runs of our programs)"
			expect_cmp "$t: reads <= diskstats" "$reads" "<=" "$want"
			expect_cmp "$t: reads + skipped runs >= diskstats" $((reads + skipped)) ">=" \
				"$want"
		fi
		expect_eq "$t: the tool sees $queues queues" "$(jqv "$j" "$b.hw_queues.count")" \
			"$queues"
		expect_eq "$t: the queues' requests sum to the reads" \
			"$(jqv "$j" "[$b.hw_queues.queues[].requests] | add")" "$reads"
		expect_eq "$t: every queue took requests" \
			"$(jqv "$j" "[$b.hw_queues.queues[] | select(.requests > 0)] | length")" \
			"$queues"
		expect_cmp "$t: each queue's depth <= $READERS (its one job)" \
			"$(jqv "$j" "[$b.hw_queues.queues[].max_depth] | max")" "<=" $READERS
		expect_eq "$t: the queue depth histogram has every issue" \
			"$(jqv "$j" "$b.hw_queues.depth.count")" "$reads"
		expect_cmp "$t: its maximum <= $READERS" "$(jqv "$j" "$b.hw_queues.depth.max")" \
			"<=" $READERS
		expect_cmp "$t: the disk's depth <= $((CPUS * READERS))" \
			"$(jqv "$j" "$b.queue_depth.max")" "<=" $((CPUS * READERS))
		# The disk's depth at an issue is its queue's and the others': the sum is read.
		expect_cmp "$t: the disk's mean depth above its queues'" \
			"$(jqv "$j" "$b.queue_depth.mean")" ">" "$(jqv "$j" "$b.hw_queues.depth.mean")"
		# Each issue drawn with probability 1/K and counted K times (or read and counted
		# once after a pause): the count estimates the reads, within 6 sd of them.
		k=$(jqv "$j" "$b.hw_queues.queue_depth_sample_every")
		expect_eq "$t: sampled 1 in 16 (4 x $queues queues, at least 16)" "$k" 16
		expect_eq "$t: the disk's sampling said beside its depth" \
			"$(jqv "$j" "$b.queue_depth_sample_every")" "$k"
		n=$(jqv "$j" "$b.queue_depth.count")
		# sd^2 = reads x (K - 1); squared, as the guest's awk has no sqrt.
		d=$((n - reads))
		expect_cmp "$t: the disk's depth count $n within 6 sd of $reads: (count - reads)^2" \
			$((d * d)) "<=" $((36 * reads * (k - 1)))
		expect_eq "$t: the text report lists the queues" \
			"$(grep -c "^  hardware queues: $queues;" "$W/mq-$disk-$flavour.out")" 1
	done
done

echo "RESULT passed=$PASS failed=$FAIL skipped=$SKIP"
