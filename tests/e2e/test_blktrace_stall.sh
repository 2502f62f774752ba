#!/usr/bin/env bash
# --blktrace's files stay in time order when a program is held up between the clock it
# reads for a record and that record's count in its epoch (a preempted program, a vCPU
# the host descheduled): BLKTRACE_BENCH_STALL_RECORDS=N stalls about one record in N
# up to ~6 ms there, and drops the writer's 4 ms margin, so that only the CPUs' busy counts
# (bt_enter, btrace_out.c's quiet_ended) keep an epoch from being written before such a
# record is counted. Without them, 4 s of this wrote 20 events late.
# Oracles: no event written late, each CPU's file in time order, and blkparse's issued
# and completed reads those of /proc/diskstats.
. "$(dirname "$0")/lib.sh"

for t in blkparse fio; do
	command -v "$t" > /dev/null || { not_ok "$t is missing (tools/deps.sh test installs it)"; }
done
make_loop A 256M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
export LC_ALL=C

r0=$(diskstat "$A" 1)
BLKTRACE_BENCH_STALL_RECORDS=1000 "$BB" --trace "$a" --blktrace "$TMP/bt" --json "$TMP/live.json" -- \
	fio --name=r --filename="$A" --rw=randread --bs=4k --ioengine=io_uring --iodepth=16 \
	--direct=1 --time_based --runtime=4 --norandommap --output=/dev/null > /dev/null 2> "$TMP/bt.err"
expect_eq "trace: exit 0" "$?" 0
reads=$(($(diskstat "$A" 1) - r0))
expect_cmp "fio read (diskstats)" "$reads" ">" 1000
expect_eq "no event written after a later one of its CPU" "$(jqv "$TMP/live.json" .blktrace.late)" 0
expect_eq "each CPU's file in time order" "$(python3 -c '
import struct, sys
for f in sys.argv[1:]:
	d, off, last = open(f, "rb").read(), 0, 0
	while off + 48 <= len(d):
		_, sq, t, _, _, act, _, _, _, _, pl = struct.unpack("<IIQQIIIIIHH", d[off:off + 48])
		if t < last:
			print(f, "record at", off, "time", t, "after", last)
			break
		last, off = t, off + 48 + pl
' "$TMP"/bt/"$a".blktrace.*)" ""
blkparse -i "$a" -D "$TMP/bt" > "$TMP/bp.txt" 2> /dev/null
# Its event lines: device, CPU, sequence, time, pid, action, RWBS. A read issued (D) for
# each of diskstats'; completed (C) as many, but for those the kernel never reported
# (6.18 on loop, now and then: the aggregate's lost_completions, found when the tag is
# issued again, and a few more whose tags were not; test_blktrace's 9).
read -r d c < <(awk 'NF > 7 && $7 ~ /R/ { n[$6]++ } END { print n["D"] + 0, n["C"] + 0 }' "$TMP/bp.txt")
lost=$(jqv "$TMP/live.json" .runs[0].block.lost_completions)
expect_eq "blkparse: a read issued (D) for each of diskstats'" "$d" "$reads"
expect_cmp "blkparse: no more reads completed (C) than diskstats'" "$c" "<=" "$reads"
expect_cmp "blkparse: reads completed (C), short by the lost completions at most" "$c" ">=" \
	$((reads - ${lost:-0} - 16))
finish
