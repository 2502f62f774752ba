#!/usr/bin/env bash
# A storage host's fleet: 256 loop disks in one process, with --trace all and with serve.
# The first 8 disks are matched by the programs' read-only arrays, the other 248 through
# member_map (an array probed as a hash table: bpf/members.bpf.h). Disk i takes
# (i % 7) + 1 direct 4 KiB writes, so a request counted for the wrong disk shows; each
# disk's count is held to its own /proc/diskstats delta, and its completions to its writes.
# (What 256 disks cost, per I/O and per scrape, is `make bench`'s fleet part, not a timed
# test.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

N=${FLEET_DISKS:-256}
make_loops "$N" 1M
want() { echo $(($1 % 7 + 1)); }

# The writes, all disks in one shell: disk i gets want(i) direct 4 KiB writes.
script="$TMP/writes.sh"
{
	echo "set -e"
	for i in "${!disks[@]}"; do
		echo "dd if=/dev/zero of=${disks[$i]} bs=4k count=$(want "$i") oflag=direct status=none"
	done
} > "$script"
declare -A before
snap() { for i in "${!disks[@]}"; do before[$i]=$(diskstat "${disks[$i]}" 5); done; }
# inexact WHAT: how many disks' counts, name -> count pairs on stdin, differ from their
# diskstats delta since snap or from the writes made; the first 5 said on stderr.
inexact() {
	local -A got
	local name n i ds bad=0
	while read -r name n; do got[$name]=$n; done
	for i in "${!disks[@]}"; do
		ds=$(($(diskstat "${disks[$i]}" 5) - before[$i]))
		[ "${got[${names[$i]}]:-}" = "$ds" ] && [ "$ds" = "$(want "$i")" ] && continue
		bad=$((bad + 1))
		[ $bad -gt 5 ] ||
			echo "    ${names[$i]}: $1 '${got[${names[$i]}]:-}', diskstats $ds, dd $(want "$i")" >&2
	done
	echo "$bad"
}

# 1. --trace all: every disk of the machine, ours among them, one set of programs.
snap
"$BB" --trace all --json "$TMP/all.json" -- sh "$script" > /dev/null 2> "$TMP/all.err"
expect_eq "--trace all, $N loop disks among them: exit status" "$?" 0
jq -r '.results[] | [.device.name, .runs[0].block.write.requests] | @tsv' "$TMP/all.json" \
	> "$TMP/all.tsv" 2> /dev/null
expect_eq "--trace all: each of the $N disks exact against its diskstats" \
	"$(inexact traced < "$TMP/all.tsv")" 0
expect_cmp "--trace all: at least the $N disks traced" "$(wc -l < "$TMP/all.tsv")" ">=" "$N"
# Completions are counted in the latency histograms, a map apart from the requests': one
# counted for the wrong disk shows as fewer completions than writes on some disk (udev's
# reads may add requests and their completions, the last perhaps still in flight, so a
# disk's completions lie between its writes and its requests). A completion whose run the
# kernel skipped (one program's run interrupted by another I/O's on its CPU, counted in
# tracer.skipped_runs) is missing from every count: a disk may fall short by as many.
skipped=$(jq '[.results[].tracer.skipped_runs // 0] | max // 0' "$TMP/all.json" 2> /dev/null)
jq -r '.results[] | .runs[0].block as $b | [.device.name, $b.device_ns.count,
	$b.read.requests + $b.write.requests + $b.flush.requests + $b.discard.requests +
	$b.other.requests, "lost \($b.lost_completions), untracked \($b.untracked)" +
	", unissued \($b.unissued)"] | @tsv' "$TMP/all.json" > "$TMP/done.tsv" 2> /dev/null
declare -A done_n req_n why_n
while IFS=$'\t' read -r name d r why; do
	done_n[$name]=$d req_n[$name]=$r why_n[$name]=$why
done < "$TMP/done.tsv"
bad=0
for i in "${!disks[@]}"; do
	d=${done_n[${names[$i]}]:--1} r=${req_n[${names[$i]}]:--1}
	[ $((d + ${skipped:-0})) -ge "$(want "$i")" ] && [ "$d" -le "$r" ] && continue
	bad=$((bad + 1))
	[ $bad -gt 5 ] || echo "    ${names[$i]}: completions $d, requests $r, dd $(want "$i");" \
		"${why_n[${names[$i]}]:-}, skipped runs ${skipped:-}" >&2
done
expect_eq "--trace all: each disk's completions between its writes (less skipped runs) and its requests" \
	"$bad" 0

# 2. serve of the same disks as a list: each disk's write counter on /metrics.
list=$(IFS=,; echo "${names[*]}")
if start_serve PORT "$TMP/serve.log" --trace "$list"; then
	snap
	sh "$script"
	last=$((N - 1))
	wait_until 20 "the last disk's writes on /metrics" metric_is "$PORT" \
		"blktrace_bench_requests_total{device=\"${names[$last]}\",driver=\"loop\",op=\"write\"}" \
		"$(want $last)"
	curl -s -m 30 "http://127.0.0.1:$PORT/metrics" |
		sed -n 's/^blktrace_bench_requests_total{device="\([^"]*\)",driver="loop",op="write"} \([0-9]*\)$/\1 \2/p' \
		> "$TMP/served.txt"
	expect_eq "serve --trace (a list of $N): each disk exact on /metrics" \
		"$(inexact served < "$TMP/served.txt")" 0
else
	not_ok "serve of $N disks did not start: $(tail -c 300 "$TMP/serve.log")"
fi
finish
