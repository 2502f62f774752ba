#!/usr/bin/env bash
# Several disks in one trace (--trace a,b, --trace all): one set of BPF programs, each
# disk's figures its own and exact against its /proc/diskstats delta; more than the 8
# members the programs' read-only arrays hold (the member_map path) with 10 disks; the
# "results" document and what compare says of it; lists that cannot be traced refused.
. "$(dirname "$0")/lib.sh"

make_loop A 64M || { not_ok "losetup"; finish; exit 1; }
make_loop B 64M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A") b=$(basename "$B")

# 1. Two disks at once: 64 KiB writes on A, 4 KiB writes on B, each counted for its own.
wa0=$(diskstat "$A" 5) wb0=$(diskstat "$B" 5)
"$BB" --trace "$a,$b" --json "$TMP/two.json" -- sh -c \
	"dd if=/dev/zero of=$A bs=64k count=100 oflag=direct status=none &&
	 dd if=/dev/zero of=$B bs=4k count=33 oflag=direct status=none" > "$TMP/two.txt"
expect_eq "two disks: exit status" "$?" 0
wa1=$(diskstat "$A" 5) wb1=$(diskstat "$B" 5)
expect_eq "two disks: $a's writes == its diskstats delta" \
	"$(jqv "$TMP/two.json" ".results[] | select(.device.name == \"$a\") | .runs[0].block.write.requests")" \
	"$((wa1 - wa0))"
expect_eq "two disks: $b's writes == its diskstats delta" \
	"$(jqv "$TMP/two.json" ".results[] | select(.device.name == \"$b\") | .runs[0].block.write.requests")" \
	"$((wb1 - wb0))"
expect_eq "two disks: $a's 64 KiB, $b's 4 KiB" \
	"$(jqv "$TMP/two.json" '[.results[].runs[0].block.request_bytes.max] | join(",")')" "65536,4096"
expect_eq "two disks: one document per disk, in the order named" \
	"$(jqv "$TMP/two.json" '[.schema, (.results[] | .schema, .device.name)] | join(" ")')" \
	"blktrace-bench/1 blktrace-bench/1 $a blktrace-bench/1 $b"
expect_eq "two disks: a text report each" "$(grep -cE "^.*: ($a|$b) \(7:" "$TMP/two.txt")" 2
"$BB" compare "$TMP/two.json" "$TMP/two.json" > /dev/null 2> "$TMP/cmp.err"
expect_eq "compare of a several-disk file: exit 2" "$?" 2
expect_true "compare says how to pick one disk" grep -q "results of several disks.*jq" "$TMP/cmp.err"
"$BB" report "$TMP/two.json" -o "$TMP/two.html" > /dev/null 2> "$TMP/rep.err"
expect_eq "report of a several-disk file: exit 2, one line" "$?/$(wc -l < "$TMP/rep.err")" "2/1"
expect_true "report says how to pick one disk" grep -q "results of several disks.*jq" "$TMP/rep.err"
jq ".results[0]" "$TMP/two.json" > "$TMP/one.json"
expect_true "one disk's document picked out of it compares" \
	"$BB" compare "$TMP/one.json" "$TMP/one.json"

# 2. Ten disks: the first 8 members in the programs' arrays, the rest in member_map.
disks=() names=()
for i in $(seq 1 10); do
	make_loop D 16M || { not_ok "losetup $i"; finish; exit 1; }
	disks+=("$D") names+=("$(basename "$D")")
done
list=$(IFS=,; echo "${names[*]}")
declare -A before
for i in "${!disks[@]}"; do before[$i]=$(diskstat "${disks[$i]}" 5); done
script=""
for i in "${!disks[@]}"; do
	script+="dd if=/dev/zero of=${disks[$i]} bs=4k count=$((i + 1)) oflag=direct status=none && "
done
"$BB" --trace "$list" --json "$TMP/ten.json" -- sh -c "${script}true" > /dev/null
expect_eq "ten disks: exit status" "$?" 0
bad=0
for i in "${!disks[@]}"; do
	got=$(jqv "$TMP/ten.json" ".results[$i].runs[0].block.write.requests")
	want=$(($(diskstat "${disks[$i]}" 5) - before[$i]))
	[ "$got" = "$want" ] && [ "$got" = $((i + 1)) ] || {
		bad=$((bad + 1))
		echo "    ${names[$i]}: traced $got, diskstats $want, dd $((i + 1))"
	}
done
expect_eq "ten disks: each exact against its diskstats (members 9, 10 via member_map)" "$bad" 0
expect_eq "ten disks: in the order named" "$(jqv "$TMP/ten.json" '[.results[].device.name] | join(",")')" "$list"

# 3. all: every disk with a medium, ours among them; passive, ended by --duration.
"$BB" --trace all --duration 0.5 --json "$TMP/all.json" > /dev/null
expect_eq "all: exit status" "$?" 0
expect_true "all: $a and $b traced" jq -e --arg a "$a" --arg b "$b" \
	'[.results[].device.name] | index($a) != null and index($b) != null' "$TMP/all.json"
expect_eq "all: no hidden disk, no disk without a medium" \
	"$(jqv "$TMP/all.json" '[.results[].device | select(.hidden or .size_bytes == 0)] | length')" 0

# A disk that goes meanwhile is said (once); the trace keeps the disks it began with. (A
# list, not all: other sessions' loop devices come and go on a shared machine.)
make_loop E 8M || not_ok "losetup"
e=$(basename "$E")
"$BB" -v --trace "$a,$b,$e" --duration 3 --json "$TMP/went.json" > /dev/null 2> "$TMP/went.err" &
tracer=$!
background "$tracer"
# Gone once the trace has begun (the tracing line), however long the programs took to load.
wait_until 30 "the tracing line" grep -q '^blktrace-bench: tracing' "$TMP/went.err"
detach_loop "$E"
wait "$tracer"
expect_eq "a disk went: exit status" "$?" 0
expect_eq "a disk went: said once" "$(grep -c "a disk came or went since --trace $a,$b,$e began" "$TMP/went.err")" 1
expect_eq "a disk went: the three disks reported" "$(jqv "$TMP/went.json" '[.results[].device.name] | join(",")')" "$a,$b,$e"
"$BB" --trace "$a,$b" --duration 1.5 > /dev/null 2> "$TMP/quiet.err"
expect_eq "a list whose disks stay: nothing said" "$(cat "$TMP/quiet.err")" ""

# 4. Lists that cannot be traced: one line, exit 2, nothing run.
refused() { # NAME EXPECTED-STDERR-PATTERN ARGS...
	local name=$1 pat=$2
	shift 2
	"$BB" "$@" > "$TMP/r.out" 2> "$TMP/r.err"
	expect_eq "$name: exit 2" "$?" 2
	expect_true "$name: says why ($pat)" grep -qE -- "$pat" "$TMP/r.err"
	expect_eq "$name: one line" "$(wc -l < "$TMP/r.err")" 1
}
refused "a disk named twice" "$a is named twice" --trace "$a,$a" -- true
refused "an empty name" "an empty name" --trace "$a,,$b" -- true
refused "a disk that does not exist" "no such block device: nosuchdisk" --trace "$a,nosuchdisk" -- true
refused "the workload on several disks" "built-in workload on one disk" --trace "$a,$b" --rw read
refused "--html with several disks" "--html draws one disk's page" --trace "$a,$b" --html "$TMP/x.html" -- true
img=$(new_image) && _IMAGES+=("$img")
truncate -s 32M "$img"
if command -v sfdisk > /dev/null && printf 'label: gpt\n,8M\n,\n' | sfdisk -q "$img" &&
	P=$(losetup -f --show -P "$img") && took_loop "$P"; then
	udevadm settle 2> /dev/null || true
	[ -b "${P}p1" ] || partx -a "$P" 2> /dev/null
	udevadm settle 2> /dev/null || true
	p=$(basename "$P")
	refused "two partitions of one disk" "${p}p1 and ${p}p2 are both on disk $p" \
		--trace "${p}p1,${p}p2" -- true
fi

finish
