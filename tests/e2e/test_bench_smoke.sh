#!/usr/bin/env bash
# make bench must not rot: its smoke mode (one short round per configuration) runs
# every configuration, writes a complete JSON result and leaves nothing behind.
# Timings are not tested here, only that each number exists.
. "$(dirname "$0")/lib.sh"

for tool in fio bpftrace jq; do
	if ! command -v "$tool" > /dev/null; then
		skip "$tool is not installed (tools/deps.sh installs it)"
		finish
		exit 0
	fi
done

stats0=$(cat /proc/sys/kernel/bpf_stats_enabled)
tracefs0=$(grep -c ' /sys/kernel/tracing tracefs ' /proc/mounts)
BENCH_OUT="$TMP/bench" "$ROOT/tools/bench/bench.sh" --smoke > "$TMP/out" 2>&1
rc=$?
J=$TMP/bench/bench.json
expect_eq "smoke: exit status" "$rc" 0
[ $rc -eq 0 ] || sed 's/^/    /' "$TMP/out" | tail -20
expect_true "smoke: bench.json written" test -s "$J"
expect_eq "smoke: mode" "$(jqv "$J" .mode 2> /dev/null)" smoke

for c in untraced floor-empty floor-clock blktrace-bench blktrace-bench-snoop \
	blktrace-bench-blktrace bpftrace-biolatency bitesize.bt; do
	sel=".configs[] | select(.name == \"$c\")"
	# One IOPS round each, and one cost round for every tracer.
	expect_eq "smoke: $c ran" "$(jqv "$J" "$sel | .rounds_ok" 2> /dev/null)" \
		"$([ $c = untraced ] && echo 1 || echo 2)"
	expect_eq "smoke: $c failed no round" "$(jqv "$J" "$sel | .rounds_failed" 2> /dev/null)" 0
	expect_cmp "smoke: $c IOPS" "$(jqv "$J" "$sel | .iops.median // 0" 2> /dev/null)" ">" 0
	expect_cmp "smoke: $c % of untraced" \
		"$(jqv "$J" "$sel | .pct_of_untraced.median // 0" 2> /dev/null)" ">" 0
	expect_true "smoke: $c in the table" grep -q "^$c " "$TMP/bench/table.txt"
	[ "$c" = untraced ] && continue
	expect_cmp "smoke: $c BPF programs found" \
		"$(jqv "$J" "$sel | .bpf_programs // 0" 2> /dev/null)" ">" 0
	expect_cmp "smoke: $c BPF ns/IO" \
		"$(jqv "$J" "$sel | .bpf_ns_per_io.median // 0" 2> /dev/null)" ">" 0
done
expect_eq "smoke: blktrace-bench lost no records" \
	"$(jqv "$J" '.configs[] | select(.name == "blktrace-bench") | .lost_records' 2> /dev/null)" 0
expect_eq "smoke: blktrace-bench --blktrace lost no record" \
	"$(jqv "$J" '.configs[] | select(.name == "blktrace-bench-blktrace") | .lost_records' \
		2> /dev/null)" 0
# Our tracer saw every I/O the disk did while it was attached: each was issued. Their
# completions too, but for those the kernel never reported: this kernel (6.18, io_uring
# on loop) skips block_rq_complete for a few requests now and then, bpftrace's
# tracepoint sees the same gaps; the next issue on the request's tag notices each one
# (lost_completions), all but the last iodepth (32) of a run.
for phase in iops cost; do
	sel=".runs[] | select(.config == \"blktrace-bench\" and .phase == \"$phase\")"
	disk=$(jqv "$J" "$sel | .disk_ios" 2> /dev/null)
	expect_cmp "smoke: blktrace-bench saw the disk's I/Os issued ($phase round)" \
		"$(jqv "$J" "$sel | .traced_issued // -1" 2> /dev/null)" ">=" "$disk"
	expect_cmp "smoke: completions seen or noticed lost ($phase round)" \
		"$(jqv "$J" "$sel | .traced_completed + .lost_completions + 32" 2> /dev/null)" ">=" \
		"$disk"
done

expect_eq "smoke: bpf_stats_enabled restored" "$(cat /proc/sys/kernel/bpf_stats_enabled)" "$stats0"
expect_eq "smoke: tracefs mounts as before" \
	"$(grep -c ' /sys/kernel/tracing tracefs ' /proc/mounts)" "$tracefs0"
# Its own disk and work dir: another bench may be running beside this one.
work=$(sed -n 's/.*work dir \([^,]*\), disk.*/\1/p' "$TMP/out" | head -1)
expect_true "smoke: the bench named its work dir" test -n "$work"
expect_eq "smoke: no loop disk left" "$(losetup -a | grep -c "${work:-none}/")" 0
expect_true "smoke: no work dir left" test ! -e "${work:-/nonexistent}"

finish
