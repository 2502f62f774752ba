#!/usr/bin/env bash
# --snoop: one record per request, exactly; --snoop-text reads it back, from a file or
# a stream (-, /dev/stdin, <(...)); a FIFO or a device by name is refused at once.
. "$(dirname "$0")/lib.sh"

make_loop A 128M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")

# btf and raw: the program flavours, each request issued directly (no scheduler);
# deadline: through mq-deadline, so that each request is inserted first and its process
# comes from the insert.
for mode in btf raw deadline; do
	env=()
	[ $mode = raw ] && env=(BLKTRACE_BENCH_RAW_TP=1)
	[ $mode = deadline ] && set_sysfs "/sys/block/$a/queue/scheduler" mq-deadline
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
	expect_eq "$mode: one process, dd" \
		"$(awk 'NR > 1 && $2 > 1 { print $2 }' "$TMP/$mode.txt" | sort -u | wc -l)" 1
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

# A stream reads as the file does: "-" (refused as a missing file before) and
# /dev/stdin on a pipe ("truncated" before: the reader asked a pipe for its position).
"$BB" --snoop-text "$TMP/btf.snoop" > "$TMP/file.txt"
cat "$TMP/btf.snoop" | "$BB" --snoop-text - > "$TMP/dash.txt" 2> "$TMP/err"
rc=$?
expect_eq "--snoop-text - on a pipe: exit 0 ($(head -1 "$TMP/err"))" "$rc" 0
expect_eq "--snoop-text -: the file's 151 lines" "$(cmp -s "$TMP/file.txt" "$TMP/dash.txt" &&
	wc -l < "$TMP/dash.txt")" 151
cat "$TMP/btf.snoop" | "$BB" --snoop-text /dev/stdin > "$TMP/stdin.txt" 2> "$TMP/err"
rc=$?
expect_eq "--snoop-text /dev/stdin on a pipe: exit 0 ($(head -1 "$TMP/err"))" "$rc" 0
expect_true "--snoop-text /dev/stdin: the file's lines" cmp -s "$TMP/file.txt" "$TMP/stdin.txt"
"$BB" --snoop-text <(cat "$TMP/btf.snoop") > "$TMP/procsub.txt" 2> "$TMP/err"
expect_true "--snoop-text <(...): the file's lines ($(head -1 "$TMP/err"))" \
	cmp -s "$TMP/file.txt" "$TMP/procsub.txt"
cat "$TMP/cut.snoop" | "$BB" --snoop-text - > /dev/null 2> "$TMP/err"
rc=$?
expect_eq "a cut stream: exit 2 naming stdin" "$rc:$(cat "$TMP/err")" \
	"2:blktrace-bench: stdin: truncated after 1 records"
# A FIFO by name is no file: refused at once, one line (it blocked for ever before).
mkfifo "$TMP/fifo"
timeout 10 "$BB" --snoop-text "$TMP/fifo" > /dev/null 2> "$TMP/err"
rc=$?
expect_eq "--snoop-text FIFO: exit 2, one line" "$rc:$(wc -l < "$TMP/err")" "2:1"
expect_true "--snoop-text FIFO: says what it is ($(cat "$TMP/err"))" \
	grep -q "fifo: it is a FIFO, not a regular file (- reads stdin)" "$TMP/err"
timeout 10 "$BB" --snoop-text /dev/null > /dev/null 2> "$TMP/err"
rc=$?
expect_eq "--snoop-text /dev/null: exit 2 ($(cat "$TMP/err"))" "$rc" 2

finish
