#!/usr/bin/env bash
# tools/bench/table.sh RESULT.json: the tables of a `make bench` result (bench.json),
# as the bench prints them at the end of a run. It prints figures tools/bench/summary.jq
# computed; it computes none.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tools/bench/table.sh RESULT.json" >&2; exit 2; }
J=$1
[ -r "$J" ] || { echo "table: cannot read $J" >&2; exit 2; }
jq -e '.schema == "blktrace-bench-bench/3"' "$J" > /dev/null 2>&1 ||
	{ echo "table: $J is not a make bench result (schema blktrace-bench-bench/3)" >&2; exit 2; }

# awk helpers: f(width, decimals, value) right-aligned, "-" when there is none; ci(...)
# "(lo-hi)" of a 95% interval.
AWK_FMT='function f(w, p, v) {
	return v == "-" ? sprintf("%" w "s", v) : sprintf("%" w "." p "f", v)
}
function ci(p, lo, hi, s) { return lo == "-" ? "" : sprintf(" (%." p "f-%." p "f%s)", lo, hi, s) }'
# tsv FILTER: the rows FILTER makes, null as "-".
tsv() { jq -r "$1 | map(. // \"-\") | @tsv" "$J"; }

part1() {
	local rounds cost
	rounds=$(jq -r .workload.iops_rounds "$J") cost=$(jq -r .workload.cost_rounds "$J")
	jq -r '"part 1: fio 4k randread, io_uring, iodepth 32, direct, \(.workload.seconds_per_round)s"
		+ " rounds on \(.workload.disk.name) (\(.host.cpus) CPUs, kernel \(.host.kernel))"' "$J"
	echo
	echo "cost per I/O, bpf_stats on ($cost round(s); medians of same-round figures)"
	printf '%-20s %9s %12s %13s %13s %8s %7s %8s\n' config "BPF ns/IO" "x biolatency" \
		"- floor-clock" "x floor-clock" "runs/IO" "CPU ms" "RSS MiB"
	tsv '.configs[] | select(.name != "untraced") | [.name, .status, .bpf_ns_per_io.median,
		.x_biolatency.median, .ns_above_floor_clock.median, .x_floor_clock.median,
		.bpf_runs_per_io, .tool_cpu_ms.median, .tool_peak_rss_kib, .rounds_failed]' |
		awk -F'\t' "$AWK_FMT"'
		$2 != "ran" { printf "%-20s %s\n", $1, $2; next }
		{
			printf "%-20s %9s %11s%s %13s %12s%s %8s %7s %8s", $1, f(9, 0, $3), f(11, 2, $4),
				$4 == "-" ? " " : "x", f(13, 0, $5), f(12, 2, $6), $6 == "-" ? " " : "x",
				f(8, 1, $7), f(7, 0, $8), f(8, 1, $9 == "-" ? "-" : $9 / 1024)
			if ($10 != 0) printf "   (%d failed rounds)", $10
			printf "\n"
		}'
	echo
	echo "what the machine pays, bpf_stats off ($rounds round(s); same-round ratios to untraced," \
		"mean and 95% CI)"
	printf '%-20s %11s %-24s %11s %-25s %9s %s\n' config "IOPS median" "  % of untraced" \
		"CPU ns/IO" "  x untraced" "fio sys" "  x untraced"
	tsv '.configs[] | select(.status == "ran") | [.name, .iops.median,
		(.pct_of_untraced // {} | .mean, .resolved, (.ci95 // [null, null])[]),
		.machine_cpu_ns_per_io.median,
		(.machine_cpu_x_untraced // {} | .mean, .resolved, (.ci95 // [null, null])[]),
		.fio_sys_ns_per_io.median,
		(.fio_sys_x_untraced // {} | .mean, .resolved, (.ci95 // [null, null])[])]' |
		awk -F'\t' "$AWK_FMT"'
		# r(decimals, mean, resolved, lo, hi, suffix): the ratio, or "unresolved" with its CI
		function r(p, m, ok, lo, hi, s) {
			if (m == "-") return "-"
			if (ok != "true") return "unresolved" ci(p, lo, hi, s)
			return sprintf("%." p "f%s", m, s) ci(p, lo, hi, s)
		}
		{
			printf "%-20s %11s   %-22s %11s   %-23s %9s   %s\n", $1, f(11, 0, $2),
				$1 == "untraced" ? "100%" : r(1, $3, $4, $5, $6, "%"), f(11, 0, $7),
				$1 == "untraced" ? "1" : r(2, $8, $9, $10, $11, "x"), f(9, 0, $12),
				$1 == "untraced" ? "1" : r(2, $13, $14, $15, $16, "x")
		}'
	cat << EOF
BPF ns/IO: all of the tool's programs over the I/Os the disk completed; x biolatency and
- floor-clock: against libbpf-tools biolatency and floor-clock in the same round. CPU
ms: the tool's own CPU during one fio run; RSS: its peak. CPU ns/IO: the whole
machine's busy CPU per I/O; fio sys: fio's system CPU per I/O. "unresolved": the 95%
interval is wider than the effect, this machine could not tell. floor-*: calibration,
what any tracer pays here (floor-device: any tracer of device time, one histogram).
EOF
	jq -r '.configs[] | "  \(.name): \(.description)"' "$J"
	echo
	echo "BPF map memory (KiB): now, and with 2, 64 and 256 CPUs (per-CPU maps grow with them)"
	printf '%-20s %5s %10s %10s %10s %10s\n' config maps now "2 CPUs" "64 CPUs" "256 CPUs"
	tsv '.configs[] | select(.map_memory) | [.name, .map_memory.maps, .map_memory.bytes_now,
		(.map_memory.at_cpus[].bytes)]' |
		awk -F'\t' "$AWK_FMT"'{ printf "%-20s %5d %10s %10s %10s %10s\n", $1, $2,
			f(10, 0, $3 / 1024), f(10, 0, $4 / 1024), f(10, 0, $5 / 1024), f(10, 0, $6 / 1024) }'
}

part2() {
	echo
	jq -r '"part 2: the built-in engine vs \(.versions.fio), same jobs, both traced,"
		+ " \(.workload.seconds_per_round)s x \(.workload.part2_rounds) rounds (medians)"' "$J"
	printf '%-10s %12s %12s %7s %14s %14s %7s\n' job "fio MB/s" "ours MB/s" ratio \
		"fio CPU us/IO" "ours CPU us/IO" ratio
	tsv '.part2.jobs[] | [.job, .fio_mb_per_s, .ours_mb_per_s, .throughput_ratio,
		.fio_cpu_us_per_io, .ours_cpu_us_per_io, .cpu_per_io_ratio]' |
		awk -F'\t' '{ printf "%-10s %12.1f %12.1f %6.2fx %14.2f %14.2f %6.2fx\n",
			$1, $2, $3, $4, $5, $6, $7 }'
	echo "ratio: median over rounds of ours / fio in the same round; who goes first alternates."
}

part3() {
	local cfgs
	cfgs=$(jq -r '[.scaling[].config] | unique | join(" ")' "$J")
	echo
	jq -r '"part 3: how the cost grows, bpf_stats on, \(.workload.seconds_per_round)s x"
		+ " \(.workload.scale_rounds) rounds (BPF ns/IO medians)"' "$J"
	# One column per tracer, then ours against biolatency and above floor-clock.
	{
		printf 'iodepth\tjobs'
		for c in $cfgs; do printf '\t%s' "$c"; done
		printf '\tx biolatency\t- floor-clock\tIOPS\n'
		jq -r --arg cfgs "$cfgs" '($cfgs | split(" ")) as $cs
			| [.scaling[] | select(.kind == "depth")] | group_by([.iodepth, .jobs])[]
			| (map({key: .config, value: .}) | from_entries) as $by
			| [.[0].iodepth, .[0].jobs] + [$cs[] | $by[.].bpf_ns_per_io]
			  + [$by["blktrace-bench"] // {} | .x_biolatency, .ns_above_floor_clock, .iops]
			| map(. // "-") | @tsv' "$J"
	} | awk -F'\t' "$AWK_FMT"'
		NR == 1 { for (i = 1; i <= NF; i++) printf i <= 2 ? "%-8s" : "%18s", $i; printf "\n"; next }
		{
			printf "%-8s%-8s", $1, $2
			for (i = 3; i < NF - 2; i++) printf "%18s", f(18, 0, $i)
			printf "%17s%s%18s%18s\n", f(17, 2, $(NF - 2)), $(NF - 2) == "-" ? " " : "x",
				f(18, 0, $(NF - 1)), f(18, 0, $NF)
		}'
	echo "one fio job or two on one disk; x biolatency, - floor-clock and IOPS: blktrace-bench's."
	echo
	printf '%-6s %-20s %-34s %10s %13s %10s\n' disks tracer form "BPF ns/IO" "x biolatency" IOPS
	tsv '.scaling[] | select(.kind == "disks") | [.disks, .config, .tracer_form,
		.bpf_ns_per_io, .x_biolatency, .iops]' |
		awk -F'\t' "$AWK_FMT"'{ printf "%-6s %-20s %-34s %10s %12s%s %10s\n", $1, $2, $3,
			f(10, 0, $4), f(12, 2, $5), $5 == "-" ? " " : "x", f(10, 0, $6) }'
	echo "one fio job, iodepth 32, taking turns over the disks; BPF ns/IO over all of their I/Os."
}

soak() {
	echo
	tsv '.soak | [.seconds, .samples, .first_rss_kib, .last_rss_kib, .rss_kib.max,
		.slope_kib_per_min, .growth_kib, .lost_records, .peak_rss_kib]' |
		awk -F'\t' '{ printf "part 4: soak, %.0f s, %d RSS samples: %d KiB first, %d KiB last,"\
			" %d KiB at most; slope %.2f KiB/min (%.0f KiB over the run); lost records %s;"\
			" peak RSS %.1f MiB\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 / 1024 }'
}

targets() {
	echo
	echo "targets (same-run figures):"
	tsv '.targets[] | [(if .met == true then "met" elif .met == false then "NOT met"
		else "not measured" end), .target, .value, .unit, .floor_device]' |
		awk -F'\t' '{
			v = $3 == "-" ? "" : sprintf($3 == int($3) ? ": %d" : ": %.2f", $3)
			if (v != "" && $4 != "") v = v ($4 ~ /^x/ ? "" : " ") $4
			if ($5 != "-") v = v sprintf(" (floor-device: %.2f%s)", $5, $4)
			printf "  %-14s %s%s\n", "[" $1 "]", $2, v
		}'
}

jq -e '.configs | any(.rounds_ok > 0)' "$J" > /dev/null && part1
jq -e '.part2 != null' "$J" > /dev/null && part2
jq -e '.scaling | length > 0' "$J" > /dev/null && part3
jq -e '.soak != null' "$J" > /dev/null && soak
targets
