#!/usr/bin/env bash
# compare on real results: a file against itself is `same` for every metric;
# 16 KiB vs 512 KiB direct reads is significantly better throughput; a lowered
# max_sectors_kb shows as a setting change and a request size shift; a broken
# file is refused in one line; --fail-on-regression fails when B is the slow one.
. "$(dirname "$0")/lib.sh"

make_loop A 256M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")

# Twelve repetitions: reads on a loop disk vary by 2x between runs here, and more under
# load (make check-loaded: one slow run of seven left a 9x difference at p = 0.02, which
# Holm's correction over the headline metrics makes "same"; with three the t quantile,
# 4.30, let a 10x difference miss significance now and then).
reads() { # FILE BS: 64 MiB of direct reads, 12 repetitions
	"$BB" --trace "$a" --raw --rw read --bs "$2" --size 64M --direct --repeat 12 \
		--json "$1" > /dev/null
}
reads "$TMP/16k.json" 16k
expect_eq "16k reads: exit 0" "$?" 0
reads "$TMP/512k.json" 512k
expect_eq "512k reads: exit 0" "$?" 0

# 1. A file against itself: same, everywhere, in both outputs.
"$BB" compare "$TMP/16k.json" "$TMP/16k.json" --json > "$TMP/self.json"
expect_eq "self: exit 0" "$?" 0
# Every metric compare judges (doc/guide.md, "compare"), each once: a direct read workload has
# them all, application and block layer alike.
expect_eq "self: the metrics judged, each once" \
	"$(jqv "$TMP/self.json" '[.metrics[].name] | sort | join(" ")')" \
	"$(tr ' ' '\n' <<< "app.iops app.latency_ns.mean app.latency_ns.p99 app.mb_per_s
block.device_bytes_per_app_byte block.device_ns.p50 block.device_ns.p99
block.limit_bound.max_sectors block.limit_bound.max_segments block.merges_per_request
block.queue_depth.max block.queue_depth.mean block.queue_ns.p99 block.request_bytes.mean
block.request_bytes.p50 block.requests block.segment_bytes.mean block.segments.mean
block.total_ns.mean" | tr '\n' ' ' | tr -s ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
expect_eq "self: every verdict is same" "$(jqv "$TMP/self.json" '[.metrics[].verdict] | unique | join(",")')" same
expect_eq "self: no setting differs" "$(jqv "$TMP/self.json" '.device_changes | length')" 0
expect_eq "self: nothing unmatched" "$(jqv "$TMP/self.json" '.unmatched.a + .unmatched.b | length')" 0
"$BB" compare "$TMP/16k.json" "$TMP/16k.json" > "$TMP/self.txt"
expect_eq "self (text): exit 0" "$?" 0
expect_true "self (text): verdicts line" grep -q "0 better, 0 worse, .* same, 0 higher, 0 lower, 0 cannot judge" "$TMP/self.txt"

# 2. 16 KiB -> 512 KiB: significantly better throughput, and why.
"$BB" compare "$TMP/16k.json" "$TMP/512k.json" --json > "$TMP/ab.json"
expect_eq "16k vs 512k: exit 0" "$?" 0
mb='.metrics[] | select(.name == "app.mb_per_s")'
expect_eq "16k vs 512k: app.mb_per_s better" "$(jqv "$TMP/ab.json" "$mb | .verdict")" better
expect_eq "16k vs 512k: significant" "$(jqv "$TMP/ab.json" "$mb | .significant")" true
expect_cmp "16k vs 512k: p < 0.05" "$(jqv "$TMP/ab.json" "$mb | .p_value")" "<" 0.05
expect_cmp "16k vs 512k: change > +50%" "$(jqv "$TMP/ab.json" "$mb | .change")" ">" 0.5
expect_eq "16k vs 512k: the fields the issue names" \
	"$(jqv "$TMP/ab.json" "$mb | [has(\"name\", \"a\", \"b\", \"change\", \"p_value\", \"verdict\")] | all")" true
expect_eq "16k vs 512k: bs named as the difference" \
	"$(jqv "$TMP/ab.json" '.sets[0].param_changes[] | select(.name == "bs") | "\(.a) \(.b)"')" \
	"16384 524288"
expect_eq "16k vs 512k: request size underneath" \
	"$(jqv "$TMP/ab.json" '.sets[0].underneath["block.request_bytes.p50"] | "\(.a) \(.b)"')" \
	"16384 524288"
"$BB" compare "$TMP/16k.json" "$TMP/512k.json" > "$TMP/ab.txt"
expect_true "16k vs 512k (text): app.mb_per_s better" grep -Eq "^  app\.mb_per_s .* better$" "$TMP/ab.txt"
expect_true "16k vs 512k (text): request size shift" grep -q "p50 16 KiB -> 512 KiB" "$TMP/ab.txt"

# 3. A setting changed between the files: named, with what it did to the requests.
if [ -w "/sys/block/$a/queue/max_sectors_kb" ]; then
	msk=$(cat "/sys/block/$a/queue/max_sectors_kb")
	set_sysfs "/sys/block/$a/queue/max_sectors_kb" 128
	reads "$TMP/512k-capped.json" 512k
	echo "$msk" > "/sys/block/$a/queue/max_sectors_kb"
	"$BB" compare "$TMP/512k.json" "$TMP/512k-capped.json" > "$TMP/cap.txt"
	expect_eq "capped: exit 0" "$?" 0
	expect_true "capped: max_sectors_kb $msk -> 128" grep -Eq "^  max_sectors_kb +$msk -> 128$" "$TMP/cap.txt"
	expect_true "capped: request p50 512 KiB -> 128 KiB" grep -q "p50 512 KiB -> 128 KiB" "$TMP/cap.txt"
	expect_true "capped: block.requests higher" grep -Eq "^  block\.requests .* higher$" "$TMP/cap.txt"
else
	skip "max_sectors_kb of $a is not writable"
fi

# 4. Broken files: one line naming the file, exit 2, nothing on stdout.
head -c "$(($(stat -c %s "$TMP/16k.json") / 2))" "$TMP/16k.json" > "$TMP/broken.json"
"$BB" compare "$TMP/16k.json" "$TMP/broken.json" > "$TMP/out" 2> "$TMP/err"
expect_eq "truncated: exit 2" "$?" 2
expect_eq "truncated: one line" "$(wc -l < "$TMP/err")" 1
expect_true "truncated: names the file and the position" grep -q "broken.json: not valid JSON.* at line [0-9]*, column [0-9]*" "$TMP/err"
expect_eq "truncated: nothing on stdout" "$(wc -c < "$TMP/out")" 0
jq '.schema = "fio/3"' "$TMP/16k.json" > "$TMP/fio.json"
"$BB" compare "$TMP/fio.json" "$TMP/16k.json" > /dev/null 2> "$TMP/err"
expect_eq "wrong schema: exit 2" "$?" 2
expect_true "wrong schema: one line naming it" test "$(wc -l < "$TMP/err")" -eq 1 -a -n "$(grep 'fio.json: .*schema "fio/3"' "$TMP/err")"
jq 'del(.runs)' "$TMP/16k.json" > "$TMP/noruns.json"
"$BB" compare "$TMP/16k.json" "$TMP/noruns.json" > /dev/null 2> "$TMP/err"
expect_eq "no runs: exit 2" "$?" 2
expect_true "no runs: says so" grep -q 'noruns.json: no "runs" array' "$TMP/err"

# 5. An older file without "series": the aggregates come from the runs.
jq 'del(.series) | .schema = "blktrace-bench/0"' "$TMP/16k.json" > "$TMP/old.json"
"$BB" compare "$TMP/old.json" "$TMP/16k.json" --json > "$TMP/old-cmp.json"
expect_eq "old schema: exit 0" "$?" 0
expect_eq "old schema: every verdict is same" "$(jqv "$TMP/old-cmp.json" '[.metrics[].verdict] | unique | join(",")')" same

# 6. --fail-on-regression: exit 3 only when B is significantly slower by more than PCT.
"$BB" compare "$TMP/512k.json" "$TMP/16k.json" --fail-on-regression 10 > /dev/null 2> "$TMP/err"
expect_eq "regression: exit 3" "$?" 3
expect_true "regression: names app.mb_per_s" grep -q "regression in .*app.mb_per_s worse by" "$TMP/err"
"$BB" compare "$TMP/512k.json" "$TMP/16k.json" --fail-on-regression 1000 > /dev/null
expect_eq "regression below the threshold: exit 0" "$?" 0
"$BB" compare "$TMP/16k.json" "$TMP/16k.json" --fail-on-regression 0 > /dev/null
expect_eq "self with 0%: exit 0" "$?" 0
"$BB" compare "$TMP/16k.json" "$TMP/512k.json" --fail-on-regression abc > /dev/null 2> "$TMP/err"
expect_eq "--fail-on-regression abc: exit 2" "$?" 2

# 7. A guest's trace and dom0's of the same disk: both sides linked, not weighed. The
# devices from the Xen fixtures (a guest's xvda, dom0's loop0 serving it), the runs real.
FX=$ROOT/tests/fixtures
BLKTRACE_BENCH_SYSFS=$FX/sysfs/xen-seg32 BLKTRACE_BENCH_XENSTORE=$FX/xenstore/blkback.txt \
	"$BB" info xvda --json > "$TMP/xvda.json"
BLKTRACE_BENCH_SYSFS=$FX/sysfs/xen-dom0 BLKTRACE_BENCH_XENSTORE=$FX/xenstore/dom0.txt \
	"$BB" info loop0 --json > "$TMP/loop0.json"
jq --slurpfile d "$TMP/xvda.json" '.device = $d[0].device' "$TMP/512k.json" > "$TMP/guest.json"
jq --slurpfile d "$TMP/loop0.json" '.device = $d[0].device' "$TMP/512k.json" > "$TMP/dom0.json"
"$BB" compare "$TMP/dom0.json" "$TMP/guest.json" > "$TMP/link.txt" 2>&1
expect_eq "guest and dom0: exit 0" "$?" 0
expect_true "guest and dom0: the guest's side first, dom0 serving it" grep -q \
	"^xvda in the guest ($TMP/guest.json) and loop0 in dom0 ($TMP/dom0.json), which serves it as xvda of domU \"web1\" (domid 3)$" \
	"$TMP/link.txt"
expect_true "guest and dom0: the same bytes on both sides" grep -q \
	"dom0 saw 1.00x the guest's bytes, in 1.00 requests for each of the guest's" "$TMP/link.txt"
"$BB" compare "$TMP/guest.json" "$TMP/dom0.json" --json > "$TMP/link.json"
expect_eq "guest and dom0 --json: exit 0" "$?" 0
expect_eq "guest and dom0 --json: the kind" "$(jqv "$TMP/link.json" .kind)" xen_guest_and_dom0
expect_eq "guest and dom0 --json: the bytes" "$(jqv "$TMP/link.json" .dom0.bytes.read)" \
	"$(jqv "$TMP/512k.json" '[.runs[].block.read.bytes] | add')"
expect_eq "guest and dom0 --json: no ring probed, no backend time" \
	"$(jqv "$TMP/link.json" .time_ns.backend)" null
jq '.device.xen_guest.devid = 51728' "$TMP/dom0.json" > "$TMP/other.json"
"$BB" compare "$TMP/guest.json" "$TMP/other.json" > /dev/null 2> "$TMP/err"
expect_eq "another guest disk: exit 2" "$?" 2
expect_true "another guest disk: said" grep -q \
	"are not of one disk: the guest's xvda is virtual device 51712, but dom0's loop0 serves 51728" \
	"$TMP/err"
"$BB" compare "$TMP/guest.json" "$TMP/dom0.json" --html "$TMP/link.html" 2> "$TMP/err"
expect_eq "guest and dom0 --html: exit 2" "$?" 2

finish
