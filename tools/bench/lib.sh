# What the bench scripts (tools/bench/bench.sh, fleet.sh) share.
# shellcheck shell=bash

# BPF programs the process holds: "run_time_ns run_cnt programs". Link fds name a
# prog_id too, but only program fds carry run_time_ns.
bpf_snapshot() {
	grep -H -E '^(prog_id|run_time_ns|run_cnt):' /proc/"$1"/fdinfo/* 2> /dev/null |
		awk -F: '{ v = $3; gsub(/[ \t]/, "", v); a[$1, $2] = v; f[$1] = 1 }
		END {
			for (x in f) {
				if (!((x, "run_time_ns") in a) || (a[x, "prog_id"] in seen))
					continue
				seen[a[x, "prog_id"]] = 1
				t += a[x, "run_time_ns"]; c += a[x, "run_cnt"]; n++
			}
			printf "%.0f %.0f %d\n", t, c, n
		}'
}

# bench_args NAME SCRIPT ARGS...: --smoke sets SMOKE=1 (so does BENCH_SMOKE=1), --help
# prints SCRIPT's header comment; anything else is refused.
bench_args() {
	local name=$1 script=$2 a
	shift 2
	SMOKE=${BENCH_SMOKE:-0}
	for a in "$@"; do
		case $a in
		--smoke) SMOKE=1 ;;
		-h | --help) sed -n '2,/^set -euo/p' "$script" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
		*) echo "$name: unknown argument '$a' (try --help)" >&2; exit 2 ;;
		esac
	done
}
