#!/usr/bin/env bash
# tune -> apply -> (reboot) -> verify on a loop disk held at one page per request
# (max_sectors_kb=4): tune finds 1280 for 1 MiB direct reads, the request counts equal
# /proc/diskstats, everything is put back; the budget is kept; --apply --dry-run writes
# nothing; apply writes a rule that udev itself applies (udevadm test, in a mount
# namespace of its own); verify says "held", "did not hold" once the value is gone (exit 4),
# "nothing to verify" for a result that recommends nothing, and fails when the rerun never
# reached the disk; apply --undo leaves the root as it was; a Ctrl-C restores; bad input is
# refused in one line with exit 2.
# Why 4 and not xen-blkfront's 44 (doc/guide.md's walk-through): this 2-core VM is shared,
# and at a load of 10 reads at 44 KiB and at 1 MiB per request (2x apart) overlap even over
# 10 repetitions, while 4 KiB requests are 20x slower: the verdicts hold whatever runs
# beside the test.
. "$(dirname "$0")/lib.sh"

make_loop A 256M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
img=$(cat "/sys/block/$a/loop/backing_file")
msk=/sys/block/$a/queue/max_sectors_kb
sched=/sys/block/$a/queue/scheduler
state=$TMP/state
root=$TMP/root
mkdir -p "$root"
set_sysfs "$msk" 4
# value_is FILE VALUE: for wait_until.
value_is() { [ "$(cat "$1")" = "$2" ]; }
# tree DIR: every path below DIR with the content of its files: the state of a root.
tree() { (cd "$1" && find . -print0 | sort -z | xargs -0 -r -n1 sh -c \
	'if [ -f "$0" ]; then echo "$0:$(cat "$0")"; else echo "$0"; fi'); }
# 1 MiB direct reads in huge pages: requests are shaped by max_sectors_kb alone.
# Half a second a run: at a load of 13 a quarter second was often mostly waiting for a CPU.
job=(--raw --rw read --bs 1M --size 64M --runtime 0.5 --direct --hugepages)

# 1. 4 vs 1280, with --apply --dry-run below an empty root.
before=$(tree "$root")
r0=$(diskstat "$A" 1)
# Five first repetitions: the saved baseline is what verify compares with.
"$BB" tune "$a" "${job[@]}" --set max_sectors_kb=1280 --repeat 5 --state-dir "$state" \
	--json "$TMP/tune.json" --apply --dry-run --root "$root" > "$TMP/tune.txt" 2> "$TMP/tune.err"
expect_eq "tune: exit 0" "$?" 0
reads=$(($(diskstat "$A" 1) - r0))
t="$TMP/tune.json"
expect_eq "tune: the recommendation" \
	"$(jqv "$t" '.tune.recommendation.settings[] | "\(.name) \(.from) \(.to)"')" \
	"max_sectors_kb 4 1280"
# What tune measured, when it did not find the optimum (for whoever reads the log).
[ "$(jqv "$t" '.tune.recommendation.settings | length')" = 1 ] ||
	sed -n '/^configuration/,/^recommendation/p' "$TMP/tune.txt"
expect_eq "tune: requests = diskstats reads" \
	"$(jqv "$t" '[.runs[].block.read.requests] | add')" "$reads"
expect_eq "tune: baseline requests capped at 4 KiB" \
	"$(jqv "$t" '[.runs[] | select(.params.max_sectors_kb == null) | .block.request_bytes.max] | unique | join(",")')" \
	4096
expect_cmp "tune: 1280's requests above 512 KiB" \
	"$(jqv "$t" '[.runs[] | select(.params.max_sectors_kb == "1280") | .block.request_bytes.p50] | min')" \
	">=" 524288
expect_eq "tune: the baseline's runs are the tune's baseline point" \
	"$(jqv "$t" '[.runs | to_entries[] | select(.value.params.max_sectors_kb == null and .value.params.warm_up == null) | .key] == .tune.points[0].runs')" \
	true
# Why a knob is not tuned: not_tuned, a sentence, or null when it is ("skipped" before).
expect_eq "tune: not_tuned, a reason or null" \
	"$(jqv "$t" '[.tune.knobs[] | .not_tuned | type] | unique | join(",")')" "null,string"
expect_eq "tune: no knob says skipped" "$(jqv "$t" '[.tune.knobs[] | has("skipped")] | any')" false
expect_eq "tune: one warm-up run first" "$(jqv "$t" '"\(.tune.warm_up_run) \(.runs[0].params.warm_up)"')" "0 1"
expect_cmp "tune: significantly faster" "$(jqv "$t" '.tune.recommendation.p')" "<" 0.05
expect_eq "tune: the disk by its backing file" "$(jqv "$t" '.tune.disk.match.value')" "$img"
expect_eq "tune: restored" "$(cat "$msk")" 4
expect_true "tune: says so" grep -q "settings of $a as found: max_sectors_kb=4" "$TMP/tune.err"
expect_eq "tune: no state left" "$(ls "$state")" ""
expect_true "tune: prints the recommendation" \
	grep -q "^recommendation for $a: max_sectors_kb=1280 (was 4)" "$TMP/tune.txt"
expect_true "dry run: the rule as a diff" grep -qF \
	"+ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\", ATTR{loop/backing_file}==\"$img\", ATTR{queue/max_sectors_kb}=\"1280\"" \
	"$TMP/tune.txt"
# The name: the backing file's, and 16 hex digits of the whole identity (test_apply.c checks
# them against FNV-1a computed apart).
expect_true "dry run: names the file" grep -qE \
	"^would write $root/etc/udev/rules.d/90-blktrace-bench-loop-$(basename "$img")-[0-9a-f]{16}\.rules:" \
	"$TMP/tune.txt"
expect_eq "dry run: nothing written" "$(tree "$root")" "$before"
"$BB" compare "$t" "$t" > /dev/null
expect_eq "compare reads a tune result" "$?" 0
"$BB" report "$t" -o "$TMP/tune.html"
expect_eq "report draws a tune result: exit 0" "$?" 0
expect_eq "report: a section per run" "$(grep -c "<h2>Run " "$TMP/tune.html")" \
	"$(jqv "$t" '.runs | length')"

# 2. The budget: every candidate of max_sectors_kb and the scheduler would take ~30 s.
start=$(date +%s%N)
"$BB" tune "$a" "${job[@]}" --budget 2 --state-dir "$state" --json "$TMP/budget.json" \
	> "$TMP/budget.txt" 2> "$TMP/budget.err"
expect_eq "budget: exit 0" "$?" 0
wall=$((($(date +%s%N) - start) / 1000000))
expect_eq "budget: stopped by it" "$(jqv "$TMP/budget.json" '.tune.stopped')" budget
expect_cmp "budget: measured within it" "$(jqv "$TMP/budget.json" '.tune.elapsed_seconds')" \
	"<=" 2
# The BPF programs load before the clock starts; the report is written after it stops.
expect_cmp "budget: wall time (ms)" "$wall" "<" 4500
expect_true "budget: a clear note" grep -q "^note: the budget (2 s) ended after" \
	"$TMP/budget.txt"
expect_eq "budget: restored" "$(cat "$msk")" 4
expect_true "budget: scheduler restored" grep -q '\[none\]' "$sched"
# A budget that ends in the warm-up: nothing measured, still a document and a note
# (this crashed once: the advice read the workload of a baseline run that never was).
"$BB" tune "$a" "${job[@]}" --budget 0.2 --state-dir "$state" --json "$TMP/none.json" \
	> "$TMP/none.txt" 2> "$TMP/none.err"
expect_eq "budget in the warm-up: exit 0" "$?" 0
expect_eq "budget in the warm-up: no run measured" \
	"$(jqv "$TMP/none.json" '"\(.tune.stopped) \(.tune.points[0].runs | length)"')" "budget 0"
expect_true "budget in the warm-up: the note" grep -q "^note: the budget (0.2 s) ended after 0 runs" \
	"$TMP/none.txt"
expect_eq "budget in the warm-up: restored" "$(cat "$msk")" 4

# 3. --workload: the job of a saved result.
"$BB" tune "$a" --workload "$t" --raw --hugepages --set max_sectors_kb=1280 --repeat 2 \
	--budget 5 --state-dir "$state" --json "$TMP/w.json" > /dev/null 2>&1
expect_eq "--workload: exit 0" "$?" 0
expect_eq "--workload: the saved job" \
	"$(jqv "$TMP/w.json" '.runs[0].params | "\(.rw) \(.bs) \(.direct) \(.runtime)"')" \
	"read 1048576 true 0.5"

# 4. apply writes the rule; udev itself applies it (the reboot).
"$BB" apply "$t" --root "$root" > "$TMP/apply.txt"
expect_eq "apply: exit 0" "$?" 0
rule=$(echo "$root"/etc/udev/rules.d/90-blktrace-bench-loop-"$(basename "$img")"-*.rules)
expect_true "apply: wrote the rule" test -f "$rule"
expect_true "apply: the undo below the same root" grep -qF \
	"undo: blktrace-bench apply --undo --root $root" "$TMP/apply.txt"
expect_true "apply: the rule names the result" grep -qF "#   $t" "$rule"
expect_true "apply: and how to undo" grep -q "^# Undo: blktrace-bench apply --undo" "$rule"
expect_eq "apply: one manifest entry" \
	"$(jqv "$root/var/lib/blktrace-bench/applied.json" '.files | length')" 1
if command -v unshare > /dev/null && command -v udevadm > /dev/null; then
	# Only our rule, and nothing of the host's /run or /dev written by udevadm.
	unshare -m sh -c "mount --make-rprivate / && mount --bind '$root/etc/udev/rules.d' \
		/etc/udev/rules.d && mount -t tmpfs none /usr/lib/udev/rules.d &&
		mount -t tmpfs none /run && mount -t tmpfs none /dev &&
		udevadm test --action=change /sys/block/$a" > "$TMP/udev.txt" 2>&1
	expect_true "udev applies the rule" grep -q \
		"ATTR '/sys/devices/virtual/block/$a/queue/max_sectors_kb' writing '1280'" \
		"$TMP/udev.txt"
else
	skip "no unshare or udevadm: the rule's value written by hand"
	echo 1280 > "$msk"
fi
expect_eq "after the reboot: 1280" "$(cat "$msk")" 1280

# 5. verify: the setting is in force, the gain held. When other jobs on the machine blur
# one verify (exit 4, "did not show"), a second decides; a change that did not hold fails
# both.
for try in 1 2; do
	r0=$(diskstat "$A" 1)
	"$BB" verify "$t" --state-dir "$state" --json "$TMP/verify.json" > "$TMP/verify.txt" 2>&1
	rc=$?
	reads=$(($(diskstat "$A" 1) - r0))
	[ $rc -eq 4 ] && grep -q "the gain did not show" "$TMP/verify.txt" || break
	echo "  (verify, try $try: $(tail -1 "$TMP/verify.txt"))"
done
expect_eq "verify: exit 0" "$rc" 0
expect_eq "verify: held" "$(jqv "$TMP/verify.json" '.verify.verdict')" held
expect_true "verify: says so" grep -q "^the change held: +.*% throughput (.*), requests now 1 MiB (were 4 KiB)" \
	"$TMP/verify.txt"
expect_cmp "verify: as many runs as tune began with, or more" \
	"$(jqv "$TMP/verify.json" '[.runs[] | select(.params.warm_up == null)] | length')" ">=" \
	"$(jqv "$t" '.tune.repetitions.min')"
expect_eq "verify: requests = diskstats reads" \
	"$(jqv "$TMP/verify.json" '[.runs[].block.read.requests] | add')" "$reads"
expect_eq "verify: the saved job" \
	"$(jqv "$TMP/verify.json" '.runs[0].params | "\(.rw) \(.bs) \(.direct) \(.size)"')" \
	"read 1048576 true 67108864"
"$BB" compare "$t" "$TMP/verify.json" > /dev/null
expect_eq "compare reads verify's result" "$?" 0

# 6. The value gone (no rule at the next boot): did not hold, nothing rerun, no file; the
# verdict's own exit code, not a failure's.
echo 4 > "$msk"
r0=$(diskstat "$A" 1)
"$BB" verify "$t" --state-dir "$state" --json "$TMP/gone.json" > "$TMP/gone.txt" 2>&1
expect_eq "not in force: exit 4" "$?" 4
expect_true "not in force: says which" grep -q \
	"^the change did not hold: max_sectors_kb is 4, not 1280" "$TMP/gone.txt"
expect_eq "not in force: nothing ran" "$(($(diskstat "$A" 1) - r0))" 0
expect_true "not in force: no file" test ! -e "$TMP/gone.json"

# 6b. Nothing recommended: nothing to verify, exit 0, nothing rerun (a difference now
# would be drift, not a change that held).
jq '.tune.recommendation.settings = [] | .tune.recommendation.module_parameters = []' "$t" \
	> "$TMP/nothing.json"
r0=$(diskstat "$A" 1)
"$BB" verify "$TMP/nothing.json" --state-dir "$state" > "$TMP/nothing.txt" 2>&1
expect_eq "nothing recommended: exit 0" "$?" 0
expect_true "nothing recommended: said so" grep -q \
	"^nothing to verify: $TMP/nothing.json recommended no change, every setting of $a as found" \
	"$TMP/nothing.txt"
expect_true "nothing recommended: no held" sh -c "! grep -q held '$TMP/nothing.txt'"
expect_eq "nothing recommended: nothing ran" "$(($(diskstat "$A" 1) - r0))" 0

# 6c. A rerun that never reaches the disk (buffered reads of a file the page cache holds,
# on a disk whose setting is as recommended) measured the cache: an error, exit 1.
if make_loop B 256M && mkfs.ext4 -q "$B" && mkdir "$TMP/mnt" &&
	mount -o noatime "$B" "$TMP/mnt" && mounted "$TMP/mnt"; then
	b=$(basename "$B")
	dd if=/dev/zero of="$TMP/mnt/f" bs=1M count=64 status=none && sync
	jq --arg b "$b" --arg img "$(cat "/sys/block/$b/loop/backing_file")" \
		--arg f "$TMP/mnt/f" --arg now "$(cat "/sys/block/$b/queue/max_sectors_kb")" \
		'.tune.disk.name = $b | .tune.disk.match.value = $img |
		.tune.workload.target = "file" | .tune.workload.path = $f |
		.tune.recommendation.settings = [{name: "max_sectors_kb", from: "4", to: $now}] |
		.runs[].params.direct = false' "$t" > "$TMP/cached.json"
	"$BB" verify "$TMP/cached.json" --state-dir "$state" > "$TMP/cached.txt" 2>&1
	expect_eq "no requests: exit 1" "$?" 1
	expect_true "no requests: said so" grep -q \
		"this run saw no requests on $b in .* runs: what they measured is not the disk" \
		"$TMP/cached.txt"
	expect_true "no requests: no verdict" sh -c "! grep -q 'the change held' '$TMP/cached.txt'"
else
	not_ok "a mounted ext4 loop disk"
fi

# 7. apply --undo: the root as it was; a file apply did not write is refused, untouched.
"$BB" apply --undo --root "$root" > /dev/null
expect_eq "undo: exit 0" "$?" 0
expect_eq "undo: the root as it was" "$(tree "$root")" "$before"
mkdir -p "$(dirname "$rule")"
echo '# mine' > "$rule"
"$BB" apply "$t" --root "$root" > /dev/null 2> "$TMP/refused.err"
expect_eq "not ours: exit 2" "$?" 2
expect_true "not ours: said" grep -q "is there and apply did not write it" "$TMP/refused.err"
expect_eq "not ours: untouched" "$(cat "$rule")" "# mine"
expect_eq "not ours: no manifest" "$(ls "$root/var" 2> /dev/null)" ""
rm -rf "${root:?}"/etc

# 8. Ctrl-C in the middle: restored, the runs so far saved.
"$BB" tune -v "$a" --raw --rw read --bs 1M --size 64M --runtime 1 --direct \
	--knobs max_sectors_kb --state-dir "$state" --json "$TMP/int.json" > /dev/null \
	2> "$TMP/int.err" &
pid=$!
background $pid
wait_until 30 "tune to trace" grep -q "tracing $a" "$TMP/int.err"
wait_until 30 "a value in force" sh -c "[ \"\$(cat $msk)\" != 4 ]"
kill -INT $pid
wait $pid
expect_eq "SIGINT: exit 130" "$?" 130
expect_eq "SIGINT: restored" "$(cat "$msk")" 4
expect_eq "SIGINT: no state left" "$(ls "$state")" ""
expect_eq "SIGINT: the runs so far saved" "$(jqv "$TMP/int.json" '.tune.stopped')" interrupted

# 9. Bad input: one line, exit 2, nothing run.
"$BB" --trace "$a" --raw --rw read --bs 1M --size 1M --json "$TMP/trace.json" > /dev/null 2>&1
r0=$(diskstat "$A" 1)
bad() { # NAME WANT ARGS...: exit 2 and WANT in the one line on stderr
	local name=$1 want=$2
	shift 2
	"$BB" "$@" > /dev/null 2> "$TMP/bad.err"
	expect_eq "$name: exit 2" "$?" 2
	expect_eq "$name: one line" "$(wc -l < "$TMP/bad.err")" 1
	expect_true "$name: says why" grep -qF -- "$want" "$TMP/bad.err"
}
bad "tune without a workload" "tune needs a workload" tune "$a" --raw
bad "tune --knobs bogus" "--knobs: 'bogus' is not a setting tune changes" \
	tune "$a" "${job[@]}" --knobs bogus --state-dir "$state"
bad "tune --set above the limit" "above max_hw_sectors_kb" \
	tune "$a" "${job[@]}" --set max_sectors_kb=99999 --state-dir "$state"
bad "tune --apply without --json" "--apply needs --json FILE" tune "$a" "${job[@]}" --apply
bad "tune --workload and --rw" "alternatives" tune "$a" "${job[@]}" --workload "$t"
bad "verify a trace result" "no \"tune\" object: not the result of blktrace-bench tune" \
	verify "$TMP/trace.json"
bad "verify --rw" "--rw is not used by verify" verify "$t" --rw read
bad "apply --json" "--json is not used by apply" apply "$t" --json x.json
bad "--knobs on trace" "--knobs is not used in passive mode: it is tune's" --trace "$a" --knobs max_sectors_kb
expect_eq "bad input: nothing ran" "$(($(diskstat "$A" 1) - r0))" 0
expect_eq "bad input: unchanged" "$(cat "$msk")" 4

finish
