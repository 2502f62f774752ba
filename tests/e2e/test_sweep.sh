#!/usr/bin/env bash
# --set sweeps: each value shapes its runs, and the original value comes back after
# success, after an error and after SIGINT in the middle.
. "$(dirname "$0")/lib.sh"

make_loop A 256M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
msk=/sys/block/$a/queue/max_sectors_kb
orig=$(cat "$msk")
_RESTORE+=("$msk=$orig") # a safety net; the tool itself must restore

# 1. max_sectors_kb=16,64,256 with 1 MiB direct reads: the largest request of each run.
"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct --set max_sectors_kb=16,64,256 \
	--json "$TMP/sweep.json" > /dev/null 2> "$TMP/err"
expect_eq "sweep: exit 0" "$?" 0
expect_eq "sweep: largest request per value" \
	"$(jqv "$TMP/sweep.json" '[.runs[].block.request_bytes.max] | map(tostring) | join(",")')" \
	"16384,65536,262144"
expect_eq "sweep: requests per value (16M / limit)" \
	"$(jqv "$TMP/sweep.json" '[.runs[].block.read.requests] | map(tostring) | join(",")')" \
	"1024,256,64"
expect_eq "sweep: runs labelled with the value" \
	"$(jqv "$TMP/sweep.json" '[.runs[].params.max_sectors_kb] | join(",")')" "16,64,256"
expect_eq "sweep: limit-bound against the run's own limit" \
	"$(jqv "$TMP/sweep.json" '[.runs[].block.limit_bound.max_sectors] | map(tostring) | join(",")')" "1,1,1"
expect_eq "sweep: restored after success" "$(cat "$msk")" "$orig"
expect_true "sweep: says it restored" grep -q "restored max_sectors_kb=$orig" "$TMP/err"

# 1b. --recommend: names a best value and shows the evidence for each.
"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct --set max_sectors_kb=16,256 \
	--repeat 3 --recommend --json "$TMP/rec.json" > "$TMP/rec.txt" 2>&1
expect_eq "recommend: for the swept knob" "$(jqv "$TMP/rec.json" '.recommendation[0].knob')" max_sectors_kb
expect_eq "recommend: evidence for both values" \
	"$(jqv "$TMP/rec.json" '.recommendation[0].evidence | map(.value) | join(",")')" "16,256"
expect_eq "recommend: the best has the highest mean MB/s" \
	"$(jqv "$TMP/rec.json" '.recommendation[0].best')" \
	"$(jqv "$TMP/rec.json" '.recommendation[0].evidence | max_by(.mb_per_s) | .value')"
expect_true "recommend: printed" grep -q "^recommendation (max_sectors_kb)" "$TMP/rec.txt"
expect_eq "recommend: restored" "$(cat "$msk")" "$orig"
"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct --recommend > /dev/null 2> "$TMP/err"
expect_eq "recommend without --set: exit 2" "$?" 2

# 2. Validation before anything runs: above max_hw_sectors_kb is refused, naming it.
hw=$(cat "/sys/block/$a/queue/max_hw_sectors_kb")
r0=$(diskstat "$A" 1)
"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct \
	--set max_sectors_kb=64,$((hw * 2)) > /dev/null 2> "$TMP/err"
expect_eq "too large: exit 2" "$?" 2
expect_true "too large: names max_hw_sectors_kb" grep -q "max_hw_sectors_kb=$hw" "$TMP/err"
expect_eq "too large: nothing ran" "$(($(diskstat "$A" 1) - r0))" 0
expect_eq "too large: unchanged" "$(cat "$msk")" "$orig"

# 3. An error in the middle (the workload fails: reading past a missing file) restores.
"$BB" --trace "$a" --file /nonexistent/file --rw read --bs 4k --any-fs \
	--set max_sectors_kb=32 > /dev/null 2>&1
# (This one fails after the values were tried: the trial writes must be undone.)
expect_eq "error before the runs: trial values undone" "$(cat "$msk")" "$orig"
mkfs.ext4 -q -F "$A"
mkdir -p "$TMP/mnt"
mount "$A" "$TMP/mnt" && mounted "$TMP/mnt"
(cd "$TMP/mnt" && "$BB" --trace "$a" --rw write --bs 4k --size 1G --set max_sectors_kb=32 \
	> /dev/null 2> "$TMP/err")
rc=$?
expect_cmp "error (disk full): non-zero exit" "$rc" "!=" 0
expect_eq "error (disk full): restored" "$(cat "$msk")" "$orig"

# 4. SIGINT in the middle of a sweep: restored, the file removed.
(cd "$TMP/mnt" && exec "$BB" --trace "$a" --rw write --bs 4k --size 16M --runtime 20 --sync \
	--set max_sectors_kb=8,16 > /dev/null 2> "$TMP/int.err") &
pid=$!
sleep 1.5
expect_eq "SIGINT: the value is in force while it runs" "$(cat "$msk")" 8
kill -INT $pid
wait $pid
expect_eq "SIGINT: exit 130" "$?" 130
expect_eq "SIGINT: restored" "$(cat "$msk")" "$orig"
expect_eq "SIGINT: file removed" "$(ls "$TMP/mnt" | grep -c blktrace-bench)" 0

# 5. SIGTERM likewise.
ra=$(cat "/sys/block/$a/queue/read_ahead_kb")
(cd "$TMP/mnt" && exec "$BB" --trace "$a" --rw write --bs 4k --size 16M --runtime 20 --sync \
	--set read_ahead_kb=0,512 > /dev/null 2>&1) &
pid=$!
sleep 1.5
kill -TERM $pid
wait $pid
expect_eq "SIGTERM: exit 143" "$?" 143
expect_eq "SIGTERM: read_ahead_kb restored" "$(cat "/sys/block/$a/queue/read_ahead_kb")" "$ra"

finish
