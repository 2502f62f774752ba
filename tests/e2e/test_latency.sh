#!/usr/bin/env bash
# Device time (issue to completion) against a peer: libbpf-tools' biolatency times the
# same requests from block_rq_issue to block_rq_complete with programs of its own. Both
# count every request, and its log2 histogram puts the median where ours is; queue time
# (allocation to issue) is no part of it and stays apart.
. "$(dirname "$0")/lib.sh"

BL=$(command -v biolatency) || {
	skip "biolatency missing (package libbpf-tools)"
	finish
	exit 0
}
make_loop A 64M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")

# 256 O_DIRECT reads of 256 KiB (a read-only open: no udev re-probe adds reads on close).
stdbuf -oL "$BL" -d "$a" > "$TMP/bl.txt" 2> "$TMP/bl.err" &
bl=$!
background $bl
wait_until 20 "biolatency to attach" grep -q '^Tracing' "$TMP/bl.txt" || {
	sed 's/^/    /' "$TMP/bl.err"
	finish
	exit 1
}
"$BB" --trace "$a" --json "$TMP/r.json" -- \
	dd if="$A" of=/dev/null bs=256k count=256 iflag=direct status=none > /dev/null
kill -INT $bl
wait $bl

# "     16 -> 31         : 196      |****...|": usecs, inclusive bounds.
awk '$2 == "->" && $4 == ":" { print $1, $3, $5 }' "$TMP/bl.txt" > "$TMP/buckets"
expect_eq "biolatency counted the 256 reads" "$(awk '{ n += $3 } END { print n + 0 }' "$TMP/buckets")" 256
expect_eq "device time of every read" "$(jqv "$TMP/r.json" .runs[0].block.device_ns.count)" 256
# The peer's median bucket; ours is a bucket midpoint (0.78%), so it may sit in a
# neighbouring one when the median lies on an edge.
read -r lo hi <<< "$(awk '{ n += $3; if (!m && n >= 128) { print $1, $2; m = 1 } }' "$TMP/buckets")"
p50=$(jqv "$TMP/r.json" '.runs[0].block.device_ns.p50 / 1000')
expect_cmp "device p50 $p50 us: not below biolatency's median bucket [$lo, $hi] (or the one below)" \
	"$p50" ">=" "$((lo / 2))"
expect_cmp "device p50 $p50 us: not above it (or the one above)" "$p50" "<" "$((2 * hi + 2))"
# Queue time is the kernel's allocation to issue: with nothing queued, below the device's.
expect_cmp "queue p50 below device p50" "$(jqv "$TMP/r.json" .runs[0].block.queue_ns.p50)" "<" \
	"$(jqv "$TMP/r.json" .runs[0].block.device_ns.p50)"

finish
