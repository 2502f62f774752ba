#!/usr/bin/env bash
# The checks of dom0's view, run on the host by tests/xen/xentest.sh once QEMU is done:
# for each guest, dom0 traced the loop device blkback serves its xvda from, over the
# guest's first boot (tests/xen/dom0.sh): it must carry the very bytes the guest's own
# /sys/block/xvda/stat counted; and info, run while the guest ran, names the guest and its
# virtual disk.
#
# And the linked run: the guest's trace of its reads and dom0's of the same reads, put
# together by `compare GUEST.json DOM0.json` (BB, the tool on the host).
#
#   tests/xen/dom0-checks.sh RESULTS NAME...     prints ok/FAIL lines and a RESULT line
set -uo pipefail
res=$1
shift
BB=${BB:-./blktrace-bench}
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "  ok   $1"; }
not_ok() { FAIL=$((FAIL + 1)); echo "  FAIL $1"; }
expect_eq() { if [ "$2" = "$3" ]; then ok "$1 ($2)"; else not_ok "$1: got '$2', expected '$3'"; fi; }

# The linked run: 32 MiB of 1 MiB direct reads, seen by the guest and by dom0.
link_checks() { # NAME DIR
	local t="linked run, $1" d=$2 v
	if [ ! -s "$d/link-guest.json" ] || [ ! -s "$d/link-dom0.json" ]; then
		not_ok "$t: no guest or dom0 result ($(tail -2 "$d/link-dom0.err" 2> /dev/null))"
		return
	fi
	if ! "$BB" compare "$d/link-guest.json" "$d/link-dom0.json" > "$d/link.txt" 2>&1; then
		not_ok "$t: compare: $(head -3 "$d/link.txt")"
		return
	fi
	ok "$t: compare links the two"
	grep -q "^xvda in the guest .* which serves it as xvda of domU \"$1\"" "$d/link.txt" &&
		ok "$t: the text names both sides" || not_ok "$t: the text names both sides"
	"$BB" compare "$d/link-guest.json" "$d/link-dom0.json" --json > "$d/link.json" 2> /dev/null
	v=$(jq -r '[.guest.bytes.read, .dom0.bytes.read, (.time_ns.backend | type),
		(.time_ns.dom0_device | type), .dom0.xen_guest.domain, .split]
		| map(tostring) | @tsv' "$d/link.json")
	IFS=$'\t' read -r gb hb bt dt dom split <<< "$v"
	v=$(jq -r '[.device.xen_guest.vdev, .device.xen_guest.domain, .device.xen_guest.domid]
		| map(tostring) | @tsv' "$d/link-dom0.json")
	IFS=$'\t' read -r vdev domain tdomid <<< "$v"
	expect_eq "$t: dom0's trace names the virtual disk" "$vdev" xvda
	expect_eq "$t: dom0's trace names the guest" "$domain" "$1"
	expect_eq "$t: dom0's trace's domid == xl domid" "$tdomid" "$(cat "$d/dom0-domid.txt")"
	grep -q "xvda of domU \"$1\" (domid $tdomid)" "$d/link-dom0.txt" &&
		ok "$t: dom0's report names it" || not_ok "$t: dom0's report names it"
	# The guest's own count falls short where its kernel skipped runs of the programs.
	if [ "$(jq -r '.tracer.skipped_runs // 0' "$d/link-guest.json")" = 0 ]; then
		expect_eq "$t: the guest read 32 MiB" "$gb" $((32 << 20))
	fi
	expect_eq "$t: dom0 saw the 32 MiB the guest read" "$hb" $((32 << 20))
	expect_eq "$t: the backend's time, from the ring probes" "$bt" number
	expect_eq "$t: dom0's device time" "$dt" number
	expect_eq "$t: the guest's name" "$dom" "$1"
	echo "  ($t: dom0 took $split requests for each of the guest's)"
	sed 's/^/    /' "$d/link.txt"
}

for name in "$@"; do
	d=$res/$name
	t="dom0, $name's xvda"
	if [ ! -s "$d/dom0-xvda.json" ] || [ ! -s "$d/xvda-stat-1.txt" ]; then
		not_ok "$t: no trace or no guest counts ($(tail -2 "$d/dom0-trace.err" 2> /dev/null))"
		continue
	fi
	read -r _ _ rsect _ _ _ wsect _ < "$d/xvda-stat-1.txt"
	domid=$(cat "$d/dom0-domid.txt" 2> /dev/null)
	v=$(jq -r '[.runs[0].block.read.bytes, .runs[0].block.write.bytes] | map(tostring) | @tsv' \
		"$d/dom0-xvda.json")
	IFS=$'\t' read -r rbytes wbytes <<< "$v"
	# The trace began before the guest (and its backend) existed: its bytes, not its names.
	expect_eq "$t: bytes read == the guest's diskstats" "$rbytes" $((rsect * 512))
	expect_eq "$t: bytes written == the guest's diskstats" "$wbytes" $((wsect * 512))
	v=$(jq -r '[.device.xen_guest.vdev, .device.xen_guest.domain, .device.xen_guest.backend]
		| map(tostring) | @tsv' "$d/dom0-info.json" 2> /dev/null)
	IFS=$'\t' read -r vdev domain backend <<< "$v"
	expect_eq "$t: info names the virtual disk" "$vdev" xvda
	expect_eq "$t: info names the guest" "$domain" "$name"
	expect_eq "$t: info names blkback's device" "$backend" "vbd-$domid-51712"
	grep -q "serves  *xvda of domU \"$name\"" "$d/dom0-info.txt" &&
		ok "$t: info's text names it" || not_ok "$t: info's text names it"
	loop=$(jq -r .device.name "$d/dom0-info.json" 2> /dev/null)
	v=$(jq -r --arg l "$loop" '.results[] | select(.device.name == $l) |
		[.device.xen_guest.vdev, .device.xen_guest.domain] | map(tostring) | @tsv' \
		"$d/dom0-all.json" 2> /dev/null)
	expect_eq "$t: --trace all names it" "$v" "xvda	$name"
	grep -q "^blktrace_bench_up{device=\"$loop\",driver=\"loop\",domain=\"$name\",vdev=\"xvda\"} 1$" \
		"$d/dom0-metrics.txt" 2> /dev/null && ok "$t: the exporter labels it" ||
		not_ok "$t: the exporter labels it ($(head -c 200 "$d/dom0-serve.err" 2> /dev/null))"
	link_checks "$name" "$d"
done
echo "RESULT passed=$PASS failed=$FAIL skipped=0"
