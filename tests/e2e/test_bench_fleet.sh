#!/usr/bin/env bash
# make bench's part 3 (tools/bench/fleet.sh) in its smoke mode: one tracer over 1, 2, 4
# and 10 disks while fio reads them all; it must finish, cost something per I/O for
# every size, measure its controls (floor-clock, floor-disks) beside it, and leave no loop device,
# image or bpf_stats setting behind.
. "$(dirname "$0")/lib.sh"

command -v fio > /dev/null || { skip "fio missing (tools/deps.sh test installs it)"; finish; exit 0; }
stats0=$(cat /proc/sys/kernel/bpf_stats_enabled)
# make bench runs it after bench.sh into the same directory: bench.sh's files stay.
mkdir -p "$TMP/fleet"
for f in table.txt rounds.jsonl; do echo "bench.sh's $f" > "$TMP/fleet/$f"; done
BENCH_OUT="$TMP/fleet" "$ROOT/tools/bench/fleet.sh" --smoke > "$TMP/out" 2>&1
rc=$?
expect_eq "fleet.sh --smoke: exit status" "$rc" 0
[ "$rc" = 0 ] || tail -20 "$TMP/out" | sed 's/^/    /' # what went wrong, in the log
expect_eq "every size measured" "$(jq -c '[.sizes[].disks]' "$TMP/fleet/fleet.json")" "[1,2,4,10]"
expect_true "a cost per I/O for every size" \
	jq -e '[.sizes[].bpf_ns_per_io] | all(. > 0)' "$TMP/fleet/fleet.json"
expect_true "the control (floor-clock) measured for every size" \
	jq -e '[.sizes[].floor_clock_ns_per_io] | all(. > 0)' "$TMP/fleet/fleet.json"
expect_true "the control floor-disks measured for every size" \
	jq -e '[.sizes[].floor_disks_ns_per_io] | all(. > 0)' "$TMP/fleet/fleet.json"
expect_true "the table printed" grep -q '^10 ' "$TMP/fleet/fleet-table.txt"
for f in table.txt rounds.jsonl; do
	expect_eq "bench.sh's $f left as it was" "$(cat "$TMP/fleet/$f")" "bench.sh's $f"
done
expect_eq "no loop device left on its images" "$(losetup -a | grep -c blktrace-bench-fleet)" 0
expect_eq "no work directory left" "$(ls -d /dev/shm/blktrace-bench-fleet.* 2> /dev/null | wc -l)" 0
expect_eq "bpf_stats_enabled as it was" "$(cat /proc/sys/kernel/bpf_stats_enabled)" "$stats0"
finish
