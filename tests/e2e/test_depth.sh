#!/usr/bin/env bash
# Queue depth is never above what was in flight, also when completions are lost: fio at
# iodepth 16, traced 20 times while about one completion in 200 is ignored on purpose
# (BLKTRACE_BENCH_LOSE_COMPLETIONS, as kernel 6.18 sometimes never reports one). A lost
# completion used to hold the in-flight count until its tag was issued again: maxima of
# 17 to 32. Tracing started while fio runs loses nothing: those requests are counted as
# issued before tracing, and their completions are never taken for lost ones.
. "$(dirname "$0")/lib.sh"

command -v fio > /dev/null || { skip "fio missing (tools/deps.sh test installs it)"; finish; exit; }
make_loop A 256M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")

"$BB" -v --trace "$a" -- true 2> "$TMP/v.err" > /dev/null
if ! grep -q "depth without lost completions" "$TMP/v.err"; then
	skip "this kernel has no bpf_loop (5.17): the depth keeps lost completions ($(uname -r))"
	finish
	exit
fi
# Since 5.19 (this project's host runs newer) a loop disk counts per CPU: what the
# runs below hold exact are those counts, not the queue's.
if awk -v v="$(uname -r)" 'BEGIN { split(v, a, "."); exit !(a[1] > 5 || (a[1] == 5 && a[2] >= 19)) }'; then
	expect_true "a loop disk counted per CPU ($(uname -r))" \
		grep -q "one-queue disks counted per CPU" "$TMP/v.err"
fi

fio_job=(fio --name=qd16 --filename="$A" --rw=randread --bs=4k --direct=1 --ioengine=io_uring
	--iodepth=16 --time_based --runtime=1 --output=/dev/null)
lost=0 over=0 runs=0
for i in $(seq 1 20); do
	BLKTRACE_BENCH_LOSE_COMPLETIONS=200 "$BB" --trace "$a" --json "$TMP/qd.json" -- \
		"${fio_job[@]}" > /dev/null 2> "$TMP/qd.err" || { not_ok "run $i: $(cat "$TMP/qd.err")"; continue; }
	runs=$((runs + 1))
	max=$(jqv "$TMP/qd.json" .runs[0].block.queue_depth.max)
	[ "$max" -le 16 ] || { over=$((over + 1)); echo "  run $i: depth max $max"; }
	lost=$((lost + $(jqv "$TMP/qd.json" .runs[0].block.lost_completions)))
done
expect_eq "20 runs of fio iodepth=16 traced" "$runs" 20
expect_eq "runs whose depth max exceeds iodepth 16" "$over" 0
expect_cmp "completions were lost (and found) in those runs" "$lost" ">" 100
# Every request issued was completed, found lost, or still in flight at the end (16).
j=$TMP/qd.json
expect_cmp "the last run: completed + lost + 16 >= requests" \
	"$(jqv "$j" '.runs[0].block | .completed + .lost_completions + 16')" ">=" \
	"$(jqv "$j" '.runs[0].block | .read.requests')"
expect_cmp "the last run: samples were lowered for lost completions" \
	"$(jqv "$j" .runs[0].block.depth_corrected)" ">" 0
BLKTRACE_BENCH_LOSE_COMPLETIONS=50 "$BB" --trace "$a" -- "${fio_job[@]}" > "$TMP/qd.txt" 2>&1
expect_true "the text names them: lost completions, and the samples lowered" \
	grep -q "lost completions (the kernel ended the requests unseen.*depth samples lowered" \
	"$TMP/qd.txt"

# Tracing started while fio has 16 requests in flight: nothing lost, nothing above 16.
"${fio_job[@]/--runtime=1/--runtime=30}" &
fio_pid=$!
background $fio_pid
over=0
for i in $(seq 1 20); do
	"$BB" --trace "$a" --duration 0.2 --json "$TMP/p.json" > /dev/null 2>&1
	max=$(jqv "$TMP/p.json" .runs[0].block.queue_depth.max)
	[ "${max:-99}" -le 16 ] || { over=$((over + 1)); echo "  passive run $i: depth max $max"; }
done
kill "$fio_pid" 2> /dev/null
wait "$fio_pid" 2> /dev/null
expect_eq "tracing started under load: runs whose depth max exceeds 16" "$over" 0

finish
