# Every figure of a `make bench` run, computed once from its rounds (tools/bench/bench.sh
# passes them in); tools/bench/table.sh only prints what this computes.
#   jq -n -f summary.jq --slurpfile runs rounds.jsonl --slurpfile soak soak.jsonl
#      --slurpfile soak_report soak-report.json --argjson meta {...} --argjson part2 {...}
# $meta: date, mode, parts, host, versions, workload, configs [{name, description,
# status}], possible_cpus, rounds; $part2: the engine against fio, or null.

def median: sort | if length == 0 then null
	elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def stat: if length == 0 then null else {median: median, min: min, max: max} end;
# Student t, 97.5% quantile, by degrees of freedom (1..20; the normal beyond).
def t975: [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
	2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086][. - 1] // 1.96;
# The median, range, mean and its 95% confidence interval (none from one round).
def meanci: if length == 0 then null else
	(add / length) as $m | length as $n
	| (if $n > 1 then (map(. - $m | . * .) | add / ($n - 1) | sqrt) * ($n - 1 | t975)
	   / ($n | sqrt) else null end) as $h
	| stat + {rounds: $n, mean: $m, ci95: (if $h then [$m - $h, $m + $h] else null end)} end;
# A ratio is resolved when its interval is narrower than its distance from no effect
# ($one: 1, or 100 for percentages): otherwise the machine could not tell.
def ratio($one): meanci | if . == null then null
	else . + {resolved: (.ci95 != null and (.ci95[1] - .ci95[0]) < ((.mean - $one) | fabs))} end;
# [x, y] for each x of $xs and the y of $ys of the same round (and shape, in part 3).
def same_round($xs; $ys): [$xs[] as $x | $ys[]
	| select(.round == $x.round and .iodepth == $x.iodepth and .jobs == $x.jobs
		and .disks == $x.disks) | [$x, .]];
# What the maps would take with other numbers of CPUs: a per-CPU map (percpu hash 5,
# percpu array 6, lru percpu hash 10) holds its value, rounded up to 8 bytes, once per
# possible CPU and entry; the kernel's memlock counts that plus what does not grow.
def map_memory($possible): if . == null then null else
	([.[] | select(.type == 5 or .type == 6 or .type == 10)
	  | ((.value_size + 7) / 8 | floor) * 8 * .max_entries] | add // 0) as $pc
	| ([.[].memlock] | add // 0) as $now
	| {maps: length, bytes_now: $now, possible_cpus: $possible, per_cpu_bytes: $pc,
	   fixed_bytes: ($now - $pc * $possible),
	   at_cpus: [2, 64, 256 | {cpus: ., bytes: ($now - $pc * $possible + $pc * .)}]} end;
# Least squares over [t, y]: the slope per second.
def slope: (map(.[0]) | add / length) as $mt | (map(.[1]) | add / length) as $my
	| (map((.[0] - $mt) * (.[0] - $mt)) | add) as $sxx
	| if $sxx == 0 then 0 else (map((.[0] - $mt) * (.[1] - $my)) | add) / $sxx end;

$runs as $runs
| [$runs[] | select(.phase == "iops")] as $io
| [$runs[] | select(.phase == "cost")] as $cost
| [$io[] | select(.config == "untraced")] as $untraced
| [$cost[] | select(.config == "libbpf-biolatency")] as $bio
| [$cost[] | select(.config == "floor-clock")] as $floor
| [$cost[] | select(.config == "floor-device")] as $fdev
| [$cost[] | select(.config == "blktrace-bench")] as $ours
| ($meta.parts | any(.[]; . == "tracers")) as $ran_tracers
| {schema: "blktrace-bench-bench/3", date: $meta.date, mode: $meta.mode, parts: $meta.parts,
   host: $meta.host, versions: $meta.versions, workload: $meta.workload,
   method: ("Tracers run passive in the background. IOPS phase (bpf_stats off): rounds over all "
		+ "configurations, the order rotated each round; IOPS, the machine's busy CPU "
		+ "(/proc/stat) and fio's system CPU per I/O the disk completed, each as a ratio to the "
		+ "untraced run of the same round, then mean and 95% CI over rounds; a ratio whose CI is "
		+ "wider than its distance from 1 is unresolved. Cost phase (bpf_stats on): BPF run time "
		+ "over the tracer's own programs (/proc/PID/fdinfo) per I/O the disk completed "
		+ "(/proc/diskstats); ratios to libbpf-tools biolatency and differences to floor-clock in"
		+ " the same round, medians over rounds. Part 3: the same per-I/O cost by iodepth, fio "
		+ "jobs and disks. Part 4: the RSS of a passive blktrace-bench under fio, sampled, and "
		+ "its least-squares slope.")}
| .configs = [$meta.configs[] | .name as $c
	| [$io[] | select(.config == $c)] as $rs
	| [$cost[] | select(.config == $c)] as $cs
	| same_round($rs; $untraced) as $vs_untraced
	| . + {rounds_ok: ($rs + $cs | length),
	       rounds_failed: (if .status != "ran" or ($ran_tracers | not) then 0
	                       else $meta.rounds.iops + (if $c == "untraced" then 0
	                            else $meta.rounds.cost end) - ($rs + $cs | length) end),
	       iops: ([$rs[].iops] | stat),
	       pct_of_untraced: ([$vs_untraced[] | 100 * .[0].iops / .[1].iops] | ratio(100)),
	       machine_cpu_ns_per_io: ([$rs[].machine_cpu_ns_per_io] | stat),
	       machine_cpu_x_untraced: ([$vs_untraced[]
	           | .[0].machine_cpu_ns_per_io / .[1].machine_cpu_ns_per_io] | ratio(1)),
	       machine_cpu_ns_above_untraced: ([$vs_untraced[]
	           | .[0].machine_cpu_ns_per_io - .[1].machine_cpu_ns_per_io] | meanci),
	       fio_sys_ns_per_io: ([$rs[].fio_sys_ns_per_io] | stat),
	       fio_sys_x_untraced: ([$vs_untraced[]
	           | .[0].fio_sys_ns_per_io / .[1].fio_sys_ns_per_io] | ratio(1)),
	       bpf_ns_per_io: ([$cs[].bpf_ns_per_io] | stat),
	       x_biolatency: ([same_round($cs; $bio)[] | .[0].bpf_ns_per_io / .[1].bpf_ns_per_io]
	           | stat),
	       x_blktrace_bench: ([same_round($cs; $ours)[]
	           | .[0].bpf_ns_per_io / .[1].bpf_ns_per_io] | stat),
	       x_floor_clock: ([same_round($cs; $floor)[] | .[0].bpf_ns_per_io / .[1].bpf_ns_per_io]
	           | stat),
	       x_floor_device: ([same_round($cs; $fdev)[] | .[0].bpf_ns_per_io / .[1].bpf_ns_per_io]
	           | stat),
	       ns_above_floor_clock: ([same_round($cs; $floor)[]
	           | .[0].bpf_ns_per_io - .[1].bpf_ns_per_io] | stat),
	       bpf_runs_per_io: ([$cs[] | .bpf_runs / ([.disk_ios, 1] | max)] | median),
	       bpf_programs: ([$rs[], $cs[] | .bpf_programs] | max),
	       tool_cpu_ms: ([$rs[].tracer_cpu_ms] | stat),
	       tool_peak_rss_kib: ([$rs[], $cs[] | .peak_rss_kib // empty] | max),
	       map_memory: ([$cs[].maps // empty] | first | map_memory($meta.possible_cpus)),
	       other_disk_ios: ([$rs[], $cs[] | .other_disk_ios] | add)}
	+ (if ($c | startswith("blktrace-bench"))
	   then {lost_records: ([$rs[], $cs[] | .lost_records // 0] | add)} else {} end)]
| ([$runs[] | select(.phase == "scale")]) as $scale
| .scaling = [$scale | group_by([.kind, .iodepth, .jobs, .disks, .config])[]
	| .[0] as $k
	| [$scale[] | select(.kind == $k.kind and .config == "libbpf-biolatency")] as $sb
	| [$scale[] | select(.kind == $k.kind and .config == "floor-clock")] as $sf
	| {kind: $k.kind, iodepth: $k.iodepth, jobs: $k.jobs, disks: $k.disks, config: $k.config,
	   tracer_form: $k.tracer_form, rounds: length,
	   bpf_ns_per_io: ([.[].bpf_ns_per_io] | median), iops: ([.[].iops] | median),
	   x_biolatency: ([same_round(.; $sb)[] | .[0].bpf_ns_per_io / .[1].bpf_ns_per_io]
	       | median),
	   ns_above_floor_clock: ([same_round(.; $sf)[] | .[0].bpf_ns_per_io - .[1].bpf_ns_per_io]
	       | median)}]
| .soak = (if ($soak | length) == 0 then null else
	($soak | [.[] | [.t, .rss_kib]]) as $pts
	| ($pts[-1][0] - $pts[0][0]) as $secs
	| ($pts | slope) as $s
	| {seconds: $secs, samples: ($pts | length), rss_kib: ([$pts[][1]] | stat),
	   first_rss_kib: $pts[0][1], last_rss_kib: $pts[-1][1],
	   slope_kib_per_min: ($s * 60), growth_kib: ($s * $secs)}
	  + ($soak_report[0] // {}) end)
| .part2 = $part2
| .runs = $runs
# The cost targets, from this run's figures: met, NOT met, or null when the
# part that measures it did not run.
| (.configs | map({key: .name, value: .}) | from_entries) as $cfg
| ([$cfg["blktrace-bench"], $cfg["blktrace-bench-snoop"]]
   | map(select(. != null and .rounds_ok > 0))) as $ourcfgs
| def target($name; $value; $unit; $met): {target: $name, value: $value, unit: $unit,
	met: (if $value == null then null else $met end)};
  # What floor-device, the least a device-time tracer does, measures on the same scale.
  def floor_device($f): ($cfg["floor-device"][$f].median) as $v
	| if $v == null then {} else {floor_device: $v} end;
  .targets = [
	($cfg["blktrace-bench"].x_floor_device.median as $v
	 | target("blktrace-bench <= 1.25x floor-device, BPF ns/IO"; $v; "x"; $v <= 1.25)),
	($cfg["blktrace-bench"].x_biolatency.median as $v
	 | target("blktrace-bench <= 0.40x libbpf-tools biolatency, BPF ns/IO"; $v; "x";
	          $v <= 0.40) + floor_device("x_biolatency")),
	($cfg["blktrace-bench-snoop"].x_blktrace_bench.median as $v
	 | target("--snoop <= 1.3x blktrace-bench, BPF ns/IO"; $v; "x"; $v <= 1.3)),
	($cfg["blktrace-bench-blktrace"].x_blktrace_bench.median as $v
	 | target("--blktrace <= 2.0x blktrace-bench, BPF ns/IO"; $v; "x"; $v <= 2.0)),
	(([$ourcfgs[].lost_records] + [$cfg["blktrace-bench-blktrace"].lost_records // empty]
	  + [.soak.lost_records // empty])
	 | (if length == 0 then null else add end) as $v
	 | target("zero lost events (blktrace-bench, --snoop, --blktrace, soak)"; $v; ""; $v == 0)),
	(([$ourcfgs[].tool_peak_rss_kib // empty] + [.soak.peak_rss_kib // empty])
	 | (if length == 0 then null else max / 1024 end) as $v
	 | target("peak RSS of a trace (and --snoop) <= 16 MiB"; $v; "MiB"; $v <= 16)),
	(($cfg["blktrace-bench-blktrace"].tool_peak_rss_kib // null)
	 | (if . == null then null else . / 1024 end) as $v
	 | target("peak RSS of --blktrace <= 24 MiB"; $v; "MiB"; $v <= 24)),
	((if .soak != null and .soak.seconds >= 590 then .soak.growth_kib else null end) as $v
	 | target("memory constant over a 10-minute run (RSS growth by the fitted line < 64 KiB)";
	          $v; "KiB"; $v < 64)),
	((if .part2 == null then null else [.part2.jobs[].throughput_ratio] | min end) as $v
	 | target("engine >= 0.97x fio throughput with <= fio's CPU per I/O (worst job)"; $v;
	          "x fio"; .part2.met))]
