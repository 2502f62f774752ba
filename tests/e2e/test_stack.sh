#!/usr/bin/env bash
# A stack on loop disks: loop B's backing file lives on ext4 on loop A. --trace B traces A
# with it (found through the backing file), each exact against its own /proc/diskstats,
# and the findings link the two. info B draws it; --set A:KNOB sweeps A's setting.
. "$(dirname "$0")/lib.sh"

command -v mkfs.ext4 > /dev/null || { skip "mkfs.ext4 missing (package e2fsprogs)"; finish; exit 0; }
make_loop A 96M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
mkfs.ext4 -q -F "$A" || { not_ok "mkfs.ext4 $A"; finish; exit 1; }
mkdir -p "$TMP/mnt" && mount "$A" "$TMP/mnt" && mounted "$TMP/mnt" ||
	{ not_ok "mount $A"; finish; exit 1; }
dd if=/dev/urandom of="$TMP/mnt/backing" bs=1M count=32 conv=fsync status=none
B=$(losetup -f --show "$TMP/mnt/backing") && took_loop "$B" || { not_ok "losetup B"; finish; exit 1; }
b=$(basename "$B")
echo 3 > /proc/sys/vm/drop_caches

# 1. The stack, found through the backing file.
"$BB" info "$b" --json > "$TMP/info.json"
expect_eq "info: $a holds $b's backing file" \
	"$(jqv "$TMP/info.json" '.stack.layers[0] | "\(.device.name) \(.link) \(.above)"')" \
	"$a backing_file $b"
"$BB" info "$b" > "$TMP/info.txt"
expect_true "info: the stack drawn" \
	grep -q "^    $a .* loop of .*, holds $b's backing file$" "$TMP/info.txt"

# 2. 2048 direct 4 KiB reads of B: B's requests and A's, each against its diskstats.
b0=$(diskstat "$B" 1) a0=$(diskstat "$A" 1) as0=$(diskstat "$A" 3)
"$BB" --trace "$b" --json "$TMP/r.json" -- dd if="$B" of=/dev/null bs=4k count=2048 \
	iflag=direct status=none > "$TMP/r.txt" 2> "$TMP/r.err"
expect_eq "trace $b: exit 0" "$?" 0
expect_eq "$b: requests == diskstats" "$(jqv "$TMP/r.json" .runs[0].block.read.requests)" \
	$(($(diskstat "$B" 1) - b0))
expect_eq "$b: 2048 reads" $(($(diskstat "$B" 1) - b0)) 2048
expect_eq "$a: traced with it, requests == diskstats" \
	"$(jqv "$TMP/r.json" '.runs[0].layers[0].block.read.requests')" $(($(diskstat "$A" 1) - a0))
expect_eq "$a: bytes == diskstats" "$(jqv "$TMP/r.json" '.runs[0].layers[0].block.read.bytes')" \
	$((($(diskstat "$A" 3) - as0) * 512))
expect_cmp "$a: read the 8 MiB B was read from (or more: read-ahead)" \
	"$(jqv "$TMP/r.json" '.runs[0].layers[0].block.read.bytes')" ">=" $((8 << 20))
expect_true "the stack table" grep -q "^  stack " "$TMP/r.txt"
expect_true "the finding links them" \
	grep -q "$b reads: 8 MiB in 2048 requests of 4 KiB became .* on $a .* ($a holds its backing file: read-ahead there is 128 KiB" "$TMP/r.txt"

# 3. --set A:read_ahead_kb sweeps the backing disk's read-ahead, recorded per run, restored.
ra=$(cat "/sys/block/$a/queue/read_ahead_kb")
"$BB" --trace "$b" --raw --rw read --bs 4k --size 8M --set "$a:read_ahead_kb=16,512" \
	--drop-caches --json "$TMP/s.json" > /dev/null 2> "$TMP/s.err"
expect_eq "--set $a:read_ahead_kb: exit 0" "$?" 0
expect_eq "--set $a:read_ahead_kb: each run's limit recorded" \
	"$(jqv "$TMP/s.json" '[.runs[].layers[0].limits.read_ahead_kb] | join(",")')" "16,512"
expect_eq "--set $a:read_ahead_kb: restored" "$(cat "/sys/block/$a/queue/read_ahead_kb")" "$ra"
expect_true "--set $a:read_ahead_kb: said so" grep -q "restored read_ahead_kb=$ra on $a" "$TMP/s.err"

losetup -d "$B"
finish
