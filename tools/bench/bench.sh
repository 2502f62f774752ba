#!/usr/bin/env bash
# make bench: what tracing costs the disk it traces, against the peers a user would
# run instead (part 1), the built-in engine against fio (part 2), how the cost grows
# (part 3), and whether a long trace keeps its memory (part 4, the soak).
#
# Part 1 runs one fio job (4 KiB random reads, io_uring, iodepth 32, O_DIRECT) on a
# loop disk of its own on /dev/shm, untraced and under each tracer: ours, alone, with
# --snoop and with --blktrace (its files on tmpfs); Debian's libbpf-tools biolatency, biolatency -Q, bitesize and
# biosnoop; two bpftrace scripts; three calibration rows. Every tracer runs in the
# background, passive, so the numbers hold nothing but the cost of tracing. A peer
# that cannot attach on this kernel is shown so ("cannot attach here: why"). Phases:
#  - IOPS and CPU: bpf_stats off (it costs two clock reads per program run, which no
#    user pays), all configurations in rounds, the order rotated each round. Per
#    round: fio's IOPS, the machine's busy CPU (/proc/stat: user, nice, system, irq,
#    softirq) and fio's own system CPU, each per I/O the disk completed
#    (/proc/diskstats), as ratios to the untraced run of the same round, so slow
#    drifts of the machine cancel; over rounds their mean and 95% confidence
#    interval. A ratio whose interval is wider than its distance from 1 (100%) is
#    "unresolved": this machine could not tell.
#  - cost: bpf_stats on. Once a tracer has attached, the BPF run time of its
#    programs (read from its own program fds in /proc/PID/fdinfo, so other
#    sessions' programs never count) is read before and after fio, and the
#    difference divided by the I/Os the disk completed in between. Per round, each
#    tracer's ratio to libbpf-tools biolatency and its ns above floor-clock; medians
#    over rounds. The BPF maps each tracer holds (their fdinfo), and what they would
#    take with 2, 64 and 256 CPUs.
# The calibration rows attach two tp_btf programs on the same two tracepoints that
# do nothing (floor-empty) or only read the clock (floor-clock),
# tools/bench/floor.bpf.c: what any tracer pays here before it records anything; and
# floor-device, what a tracer of the disk's device time pays at least (the issue time
# kept by tag, one latency histogram: what biolatency records).
# Part 3, bpf_stats on: BPF ns/IO of blktrace-bench, floor-clock and libbpf-tools
# biolatency at iodepth 1, 8, 32 and 128 with 1 and 2 fio jobs, then with one fio
# job reading 1, 2 and 4 disks at once (one blktrace-bench per disk while --trace
# takes one disk; one for all once this binary traces a list).
# Part 4: blktrace-bench traces the disk passively under fio for 10 minutes; its RSS
# every 10 s and the slope of a least-squares line through them.
# Last, the project's cost targets, each met, NOT met or not measured in this run.
#
#   tools/bench/bench.sh              full: parts 1-3, 9 IOPS and 3 cost rounds of 3 s
#                                     per configuration, 3 rounds in part 3 (~17 min)
#   tools/bench/bench.sh --smoke      1 round of 1 s each on small disks and a 5 s soak
#                                     (a minute or two); also BENCH_SMOKE=1. Exits
#                                     non-zero if any run failed.
#   tools/bench/bench.sh --parts LIST the parts to run, of tracers, engine, scaling and
#                                     soak (default: all but soak; smoke: all);
#                                     make bench-soak is --parts soak.
# Knobs: BENCH_ROUNDS, BENCH_COST_ROUNDS, BENCH_PART2_ROUNDS, BENCH_SCALE_ROUNDS,
# BENCH_RUNTIME (s), BENCH_DISK (size of each disk), BENCH_SOAK_SECONDS,
# BENCH_SOAK_EVERY (s), BENCH_PARTS, BENCH_OUT (results dir, default
# results/bench-DATE). tools/bench/table.sh RESULT.json prints a result's tables again.
# Everything it changes is undone on exit, error and Ctrl-C: the loop disks, their
# images, tracers, the BPF statistics it turned on.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
HERE=$ROOT/tools/bench

. "$HERE/lib.sh" # bench_args, bpf_snapshot
# --parts LIST is this script's own; bench_args takes the rest (--smoke, --help).
PARTS=${BENCH_PARTS:-}
usage() { echo "bench: $1 (try --help)" >&2; exit 2; }
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--parts) [ $# -ge 2 ] || usage "--parts needs a list"; PARTS=$2; shift ;;
	--parts=*) PARTS=${1#--parts=} ;;
	*) args+=("$1") ;;
	esac
	shift
done
bench_args bench "$0" "${args[@]}"
if [ "$SMOKE" = 1 ]; then
	MODE=smoke ROUNDS=${BENCH_ROUNDS:-1} COST_ROUNDS=${BENCH_COST_ROUNDS:-1}
	P2_ROUNDS=${BENCH_PART2_ROUNDS:-1} SCALE_ROUNDS=${BENCH_SCALE_ROUNDS:-1}
	RUNTIME=${BENCH_RUNTIME:-1} DISK=${BENCH_DISK:-64M}
	SOAK_SECONDS=${BENCH_SOAK_SECONDS:-5} SOAK_EVERY=${BENCH_SOAK_EVERY:-1}
	WARMUP=0 PARTS=${PARTS:-tracers,engine,scaling,soak}
else
	MODE=full ROUNDS=${BENCH_ROUNDS:-9} COST_ROUNDS=${BENCH_COST_ROUNDS:-3}
	P2_ROUNDS=${BENCH_PART2_ROUNDS:-5} SCALE_ROUNDS=${BENCH_SCALE_ROUNDS:-3}
	RUNTIME=${BENCH_RUNTIME:-3} DISK=${BENCH_DISK:-1G}
	SOAK_SECONDS=${BENCH_SOAK_SECONDS:-600} SOAK_EVERY=${BENCH_SOAK_EVERY:-10}
	WARMUP=2 PARTS=${PARTS:-tracers,engine,scaling}
fi
for p in ${PARTS//,/ }; do
	case $p in
	tracers | engine | scaling | soak) ;;
	*) usage "unknown part '$p' in --parts (tracers, engine, scaling, soak)" ;;
	esac
done
part() { [[ ",$PARTS," == *",$1,"* ]]; }
for v in ROUNDS COST_ROUNDS P2_ROUNDS SCALE_ROUNDS RUNTIME SOAK_SECONDS SOAK_EVERY; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		usage "BENCH_${v/P2_/PART2_}=${!v} is not a positive integer"
done
STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${BENCH_OUT:-$ROOT/results/bench-$STAMP}

# Part 1's configurations, in table order; each is defined in one place, config_def.
CONFIGS=(untraced floor-empty floor-clock floor-device blktrace-bench blktrace-bench-exact
	blktrace-bench-snoop blktrace-bench-blktrace libbpf-biolatency libbpf-biolatency-Q libbpf-bitesize libbpf-biosnoop
	bpftrace-biolatency bitesize.bt)
# Part 3's tracers and shapes (fio iodepth x jobs; disks read at once).
SCALE_CONFIGS=(blktrace-bench floor-clock libbpf-biolatency)
[ "$SMOKE" = 0 ] || SCALE_CONFIGS=(blktrace-bench)
SCALE_QDS=(1 8 32 128)
SCALE_JOBS=(1 2)
SCALE_DISKS=(1 2 4)

say() { echo "bench: $*"; }
warn() { echo "bench: $*" >&2; }

[ "$(id -u)" -eq 0 ] || { warn "needs root (loop devices, BPF, bpf_stats)"; exit 1; }
for f in blktrace-bench build/bench-floor; do
	[ -x "$ROOT/$f" ] || { warn "$f is not built (make bench builds it)"; exit 1; }
done

# --- state that cleanup undoes ---------------------------------------------------
work='' devs=() tracer_pids=() fio_pid='' stats_pid=''

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

# Stops every tracer running; non-zero if one of them failed.
stop_tracers() {
	local pid rc=0
	for pid in "${tracer_pids[@]}"; do
		stop_pid "$pid" || rc=$?
	done
	tracer_pids=()
	return $rc
}

# end_run CONFIG LOG: stops the tracers of a run just measured. Fails if one died during
# the run, or if one of ours did not exit cleanly; another project's tool that has to be
# killed at the end (bpftrace, now and then, under load) had been measured already.
end_run() {
	local cfg=$1 log=$2 pid rc=0 st
	for pid in "${tracer_pids[@]}"; do
		alive "$pid" || { warn "$cfg died during the run (see ${log#"$ROOT"/}*.err)"; rc=1; }
	done
	stop_tracers && return $rc
	st=$?
	case $cfg in
	blktrace-bench* | floor-*)
		warn "$cfg exited with status $st (see ${log#"$ROOT"/}*.err)"
		return 1 ;;
	*) warn "$cfg exited with status $st once measured: the run is kept" ;;
	esac
	return $rc
}

cleanup() {
	local rc=$? d
	set +e
	trap - INT TERM
	[ -n "$fio_pid" ] && kill "$fio_pid" 2>/dev/null && wait "$fio_pid" 2>/dev/null
	stop_tracers
	# Only while it still holds our image: if something else detached it meanwhile, the
	# name may be another's disk by now.
	for d in "${devs[@]}"; do
		[[ $(losetup -n -O BACK-FILE "$d" 2> /dev/null) == "$work"/* ]] && losetup -d "$d"
	done
	[ -n "$work" ] && rm -rf "$work"
	[ -n "$stats_pid" ] && stop_pid "$stats_pid"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- what we compare against ------------------------------------------------------
# tools/deps.sh is the one place that installs: fio, bpftrace, libbpf-tools, jq.
"$ROOT/tools/deps.sh" bench || { warn "missing packages (tools/deps.sh bench)"; exit 1; }
BITESIZE=$(dpkg -L bpftrace 2>/dev/null | grep '/bitesize\.bt$' | head -1 || true)
[ -n "$BITESIZE" ] || BITESIZE=$(command -v bitesize.bt || true)
[ -r "$BITESIZE" ] || { warn "cannot find bitesize.bt (dpkg -L bpftrace)"; exit 1; }
LIBBPF_TOOLS=/usr/sbin # where Debian's libbpf-tools puts biolatency and friends

# bpftrace attaches tracepoints through tracefs, which a minimal system may not mount.
# Each bpftrace gets a tracefs of its own, in a mount namespace of its own: it goes
# away with it, and another bench that unmounts the machine's meanwhile cannot take it
# away (a shared mount did, in concurrent make checks). exec: the pid stays bpftrace's.
BPFTRACE=(unshare --mount --propagation private sh -c
	'mount -t tracefs nodev /sys/kernel/tracing && exec bpftrace "$@"' bpftrace)

mkdir -p "$OUT/logs"
work=$(mktemp -d /dev/shm/blktrace-bench-bench.XXXXXX)
# The binary under test, frozen: a rebuild during the bench must not change it.
BB=$work/blktrace-bench
FLOOR=$work/bench-floor
cp "$ROOT/blktrace-bench" "$BB"
cp "$ROOT/build/bench-floor" "$FLOOR"

# add_disk: one more loop disk of DISK bytes on /dev/shm (real pages, so that reads
# never come from holes), appended to devs and names.
names=()
add_disk() {
	local img=$work/disk${#devs[@]}.img
	truncate -s "$DISK" "$img"
	fallocate -l "$DISK" "$img"
	devs+=("$(losetup -f --show "$img")")
	names+=("$(basename "${devs[-1]}")")
	udevadm settle 2> /dev/null || true
}
add_disk
dev=${devs[0]} name=${names[0]}
say "work dir $work, disk $dev"
IFS=: read -r major minor < "/sys/block/$name/dev"
devt=$(((major << 20) | minor)) # the kernel's dev_t, as the tracepoints report it
"$BB" info "$name" --json > "$OUT/device.json" 2> /dev/null || echo null > "$OUT/device.json"

# BPF run-time statistics: on while build/bench-floor stats runs (BPF_ENABLE_STATS, which
# the kernel counts per holder: another benchmark on the machine cannot turn them off
# under us, nor we under it). Off is only off when nobody else holds them: said below.
stats_on() {
	coproc STATS { exec "$FLOOR" stats 2>&1; }
	stats_pid=$STATS_PID
	local line=''
	read -r -t 10 line <&"${STATS[0]}" || true
	[ "$line" = ready ] || { warn "cannot turn BPF statistics on: $line"; exit 1; }
}
stats_off() { stop_pid "$stats_pid"; stats_pid=''; }

say "$MODE mode, parts $PARTS: $dev ($DISK on /dev/shm), $ROUNDS IOPS and $COST_ROUNDS cost" \
	"round(s) of ${RUNTIME}s per configuration"
say "results in ${OUT#"$ROOT"/}"

# --- measurements -----------------------------------------------------------------
CLK_TCK=$(getconf CLK_TCK)
POSSIBLE_CPUS=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-");
	c += n == 2 ? r[2] - r[1] + 1 : 1 } } END { print c }' /sys/devices/system/cpu/possible)

# job IODEPTH JOBS DEV...: the bench's fio job (4 KiB random reads, io_uring, O_DIRECT)
# at that depth with that many processes, over those disks (fio takes turns between
# them, one I/O each), into the array job.
job() {
	local qd=$1 nj=$2
	shift 2
	job=(--name=randread --filename="$(IFS=:; echo "$*")" --rw=randread --bs=4k
		--ioengine=io_uring --iodepth="$qd" --numjobs="$nj" --direct=1 --time_based
		--runtime="$RUNTIME" --norandommap --randrepeat=1 --group_reporting)
}

run_fio() { # JSON_OUT FIO_ARGS...: what fio says on stderr goes to JSON_OUT.err
	local out=$1 rc=0
	shift
	fio "$@" --output-format=json --output="$out" 2> "$out.err" &
	fio_pid=$!
	wait "$fio_pid" || rc=$?
	fio_pid=
	return $rc
}

# Whether the process has attached every BPF program it loaded: each program fd's
# prog_id is named by one of its link fds. How libbpf-tools are seen to be ready, whatever
# they print and however they buffer it.
bpf_attached() {
	grep -H -E '^(prog_id|run_time_ns|link_type):' /proc/"$1"/fdinfo/* 2> /dev/null |
		awk -F: '{ v = $3; gsub(/[ \t]/, "", v); a[$1, $2] = v; f[$1] = 1 }
		END {
			for (x in f) {
				if ((x, "run_time_ns") in a) prog[a[x, "prog_id"]] = 1
				else if ((x, "link_type") in a) linked[a[x, "prog_id"]] = 1
			}
			for (p in prog) { n++; if (!(p in linked)) exit 1 }
			exit n == 0
		}'
}

# The BPF maps the process holds, one JSON object per map: its type, value size,
# entries and the memory the kernel charges for it (memlock).
map_snapshot() {
	grep -H -E '^(map_id|map_type|value_size|max_entries|memlock):' /proc/"$1"/fdinfo/* \
		2> /dev/null | awk -F: '{ v = $3; gsub(/[ \t]/, "", v); a[$1, $2] = v; f[$1] = 1 }
		END {
			for (x in f) {
				if (!((x, "map_type") in a) || (a[x, "map_id"] in seen))
					continue
				seen[a[x, "map_id"]] = 1
				printf "{\"type\": %d, \"value_size\": %d, \"max_entries\": %d, \"memlock\": %d}\n",
					a[x, "map_type"], a[x, "value_size"], a[x, "max_entries"], a[x, "memlock"]
			}
		}' | jq -s -c 'sort_by(-.memlock)'
}

cpu_ticks() { # utime + stime; 0 once it is gone
	sed 's/.*) //' /proc/"$1"/stat 2> /dev/null | awk '{ t = $12 + $13 } END { print t + 0 }'
}
# The machine's busy ticks: user, nice, system, irq, softirq (not idle, iowait, steal).
machine_busy() { awk '/^cpu / { printf "%.0f\n", $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
# Completed I/Os (reads + writes): "OURS OTHERS", ours being the disks in MEASURED
# (default: the bench's first disk), others every other request-based disk (another
# session's I/O makes unfiltered tracers work, and takes CPU from fio).
MEASURED=()
io_snapshot() {
	(cd /sys/block && printf '%s\n' *) | awk -v ours=" ${MEASURED[*]:-$name} " '
		FNR == NR { disk[$1] = 1; next }
		index(ours, " " $3 " ") { n += $4 + $8; next }
		($3 in disk) && $3 !~ /^(zram|dm-|md|ram)/ { others += $4 + $8 }
		END { printf "%.0f %.0f\n", n, others }' - /proc/diskstats
}
# What a run is the delta of, on one line: the running tracers' BPF run time, runs
# and programs, our and other disks' completed I/Os, the machine's busy ticks, the
# tracers' CPU ticks.
counters() {
	local t=0 n=0 p=0 c=0 pid bt bn bp
	for pid in "${tracer_pids[@]}"; do
		read -r bt bn bp < <(bpf_snapshot "$pid")
		t=$((t + bt)) n=$((n + bn)) p=$((p + bp)) c=$((c + $(cpu_ticks "$pid")))
	done
	echo "$t $n $p $(io_snapshot) $(machine_busy) $c"
}

# measure LOG FIO_ARGS...: one fio run (its JSON in LOG.fio.json) and what the machine
# and the tracers did meanwhile, as one JSON object: fio's IOPS and system CPU per I/O,
# the disks' I/Os, the machine's busy CPU, BPF run time and runs, the tracers' CPU.
measure() {
	local log=$1 rc=0 a b
	shift
	a=$(counters)
	run_fio "$log.fio.json" "$@" || rc=$?
	b=$(counters)
	[ $rc -eq 0 ] || { warn "fio failed ($rc): $(tail -1 "$log.fio.json.err")"; return 1; }
	jq -c --argjson a "[${a// /,}]" --argjson b "[${b// /,}]" --argjson tck "$CLK_TCK" '
		.jobs[0] as $j | [range(0; $a | length) as $i | $b[$i] - $a[$i]] as $d
		| ([$d[3], 1] | max) as $ios
		| {iops: $j.read.iops, fio_ios: $j.read.total_ios,
		   fio_sys_ns_per_io: ($j.sys_cpu / 100 * $j.job_runtime * 1e6
		                       / ([$j.read.total_ios, 1] | max)),
		   disk_ios: $d[3], other_disk_ios: $d[4],
		   machine_cpu_ns_per_io: ($d[5] * 1e9 / $tck / $ios),
		   bpf_run_time_ns: $d[0], bpf_runs: $d[1], bpf_programs: $b[2],
		   bpf_ns_per_io: ($d[0] / $ios), tracer_cpu_ms: ($d[6] * 1000 / $tck)}' \
		"$log.fio.json"
}
peak_rss_kib() { # PID...: the largest VmHWM of them
	local pid m=0 v
	for pid; do
		v=$(awk '/^VmHWM:/ { print $2 }' /proc/"$pid"/status 2> /dev/null)
		[ "${v:-0}" -le "$m" ] || m=$v
	done
	echo "$m"
}

# --- the configurations ---------------------------------------------------------------
# config_def CONFIG LOG [DISK]: everything about one configuration, in one place. Sets
# cmd (its command line, none for untraced), out (where its stdout goes), ready (how it
# is seen attached: out:REGEX or err:REGEX, a line it prints, or links: every program
# it loaded is attached), peer (1: another project's tool, which may not run on every
# kernel: shown as such rather than failed) and desc. DISK: the disk(s) it traces.
config_def() {
	local log=$2 d=${3:-$name}
	cmd=() out=$log.out ready=links peer=0 desc=
	case $1 in
	untraced) desc="fio alone" ;;
	floor-empty)
		cmd=("$FLOOR" empty) ready=out:'^ready'
		desc="calibration: two tp_btf programs (block_rq_issue, block_rq_complete) that"
		desc+=" return at once (tools/bench/floor.bpf.c)" ;;
	floor-clock)
		cmd=("$FLOOR" clock) ready=out:'^ready'
		desc="calibration: the same two programs, each reading the clock once"
		desc+=" (bpf_ktime_get_ns) into a per-CPU value" ;;
	floor-device)
		cmd=("$FLOOR" device "$d") ready=out:'^ready'
		desc="calibration: the least a tracer of $d's device time does (what libbpf-tools"
		desc+=" biolatency records): the disk filter, the issue time kept by tag and read"
		desc+=" back at completion, one latency histogram" ;;
	blktrace-bench)
		cmd=("$BB" --trace "$d" -v --json "$log.json") ready=err:'with .* programs'
		desc="blktrace-bench --trace $d (passive; filters the disk first)" ;;
	blktrace-bench-exact)
		cmd=("$BB" --trace "$d" -v --exact-depth --json "$log.json") ready=err:'with .* programs'
		desc="blktrace-bench --trace $d --exact-depth (the queue depth read at every issue:"
		desc+=" the line the completing CPU writes, taken on every I/O)" ;;
	blktrace-bench-snoop)
		cmd=("$BB" --trace "$d" -v --snoop "$log.snoop" --json "$log.json")
		ready=err:'with .* programs'
		desc="blktrace-bench --trace $d --snoop FILE (a 72-byte record per request"
		desc+=" through a ring buffer, plus the aggregates)" ;;
	blktrace-bench-blktrace)
		# On tmpfs, beside the disk image: the files' own writes are not the bench's.
		cmd=("$BB" --trace "$d" -v --blktrace "$work/blktrace" --json "$log.json")
		ready=err:'with .* programs'
		desc="blktrace-bench --trace $d --blktrace DIR (blktrace's files: one 184-byte record"
		desc+=" per request holding its Q G D C, written per CPU in time order; plus the aggregates)" ;;
	libbpf-biolatency | libbpf-biolatency-Q)
		cmd=("$LIBBPF_TOOLS/biolatency") peer=1
		[ "$1" = libbpf-biolatency ] || cmd+=(-Q)
		[ "$d" = all ] || cmd+=(-d "$d")
		desc="libbpf-tools ${cmd[*]#"$LIBBPF_TOOLS/"}: log2 histogram of"
		[ "$1" = libbpf-biolatency ] && desc+=" issue-to-complete time," ||
			desc+=" insert-to-complete time (block_rq_insert too),"
		desc+=" start times in a hash by request;"
		[ "$d" = all ] && desc+=" counts every disk" || desc+=" filters the disk" ;;
	libbpf-bitesize)
		cmd=("$LIBBPF_TOOLS/bitesize" -d "$d") peer=1
		desc="libbpf-tools bitesize -d $d: request size histogram by process name at"
		desc+=" block_rq_issue; filters the disk" ;;
	libbpf-biosnoop)
		cmd=("$LIBBPF_TOOLS/biosnoop" -d "$d") out=/dev/null peer=1
		desc="libbpf-tools biosnoop -d $d: a line per request through a perf buffer"
		desc+=" (to /dev/null); filters the disk" ;;
	bpftrace-biolatency)
		cmd=("${BPFTRACE[@]}" "$HERE/biolatency-tp.bt" "$devt") ready=out:'^ready'
		desc="bpftrace tools/bench/biolatency-tp.bt $devt: issue/complete hash keyed by"
		desc+=" (dev, sector), log2 histogram; filters the disk first" ;;
	bitesize.bt)
		cmd=("${BPFTRACE[@]}" "$BITESIZE") ready=out:'^Tracing block device I/O'
		desc="bpftrace $BITESIZE as packaged: size histogram by comm at block_rq_issue;"
		desc+=" no disk filter (counts every disk)" ;;
	*) warn "unknown configuration $1"; return 1 ;;
	esac
}

# Why a tool that exited before attaching could not: the program libbpf could not
# load and why, and whether this kernel has kprobes at all.
attach_failure() { # ERRLOG
	local why re="^libbpf: prog '\([^']*\)': BPF program load failed: \(.*\)"
	why=$(sed -n "s/$re/its program \1 failed to load (\2)/p" "$1" | sed -n 1p)
	if [ -z "$why" ]; then
		why=$(grep -v '^libbpf: ' "$1" | tail -1)
	# Not grep -q: with pipefail, zcat killed by SIGPIPE would fail the pipeline.
	elif { zcat /proc/config.gz 2> /dev/null || cat "/boot/config-$(uname -r)" 2> /dev/null; } |
		grep '^# CONFIG_KPROBES is not set' > /dev/null; then
		why+="; this kernel has no kprobes (CONFIG_KPROBES is not set)"
	fi
	echo "${why:-it exited before attaching}"
}

# start_tracer CONFIG LOG [DISK]: starts it in the background (appended to tracer_pids)
# and returns once it has attached; non-zero if it died (its reason in LOG.why) or took
# a minute.
start_tracer() {
	local cfg=$1 log=$2 cmd out ready peer desc pid i file re
	config_def "$@" || return 1
	"${cmd[@]}" > "$out" 2> "$log.err" &
	pid=$!
	tracer_pids+=("$pid")
	re=${ready#*:}
	case $ready in
	out:*) file=$out ;;
	err:*) file=$log.err ;;
	esac
	for ((i = 0; i < 1200; i++)); do
		if [ "$ready" = links ]; then
			bpf_attached "$pid" && return 0
		else
			grep -q "$re" "$file" 2> /dev/null && return 0
		fi
		if ! alive "$pid"; then
			wait "$pid" 2> /dev/null || true
			unset 'tracer_pids[-1]'
			attach_failure "$log.err" > "$log.why"
			[ "${probing:-0}" = 1 ] ||
				{ warn "$cfg exited before attaching:"; tail -5 "$log.err" >&2; }
			return 1
		fi
		sleep 0.05
	done
	echo "it did not attach within 60 s" > "$log.why"
	warn "$cfg did not attach within 60 s"
	unset 'tracer_pids[-1]'
	stop_pid "$pid" || true
	return 1
}

# Peers that cannot attach on this kernel are left out of the rounds, each with why.
declare -A UNAVAILABLE=()
probe_peers() {
	local cfg cmd out ready peer desc log probing=1 # start_tracer: failing is an answer
	for cfg in "$@"; do
		log=$OUT/logs/probe-$cfg
		config_def "$cfg" "$log"
		[ "$peer" = 1 ] || continue
		if [ ! -x "${cmd[0]}" ]; then
			UNAVAILABLE[$cfg]="not installed (tools/deps.sh bench installs libbpf-tools)"
		else
			if start_tracer "$cfg" "$log"; then
				stop_tracers || true
				continue
			fi
			UNAVAILABLE[$cfg]="cannot attach here: $(cat "$log.why")"
		fi
		say "$cfg: ${UNAVAILABLE[$cfg]}"
	done
}
available() { [ -z "${UNAVAILABLE[$1]:-}" ]; }

# --- part 1: tracers against untraced and against each other -------------------------
# run_round CONFIG ROUND PHASE: one fio run under CONFIG; appends a JSON line to
# rounds.jsonl. PHASE is iops (bpf_stats off) or cost (on).
run_round() {
	local cfg=$1 r=$2 phase=$3 log=$OUT/logs/$3-$1-$2 rc=0 m rss=null maps=null ours='{}'
	if [ "$cfg" != untraced ]; then
		start_tracer "$cfg" "$log" || return 1
	fi
	job 32 1 "$dev"
	m=$(measure "$log" "${job[@]}") || rc=1
	if [ ${#tracer_pids[@]} -gt 0 ]; then
		rss=$(peak_rss_kib "${tracer_pids[@]}")
		[ "$phase" != cost ] || maps=$(map_snapshot "${tracer_pids[0]}")
		end_run "$cfg" "$log" || rc=1
	fi
	[ $rc -eq 0 ] || { warn "$cfg round $r failed"; return 1; }
	if [ "$cfg" != untraced ] && [ "$(jq .bpf_programs <<< "$m")" -eq 0 ]; then
		warn "$cfg: no BPF programs found in its fds"
		return 1
	fi
	if [ "${cfg#blktrace-bench}" != "$cfg" ]; then
		# Up to 72 bytes (snoop) or ~300 (blktrace) per I/O: the figures are what we keep.
		rm -rf "$log.snoop" "$work/blktrace"
		ours=$(jq -c '(.blktrace.lost // 0) as $bt | .runs[0].block
			| {lost_records: (.lost_records + $bt), traced_completed: .completed, untracked,
			traced_issued: ([.read, .write, .flush, .discard, .other | .requests] | add),
			lost_completions}' "$log.json") || { warn "$cfg: no report in $log.json"; return 1; }
	fi
	jq -n -c --arg cfg "$cfg" --argjson r "$r" --arg phase "$phase" --argjson m "$m" \
		--argjson rss "$rss" --argjson maps "$maps" --argjson ours "$ours" \
		--arg load "$(cut -d' ' -f1-3 /proc/loadavg)" '
		{config: $cfg, phase: $phase, round: $r, loadavg: $load} + $m
		+ (if $phase == "cost" then {} else {bpf_ns_per_io: null} end)
		+ (if $cfg == "untraced" then {} else {peak_rss_kib: $rss, maps: $maps} end) + $ours' \
		>> "$OUT/rounds.jsonl"
	round_line "$phase round $r" "$cfg" "$m"
}

# round_line WHAT CONFIG MEASURE_JSON: the progress line of one run.
round_line() {
	jq -r --arg what "$1" --arg cfg "$2" '"bench:   \($what) \($cfg | . + " " * (20 - length))"
		+ " \(.iops | floor | tostring | " " * (9 - length) + .) IOPS"
		+ (if .bpf_programs > 0 and ($what | test("^iops") | not)
		   then "  \(.bpf_ns_per_io | floor | tostring | " " * (6 - length) + .) ns/IO" else "" end)
		+ (if .other_disk_ios > .disk_ios / 100
		   then "  (other disks: \(.other_disk_ios) I/Os)" else "" end)' <<< "$3"
}

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

part1_tracers() {
	local cfgs=() c
	probe_peers "${CONFIGS[@]}"
	for c in "${CONFIGS[@]}"; do available "$c" && cfgs+=("$c"); done
	if [ "$WARMUP" -gt 0 ]; then
		say "warm-up: ${WARMUP}s of fio, not counted"
		job 32 1 "$dev"
		run_fio "$OUT/logs/warmup.fio.json" "${job[@]}" --runtime="$WARMUP" ||
			{ warn "fio failed"; exit 1; }
	fi
	say "IOPS phase: bpf_stats off$([ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = 0 ] ||
		echo " (NOT off: another process holds them; IOPS pay two clock reads per program run)")"
	rounds iops "$ROUNDS" "${cfgs[@]}"
	say "cost phase: bpf_stats on"
	stats_on
	rounds cost "$COST_ROUNDS" "${cfgs[@]:1}"
	stats_off
}
# --- part 2: the built-in engine against fio -------------------------------------
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

# --- part 3: how the cost grows ------------------------------------------------------
# scale_record LOG TRACER ROUND KIND IODEPTH JOBS DISKS FORM: one fio run of that shape
# under the tracers running (started by the caller), appended to rounds.jsonl.
scale_run() {
	local log=$1 cfg=$2 r=$3 kind=$4 qd=$5 nj=$6 nd=$7 form=$8 m
	job "$qd" "$nj" "${devs[@]:0:nd}"
	MEASURED=("${names[@]:0:nd}")
	m=$(measure "$log" "${job[@]}") || { MEASURED=(); return 1; }
	MEASURED=()
	jq -c --arg cfg "$cfg" --argjson r "$r" --arg kind "$kind" --argjson qd "$qd" \
		--argjson nj "$nj" --argjson nd "$nd" --arg form "$form" \
		'{config: $cfg, phase: "scale", kind: $kind, round: $r, iodepth: $qd, jobs: $nj,
		  disks: $nd, tracer_form: $form} + .' <<< "$m" >> "$OUT/rounds.jsonl"
	round_line "scale round $r qd $qd x $nj, $nd disk(s)" "$cfg" "$m"
}

# How blktrace-bench traces N disks. One process per disk while --trace takes one
# disk; one process for all once it takes a list (--trace a,b). The hook:
# whether this binary traces a list is tried once, for real.
TRACE_LIST=
trace_list_ok() {
	if [ -z "$TRACE_LIST" ]; then
		TRACE_LIST=no
		"$BB" --trace "${names[0]},${names[1]}" --duration 1ms > /dev/null 2>&1 && TRACE_LIST=yes
	fi
	[ "$TRACE_LIST" = yes ]
}
# start_disks_tracer CONFIG LOG N: CONFIG tracing the first N disks; prints its form.
start_disks_tracer() {
	local cfg=$1 log=$2 n=$3 i
	case $cfg in
	blktrace-bench)
		if [ "$n" -gt 1 ] && trace_list_ok; then
			start_tracer "$cfg" "$log" "$(IFS=,; echo "${names[*]:0:n}")" || return 1
			echo "one process"
			return
		fi
		for ((i = 0; i < n; i++)); do
			start_tracer "$cfg" "$log-disk$i" "${names[i]}" || return 1
		done
		echo "one process per disk" ;;
	libbpf-biolatency) # -d takes one disk: for several, it counts every disk
		start_tracer "$cfg" "$log" "$([ "$n" -eq 1 ] && echo "$name" || echo all)" || return 1
		echo "one process$([ "$n" -eq 1 ] || echo ", every disk")" ;;
	*)
		start_tracer "$cfg" "$log" || return 1
		echo "one process" ;;
	esac
}

part3_scaling() {
	local r cfg qd nj nd log form cfgs=()
	for cfg in "${SCALE_CONFIGS[@]}"; do available "$cfg" && cfgs+=("$cfg"); done
	while [ ${#devs[@]} -lt "${SCALE_DISKS[-1]}" ]; do add_disk; done
	say "part 3: how the cost grows, bpf_stats on, disks ${names[*]}"
	stats_on
	for ((r = 1; r <= SCALE_ROUNDS; r++)); do
		for cfg in "${cfgs[@]}"; do
			log=$OUT/logs/scale-$cfg-$r
			# One tracer for all queue depths and jobs: each fio run is its own delta.
			start_tracer "$cfg" "$log" || { failures+=("scale/$cfg/$r"); continue; }
			for qd in "${SCALE_QDS[@]}"; do
				for nj in "${SCALE_JOBS[@]}"; do
					scale_run "$log-qd$qd-j$nj" "$cfg" "$r" depth "$qd" "$nj" 1 \
						"one process" || failures+=("scale/$cfg/qd$qd/j$nj/$r")
				done
			done
			end_run "$cfg" "$log" || failures+=("scale/$cfg/$r")
			[ "$cfg" != floor-clock ] || continue # it filters nothing: disks add nothing
			for nd in "${SCALE_DISKS[@]}"; do
				log=$OUT/logs/scale-$cfg-$r-disks$nd
				# $(...) would lose the pids it starts: its form comes back through a file.
				start_disks_tracer "$cfg" "$log" "$nd" > "$log.form" &&
					scale_run "$log" "$cfg" "$r" disks 32 1 "$nd" "$(cat "$log.form")" ||
					failures+=("scale/$cfg/disks$nd/$r")
				end_run "$cfg" "$log" || failures+=("scale/$cfg/disks$nd/$r")
			done
		done
	done
	stats_off
}

# --- part 4: the soak ------------------------------------------------------------------
# blktrace-bench passive on the disk for SOAK_SECONDS under fio; its RSS every
# SOAK_EVERY seconds into soak.jsonl, then its report's lost records.
part4_soak() {
	local log=$OUT/logs/soak t0 pid rss rc=0
	say "part 4: soak, blktrace-bench traces $name under fio for ${SOAK_SECONDS}s, RSS every" \
		"${SOAK_EVERY}s"
	start_tracer blktrace-bench "$log" || { failures+=(soak); return; }
	pid=${tracer_pids[0]}
	job 32 1 "$dev"
	fio "${job[@]}" --runtime="$SOAK_SECONDS" --output-format=json --output="$log.fio.json" &
	fio_pid=$!
	: > "$OUT/soak.jsonl"
	t0=$(date +%s.%N)
	while :; do
		rss=$(awk '/^VmRSS:/ { print $2 }' /proc/"$pid"/status)
		echo "{\"t\": $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')," \
			"\"rss_kib\": $rss}" >> "$OUT/soak.jsonl"
		alive "$fio_pid" || break
		sleep "$SOAK_EVERY"
	done
	wait "$fio_pid" || rc=$?
	fio_pid=
	rss=$(peak_rss_kib "$pid")
	end_run blktrace-bench "$log" || rc=1
	[ $rc -eq 0 ] || { warn "soak failed (see ${log#"$ROOT"/}.*)"; failures+=(soak); return; }
	jq -c --argjson hwm "$rss" '{peak_rss_kib: $hwm, lost_records: .runs[0].block.lost_records,
		completed: .runs[0].block.completed}' "$log.json" > "$OUT/soak-report.json"
}

# --- the run ------------------------------------------------------------------------
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
if [ ! -d /sys/bus/event_source/devices/cpu ]; then
	say "no hardware performance counters here (no cpu PMU): CPU is measured from /proc/stat"
fi

: > "$OUT/rounds.jsonl"
: > "$OUT/soak.jsonl"
failures=()
part tracers && part1_tracers
part2=null
if part engine; then
	part2=$(part2_engine_vs_fio) || { failures+=(part2); part2=null; }
fi
part scaling && part3_scaling
part soak && part4_soak

# --- summary ------------------------------------------------------------------------
cfg_json=$(for c in "${CONFIGS[@]}"; do
	config_def "$c" "$OUT/logs/CONFIG" || exit 1
	jq -n -c --arg c "$c" --arg d "$desc" --arg s "${UNAVAILABLE[$c]:-ran}" \
		'{name: $c, description: $d, status: $s}'
done | jq -s -c .)
meta=$(jq -n -c --argjson configs "$cfg_json" --arg date "$(date -Iseconds)" --arg mode "$MODE" \
	--arg parts "$PARTS" --argjson rounds "$ROUNDS" --argjson cost_rounds "$COST_ROUNDS" \
	--argjson p2_rounds "$P2_ROUNDS" --argjson scale_rounds "$SCALE_ROUNDS" \
	--argjson runtime "$RUNTIME" --arg disk "$DISK" --arg dev "$name" --arg majmin "$major:$minor" \
	--slurpfile info "$OUT/device.json" --arg kernel "$(uname -r)" --arg host "$(hostname)" \
	--argjson cpus "$(nproc)" --argjson possible "$POSSIBLE_CPUS" \
	--arg cpu "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" \
	--arg bb "$("$BB" --version | awk '{ print $2 }')" --arg fio "$(fio --version)" \
	--arg bpftrace "$(bpftrace --version | awk '{ print $2 }')" \
	--arg libbpf_tools "$(dpkg-query -W -f='${Version}' libbpf-tools 2> /dev/null)" \
	--arg job "$(job 32 1 "$dev"; echo "${job[*]}")" --argjson busy "$BUSY_PCT" \
	--argjson oiops "$OTHER_IOPS" --argjson soak_s "$SOAK_SECONDS" --argjson soak_every "$SOAK_EVERY" \
	--arg pmu "$([ -d /sys/bus/event_source/devices/cpu ] && echo yes || echo no)" '
	{date: $date, mode: $mode, parts: ($parts | split(",")), configs: $configs,
	 possible_cpus: $possible, rounds: {iops: $rounds, cost: $cost_rounds},
	 host: {kernel: $kernel, hostname: $host, cpus: $cpus, possible_cpus: $possible, cpu_model: $cpu,
	        hardware_counters: ($pmu == "yes"),
	        before_start: {cpu_busy_pct: $busy, other_disks_iops: $oiops}},
	 versions: {"blktrace-bench": $bb, fio: $fio, bpftrace: $bpftrace, "libbpf-tools": $libbpf_tools},
	 workload: {fio: $job, seconds_per_round: $runtime, iops_rounds: $rounds,
	            cost_rounds: $cost_rounds, part2_rounds: $p2_rounds, scale_rounds: $scale_rounds,
	            soak_seconds: $soak_s, soak_every: $soak_every,
	            disk: {name: $dev, dev: $majmin, size: $disk, backing: "/dev/shm file",
	                   info: $info[0].device}}}')
[ -s "$OUT/soak-report.json" ] || echo '{}' > "$OUT/soak-report.json"
jq -n -f "$HERE/summary.jq" --slurpfile runs "$OUT/rounds.jsonl" \
	--slurpfile soak "$OUT/soak.jsonl" --slurpfile soak_report "$OUT/soak-report.json" --argjson meta "$meta" --argjson part2 "$part2" \
	> "$OUT/bench.json"

echo
"$HERE/table.sh" "$OUT/bench.json" | tee "$OUT/table.txt"
read -r other ours < <(jq -r '[([.runs[].other_disk_ios] | add // 0),
	([.runs[].disk_ios] | add // 0)] | @tsv' "$OUT/bench.json")
[ "$other" -le $((ours / 100)) ] || say "note: other disks completed $other I/Os during the runs" \
	"(another workload on this machine adds noise; unfiltered tracers pay for it)"
say "wrote ${OUT#"$ROOT"/}/bench.json"

if [ ${#failures[@]} -gt 0 ]; then
	warn "failed: ${failures[*]}"
	exit 1
fi
