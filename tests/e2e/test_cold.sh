#!/usr/bin/env bash
# Cold means cold: a buffered read of a raw disk drops the disk's page cache first (as a
# fresh dd finds it), and a run whose cache could not be dropped says so, in its JSON
# ("cold": false and why) and its text, rather than passing cached reads off as the
# disk's; --drop-caches that cannot drop is refused before anything runs. The failures
# are real ones: BLKFLSBUF without CAP_SYS_ADMIN (setpriv drops it from the bounding set;
# tracing needs CAP_BPF and CAP_PERFMON only), drop_caches read-only in a mount namespace
# of the test's own.
. "$(dirname "$0")/lib.sh"

make_loop A 64M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
job=(--trace "$a" --raw --rw read --bs 64k --size 4M --repeat 2)

# 1. As root: the disk's cache dropped before each run.
"$BB" "${job[@]}" --json "$TMP/cold.json" > "$TMP/cold.txt" 2>&1
expect_eq "root: exit 0" "$?" 0
expect_eq "root: every run cold" "$(jqv "$TMP/cold.json" '[.runs[].cold] | map(tostring) | join(",")')" \
	"true,true"
expect_eq "root: no note" "$(jqv "$TMP/cold.json" '[.runs[].cache_note // empty] | length')" 0

# 2. Without CAP_SYS_ADMIN BLKFLSBUF fails: the runs say they were not cold.
if setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin true 2> /dev/null; then
	setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin -- "$BB" "${job[@]}" \
		--json "$TMP/warm.json" > "$TMP/warm.txt" 2>&1
	expect_eq "BLKFLSBUF refused: exit 0" "$?" 0
	expect_eq "BLKFLSBUF refused: no run cold" \
		"$(jqv "$TMP/warm.json" '[.runs[].cold] | map(tostring) | join(",")')" "false,false"
	expect_eq "BLKFLSBUF refused: why, in the JSON" \
		"$(jqv "$TMP/warm.json" '.runs[0].cache_note')" \
		"the disk's page cache could not be dropped (BLKFLSBUF: Permission denied)"
	expect_true "BLKFLSBUF refused: said in the text" grep -q \
		"^  run 1 (read bs=64 KiB psync) was not cold: the disk's page cache could not be dropped (BLKFLSBUF: Permission denied); its reads may have come from the page cache" \
		"$TMP/warm.txt"
else
	skip "setpriv cannot drop CAP_SYS_ADMIN here"
fi

# 3. --drop-caches where the page cache cannot be dropped: refused, nothing read.
r0=$(diskstat "$A" 1)
unshare -m sh -c 'mount --make-rprivate / &&
	mount --bind /proc/sys/vm/drop_caches /proc/sys/vm/drop_caches &&
	mount -o remount,bind,ro /proc/sys/vm/drop_caches && exec "$@"' sh \
	"$BB" "${job[@]}" --drop-caches --json "$TMP/refused.json" > /dev/null 2> "$TMP/refused.err"
expect_eq "--drop-caches refused: exit 1" "$?" 1
expect_eq "--drop-caches refused: one line" "$(wc -l < "$TMP/refused.err")" 1
expect_true "--drop-caches refused: says why" grep -q \
	"drop-caches: cannot open /proc/sys/vm/drop_caches: Read-only file system" "$TMP/refused.err"
expect_eq "--drop-caches refused: nothing read" "$(($(diskstat "$A" 1) - r0))" 0
expect_true "--drop-caches refused: no file" test ! -e "$TMP/refused.json"

finish
