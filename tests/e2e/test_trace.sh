#!/usr/bin/env bash
# The tracer against independent oracles: the exact request counts an O_DIRECT
# workload must produce, and /proc/diskstats deltas over the same interval.
. "$(dirname "$0")/lib.sh"

make_loop A 256M || { not_ok "losetup"; finish; exit 1; }
make_loop B 64M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A") b=$(basename "$B")

# 1. dd, 64 KiB O_DIRECT writes: exactly 256 write requests of 64 KiB.
w0=$(diskstat "$A" 5) s0=$(diskstat "$A" 7)
"$BB" --trace "$a" --json "$TMP/dd.json" -- \
	dd if=/dev/zero of="$A" bs=64k count=256 oflag=direct status=none > "$TMP/dd.txt"
rc=$?
w1=$(diskstat "$A" 5) s1=$(diskstat "$A" 7)
expect_eq "dd: exit status" "$rc" 0
expect_eq "dd: write requests" "$(jqv "$TMP/dd.json" .runs[0].block.write.requests)" 256
expect_eq "dd: write bytes" "$(jqv "$TMP/dd.json" .runs[0].block.write.bytes)" $((256 * 65536))
expect_eq "dd: diskstats writes completed" "$((w1 - w0))" 256
expect_eq "dd: diskstats sectors written" "$((s1 - s0))" $((256 * 128))
expect_eq "dd: one size bucket [64K, 68K)" \
	"$(jqv "$TMP/dd.json" '.runs[0].block.request_bytes.buckets | map("\(.lo)-\(.hi)x\(.count)") | join(",")')" \
	"65536-69632x256"
expect_eq "dd: request size p50" "$(jqv "$TMP/dd.json" .runs[0].block.request_bytes.p50)" 65536
expect_eq "dd: request size max" "$(jqv "$TMP/dd.json" .runs[0].block.request_bytes.max)" 65536
expect_eq "dd: completions timed" "$(jqv "$TMP/dd.json" .runs[0].block.device_ns.count)" 256
expect_eq "dd: queue depth 1 (one I/O at a time)" \
	"$(jqv "$TMP/dd.json" .runs[0].block.queue_depth.max)" 1
expect_eq "dd: schema" "$(jqv "$TMP/dd.json" .schema)" "blktrace-bench/1"
expect_eq "dd: device major:minor" \
	"$(jqv "$TMP/dd.json" '"\(.device.major):\(.device.minor)"')" "$(cat /sys/block/$a/dev)"
expect_true "dd: text report names the disk" grep -q "$a (" "$TMP/dd.txt"
# Queue + device time of the same requests add up to their total time.
expect_cmp "dd: queue+device == total (mean, 0.1%)" \
	"$(jqv "$TMP/dd.json" '(.runs[0].block.queue_ns.mean + .runs[0].block.device_ns.mean - .runs[0].block.total_ns.mean) | fabs')" \
	"<=" "$(jqv "$TMP/dd.json" '.runs[0].block.total_ns.mean / 1000')"
expect_cmp "dd: device time > 0" "$(jqv "$TMP/dd.json" .runs[0].block.device_ns.p50)" ">" 0

# 2. O_DIRECT reads with dd (read-only open: no udev re-probe on close).
r0=$(diskstat "$A" 1)
"$BB" --trace "$A" --json "$TMP/rd.json" -- \
	dd if="$A" of=/dev/null bs=128k count=100 iflag=direct status=none > /dev/null
r1=$(diskstat "$A" 1)
expect_eq "dd read: read requests" "$(jqv "$TMP/rd.json" .runs[0].block.read.requests)" 100
expect_eq "dd read: diskstats reads completed" "$((r1 - r0))" 100
# Physically contiguous pages merge, so 128 KiB is at most 32 segments, never fewer
# bytes than requested: segments x bytes/segment == bytes per request.
expect_cmp "dd read: at most 32 segments" "$(jqv "$TMP/rd.json" .runs[0].block.segments.max)" "<=" 32
expect_cmp "dd read: segments x bytes/segment == 128 KiB" \
	"$(jqv "$TMP/rd.json" '.runs[0].block | (.segments.mean * .segment_bytes.mean - 131072) | fabs')" "<" 1

# 3. Another disk's I/O is excluded, by the BPF filter.
"$BB" --trace "$a" --json "$TMP/other.json" -- \
	dd if=/dev/zero of="$B" bs=4k count=100 oflag=direct status=none > /dev/null
expect_eq "other disk: nothing counted" \
	"$(jqv "$TMP/other.json" '[.runs[0].block | .read.requests, .write.requests] | add')" 0

# 4. max_sectors_kb=16 splits each 64 KiB write into exactly four 16 KiB requests.
set_sysfs "/sys/block/$a/queue/max_sectors_kb" 16
"$BB" --trace "$(cat /sys/block/$a/dev)" --json "$TMP/split.json" -- \
	dd if=/dev/zero of="$A" bs=64k count=64 oflag=direct status=none > /dev/null
expect_eq "split: 256 write requests" "$(jqv "$TMP/split.json" .runs[0].block.write.requests)" 256
expect_eq "split: all 16 KiB" "$(jqv "$TMP/split.json" .runs[0].block.request_bytes.max)" 16384
expect_eq "split: limit-bound max_sectors 1.0" \
	"$(jqv "$TMP/split.json" .runs[0].block.limit_bound.max_sectors)" 1
# Each 64 KiB bio is cut three times (16 KiB off the front, then the rest again).
expect_eq "split: 3 splits per bio" "$(jqv "$TMP/split.json" .runs[0].block.splits)" 192
echo "$(cat "/sys/block/$a/queue/max_hw_sectors_kb")" > "/sys/block/$a/queue/max_sectors_kb"

# 5. fio, io_uring at iodepth 8: exact count; depth above 1 and never above 8.
if command -v fio > /dev/null; then
	r0=$(diskstat "$A" 1)
	"$BB" --trace "$a" --json "$TMP/fio.json" -- fio --name=qd --filename="$A" \
		--ioengine=io_uring --iodepth=8 --direct=1 --rw=randread --bs=4k --size=8M \
		--output="$TMP/fio.out" > /dev/null
	r1=$(diskstat "$A" 1)
	expect_eq "fio: read requests" "$(jqv "$TMP/fio.json" .runs[0].block.read.requests)" 2048
	expect_eq "fio: diskstats reads" "$((r1 - r0))" 2048
	expect_cmp "fio: queue depth max <= 8" "$(jqv "$TMP/fio.json" .runs[0].block.queue_depth.max)" "<=" 8
	expect_cmp "fio: queue depth max > 1" "$(jqv "$TMP/fio.json" .runs[0].block.queue_depth.max)" ">" 1
	expect_eq "fio: no untracked completions" "$(jqv "$TMP/fio.json" .runs[0].block.untracked)" 0
	# Sequential 4 KiB writes submitted 32 at a time: bios merge in the plug. Each merge
	# counted as /proc/diskstats counts them ("writes merged": bios into requests and
	# requests into requests), and every I/O either a request or a merge.
	m0=$(diskstat "$A" 6) w0=$(diskstat "$A" 5)
	"$BB" --trace "$a" --json "$TMP/merge.json" -- fio --name=merge --filename="$A" \
		--ioengine=io_uring --iodepth=32 --iodepth_batch_submit=32 --direct=1 --rw=write \
		--bs=4k --size=8M --output="$TMP/merge.out" > /dev/null
	m1=$(diskstat "$A" 6) w1=$(diskstat "$A" 5)
	expect_cmp "merges: diskstats merged some writes" "$((m1 - m0))" ">" 0
	expect_eq "merges: bio + request merges == diskstats writes merged" \
		"$(jqv "$TMP/merge.json" '.runs[0].block | .merges + .request_merges')" "$((m1 - m0))"
	expect_eq "merges: write requests == diskstats writes" \
		"$(jqv "$TMP/merge.json" .runs[0].block.write.requests)" "$((w1 - w0))"
	expect_eq "merges: requests + bio merges == 2048 I/Os" \
		"$(jqv "$TMP/merge.json" '.runs[0].block | .write.requests + .merges')" 2048
	# Rates over the command's I/O alone (first issue to last completion), as fio's own:
	# over the tool's whole window (start-up and exit included) this job's MB/s comes out
	# 51-60% below fio's. Close to fio's bandwidth, over fio's JSON. fio keeps its runtime
	# in whole milliseconds, its own set-up inside: a 16 MiB x 16 job (~30 ms here) came
	# out 0.7-4.3% apart on that alone; 2 GiB (~250 ms) 0.05-0.54% in 6 runs, so the job
	# reads 8 GiB (~1 s). Our interval lies within fio's: ours is not below fio's by more
	# than its rounding (1%), and above it by what a stall in fio's set-up adds (5%: 50 ms).
	"$BB" --trace "$a" --json "$TMP/bw.json" -- fio --name=bw --filename="$A" \
		--ioengine=io_uring --iodepth=4 --direct=1 --rw=read --bs=128k --size=16M --loops=512 \
		--output-format=json --output="$TMP/bw.fio.json" > "$TMP/bw.txt"
	ours=$(jqv "$TMP/bw.json" '.runs[0].block | .read.bytes / .io_seconds / 1e6')
	theirs=$(jqv "$TMP/bw.fio.json" '.jobs[0].read.bw_bytes / 1e6')
	d=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { print a / b - 1 }')
	expect_cmp "fio: MB/s over the I/O not below fio's ($ours vs $theirs)" "$d" ">=" -0.01
	expect_cmp "fio: MB/s over the I/O within 5% above fio's ($ours vs $theirs)" "$d" "<" 0.05
	expect_true "fio: the text's rates are over the I/O alone, said so" \
		grep -q "MB/s and requests/s over the I/O alone: first issue to last completion" \
		"$TMP/bw.txt"
	expect_true "fio: requests/s in the text" grep -q "requests/s" "$TMP/bw.txt"
else
	skip "fio not installed"
fi

# 5b. dd bs=512 through the page cache, in command mode: the requests are read-ahead (the
# kernel's REQ_RAHEAD), sized by read_ahead_kb, and said so, not "the application's I/O
# size". One name per loss: no "lost events", no "stale_slots".
blockdev --flushbufs "$A"
"$BB" --trace "$a" --json "$TMP/ra.json" -- dd if="$A" of=/dev/null bs=512 count=8192 \
	status=none > "$TMP/ra.txt"
expect_eq "dd bs=512: every read request read-ahead" \
	"$(jqv "$TMP/ra.json" .runs[0].block.read_ahead.requests)" \
	"$(jqv "$TMP/ra.json" .runs[0].block.read.requests)"
expect_eq "dd bs=512: the finding is read-ahead's" "$(jqv "$TMP/ra.json" '.runs[0].findings[0].kind')" \
	read_ahead
expect_true "dd bs=512: with the value in effect" \
	grep -q "of requests were read-ahead (read_ahead_kb=$(cat "/sys/block/$a/queue/read_ahead_kb"))" \
	"$TMP/ra.txt"
expect_eq "dd bs=512: nothing credited to the application's I/O size" \
	"$(grep -c "application's I/O size" "$TMP/ra.txt")" 0
expect_eq "one name per loss: no 'lost events' in the text" "$(grep -c "lost events" "$TMP/ra.txt")" 0
expect_eq "one name per loss: lost_completions and lost_records in the JSON, nothing else" \
	"$(jqv "$TMP/ra.json" '.runs[0].block | keys | map(select(test("lost|stale"))) | join(",")')" \
	lost_completions,lost_records

# 6. The raw_tp twins count exactly what tp_btf counts. The command ends by asking
# bpftool for the programs' skipped runs while they are still loaded.
for mode in btf raw; do
	env=()
	[ $mode = raw ] && env=(BLKTRACE_BENCH_RAW_TP=1)
	env "${env[@]}" "$BB" -v --trace "$a" --json "$TMP/$mode.json" -- sh -c \
		"dd if=/dev/zero of='$A' bs=8k count=300 oflag=direct status=none &&
		bpftool -j prog show > '$TMP/$mode.progs'" > /dev/null 2> "$TMP/$mode.err"
done
expect_true "raw_tp: the raw_tp programs were used" grep -q "with raw_tp programs" "$TMP/raw.err"
expect_true "tp_btf: the tp_btf programs were used" grep -q "with tp_btf programs" "$TMP/btf.err"
for f in write.requests write.bytes segments.count request_bytes.p50; do
	expect_eq "raw_tp == tp_btf: $f" "$(jqv "$TMP/raw.json" ".runs[0].block.$f")" \
		"$(jqv "$TMP/btf.json" ".runs[0].block.$f")"
done
# An 8 KiB buffer is one physical segment or two, as its two pages happen to lie:
# each dd has a buffer of its own, so the flavours are checked apart.
for mode in btf raw; do
	expect_true "$mode: 8 KiB writes have 1 or 2 segments" \
		jq -e '.runs[0].block.segments | .max >= 1 and .max <= 2 and .mean >= 1' "$TMP/$mode.json"
	# Read from the programs once detached: what bpftool said of them (recursion_misses,
	# left out when 0) at the command's end; no program of ours there is no 0.
	expect_eq "$mode: the runs the kernel skipped, as bpftool counts them" \
		"$(jqv "$TMP/$mode.json" .tracer.skipped_runs)" \
		"$(jq '[.[] | select(.name | test("^(tp_btf|raw_tp)_")) | .recursion_misses // 0] |
			add' "$TMP/$mode.progs")"
done

# 7. Passive mode: --duration ends it with a report and exit 0. I/O starts on the
# "tracing" line (-v), which comes once counting has begun.
"$BB" -v --trace "$a" --duration 1.5 --json "$TMP/passive.json" > "$TMP/passive.txt" \
	2> "$TMP/passive.err" &
pid=$!
wait_until 10 "the tracing line" grep -q '^blktrace-bench: tracing' "$TMP/passive.err" &&
	dd if=/dev/zero of="$A" bs=4k count=10 oflag=direct status=none
wait $pid
rc=$?
expect_eq "passive: exit 0" "$rc" 0
expect_eq "passive: write requests" "$(jqv "$TMP/passive.json" .runs[0].block.write.requests)" 10
expect_cmp "passive: seconds >= 1.5" "$(jqv "$TMP/passive.json" .runs[0].seconds)" ">=" 1.5

# 7b. --interval prints a report per interval while passive, each saying what it covered:
# numbered from 1, end to end, due on the interval's grid and never before (a late wakeup
# makes one longer and the next, due on the grid again, shorter), at most 3 in 1.7 s and
# inside the whole run (which a late wakeup under load makes longer than 1.7 s: its own
# length, from the JSON, is the bound).
"$BB" --trace "$a" --duration 1.7 --interval 0.5 --json "$TMP/interval.json" > "$TMP/interval.txt"
whole=$(jqv "$TMP/interval.json" .runs[0].seconds)
expect_true "interval: then the whole run" grep -q '^passive:' "$TMP/interval.txt"
# "interval #2, 0.50 to 1.00 s": "interval 2 (0.50-1.00 s)" read as "interval 2 s".
sed -n 's/^interval #\([0-9]*\), \([0-9.]*\) to \([0-9.]*\) s:.*/\1 \2 \3/p' "$TMP/interval.txt" \
	> "$TMP/intervals"
n=$(wc -l < "$TMP/intervals")
expect_cmp "interval: 1 to 3 interval reports in 1.7 s" "$n" ">=" 1
expect_cmp "interval: at most 3" "$n" "<=" 3
what="interval: numbered 1.., end to end, #N ends at N x 0.5 s or later, within the run ($whole s)"
if awk -v whole="$whole" '{ if ($1 != NR || ($2 + 0) != prev || $3 < $2 || $3 < 0.5 * $1 - 0.001 || $3 > whole + 0.005) bad = 1
	  prev = $3 + 0 }
	END { exit bad || NR == 0 || whole < 1.7 }' "$TMP/intervals"; then
	ok "$what"
else
	not_ok "$what: $(tr '\n' ';' < "$TMP/intervals")"
fi
# The JSON keeps the same intervals (start, seconds), end to end from 0.
jq -r '.runs[0].intervals[] | "\(.start) \(.seconds)"' "$TMP/interval.json" > "$TMP/intervals.json"
expect_eq "interval: the JSON's intervals are the text's" \
	"$(awk '{ printf "%d %.2f %.2f;", NR, $1, $1 + $2 }' "$TMP/intervals.json")" \
	"$(tr '\n' ';' < "$TMP/intervals")"
expect_true "interval: the JSON's start at 0, each where the last ended" awk '
	{ d = $1 - prev; if (d < -1e-6 || d > 1e-6) bad = 1; prev = $1 + $2 }
	END { exit bad || NR == 0 }' "$TMP/intervals.json"

# 8. Passive mode: Ctrl-C prints what was collected and exits 0.
"$BB" -v --trace "$a" --json "$TMP/int.json" > "$TMP/int.txt" 2> "$TMP/int.err" &
pid=$!
wait_until 10 "the tracing line" grep -q '^blktrace-bench: tracing' "$TMP/int.err" &&
	dd if=/dev/zero of="$A" bs=4k count=7 oflag=direct status=none
kill -INT $pid
wait $pid
rc=$?
expect_eq "SIGINT: exit 0" "$rc" 0
expect_eq "SIGINT: report of what was seen" "$(jqv "$TMP/int.json" .runs[0].block.write.requests)" 7

finish
