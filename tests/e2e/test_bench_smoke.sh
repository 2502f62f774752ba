#!/usr/bin/env bash
# make bench must not rot: its smoke mode (one short round per configuration, every
# part) runs every configuration, writes a complete JSON result and leaves nothing
# behind. Timings are not tested here; that each number exists, and where an
# independent count exists (fio's own I/O count, the tracer's own map total, the
# kernel's per-process counters), that the bench's figure agrees with it.
. "$(dirname "$0")/lib.sh"

for tool in fio bpftrace jq /usr/sbin/biolatency; do
	if ! command -v "$tool" > /dev/null; then
		skip "$tool is not installed (tools/deps.sh bench installs it)"
		finish
		exit 0
	fi
done

BENCH_OUT="$TMP/bench" "$ROOT/tools/bench/bench.sh" --smoke > "$TMP/out" 2>&1
rc=$?
J=$TMP/bench/bench.json
T=$TMP/bench/table.txt
expect_eq "smoke: exit status" "$rc" 0
# On failure, what the bench said went wrong (its progress lines and tables left out).
[ $rc -eq 0 ] || grep -E '^bench: [^ ]' "$TMP/out" | sed 's/^/    /' | tail -30
expect_true "smoke: bench.json written" test -s "$J"
expect_eq "smoke: mode" "$(jqv "$J" .mode 2> /dev/null)" smoke
expect_eq "smoke: every part ran" "$(jqv "$J" '.parts | join(",")' 2> /dev/null)" \
	tracers,engine,scaling,soak

# cfg NAME FILTER: FILTER over the configuration NAME in the result.
cfg() { jqv "$J" ".configs[] | select(.name == \"$1\") | $2" 2> /dev/null; }

for c in untraced floor-empty floor-clock floor-device blktrace-bench blktrace-bench-exact \
	blktrace-bench-snoop \
	blktrace-bench-blktrace libbpf-biolatency libbpf-biolatency-Q libbpf-bitesize libbpf-biosnoop \
	bpftrace-biolatency bitesize.bt; do
	status=$(cfg $c .status)
	if [ "$c" = libbpf-biosnoop ] && [ "$status" != ran ]; then
		# It needs kprobes or fentry on blk_account_io_start; where it cannot attach the
		# row says why instead of failing the bench.
		expect_true "smoke: $c cannot attach here, and says why" \
			grep -Eq '^cannot attach here: .{10,}' <<< "$status"
		expect_true "smoke: $c's reason in the table" grep -q "^$c  *cannot attach here: " "$T"
		expect_eq "smoke: $c ran no round" "$(cfg $c .rounds_ok)" 0
		continue
	fi
	expect_eq "smoke: $c ran" "$status" ran
	# One IOPS round each, and one cost round for every tracer.
	expect_eq "smoke: $c rounds" "$(cfg $c .rounds_ok)" "$([ $c = untraced ] && echo 1 || echo 2)"
	expect_eq "smoke: $c failed no round" "$(cfg $c .rounds_failed)" 0
	expect_cmp "smoke: $c IOPS" "$(cfg $c '.iops.median // 0')" ">" 0
	expect_cmp "smoke: $c % of untraced" "$(cfg $c '.pct_of_untraced.mean // 0')" ">" 0
	# One round has no interval: no ratio of it may be called resolved.
	expect_eq "smoke: $c % of untraced unresolved from one round" \
		"$(cfg $c .pct_of_untraced.resolved)" false
	expect_cmp "smoke: $c machine CPU per I/O" "$(cfg $c '.machine_cpu_ns_per_io.median // 0')" \
		">" 0
	expect_cmp "smoke: $c fio system CPU per I/O" "$(cfg $c '.fio_sys_ns_per_io.median // 0')" \
		">" 0
	expect_true "smoke: $c in the table" grep -q "^$c " "$T"
	[ "$c" = untraced ] && continue
	expect_cmp "smoke: $c BPF programs found" "$(cfg $c '.bpf_programs // 0')" ">" 0
	expect_cmp "smoke: $c BPF ns/IO" "$(cfg $c '.bpf_ns_per_io.median // 0')" ">" 0
	expect_cmp "smoke: $c x biolatency" "$(cfg $c '.x_biolatency.median // 0')" ">" 0
	expect_cmp "smoke: $c BPF map memory" "$(cfg $c '.map_memory.bytes_now // 0')" ">" 0
done

# Same-round figures, from one round each: exactly the quotient and the difference.
bb=$(cfg blktrace-bench .bpf_ns_per_io.median)
bio=$(cfg libbpf-biolatency .bpf_ns_per_io.median)
floor=$(cfg floor-clock .bpf_ns_per_io.median)
expect_cmp "smoke: libbpf-tools biolatency BPF ns/IO" "$bio" ">" 0
expect_cmp "smoke: blktrace-bench x biolatency is ours / biolatency's" \
	"$(cfg blktrace-bench .x_biolatency.median)" "==" "$(awk -v a="$bb" -v b="$bio" \
	'BEGIN { printf "%.17g", a / b }')"
expect_cmp "smoke: blktrace-bench above floor-clock is ours - floor-clock's" \
	"$(cfg blktrace-bench .ns_above_floor_clock.median)" "==" "$(awk -v a="$bb" -v b="$floor" \
	'BEGIN { printf "%.17g", a - b }')"
expect_eq "smoke: libbpf-tools biolatency x biolatency" \
	"$(cfg libbpf-biolatency .x_biolatency.median)" 1

# Every run's I/O count is the disks' (/proc/diskstats), and fio counted the same.
expect_eq "smoke: every run's disk I/Os are fio's" \
	"$(jqv "$J" '[.runs[] | select(.disk_ios != .fio_ios)] | length' 2> /dev/null)" 0
expect_cmp "smoke: runs recorded" "$(jqv "$J" '.runs | length' 2> /dev/null)" ">=" 30

# The machine's busy CPU (/proc/stat) holds fio's own system time (its getrusage).
for c in untraced blktrace-bench; do
	expect_cmp "smoke: $c machine CPU per I/O holds fio's system CPU" \
		"$(cfg $c .machine_cpu_ns_per_io.median)" ">" "$(cfg $c .fio_sys_ns_per_io.median)"
done

# The maps' memory: the tracer's own total (-v) is what the bench read from its fds.
said=$(sed -n 's/.*, \([0-9]*\) bytes of BPF maps.*/\1/p' \
	"$TMP/bench/logs/cost-blktrace-bench-1.err" | head -1)
expect_eq "smoke: blktrace-bench map memory is its own total" \
	"$(cfg blktrace-bench .map_memory.bytes_now)" "$said"
expect_cmp "smoke: blktrace-bench has per-CPU maps" \
	"$(cfg blktrace-bench '.map_memory.per_cpu_bytes // 0')" ">" 0
expect_eq "smoke: map memory grows with CPUs" \
	"$(cfg blktrace-bench '.map_memory.at_cpus | map(.bytes) | . == sort and .[0] < .[2]')" true

expect_eq "smoke: blktrace-bench lost no records" "$(cfg blktrace-bench .lost_records)" 0
expect_eq "smoke: blktrace-bench --blktrace lost no record" \
	"$(cfg blktrace-bench-blktrace .lost_records)" 0
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

# Part 3: every queue depth with one and two jobs, then 1, 2 and 4 disks.
sc() { jqv "$J" "[.scaling[] | select(.config == \"blktrace-bench\" and $1)] | $2" 2> /dev/null; }
expect_eq "smoke: part 3 shapes" \
	"$(sc '.kind == "depth"' 'map("\(.iodepth)x\(.jobs)") | join(" ")')" "1x1 1x2 8x1 8x2 32x1 32x2 128x1 128x2"
expect_eq "smoke: part 3 BPF ns/IO in every shape" \
	"$(sc '.kind == "depth"' 'map(select(.bpf_ns_per_io > 0)) | length')" 8
expect_eq "smoke: part 3 disks" "$(sc '.kind == "disks"' 'map(.disks) | join(" ")')" "1 2 4"
expect_eq "smoke: part 3 BPF ns/IO for every number of disks" \
	"$(sc '.kind == "disks"' 'map(select(.bpf_ns_per_io > 0)) | length')" 3
# Each disk's tracer counted: N processes hold N times one's programs (one process
# holds the same programs however many disks it traces).
d1=$(jqv "$J" '.runs[] | select(.kind == "disks" and .disks == 1) | .bpf_programs' 2> /dev/null)
for n in 2 4; do
	form=$(sc ".kind == \"disks\" and .disks == $n" '.[0].tracer_form')
	want=$([ "$form" = "one process per disk" ] && echo $((d1 * n)) || echo "$d1")
	expect_eq "smoke: $n disks ($form): programs counted" "$(jqv "$J" ".runs[] |
		select(.kind == \"disks\" and .disks == $n) | .bpf_programs" 2> /dev/null)" "$want"
done
expect_true "smoke: part 3 in the table" grep -q '^part 3: how the cost grows' "$T"

# Part 4: the soak sampled the tracer's RSS and read its report.
expect_cmp "smoke: soak samples" "$(jqv "$J" '.soak.samples // 0' 2> /dev/null)" ">=" 3
expect_eq "smoke: soak lost no records" "$(jqv "$J" .soak.lost_records 2> /dev/null)" 0
expect_cmp "smoke: soak traced the I/Os" "$(jqv "$J" '.soak.completed // 0' 2> /dev/null)" ">" 0
expect_true "smoke: soak slope" jq -e '.soak.slope_kib_per_min | type == "number"' "$J"

# The targets: each met or not, but the 10-minute one, which a 5 s soak does not measure.
expect_eq "smoke: targets" "$(jqv "$J" '.targets | length' 2> /dev/null)" 9
expect_eq "smoke: targets measured" \
	"$(jqv "$J" '[.targets[] | .met | type] | join(" ")' 2> /dev/null)" \
	"boolean boolean boolean boolean boolean boolean boolean null boolean"
expect_eq "smoke: a targets line per target in the table" \
	"$(grep -cE '^  \[(met|NOT met|not measured)\] ' "$T")" 9
# The first target is ours over floor-device, from one round exactly their quotient; the
# biolatency target carries floor-device's own figure on its scale.
fdev=$(cfg floor-device .bpf_ns_per_io.median)
ours=$(cfg blktrace-bench .bpf_ns_per_io.median)
expect_cmp "smoke: the floor-device target is ours / floor-device's" \
	"$(jqv "$J" '.targets[0].value // -1')" "==" \
	"$(awk -v a="$ours" -v b="$fdev" 'BEGIN { printf "%.17g", a / b }')"
expect_cmp "smoke: the biolatency target carries floor-device's / biolatency's" \
	"$(jqv "$J" '.targets[1].floor_device // -1')" "==" \
	"$(awk -v a="$fdev" -v b="$bio" 'BEGIN { printf "%.17g", a / b }')"
expect_eq "smoke: its line prints it" "$(grep -c '^  \[.*(floor-device: [0-9.]*x)$' "$T")" 1

# BPF statistics: on through a holder of its own (never kernel.bpf_stats_enabled, which
# another bench beside this one may hold on or let go meanwhile); like every tracer, it
# is gone. tracefs: each bpftrace mounts its own in a namespace of its own.
# Its own disks and work dir: another bench may be running beside this one.
work=$(sed -n 's/.*work dir \([^,]*\), disk.*/\1/p' "$TMP/out" | head -1)
expect_true "smoke: the bench named its work dir" test -n "$work"
expect_eq "smoke: no loop disk left" "$(losetup -a | grep -c "${work:-none}/")" 0
expect_true "smoke: no work dir left" test ! -e "${work:-/nonexistent}"
expect_eq "smoke: no process of it left (tracers, the statistics holder)" \
	"$(pgrep -fc "${work:-/nonexistent}/")" 0
expect_true "smoke: table.sh prints a saved result again" \
	diff <("$ROOT/tools/bench/table.sh" "$J") "$T"

finish
