#!/bin/bash
# The checks `make xentest` runs inside each Xen PV guest (tests/xen/domu-init runs it at
# every boot; BOOT is the boot's number). Every count is checked against the guest's own
# /proc/diskstats; what the backend offers against xenstore-read.
set -u
. /xentest/guest-lib.sh
echo "kernel $(uname -r), boot ${BOOT:-1}"
for d in /sys/block/xvd*; do
	n=${d##*/}
	echo "$n: max_segments=$(cat "$d/queue/max_segments") max_hw_sectors_kb=$(cat "$d/queue/max_hw_sectors_kb") nr_requests=$(cat "$d/queue/nr_requests")"
done
grep . /sys/module/xen_blkfront/parameters/*
up() { local u _; read -r u _ < /proc/uptime; echo "[$u] $*"; }
up before the run
c0=$(diskstat 1 xvda)
if run read --trace xvda --raw --rw read --bs 1M --size 32M --direct --json "$W/r.json"; then
	expect_eq "xvda: 256 requests" "$(jqv "$W/r.json" .runs[0].block.read.requests)" 256
	expect_eq "xvda: == diskstats" "$(($(diskstat 1 xvda) - c0))" 256
fi
up after the run
time "$BB" info xvda > /dev/null
time jq -n 1 > /dev/null
time /bin/true
echo "RESULT passed=$PASS failed=$FAIL skipped=$SKIP"
