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
	bpftrace-biolatency bitesize.bt; do
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
expect_eq "smoke: blktrace-bench lost no events" \
	"$(jqv "$J" '.configs[] | select(.name == "blktrace-bench") | .lost_events' 2> /dev/null)" 0
# Our tracer counted every I/O the disk completed while it was attached.
for phase in iops cost; do
	sel=".runs[] | select(.config == \"blktrace-bench\" and .phase == \"$phase\")"
	expect_cmp "smoke: blktrace-bench traced the disk's I/Os ($phase round)" \
		"$(jqv "$J" "$sel | .traced_completed // -1" 2> /dev/null)" ">=" \
		"$(jqv "$J" "$sel | .disk_ios" 2> /dev/null)"
done

expect_eq "smoke: bpf_stats_enabled restored" "$(cat /proc/sys/kernel/bpf_stats_enabled)" "$stats0"
expect_eq "smoke: tracefs mounts as before" \
	"$(grep -c ' /sys/kernel/tracing tracefs ' /proc/mounts)" "$tracefs0"
expect_eq "smoke: no loop disk left" "$(losetup -a | grep -c blktrace-bench-bench)" 0
expect_eq "smoke: no work dir left" "$(find /dev/shm -maxdepth 1 -name 'blktrace-bench-bench.*' | wc -l)" 0

finish
