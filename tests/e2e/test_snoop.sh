#!/usr/bin/env bash
# --snoop: one record per request, exactly; --snoop-text reads it back.
. "$(dirname "$0")/lib.sh"

make_loop A 128M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")

for mode in btf raw; do
	env=()
	[ $mode = raw ] && env=(BLKTRACE_BENCH_RAW_TP=1)
	env "${env[@]}" "$BB" --trace "$a" --snoop "$TMP/$mode.snoop" --json "$TMP/$mode.json" -- \
		dd if=/dev/zero of="$A" bs=16k count=150 oflag=direct status=none \
		> /dev/null 2> "$TMP/$mode.err"
	expect_eq "$mode: exit 0" "$?" 0
	expect_eq "$mode: file size = header + 150 records of 72 bytes" \
		"$(stat -c %s "$TMP/$mode.snoop")" $((16 + 150 * 72))
	"$BB" --snoop-text "$TMP/$mode.snoop" > "$TMP/$mode.txt"
	expect_eq "$mode: 150 lines of text" "$(($(wc -l < "$TMP/$mode.txt") - 1))" 150
	expect_eq "$mode: every record is dd's 16 KiB write" \
		"$(awk 'NR > 1 { print $3, $5, $7 }' "$TMP/$mode.txt" | sort -u)" "dd write 16384"
	expect_eq "$mode: sectors ascend by 32" \
		"$(awk 'NR > 1 { if (NR > 2 && $6 != prev + 32) bad++; prev = $6 } END { print bad + 0 }' "$TMP/$mode.txt")" 0
	expect_eq "$mode: no lost records" "$(jqv "$TMP/$mode.json" .runs[0].block.lost_records)" 0
	expect_true "$mode: says how many records" grep -q "150 request records" "$TMP/$mode.err"
done

head -c 100 "$TMP/btf.snoop" > "$TMP/cut.snoop"
"$BB" --snoop-text "$TMP/cut.snoop" > /dev/null 2> "$TMP/err"
expect_eq "truncated file: exit 2" "$?" 2
expect_true "truncated file: says so" grep -q "truncated" "$TMP/err"
echo garbage > "$TMP/bad.snoop"
"$BB" --snoop-text "$TMP/bad.snoop" > /dev/null 2> "$TMP/err"
expect_eq "not a snoop file: exit 2" "$?" 2

finish
