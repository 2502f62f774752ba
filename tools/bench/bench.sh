#!/usr/bin/env bash
# make bench: what tracing costs the disk it traces (part 1), and the built-in
# engine against fio (part 2).
#
# Part 1 runs one fio job (4 KiB random reads, io_uring, iodepth 32, O_DIRECT) on
# a loop disk of its own on /dev/shm, untraced and under each tracer. Every tracer
# runs in passive mode in the background, so the numbers hold nothing but the cost
# of tracing. It has two phases:
#  - IOPS: bpf_stats off (it costs two clock reads per program run, which no user
#    pays), all configurations in rounds, the order rotated each round. A tracer's
#    "% of untraced" is the median over rounds of its IOPS over the untraced IOPS
#    of the same round, so slow drifts of the machine cancel.
#  - cost: bpf_stats on. Once a tracer has attached, the BPF run time of its
#    programs (read from its own program fds in /proc/PID/fdinfo, so other
#    sessions' programs never count) is read before and after fio, and the
#    difference divided by the I/Os the disk completed in between (/proc/diskstats).
# Two calibration rows run beside the tracers: two tp_btf programs on the same two
# tracepoints that do nothing (floor-empty) or only read the clock (floor-clock),
# tools/bench/floor.bpf.c. They show what any tracer pays on this machine before
# it records anything.
#
#   tools/bench/bench.sh            full: 9 IOPS rounds and 3 cost rounds of 3 s per
#                                   configuration, then part 2 (~7 min)
#   tools/bench/bench.sh --smoke    1 round of 1 s each on a small disk (seconds);
#                                   also BENCH_SMOKE=1. Exits non-zero if any run failed.
# Knobs: BENCH_ROUNDS, BENCH_COST_ROUNDS, BENCH_PART2_ROUNDS, BENCH_RUNTIME (s),
# BENCH_DISK (size), BENCH_OUT (results dir, default results/bench-DATE).
# Everything it changes is undone on exit, error and Ctrl-C: the loop disk, its
# image, tracers, the BPF statistics it turned on, a tracefs mount.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
HERE=$ROOT/tools/bench

. "$HERE/lib.sh" # bench_args, bpf_snapshot
bench_args bench "$0" "$@"
if [ "$SMOKE" = 1 ]; then
	MODE=smoke ROUNDS=${BENCH_ROUNDS:-1} COST_ROUNDS=${BENCH_COST_ROUNDS:-1}
	P2_ROUNDS=${BENCH_PART2_ROUNDS:-1} RUNTIME=${BENCH_RUNTIME:-1} DISK=${BENCH_DISK:-64M}
	WARMUP=0
else
	MODE=full ROUNDS=${BENCH_ROUNDS:-9} COST_ROUNDS=${BENCH_COST_ROUNDS:-3}
	P2_ROUNDS=${BENCH_PART2_ROUNDS:-5} RUNTIME=${BENCH_RUNTIME:-3} DISK=${BENCH_DISK:-1G}
	WARMUP=2
fi
STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${BENCH_OUT:-$ROOT/results/bench-$STAMP}

# Part 1's configurations, in table order. A new one needs a line here, a case in
# start_tracer and one in describe.
CONFIGS=(untraced floor-empty floor-clock blktrace-bench blktrace-bench-snoop
	blktrace-bench-blktrace bpftrace-biolatency bitesize.bt)
# The issue 6 targets for our column.
TARGET_NS_PER_IO=350
TARGET_PCT=97

say() { echo "bench: $*"; }
warn() { echo "bench: $*" >&2; }

[ "$(id -u)" -eq 0 ] || { warn "needs root (loop devices, BPF, bpf_stats)"; exit 1; }
for f in blktrace-bench build/bench-floor; do
	[ -x "$ROOT/$f" ] || { warn "$f is not built (make bench builds it)"; exit 1; }
done

# --- state that cleanup undoes ---------------------------------------------------
work='' img='' dev='' tracer_pid='' fio_pid='' stats_pid='' tracefs_mounted=0

# Running, not a zombie: inside a trap bash may not have reaped it yet.
alive() {
	local st
	st=$(sed 's/.*) //' /proc/"$1"/stat 2> /dev/null) || return 1
	[ -n "$st" ] && [ "${st:0:1}" != Z ]
}

stop_pid() { # PID: SIGINT, up to 10 s to finish its report, then SIGKILL; returns its status
	local pid=$1 i rc=0
	kill -INT "$pid" 2> /dev/null || true
	for ((i = 0; i < 200; i++)); do
		alive "$pid" || break
		sleep 0.05
	done
	if alive "$pid"; then
		warn "pid $pid ignored SIGINT for 10 s; killing it"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || rc=$?
	return $rc
}

cleanup() {
	local rc=$?
	set +e
	trap - INT TERM
	[ -n "$fio_pid" ] && kill "$fio_pid" 2>/dev/null && wait "$fio_pid" 2>/dev/null
	[ -n "$tracer_pid" ] && stop_pid "$tracer_pid"
	[ -n "$dev" ] && losetup -d "$dev"
	[ -n "$img" ] && rm -f "$img"
	[ -n "$work" ] && rm -rf "$work"
	[ -n "$stats_pid" ] && stop_pid "$stats_pid"
	[ "$tracefs_mounted" = 1 ] && umount /sys/kernel/tracing
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- what we compare against ------------------------------------------------------
need=()
command -v fio > /dev/null || need+=(fio)
command -v bpftrace > /dev/null || need+=(bpftrace)
command -v jq > /dev/null || need+=(jq)
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]} with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq > /dev/null
	apt-get install -y -qq --no-install-recommends "${need[@]}" > /dev/null
fi
BITESIZE=$(dpkg -L bpftrace 2>/dev/null | grep '/bitesize\.bt$' | head -1 || true)
[ -n "$BITESIZE" ] || BITESIZE=$(command -v bitesize.bt || true)
[ -r "$BITESIZE" ] || { warn "cannot find bitesize.bt (dpkg -L bpftrace)"; exit 1; }

# bpftrace attaches tracepoints through tracefs, which a minimal system may not mount.
if [ ! -d /sys/kernel/tracing/events/block ] && [ ! -d /sys/kernel/debug/tracing/events/block ]; then
	mount -t tracefs nodev /sys/kernel/tracing
	tracefs_mounted=1
	say "mounted tracefs on /sys/kernel/tracing for bpftrace (unmounted at exit)"
fi

mkdir -p "$OUT/logs"
work=$(mktemp -d /dev/shm/blktrace-bench-bench.XXXXXX)
# The binary under test, frozen: a rebuild during the bench must not change it.
BB=$work/blktrace-bench
FLOOR=$work/bench-floor
cp "$ROOT/blktrace-bench" "$BB"
cp "$ROOT/build/bench-floor" "$FLOOR"

img=$work/disk.img
truncate -s "$DISK" "$img"
fallocate -l "$DISK" "$img" # real pages: reads must not come from holes
dev=$(losetup -f --show "$img")
udevadm settle 2> /dev/null || true
name=$(basename "$dev")
say "work dir $work, disk $dev"
IFS=: read -r major minor < "/sys/block/$name/dev"
devt=$(((major << 20) | minor)) # the kernel's dev_t, as the tracepoints report it
"$BB" info "$name" --json > "$OUT/device.json" 2> /dev/null || echo null > "$OUT/device.json"

# BPF run-time statistics: on while build/bench-floor stats runs (BPF_ENABLE_STATS, which
# the kernel counts per holder: another benchmark on the machine cannot turn them off
# under us, nor we under it). Off is only off when nobody else holds them: said below.
stats_on() {
	coproc STATS { exec "$ROOT/build/bench-floor" stats 2>&1; }
	stats_pid=$STATS_PID
	local line=''
	read -r -t 10 line <&"${STATS[0]}" || true
	[ "$line" = ready ] || { warn "cannot turn BPF statistics on: $line"; exit 1; }
}
stats_off() { stop_pid "$stats_pid"; stats_pid=''; }

say "$MODE mode: $dev ($DISK on /dev/shm), $ROUNDS IOPS and $COST_ROUNDS cost round(s) of" \
	"${RUNTIME}s per configuration"
say "results in ${OUT#"$ROOT"/}"

# --- measurements -----------------------------------------------------------------
FIO_JOB=(--name=randread --filename="$dev" --rw=randread --bs=4k --ioengine=io_uring
	--iodepth=32 --direct=1 --time_based --norandommap --randrepeat=1 --group_reporting)

run_fio() { # SECONDS JSON_OUT
	local rc=0
	fio "${FIO_JOB[@]}" --runtime="$1" --output-format=json --output="$2" &
	fio_pid=$!
	wait "$fio_pid" || rc=$?
	fio_pid=
	return $rc
}

cpu_ticks() { sed 's/.*) //' /proc/"$1"/stat | awk '{ print $12 + $13 }'; } # utime + stime
CLK_TCK=$(getconf CLK_TCK)
# Completed I/Os (reads + writes): "OURS OTHERS", others being every other
# request-based disk (another session's I/O makes unfiltered tracers work, and
# takes CPU from fio).
io_snapshot() {
	(cd /sys/block && printf '%s\n' *) | awk -v d="$name" '
		FNR == NR { disk[$1] = 1; next }
		$3 == d { ours = $4 + $8; next }
		($3 in disk) && $3 !~ /^(zram|dm-|md|ram)/ { others += $4 + $8 }
		END { printf "%.0f %.0f\n", ours, others }' - /proc/diskstats
}

# start_tracer CONFIG LOGBASE: starts it in the background (tracer_pid) and returns
# once it has attached, or non-zero if it died or took a minute.
start_tracer() {
	local cfg=$1 log=$2 ready file i
	case $cfg in
	floor-empty | floor-clock)
		"$FLOOR" "${cfg#floor-}" > "$log.out" 2> "$log.err" &
		ready='^ready' file=$log.out ;;
	blktrace-bench)
		"$BB" --trace "$name" -v --json "$log.json" > "$log.out" 2> "$log.err" &
		ready='with .* programs' file=$log.err ;;
	blktrace-bench-snoop)
		"$BB" --trace "$name" -v --snoop "$log.snoop" --json "$log.json" > "$log.out" \
			2> "$log.err" &
		ready='with .* programs' file=$log.err ;;
	blktrace-bench-blktrace)
		# On tmpfs, beside the disk image: the files' own writes are not the bench's.
		"$BB" --trace "$name" -v --blktrace "$work/blktrace" --json "$log.json" \
			> "$log.out" 2> "$log.err" &
		ready='with .* programs' file=$log.err ;;
	bpftrace-biolatency)
		bpftrace "$HERE/biolatency-tp.bt" "$devt" > "$log.out" 2> "$log.err" &
		ready='^ready' file=$log.out ;;
	bitesize.bt)
		bpftrace "$BITESIZE" > "$log.out" 2> "$log.err" &
		ready='^Tracing block device I/O' file=$log.out ;;
	*) warn "unknown configuration $cfg"; return 1 ;;
	esac
	tracer_pid=$!
	for ((i = 0; i < 1200; i++)); do
		grep -q "$ready" "$file" 2> /dev/null && return 0
		if ! alive "$tracer_pid"; then
			wait "$tracer_pid" 2> /dev/null || true
			tracer_pid=
			warn "$cfg exited before attaching:"
			tail -5 "$log.err" >&2
			return 1
		fi
		sleep 0.05
	done
	warn "$cfg did not attach within 60 s"
	i=$tracer_pid
	tracer_pid=
	stop_pid "$i" || true
	return 1
}

describe() {
	case $1 in
	untraced) echo "fio alone" ;;
	floor-empty) echo "calibration: two tp_btf programs (block_rq_issue, block_rq_complete)" \
		"that return at once (tools/bench/floor.bpf.c)" ;;
	floor-clock) echo "calibration: the same two programs, each reading the clock once" \
		"(bpf_ktime_get_ns) into a per-CPU value" ;;
	blktrace-bench) echo "blktrace-bench --trace $name (passive; filters the disk first)" ;;
	blktrace-bench-snoop) echo "blktrace-bench --trace $name --snoop FILE (a 72-byte record" \
		"per request through a ring buffer, plus the aggregates)" ;;
	blktrace-bench-blktrace) echo "blktrace-bench --trace $name --blktrace DIR (blktrace's" \
		"files: an 80-byte record per event, Q G D C per request, written per CPU;" \
		"plus the aggregates)" ;;
	bpftrace-biolatency) echo "bpftrace tools/bench/biolatency-tp.bt $devt: issue/complete" \
		"hash keyed by (dev, sector), log2 histogram; filters the disk first" ;;
	bitesize.bt) echo "bpftrace $BITESIZE as packaged: size histogram by comm at" \
		"block_rq_issue; no disk filter (counts every disk)" ;;
	esac
}

# run_round CONFIG ROUND PHASE: one fio run under CONFIG; appends a JSON line to
# rounds.jsonl. PHASE is iops (bpf_stats off) or cost (on).
run_round() {
	local cfg=$1 r=$2 phase=$3 log=$OUT/logs/$3-$1-$2 rc=0
	local t0=0 n0=0 t1=0 n1=0 p1=0 c0=0 c1=0 d0 d1 o0 o1 rss=null lost=null traced=null
	local untracked=null issued=null stale=null
	local tracer=null iops ios usr sys
	if [ "$cfg" != untraced ]; then
		start_tracer "$cfg" "$log" || return 1
		read -r t0 n0 _ < <(bpf_snapshot "$tracer_pid")
		c0=$(cpu_ticks "$tracer_pid")
	fi
	read -r d0 o0 < <(io_snapshot)
	run_fio "$RUNTIME" "$log.fio.json" || rc=$?
	read -r d1 o1 < <(io_snapshot)
	if [ -n "$tracer_pid" ]; then
		read -r t1 n1 p1 < <(bpf_snapshot "$tracer_pid")
		c1=$(cpu_ticks "$tracer_pid")
		rss=$(awk '/^VmHWM:/ { print $2 }' /proc/"$tracer_pid"/status)
		local pid=$tracer_pid trc=0
		tracer_pid=
		stop_pid "$pid" || trc=$?
		[ $trc -eq 0 ] || { warn "$cfg exited with status $trc (see ${log#"$ROOT"/}.err)"; rc=1; }
		[ "$p1" -gt 0 ] || { warn "$cfg: no BPF programs found in its fds"; rc=1; }
		tracer=$(jq -n -c --argjson t "$((t1 - t0))" --argjson n "$((n1 - n0))" \
			--argjson p "$p1" --argjson cpu "$(((c1 - c0) * 1000 / CLK_TCK))" \
			--argjson rss "${rss:-null}" \
			'{bpf_run_time_ns: $t, bpf_runs: $n, bpf_programs: $p, cpu_ms: $cpu,
			  peak_rss_kib: $rss}')
	fi
	[ $rc -eq 0 ] || { warn "$cfg round $r: fio failed ($rc)"; return 1; }
	if [ "${cfg#blktrace-bench}" != "$cfg" ]; then
		# Up to 72 bytes (snoop) or ~300 (blktrace) per I/O: the figures are what we keep.
		rm -rf "$log.snoop" "$work/blktrace"
		lost=$(jq '.runs[0].block.lost_records + (.blktrace.lost // 0)' "$log.json" \
			2> /dev/null || echo null)
		traced=$(jq '.runs[0].block.completed' "$log.json" 2> /dev/null || echo null)
		untracked=$(jq '.runs[0].block.untracked' "$log.json" 2> /dev/null || echo null)
		issued=$(jq '[.runs[0].block | .read, .write, .flush, .discard, .other |
			.requests] | add' "$log.json" 2> /dev/null || echo null)
		stale=$(jq '.runs[0].block.lost_completions' "$log.json" 2> /dev/null || echo null)
	fi
	IFS=$'\t' read -r iops ios usr sys < <(jq -r \
		'.jobs[0] | [.read.iops, .read.total_ios, .usr_cpu, .sys_cpu] | @tsv' "$log.fio.json")
	jq -n -c --arg cfg "$cfg" --argjson r "$r" --argjson iops "${iops:-0}" \
		--argjson fio_ios "${ios:-0}" --argjson usr "${usr:-0}" --argjson sys "${sys:-0}" \
		--argjson disk "$((d1 - d0))" --argjson other "$((o1 - o0))" \
		--argjson tracer "$tracer" --argjson lost "$lost" --argjson traced "$traced" \
		--argjson untracked "$untracked" --argjson issued "$issued" --argjson stale "$stale" \
		--arg load "$(cut -d' ' -f1-3 /proc/loadavg)" --arg phase "$phase" \
		'{config: $cfg, phase: $phase, round: $r, iops: $iops, fio_ios: $fio_ios,
		  fio_cpu_pct: {usr: $usr, sys: $sys}, disk_ios: $disk, other_disk_ios: $other,
		  loadavg: $load, tracer: $tracer,
		  bpf_ns_per_io: (if $phase == "cost" and $tracer and $disk > 0
		                  then $tracer.bpf_run_time_ns / $disk else null end)}
		 + (if ($cfg | startswith("blktrace-bench")) then {lost_records: $lost, traced_completed: $traced,
		                                           untracked: $untracked, traced_issued: $issued,
		                                           lost_completions: $stale}
		    else {} end)' >> "$OUT/rounds.jsonl" || return 1
	printf 'bench:   %s round %d %-23s %9.0f IOPS' "$phase" "$r" "$cfg" "$iops"
	[ "$tracer" = null ] || [ "$phase" != cost ] ||
		printf '  %6d ns/IO' $(((t1 - t0) / (d1 - d0 > 0 ? d1 - d0 : 1)))
	[ $((o1 - o0)) -le $(((d1 - d0) / 100)) ] || printf '  (other disks: %d I/Os)' $((o1 - o0))
	echo
}

# --- part 2: the built-in engine against fio (issue 3 / issue 6) -----------------
# The same three jobs, run by fio and by blktrace-bench's own engine, alternating,
# P2_ROUNDS times of RUNTIME seconds each, time-based over the whole disk. Both run
# traced (fio as blktrace-bench's command), so the BPF cost is the same on both
# sides and the ratio is the engines'. CPU per I/O is user+system time of the whole
# command (bash's `times` for its children) over the I/Os it did.
PART2_JOBS=(
	"seq-1m|--rw=read --bs=1M --ioengine=io_uring --iodepth=8 --direct=1|--rw read --bs 1M --engine io_uring --iodepth 8 --direct"
	"rand-4k|--rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --direct=1|--rw randread --bs 4k --engine io_uring --iodepth 32 --direct"
	"psync-4k|--rw=randread --bs=4k --ioengine=psync --direct=1|--rw randread --bs 4k --engine psync --direct"
)
# CMD...: run it; print "user+sys seconds" of it and its children.
cpu_seconds() {
	(
		"$@" > /dev/null 2>> "$OUT/logs/part2.err" || exit 1
		times
	) | tail -1 | awk '{
		n = split($1 " " $2, t, " "); s = 0
		for (i = 1; i <= n; i++) { split(t[i], m, "m"); sub("s", "", m[2]); s += m[1] * 60 + m[2] }
		print s }'
}
# part2_run TOOL JOB ROUND FIO_ARGS OUR_ARGS: one traced run; appends to part2.jsonl.
part2_run() {
	local tool=$1 jname=$2 r=$3 fjob=$4 ojob=$5 f=$OUT/logs/part2-$2-$3 cpu
	local bytes=$(($(cat "/sys/block/$name/size") * 512))
	if [ "$tool" = fio ]; then
		# shellcheck disable=SC2086
		cpu=$(cpu_seconds "$BB" --trace "$name" -- fio --name="$jname" --filename="$dev" \
			$fjob --time_based --runtime="$RUNTIME" --size="$bytes" \
			--output-format=json --output="$f.fio.json") || return 1
		jq -c --arg job "$jname" --argjson r "$r" --argjson cpu "$cpu" \
			'{job: $job, round: $r, tool: "fio", bytes_per_s: .jobs[0].read.bw_bytes,
			  ios: .jobs[0].read.total_ios, cpu_s: $cpu}' "$f.fio.json" >> "$OUT/part2.jsonl"
	else
		# shellcheck disable=SC2086
		cpu=$(cpu_seconds "$BB" --trace "$name" --raw $ojob --runtime "$RUNTIME" \
			--size "$bytes" --json "$f.bb.json") || return 1
		jq -c --arg job "$jname" --argjson r "$r" --argjson cpu "$cpu" \
			'{job: $job, round: $r, tool: "blktrace-bench",
			  bytes_per_s: (.runs[0].app.bytes / .runs[0].app.seconds),
			  ios: .runs[0].app.ios, cpu_s: $cpu}' "$f.bb.json" >> "$OUT/part2.jsonl"
	fi
}
part2_engine_vs_fio() {
	local r spec jname fjob ojob first second
	: > "$OUT/part2.jsonl"
	for ((r = 1; r <= P2_ROUNDS; r++)); do
		# Who goes first alternates by round.
		first=fio second=ours
		((r % 2)) || first=ours second=fio
		for spec in "${PART2_JOBS[@]}"; do
			IFS='|' read -r jname fjob ojob <<< "$spec"
			part2_run $first "$jname" "$r" "$fjob" "$ojob" || return 1
			part2_run $second "$jname" "$r" "$fjob" "$ojob" || return 1
		done
	done
	jq -s -c '
	def median: sort | if length == 0 then null
		elif length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def cpu_io: .cpu_s * 1e6 / ([.ios, 1] | max);
	. as $rs | {status: "done", target: {throughput_ratio_min: 0.97, cpu_per_io_ratio_max: 1.0},
	 method: "Each round runs every job with fio and with our engine, who goes first alternating; ratios are medians over rounds of ours / fio in the same round.",
	 jobs: [$rs | map(.job) | unique[] as $j
		| ([$rs[] | select(.job == $j and .tool == "fio")]) as $f
		| ([$rs[] | select(.job == $j and .tool == "blktrace-bench")]) as $b
		| [$b[] | .round as $r | . as $o | $f[] | select(.round == $r) | [$o, .]] as $pairs
		| {job: $j,
		   fio_mb_per_s: ([$f[].bytes_per_s] | median / 1e6),
		   ours_mb_per_s: ([$b[].bytes_per_s] | median / 1e6),
		   fio_cpu_us_per_io: ([$f[] | cpu_io] | median),
		   ours_cpu_us_per_io: ([$b[] | cpu_io] | median),
		   throughput_ratio: ([$pairs[] | .[0].bytes_per_s / .[1].bytes_per_s] | median),
		   cpu_per_io_ratio: ([$pairs[] | (.[0] | cpu_io) / (.[1] | cpu_io)] | median)}]}
	| .met = all(.jobs[]; .throughput_ratio >= 0.97 and .cpu_per_io_ratio <= 1.0)
	' "$OUT/part2.jsonl"
}
print_part2() {
	printf '%-10s %12s %12s %7s %14s %14s %7s\n' job "fio MB/s" "ours MB/s" ratio \
		"fio CPU us/IO" "ours CPU us/IO" ratio
	jq -r '.part2.jobs[]? | [.job, .fio_mb_per_s, .ours_mb_per_s, .throughput_ratio,
		.fio_cpu_us_per_io, .ours_cpu_us_per_io, .cpu_per_io_ratio] | @tsv' "$1" |
		awk -F'\t' '{ printf "%-10s %12.1f %12.1f %6.2fx %14.2f %14.2f %6.2fx\n",
			$1, $2, $3, $4, $5, $6, $7 }'
}
# <<< PART 2

# --- part 1: rounds ---------------------------------------------------------------
# Timings need a quiet machine: say so when something else uses the CPUs or disks.
cpu_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
read -r b0 i0 < <(cpu_busy)
read -r _ q0 < <(io_snapshot)
sleep 1
read -r b1 i1 < <(cpu_busy)
read -r _ q1 < <(io_snapshot)
BUSY_PCT=$(((b1 - b0) * 100 / (b1 - b0 + i1 - i0 > 0 ? b1 - b0 + i1 - i0 : 1)))
OTHER_IOPS=$((q1 - q0))
if [ "$BUSY_PCT" -gt 10 ] || [ "$OTHER_IOPS" -gt 1000 ]; then
	say "warning: the machine is not idle (CPU ${BUSY_PCT}% busy, other disks $OTHER_IOPS IOPS" \
		"before starting): expect noisy numbers"
fi

: > "$OUT/rounds.jsonl"
failures=()
if [ "$WARMUP" -gt 0 ]; then
	say "warm-up: ${WARMUP}s of fio, not counted"
	run_fio "$WARMUP" "$OUT/logs/warmup.fio.json" || { warn "fio failed"; exit 1; }
fi
# rounds PHASE NR CONFIG...: NR rounds over the configurations, the order rotated
# each round so that none always runs first.
rounds() {
	local phase=$1 nr=$2 r i cfg
	shift 2
	local cfgs=("$@") n=$#
	for ((r = 1; r <= nr; r++)); do
		for ((i = 0; i < n; i++)); do
			cfg=${cfgs[(i + r - 1) % n]}
			run_round "$cfg" "$r" "$phase" || failures+=("$phase/$cfg/$r")
		done
	done
}
say "IOPS phase: bpf_stats off$([ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = 0 ] ||
	echo " (NOT off: another process holds them; IOPS pay two clock reads per program run)")"
rounds iops "$ROUNDS" "${CONFIGS[@]}"
say "cost phase: bpf_stats on"
stats_on
rounds cost "$COST_ROUNDS" "${CONFIGS[@]:1}"
stats_off

part2=$(part2_engine_vs_fio) || { failures+=(part2); part2=null; }

# --- summary ----------------------------------------------------------------------
cfg_json=$(for c in "${CONFIGS[@]}"; do
	jq -n -c --arg c "$c" --arg d "$(describe "$c")" '{name: $c, description: $d}'
done | jq -s -c .)
jq -s --argjson configs "$cfg_json" --arg date "$(date -Iseconds)" --arg mode "$MODE" \
	--argjson rounds "$ROUNDS" --argjson cost_rounds "$COST_ROUNDS" \
	--argjson p2_rounds "$P2_ROUNDS" --argjson runtime "$RUNTIME" --arg disk "$DISK" \
	--arg dev "$name" --arg majmin "$major:$minor" --slurpfile info "$OUT/device.json" \
	--arg kernel "$(uname -r)" --arg host "$(hostname)" --argjson cpus "$(nproc)" \
	--arg cpu "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" \
	--arg bb "$("$BB" --version | awk '{ print $2 }')" --arg fio "$(fio --version)" \
	--arg bpftrace "$(bpftrace --version | awk '{ print $2 }')" \
	--argjson part2 "$part2" --argjson tns "$TARGET_NS_PER_IO" --argjson tpct "$TARGET_PCT" \
	--arg job "${FIO_JOB[*]}" --argjson busy "$BUSY_PCT" --argjson oiops "$OTHER_IOPS" '
def median: sort | if length == 0 then null
	elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def stat: if length == 0 then null else {median: median, min: min, max: max} end;
# Student t, 97.5% quantile, by degrees of freedom (1..20; the normal beyond).
def t975: [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
	2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086][. - 1] // 1.96;
# The median, range, mean and its 95% confidence interval.
def pctstat: if length == 0 then null else
	(add / length) as $m | length as $n
	| (if $n > 1 then (map(. - $m | . * .) | add / ($n - 1) | sqrt) * ($n - 1 | t975)
	   / ($n | sqrt) else null end) as $h
	| stat + {mean: $m, ci95: (if $h then [$m - $h, $m + $h] else null end)} end;
. as $runs
| [$runs[] | select(.phase == "iops")] as $io
| {schema: "blktrace-bench-bench/2", date: $date, mode: $mode,
   host: {kernel: $kernel, hostname: $host, cpus: $cpus, cpu_model: $cpu,
          before_start: {cpu_busy_pct: $busy, other_disks_iops: $oiops}},
   versions: {"blktrace-bench": $bb, fio: $fio, bpftrace: $bpftrace},
   workload: {fio: $job, seconds_per_round: $runtime, iops_rounds: $rounds,
              cost_rounds: $cost_rounds, part2_rounds: $p2_rounds,
              disk: {name: $dev, dev: $majmin, size: $disk, backing: "/dev/shm file",
                     info: $info[0].device}},
   method: "Tracers run passive in the background. IOPS phase (bpf_stats off): rounds over all configurations, the order rotated each round; % of untraced is the median over rounds of IOPS / untraced IOPS of the same round. Cost phase (bpf_stats on): BPF run time and tool CPU time are deltas over the fio run, read from the tracer process (/proc/PID/fdinfo, /proc/PID/stat), divided by the I/Os the disk completed (/proc/diskstats). floor-* rows are calibration programs (tools/bench/floor.bpf.c).",
   configs: [$configs[] | .name as $c
     | [$io[] | select(.config == $c)] as $rs
     | [$runs[] | select(.phase == "cost" and .config == $c)] as $cs
     | [$rs[] | .round as $r | .iops as $i
        | ($io[] | select(.config == "untraced" and .round == $r) | .iops) as $u
        | select($u > 0) | 100 * $i / $u] as $pct
     | . + {rounds_ok: ($rs + $cs | length),
            rounds_failed: ($rounds + (if $c == "untraced" then 0 else $cost_rounds end)
                            - ($rs + $cs | length)),
            iops: ([$rs[].iops] | stat),
            pct_of_untraced: ($pct | pctstat),
            bpf_ns_per_io: ([$cs[] | .bpf_ns_per_io // empty] | stat),
            bpf_runs_per_io: ([$cs[] | select(.tracer) | .tracer.bpf_runs / ([.disk_ios, 1] | max)]
                              | median),
            bpf_programs: ([$rs[], $cs[] | .tracer.bpf_programs // empty] | max),
            tool_cpu_ms: ([$rs[] | .tracer.cpu_ms // empty] | stat),
            tool_peak_rss_kib: ([$rs[], $cs[] | .tracer.peak_rss_kib // empty] | max),
            other_disk_ios: ([$rs[], $cs[] | .other_disk_ios] | add)}
     + (if ($c | startswith("blktrace-bench"))
        then {lost_records: ([$rs[], $cs[] | .lost_records // 0] | add)} else {} end)],
   part2: $part2,
   runs: $runs}
| .targets = ([.configs[] | select(.name == "blktrace-bench")
    | {bpf_ns_per_io_max: $tns, pct_of_untraced_min: $tpct,
       bpf_ns_per_io: .bpf_ns_per_io.median, pct_of_untraced: .pct_of_untraced.median,
       met: ((.bpf_ns_per_io.median // 1e18) <= $tns
             and (.pct_of_untraced.median // 0) >= $tpct)}]
    | .[0])
' "$OUT/rounds.jsonl" > "$OUT/bench.json"

print_table() {
	printf '%-23s %11s %9s %9s %10s %15s %10s %7s %8s\n' config "IOPS median" min max \
		"% untraced" "(mean, 95% CI)" "BPF ns/IO" "CPU ms" "RSS MiB"
	jq -r '.configs[] | [.name, (.iops // {} | .median, .min, .max),
		(.pct_of_untraced // {} | .median, (.ci95 // [null, null] | .[0], .[1])),
		.bpf_ns_per_io.median, .tool_cpu_ms.median, .tool_peak_rss_kib,
		.rounds_failed] | map(. // "-") | @tsv' "$1" |
		awk -F'\t' 'function f(w, p, v) { return v == "-" ? sprintf("%" w "s", v) : sprintf("%" w "." p "f", v) }
		{
			printf "%-23s %11s %9s %9s %9s%% %15s %10s %7s %8s", $1, f(11, 0, $2), f(9, 0, $3),
				f(9, 0, $4), f(9, 1, $5), $6 == "-" ? "-" : sprintf("(%.1f-%.1f%%)", $6, $7),
				f(10, 0, $8), f(7, 0, $9), f(8, 1, $10 == "-" ? "-" : $10 / 1024)
			if ($11 != 0) printf "   (%d failed rounds)", $11
			printf "\n"
		}'
}

echo
say "part 1: fio 4k randread, io_uring, iodepth 32, direct, ${RUNTIME}s rounds on $name" \
	"($(nproc) CPUs, kernel $(uname -r))"
print_table "$OUT/bench.json" | tee "$OUT/table.txt"
cat << EOF | tee -a "$OUT/table.txt"
IOPS and % untraced: $ROUNDS rounds with bpf_stats off; % untraced is the median over rounds
of IOPS / untraced IOPS in the same round, then the 95% confidence interval of their
mean (a wide one says the machine was too noisy to tell). BPF ns/IO: $COST_ROUNDS rounds with
bpf_stats on, all of the tool's programs. CPU ms: the tool's CPU time during one fio
run (median). RSS: its peak. floor-*: calibration, what any tracer pays here.
EOF
jq -r '.targets | "blktrace-bench vs issue 6 targets (<= \(.bpf_ns_per_io_max) ns/IO, >= \(
	.pct_of_untraced_min)% IOPS): \(if .met then "met" else "NOT met" end)"' \
	"$OUT/bench.json" | tee -a "$OUT/table.txt"
read -r other ours < <(jq -r '[([.runs[].other_disk_ios] | add // 0),
	([.runs[].disk_ios] | add // 0)] | @tsv' "$OUT/bench.json")
[ "$other" -le $((ours / 100)) ] || say "note: other disks completed $other I/Os during the runs" \
	"(another workload on this machine adds noise; unfiltered tracers pay for it)"
echo
say "part 2: the built-in engine vs fio $(fio --version), same jobs, both traced," \
	"${RUNTIME}s x $P2_ROUNDS rounds (medians)"
print_part2 "$OUT/bench.json" | tee -a "$OUT/table.txt"
echo "ratio: median over rounds of ours / fio in the same round; who goes first alternates." \
	| tee -a "$OUT/table.txt"
jq -r '.part2 | "engine vs issue 3 targets (>= 0.97x fio throughput, <= 1.0x CPU per I/O): \(
	if .met then "met" else "NOT met" end)"' "$OUT/bench.json" | tee -a "$OUT/table.txt"
say "wrote ${OUT#"$ROOT"/}/bench.json"

if [ ${#failures[@]} -gt 0 ]; then
	warn "failed: ${failures[*]}"
	exit 1
fi
