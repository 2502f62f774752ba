#!/usr/bin/env bash
# The depth's sample is decided per CPU, across disks: fio reading 64 disks in turn at
# iodepth 8 keeps its CPU issuing every few microseconds while each disk waits 64 of
# them between its issues (hundreds of microseconds, past the 100 us pause that reads
# every depth). Each disk's depth must still be read on a sample (1 issue in 16 drawn at
# random, counted 16 times), not on every issue as a per-disk pause would: the reads
# summed over the disks are well below their requests, and the counts summed estimate
# the requests within 6 standard deviations (the Horvitz-Thompson weighting; sd
# sqrt(n x 15) for n issues). The requests are held to /proc/diskstats.
. "$(dirname "$0")/lib.sh"

command -v fio > /dev/null || { skip "fio missing (tools/deps.sh test installs it)"; finish; exit; }
N=64
make_loops $N 1M
list=$(IFS=,; echo "${names[*]}")
files=$(IFS=:; echo "${disks[*]}")
reads() { local d s=0; for d in "${disks[@]}"; do s=$((s + $(diskstat "$d" 1))); done; echo $s; }

# 16 MiB of random 4 KiB reads over the 64 disks' first 256 KiB, each block once: 4096
# I/Os, the files taken in turn (fio's file_service_type roundrobin).
r0=$(reads)
"$BB" --trace "$list" --json "$TMP/f.json" -- fio --name=fleet --filename="$files" \
	--rw=randread --bs=4k --size=16M --direct=1 --ioengine=io_uring --iodepth=8 \
	--output=/dev/null > /dev/null 2> "$TMP/f.err"
expect_eq "fio over $N disks traced: exit status" "$?" 0
r1=$(reads)
sum() { jq -r "[.results[].runs[0].block | $1] | add" "$TMP/f.json"; }
n=$(sum .read.requests)
expect_eq "the requests of the $N disks == their diskstats reads" "$n" $((r1 - r0))
expect_eq "requests + merges == the 4096 reads" "$(sum '.read.requests + .merges')" 4096
expect_eq "every disk's depth sampled 1 issue in 16" \
	"$(jq -r '[.results[].runs[0].block.queue_depth_sample_every] | unique | map(tostring) | join(" ")' \
		"$TMP/f.json")" 16
r=$(sum .depth_reads)
# 1/16 of them and those after a pause of the CPU: 3/4 leaves room for a loaded machine
# whose fio sleeps between completions, and is far from every issue.
expect_cmp "the depth read on a sample across the disks (reads $r <= 3/4 of the requests)" \
	"$r" "<=" $((n * 3 / 4))
sd=$(awk -v n="$n" 'BEGIN { printf "%d", sqrt(n * 15) + 1 }')
c=$(sum .queue_depth.count)
expect_cmp "the depth counts summed >= requests - 6 sd ($n - 6 x $sd)" "$c" ">=" $((n - 6 * sd))
expect_cmp "the depth counts summed <= requests + 6 sd ($n + 6 x $sd)" "$c" "<=" $((n + 6 * sd))
finish
