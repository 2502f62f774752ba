#!/usr/bin/env bash
# make bench, part 3: what tracing several disks at once costs. One blktrace-bench
# traces N loop disks (N = 1, 2, 4, 10, 64 and 256, where the members beyond the first 8
# are found in member_map, an array probed as a hash table) while fio reads all N at once
# (4 KiB random reads, io_uring, iodepth 8, O_DIRECT, one job per disk). With bpf_stats
# on, the BPF run time of the tracer's programs (its own fds) over the I/Os the N disks
# completed (/proc/diskstats) is the cost per I/O; beside it the IOPS traced against
# untraced in the same round, and the tracer's CPU time and peak RSS. Then `serve` of 1
# and of all N disks: the time of a scrape of /metrics (median of 5) and serve's RSS.
# The target: 256 disks cost at most 1.1x one disk's BPF time per I/O. The controls, in
# the same rounds under the same fio (tools/bench/floor.bpf.c): floor-clock, two
# programs that read the clock and keep nothing per disk, what N disks' I/O costs any
# program (its text and the kernel's state of N disks and N jobs out of the caches);
# floor-disks, the least a tracer of N disks' device time does (a hash lookup of the
# disk, the issue time by (disk, tag), a latency histogram per disk), what keeping
# state per disk adds to that as N grows.
#   tools/bench/fleet.sh           3 rounds of 3 s per N (~4 min)
#   tools/bench/fleet.sh --smoke   1 round of 1 s, 1, 2, 4 and 10 disks (seconds); exits
#                                  non-zero on a failure
# Knobs: BENCH_ROUNDS, BENCH_RUNTIME (s), BENCH_OUT (results dir). The loop disks, their
# images, the tracer and bpf_stats_enabled are undone on exit, error and Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
HERE=$ROOT/tools/bench
. "$HERE/lib.sh" # bench_args, bpf_snapshot

bench_args "bench fleet" "$0" "$@"
# The disks beyond the first 10 are small (4 KiB reads in 4 MiB, all in memory anyway):
# 256 of 256 MiB would not fit the machine's memory.
if [ "$SMOKE" = 1 ]; then
	ROUNDS=${BENCH_ROUNDS:-1} RUNTIME=${BENCH_RUNTIME:-1} SIZE=32M
	SIZES=(1 2 4 10)
else
	ROUNDS=${BENCH_ROUNDS:-3} RUNTIME=${BENCH_RUNTIME:-3} SIZE=256M
	SIZES=(1 2 4 10 64 256)
fi
OUT=${BENCH_OUT:-$ROOT/results/bench-fleet-$(date +%Y%m%d-%H%M%S)}
say() { echo "bench fleet: $*"; }
[ "$(id -u)" -eq 0 ] || { say "needs root (loop devices, BPF, bpf_stats)" >&2; exit 1; }
for t in fio jq; do
	command -v "$t" > /dev/null || { say "$t missing (tools/deps.sh test)" >&2; exit 1; }
done
[ -x "$ROOT/build/bench-floor" ] || { say "build/bench-floor is not built (make bench builds it)" >&2; exit 1; }

work='' tracer='' stats_prev='' devs=()
cleanup() {
	local rc=$? d
	set +e
	[ -n "$tracer" ] && kill -INT "$tracer" 2> /dev/null && wait "$tracer"
	for d in "${devs[@]}"; do losetup -d "$d"; done
	[ -n "$work" ] && rm -rf "$work"
	[ -n "$stats_prev" ] && echo "$stats_prev" > /proc/sys/kernel/bpf_stats_enabled
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$OUT"
work=$(mktemp -d /dev/shm/blktrace-bench-fleet.XXXXXX)
BB=$work/blktrace-bench
cp "$ROOT/blktrace-bench" "$BB" # frozen: a rebuild meanwhile must not change it
FLOOR=$work/bench-floor
cp "$ROOT/build/bench-floor" "$FLOOR"
names=()
for i in $(seq 1 "${SIZES[-1]}"); do
	size=$SIZE
	[ "$i" -le 10 ] || size=4M
	truncate -s "$size" "$work/disk$i"
	fallocate -l "$size" "$work/disk$i" # real pages: reads must not come from holes
	devs+=("$(losetup -f --show "$work/disk$i")")
	names+=("$(basename "${devs[-1]}")")
done
udevadm settle 2> /dev/null || true
stats_prev=$(cat /proc/sys/kernel/bpf_stats_enabled)
echo 1 > /proc/sys/kernel/bpf_stats_enabled

# Completed reads and writes of the first N disks.
ios() {
	awk -v list=" ${names[*]:0:$1} " 'index(list, " " $3 " ") { n += $4 + $8 } END { printf "%.0f\n", n }' \
		/proc/diskstats
}
# fio over the first N disks at once; its total IOPS.
run_fio() {
	local n=$1 args=() i
	for ((i = 0; i < n; i++)); do
		args+=(--name="d$i" --filename="${devs[i]}")
	done
	fio --rw=randread --bs=4k --ioengine=io_uring --iodepth=8 --direct=1 --time_based \
		--runtime="$RUNTIME" --norandommap --randrepeat=1 --group_reporting \
		--output-format=json "${args[@]}" | jq '.jobs[0].read.iops'
}

# Whether FILE, the output of process PID, says PATTERN within 30 s, unless PID dies first.
await_line() {
	local pid=$1 file=$2 pattern=$3 i
	for ((i = 0; i < 600; i++)); do
		grep -q "$pattern" "$file" 2> /dev/null && return 0
		[ -e "/proc/$pid/fdinfo" ] || break
		sleep 0.05
	done
	grep -q "$pattern" "$file" 2> /dev/null
}

# A control of tools/bench/floor.bpf.c (MODE [DISKS]) under fio over the first N disks:
# its BPF run time and the I/Os completed meanwhile, in floor_ns and floor_ios.
floor_run() {
	local n=$1 f0 f1 d0 d1
	shift
	rm -f "$work/floor.out" # the last run's "ready" is not this one's
	"$FLOOR" "$@" > "$work/floor.out" 2>&1 &
	tracer=$!
	await_line "$tracer" "$work/floor.out" ready ||
		{ say "N=$n: floor-$1 did not attach: $(cat "$work/floor.out")" >&2; failed=1; }
	read -r f0 _ < <(bpf_snapshot "$tracer")
	d0=$(ios "$n")
	run_fio "$n" > /dev/null
	read -r f1 _ < <(bpf_snapshot "$tracer")
	d1=$(ios "$n")
	kill -INT "$tracer"
	wait "$tracer" || { say "N=$n: floor-$1 failed" >&2; failed=1; }
	tracer=
	floor_ns=$((f1 - f0)) floor_ios=$((d1 - d0))
}

: > "$OUT/fleet-rounds.jsonl"
failed=0
for ((r = 1; r <= ROUNDS; r++)); do
	for n in "${SIZES[@]}"; do
		list=$(IFS=,; echo "${names[*]:0:$n}")
		base=$(run_fio "$n")
		# The files go first: the child truncates them only once it runs, and the last
		# tracer's lines are not this one's.
		rm -f "$work/out" "$work/err"
		"$BB" --trace "$list" -v > "$work/out" 2> "$work/err" &
		tracer=$!
		# Attached once it says so (-v).
		await_line "$tracer" "$work/err" "with .* programs" ||
			{ say "N=$n: the tracer did not attach: $(cat "$work/err")" >&2; failed=1; }
		read -r t0 _ < <(bpf_snapshot "$tracer")
		c0=$(ios "$n")
		cpu0=$(awk '{ print $14 + $15 }' "/proc/$tracer/stat")
		iops=$(run_fio "$n")
		read -r t1 _ < <(bpf_snapshot "$tracer")
		c1=$(ios "$n")
		cpu1=$(awk '{ print $14 + $15 }' "/proc/$tracer/stat")
		rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$tracer/status")
		kill -INT "$tracer"
		wait "$tracer" || { say "N=$n: the tracer failed" >&2; failed=1; }
		tracer=
		# The controls under the same fio: floor-clock, floor-disks.
		floor_run "$n" clock
		fns=$floor_ns fios=$floor_ios
		floor_run "$n" disks "$list"
		gns=$floor_ns gios=$floor_ios
		jq -n -c --argjson n "$n" --argjson r "$r" --argjson base "$base" --argjson iops "$iops" \
			--argjson ns "$((t1 - t0))" --argjson ios "$((c1 - c0))" \
			--argjson fns "$fns" --argjson fios "$fios" \
			--argjson gns "$gns" --argjson gios "$gios" \
			--argjson cpu "$(((cpu1 - cpu0) * 1000 / $(getconf CLK_TCK)))" --argjson rss "$rss" \
			'{disks: $n, round: $r, untraced_iops: $base, traced_iops: $iops,
			  pct_of_untraced: (100 * $iops / $base), bpf_ns_per_io: ($ns / ([$ios, 1] | max)),
			  floor_clock_ns_per_io: ($fns / ([$fios, 1] | max)),
			  floor_disks_ns_per_io: ($gns / ([$gios, 1] | max)),
			  ios: $ios, tool_cpu_ms: $cpu, peak_rss_kib: $rss}
			| .above_floor_ns = .bpf_ns_per_io - .floor_clock_ns_per_io' >> "$OUT/fleet-rounds.jsonl"
		printf 'bench fleet:   round %d, %3d disks: %9.0f IOPS untraced, %9.0f traced, %5.0f ns/IO (floor-clock %.0f, floor-disks %.0f)\n' \
			"$r" "$n" "$base" "$iops" "$(jq -s '.[-1].bpf_ns_per_io' "$OUT/fleet-rounds.jsonl")" \
			"$(jq -s '.[-1].floor_clock_ns_per_io' "$OUT/fleet-rounds.jsonl")" \
			"$(jq -s '.[-1].floor_disks_ns_per_io' "$OUT/fleet-rounds.jsonl")"
	done
done

# serve of 1 and of all the disks: a scrape's time (curl's total, median of 5) and RSS.
: > "$OUT/fleet-serve.jsonl"
for n in 1 "${SIZES[-1]}"; do
	list=$(IFS=,; echo "${names[*]:0:$n}")
	rm -f "$work/serve.err" # the last serve's port is not this one's
	"$BB" serve --listen 127.0.0.1:0 --trace "$list" 2> "$work/serve.err" &
	tracer=$!
	port="" i=0
	while [ -z "$port" ] && [ $i -lt 600 ] && [ -e "/proc/$tracer" ]; do
		port=$(sed -n 's|.*serving http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$work/serve.err" 2> /dev/null)
		[ -n "$port" ] || sleep 0.05
		i=$((i + 1))
	done
	if [ -z "$port" ]; then
		say "serve of $n disks did not start: $(cat "$work/serve.err")" >&2
		failed=1
	else
		for _ in 1 2 3 4 5; do
			curl -s -o "$work/metrics" -w '%{time_total}\n' "http://127.0.0.1:$port/metrics"
		done > "$work/times"
		jq -n -c --argjson n "$n" --argjson bytes "$(stat -c %s "$work/metrics")" \
			--argjson rss "$(awk '/^VmHWM:/ { print $2 }' "/proc/$tracer/status")" \
			--argjson t "$(jq -s -c 'map(. * 1000)' "$work/times")" \
			'{disks: $n, scrape_ms: ($t | sort | .[2]), metrics_bytes: $bytes, peak_rss_kib: $rss}' \
			>> "$OUT/fleet-serve.jsonl"
	fi
	kill -INT "$tracer" 2> /dev/null
	wait "$tracer" || { say "serve of $n disks failed" >&2; failed=1; }
	tracer=
done

jq -s --arg kernel "$(uname -r)" --argjson cpus "$(nproc)" --argjson rounds "$ROUNDS" \
	--argjson runtime "$RUNTIME" --slurpfile serve "$OUT/fleet-serve.jsonl" '
def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
{schema: "blktrace-bench-bench-fleet/1", kernel: $kernel, cpus: $cpus, rounds: $rounds,
 seconds_per_run: $runtime,
 workload: "fio 4k randread, io_uring, iodepth 8, direct, one job per disk, all traced disks at once",
 sizes: (group_by(.disks) | map({disks: .[0].disks,
	bpf_ns_per_io: ([.[].bpf_ns_per_io] | median), pct_of_untraced: ([.[].pct_of_untraced] | median),
	floor_clock_ns_per_io: ([.[].floor_clock_ns_per_io] | median),
	floor_disks_ns_per_io: ([.[].floor_disks_ns_per_io] | median),
	above_floor_ns: ([.[].above_floor_ns] | median),
	traced_iops: ([.[].traced_iops] | median), tool_cpu_ms: ([.[].tool_cpu_ms] | median),
	peak_rss_kib: ([.[].peak_rss_kib] | max)})),
 serve: $serve,
 runs: .}
| .target = {bpf_ns_ratio_max: 1.1, disks: (.sizes[-1].disks)}
| .target.ratio = (if .sizes[0].bpf_ns_per_io > 0 then .sizes[-1].bpf_ns_per_io / .sizes[0].bpf_ns_per_io else null end)
| .target.met = (.target.ratio != null and .target.ratio <= 1.1)
| .control = {floor_clock_ratio: (if .sizes[0].floor_clock_ns_per_io > 0
		then .sizes[-1].floor_clock_ns_per_io / .sizes[0].floor_clock_ns_per_io else null end),
	floor_disks_ratio: (if .sizes[0].floor_disks_ns_per_io > 0
		then .sizes[-1].floor_disks_ns_per_io / .sizes[0].floor_disks_ns_per_io else null end),
	above_floor_ratio: (if .sizes[0].above_floor_ns > 0
		then .sizes[-1].above_floor_ns / .sizes[0].above_floor_ns else null end)}' \
	"$OUT/fleet-rounds.jsonl" > "$OUT/fleet.json"

echo
say "several disks in one tracer: fio on all N at once, ${RUNTIME}s x $ROUNDS rounds (medians)," \
	"$(nproc) CPUs, kernel $(uname -r)"
{
	printf '%-6s %10s %12s %12s %12s %12s %12s %10s %8s\n' disks "BPF ns/IO" "floor-clock" \
		"floor-disks" "above clock" "traced IOPS" "% untraced" "CPU ms" "RSS MiB"
	jq -r '.sizes[] | [.disks, .bpf_ns_per_io, .floor_clock_ns_per_io, .floor_disks_ns_per_io,
		.above_floor_ns, .traced_iops, .pct_of_untraced, .tool_cpu_ms, .peak_rss_kib / 1024] | @tsv' \
		"$OUT/fleet.json" |
		awk -F'\t' '{ printf "%-6d %10.0f %12.0f %12.0f %12.0f %12.0f %11.1f%% %10.0f %8.1f\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
	echo "Members beyond the first 8 are matched through member_map (an array probed as a hash table)."
	jq -r '.control | select(.floor_clock_ratio != null and .above_floor_ratio != null) |
		"the controls: floor-clock at \(.floor_clock_ratio * 100 | round / 100)x its one-disk cost," +
		" floor-disks at \((.floor_disks_ratio // 0) * 100 | round / 100)x;" +
		" ours above floor-clock at \(.above_floor_ratio * 100 | round / 100)x"' "$OUT/fleet.json"
	jq -r '.serve[] | "serve of \(.disks) disks: a scrape \(.scrape_ms * 10 | round / 10) ms" +
		" (\(.metrics_bytes / 1024 | round) KiB of /metrics), peak RSS \(.peak_rss_kib / 1024 * 10 | round / 10) MiB"' \
		"$OUT/fleet.json"
	jq -r '.target | "target: \(.disks) disks at most 1.1x one disk'"'"'s BPF ns/IO: " +
		(if .ratio == null then "not measured" else "\(.ratio * 100 | round / 100)x, " +
		(if .met then "met" else "NOT met" end) end)' "$OUT/fleet.json"
} | tee "$OUT/fleet-table.txt"
say "wrote ${OUT#"$ROOT"/}/fleet.json"
exit $failed
