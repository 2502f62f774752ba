#!/usr/bin/env bash
# The output side: every file the tool writes goes through one policy
# (src/files/outfile.h). Each numbered case below, on loop disks:
#  1 --json/--snoop (and compare/info --json=FILE) onto a block device, a mounted one
#    too: refused, the filesystem still checks clean and its file is unchanged;
#  3 output = input by inode: --file read, --snoop on it, compare's input, --json X
#    --snoop X, a hard link: refused, the input unchanged;
#  9 a missing directory or a read-only filesystem: refused before anything ran (exit 1:
#    the system could not create the file, src/base/diag.h); a full filesystem at the end:
#    exit 1 naming ENOSPC, no temporary file left;
# 10 non-UTF-8 argv and command_line cut at 1023 bytes inside a character: valid JSON;
# 11 --snoop-text escapes process names, prints '-' for the sector of a flush;
# 12 compare: wrong types and ranges refused naming the field; 1M buckets and 3000
#    runs in sane time and memory;
# 13 a symbolic link planted for --json (fs.protected_symlinks=0): the link is
#    replaced, its target untouched.
# And: /dev/stdout and its kin, character devices and FIFOs written in place,
# in a mount namespace of their own; a loop device's backing file or a swap file is not
# replaced by an output.
. "$(dirname "$0")/lib.sh"

make_loop A 64M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
make_loop D 32M || { not_ok "losetup"; finish; exit 1; }

# expect_refused NAME EXIT PATTERN -- ARGS...: exit code, one line matching PATTERN.
# (timeout: a FIFO opened for writing with nobody reading blocks forever, 124 then.)
expect_refused() {
	local name=$1 code=$2 pat=$3 rc
	shift 4
	timeout 120 "$BB" "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq "$code" ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q -- "$pat" "$TMP/err"; then
		ok "$name (exit $rc: $(cat "$TMP/err"))"
	else
		not_ok "$name: exit $rc (want $code), stderr: $(head -3 "$TMP/err")"
	fi
}

# A mounted ext4 on D with a file whose checksum we know.
mkfs.ext4 -q -F "$D" || not_ok "mkfs"
mkdir -p "$TMP/mnt"
mount "$D" "$TMP/mnt" && mounted "$TMP/mnt"
head -c 1M /dev/urandom > "$TMP/mnt/data"
sum0=$(md5sum < "$TMP/mnt/data")
sync

# 1. Block devices, mounted or behind a link.
expect_refused "1: --json onto a mounted block device" 2 "block device" -- \
	--trace "$a" --duration 0.1 --json "$D"
expect_refused "1: --snoop onto a mounted block device" 2 "block device" -- \
	--trace "$a" --duration 0.1 --snoop "$D"
ln -s "$D" "$TMP/disk-link"
expect_refused "1: --json onto a link to a block device" 2 "symbolic link to a block device" -- \
	--trace "$a" --duration 0.1 --json "$TMP/disk-link"
expect_refused "1: info --json=DEV" 2 "block device" -- info "$a" --json="$D"
expect_refused "1: --json onto a directory" 2 "directory" -- \
	--trace "$a" --duration 0.1 --json "$TMP/mnt"
umount "$TMP/mnt"
e2fsck -fn "$D" > "$TMP/fsck" 2>&1
expect_eq "1: the filesystem still checks clean" "$?" 0
mount "$D" "$TMP/mnt"
expect_eq "1: its file is unchanged" "$(md5sum < "$TMP/mnt/data")" "$sum0"

# A real result to compare (and to be the input that must survive).
"$BB" --trace "$a" --raw --rw read --bs 4k --size 1M --repeat 2 --json "$TMP/r.json" > /dev/null
expect_eq "a result to work with: exit 0" "$?" 0
cp "$TMP/r.json" "$TMP/r2.json"

# 3. Output = input, by inode or by place.
head -c 8M /dev/urandom > "$TMP/e2.bin"
sum_e2=$(md5sum < "$TMP/e2.bin")
expect_refused "3: --json onto the workload's --file" 2 "workload's --file" -- \
	--trace "$a" --rw read --file "$TMP/e2.bin" --any-fs --json "$TMP/e2.bin"
expect_refused "3: --snoop onto the workload's --file" 2 "workload's --file" -- \
	--trace "$a" --rw read --file "$TMP/e2.bin" --any-fs --snoop "$TMP/e2.bin"
ln "$TMP/e2.bin" "$TMP/e2-hard.bin"
expect_refused "3: --json onto a hard link of --file" 2 "workload's --file" -- \
	--trace "$a" --rw read --file "$TMP/e2.bin" --any-fs --json "$TMP/e2-hard.bin"
expect_eq "3: the --file is unchanged" "$(md5sum < "$TMP/e2.bin")" "$sum_e2"
sum_r=$(md5sum < "$TMP/r.json")
expect_refused "3: compare --json=A" 2 "input A" -- compare "$TMP/r.json" "$TMP/r2.json" \
	--json="$TMP/r.json"
expect_refused "3: compare --json=B by another path" 2 "input B" -- compare "$TMP/r2.json" \
	"$TMP/r.json" --json="$TMP/./r.json"
expect_eq "3: compare's input is unchanged" "$(md5sum < "$TMP/r.json")" "$sum_r"
expect_refused "3: --json X --snoop X" 2 "the --json output as well" -- \
	--trace "$a" --json "$TMP/x.out" --snoop "$TMP/x.out" -- true
expect_eq "3: X not created" "$(ls "$TMP"/x.out "$TMP"/.x.out.* 2> /dev/null | wc -l)" 0
cp "$TMP/r.json" "$TMP/x.out"
expect_refused "3: --json X --snoop X, X existing" 2 "the --json output as well" -- \
	--trace "$a" --json "$TMP/x.out" --snoop "$TMP/x.out" -- true
expect_eq "3: X unchanged" "$(md5sum < "$TMP/x.out")" "$sum_r"

# 9. Refused before anything runs: no command, no I/O on the traced disk.
w0=$(diskstat "$A" 5)
expect_refused "9: --json into a missing directory" 1 "No such file or directory" -- \
	--trace "$a" --json "$TMP/nodir/x.json" -- dd if=/dev/zero of="$A" bs=4k count=8 \
	oflag=direct status=none
mkdir -p "$TMP/ro"
mount -o remount,ro "$TMP/mnt" 2> /dev/null || mount -o ro "$D" "$TMP/mnt"
expect_refused "9: --json into a read-only filesystem" 1 "Read-only file system" -- \
	--trace "$a" --json "$TMP/mnt/x.json" -- dd if=/dev/zero of="$A" bs=4k count=8 \
	oflag=direct status=none
expect_refused "9: --snoop into a read-only filesystem" 1 "Read-only file system" -- \
	--trace "$a" --snoop "$TMP/mnt/x.snoop" -- touch "$TMP/ran"
expect_eq "9: the command never ran" "$(ls "$TMP/ran" 2> /dev/null | wc -l)" 0
expect_eq "9: no write reached the traced disk" "$(diskstat "$A" 5)" "$w0"
mount -o remount,rw "$TMP/mnt"
# A full filesystem: found at the end, named, nothing left behind.
mkdir -p "$TMP/full"
if mount -t tmpfs -o size=64k bb-e2e-full "$TMP/full"; then
	mounted "$TMP/full"
	head -c 1M /dev/zero > "$TMP/full/fill" 2> /dev/null
	expect_refused "9: --json on a full filesystem: exit 1 naming ENOSPC" 1 \
		"No space left on device" -- --trace "$a" --json "$TMP/full/x.json" -- true
	expect_eq "9: no file left behind" "$(ls -A "$TMP/full")" "fill"
else
	skip "9: cannot mount a tmpfs"
fi

# An output onto a loop device's backing file, or onto an active swap file, is
# refused as the target policy refuses it (src/workload/target.c, the same check): renamed over, the
# image or the swap would be gone once the kernel let go of it. Here --json onto the traced
# loop disk's own image, which the tool used to replace.
img=$(new_image) && remove_at_exit "$img"
truncate -s 16M "$img"
head -c 1M /dev/urandom | dd of="$img" conv=notrunc status=none
if LB=$(losetup -f --show "$img"); then
	took_loop "$LB"
	lb=$(basename "$LB")
	before="$(stat -c %i "$img") $(md5sum < "$img")"
	expect_refused "--json onto the traced loop disk's image" 2 \
		"refusing to write --json $img: it backs $lb" -- --trace "$lb" --duration 0.1 \
		--json "$img"
	expect_refused "info --json= onto a loop disk's image" 2 "it backs $lb" -- \
		info "$lb" --json="$img"
	expect_eq "the image is the same file, unchanged" "$(stat -c %i "$img") $(md5sum < "$img")" \
		"$before"
	detach_loop "$LB"
else
	not_ok "losetup on an image"
fi
if swapon --show > /dev/null 2>&1 && dd if=/dev/zero of="$TMP/mnt/swapfile" bs=1M count=8 \
	status=none && chmod 600 "$TMP/mnt/swapfile" && mkswap -q "$TMP/mnt/swapfile" > /dev/null &&
	swapon "$TMP/mnt/swapfile"; then
	# A second name: should the swap file be renamed over, swapoff still finds it.
	ln "$TMP/mnt/swapfile" "$TMP/mnt/swapfile.keep"
	swapped "$TMP/mnt/swapfile.keep"
	ino=$(stat -c %i "$TMP/mnt/swapfile")
	expect_refused "--json onto an active swap file" 2 "it is an active swap file" -- \
		--trace "$a" --duration 0.1 --json "$TMP/mnt/swapfile"
	expect_eq "the swap file is the same file" "$(stat -c %i "$TMP/mnt/swapfile")" "$ino"
	swapoff "$TMP/mnt/swapfile.keep"
	rm -f "$TMP/mnt/swapfile" "$TMP/mnt/swapfile.keep"
else
	skip "no swap on this kernel: a swap file as an output not tested"
fi

# 10. Non-UTF-8 argv, and the 1023-byte cut inside a character (three alignments).
"$BB" --trace "$a" --json "$TMP/u.json" -- true $'caf\xe9' $'\xff\xfe' > /dev/null 2> "$TMP/err"
expect_eq "10: non-UTF-8 argv: exit 0" "$?" 0
expect_eq "10: ... the JSON says U+FFFD" "$(jqv "$TMP/u.json" .command_line | grep -c $'caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd')" 1
expect_eq "10: ... and the run's label too" "$(jqv "$TMP/u.json" '.runs[0].label')" \
	$'true caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd'
euros=$(printf '\xe2\x82\xac%.0s' $(seq 400))
for pad in "" a aa; do
	"$BB" --trace "$a" --json "$TMP/cut.json" -- true "$pad$euros" > /dev/null 2> "$TMP/err"
	rc=$?
	len=$(jq -j .command_line "$TMP/cut.json" 2> /dev/null | wc -c)
	if [ $rc -eq 0 ] && [ "$len" -ge 1021 ] && [ "$len" -le 1023 ] &&
		jq -j .command_line "$TMP/cut.json" | iconv -f UTF-8 -t UTF-8 > /dev/null 2>&1; then
		ok "10: command_line cut at $len bytes on a character boundary (pad '${pad}')"
	else
		not_ok "10: pad '$pad': exit $rc, length $len, $(cat "$TMP/err")"
	fi
	rm -f "$TMP/cut.json"
done

# 11. --snoop-text: a process named with escape sequences, and flushes.
evil=$'\e]0;pwn\a\e[2J'
cp "$(command -v dd)" "$TMP/$evil"
"$BB" --trace "$a" --snoop "$TMP/e.snoop" -- "$TMP/$evil" if=/dev/zero of="$A" bs=4k count=2 \
	oflag=direct,sync status=none > /dev/null 2>&1
expect_eq "11: traced the renamed dd: exit 0" "$?" 0
"$BB" --snoop-text "$TMP/e.snoop" > "$TMP/e.txt"
expect_eq "11: --snoop-text exit 0" "$?" 0
expect_eq "11: no raw control byte reaches the terminal" \
	"$(LC_ALL=C tr -d '\n' < "$TMP/e.txt" | LC_ALL=C tr -d '[:print:]' | wc -c)" 0
expect_true "11: the name escaped as \\x1b" grep -qF '\x1b]0;pwn\x07\x1b[2J' "$TMP/e.txt"
expect_cmp "11: flushes recorded" "$(awk '$5 == "flush"' "$TMP/e.txt" | wc -l)" ">" 0
expect_eq "11: every flush shows '-' as its sector" \
	"$(awk '$5 == "flush" { print $6 }' "$TMP/e.txt" | sort -u)" "-"
expect_eq "11: no all-ones sector" "$(grep -c 18446744073709551615 "$TMP/e.txt")" 0

# 12. compare: wrong types and ranges, named; 1M buckets and 3000 runs, time and memory.
jq '.runs[0].app.mb_per_s = "fast"' "$TMP/r.json" > "$TMP/fast.json"
expect_refused "12: \"mb_per_s\": \"fast\"" 2 'fast.json: runs\[0\].app.mb_per_s is a string' -- \
	compare "$TMP/fast.json" "$TMP/r.json"
jq '.runs[1].block.request_bytes.buckets[0] |= (.hi = .lo - 4096)' "$TMP/r.json" > "$TMP/lohi.json"
expect_refused "12: a bucket with lo > hi" 2 'lohi.json: runs\[1\].block.request_bytes.buckets\[0\]: lo .* is not below hi' -- \
	compare "$TMP/r.json" "$TMP/lohi.json"
sed 's/"mb_per_s": [0-9.e+-]*/"mb_per_s": 1e308/' "$TMP/r.json" > "$TMP/huge.json"
expect_refused "12: 1e308" 2 'huge.json: runs\[0\].app.mb_per_s = 1e+308 is out of range' -- \
	compare "$TMP/r.json" "$TMP/huge.json"
jq '.device = 7' "$TMP/r.json" > "$TMP/dev7.json"
expect_refused "12: \"device\": 7" 2 '"device" is a number' -- compare "$TMP/dev7.json" "$TMP/r.json"

# measure NAME MAX_S MAX_MB EXIT ARGS...: exit code, wall time and peak RSS of compare.
measure() {
	local name=$1 max_s=$2 max_mb=$3 code=$4 rc s kb
	shift 4
	/usr/bin/time -f '%e %M' -o "$TMP/time" "$BB" compare "$@" > /dev/null 2> "$TMP/err"
	rc=$?
	read -r s kb < <(tail -1 "$TMP/time") # after "Command exited with ..."
	if [ $rc -eq "$code" ] && awk -v s="$s" -v kb="$kb" -v ms="$max_s" -v mm="$max_mb" \
		'BEGIN { exit !(s <= ms && kb <= mm * 1024) }'; then
		ok "12: $name: exit $rc, $s s, $((kb / 1024)) MB (limits $max_s s, $max_mb MB)"
	else
		not_ok "12: $name: exit $rc (want $code), $s s, $((kb / 1024)) MB (limits $max_s s, $max_mb MB): $(head -2 "$TMP/err")"
	fi
}
# A run with 1M request_bytes buckets (before: 23 s, 559 MB), then 1M buckets spread
# over 2000 runs of 500 (before: 70 s, 1.98 GB), then 3000 runs (before: 838 MB).
run0=$(jq -c '.runs[0]' "$TMP/r.json")
gen() { # RUNS BUCKETS: a result of RUNS copies of run0, each with BUCKETS size buckets
	awk -v runs="$1" -v nb="$2" -v run="$run0" 'BEGIN {
		sub(/"request_bytes":\{[^}]*"buckets":\[[^]]*\]/, "\"request_bytes\":{\"count\":1,\"buckets\":[@]", run)
		split(run, part, "@")
		printf "{\"schema\":\"blktrace-bench/1\",\"runs\":["
		for (r = 0; r < runs; r++) {
			printf "%s%s", r ? "," : "", part[1]
			# Buckets of ours (bpf/hist.h: 4 KiB wide from 4 KiB), each run its own.
			off = nb + (r * 7) % 12 <= 511 ? (r * 7) % 12 : 0
			for (j = 0; j < nb; j++)
				printf "%s{\"lo\":%d,\"hi\":%d,\"count\":1}", j ? "," : "", \
					(j + off + 1) * 4096, (j + off + 2) * 4096
			printf "%s", part[2]
		}
		print "]}"
	}'
}
gen 1 1000000 > "$TMP/b1m.json"
measure "one run of 1M buckets refused" 10 200 2 "$TMP/b1m.json" "$TMP/r.json"
expect_true "12: ... naming the run" grep -q "b1m.json: runs\[0\] is larger than any run" "$TMP/err"
gen 2000 500 > "$TMP/spread.json"
rm -f "$TMP/b1m.json"
measure "1M buckets over 2000 runs" 60 900 0 "$TMP/spread.json" "$TMP/spread.json"
rm -f "$TMP/spread.json"
gen 3000 4 > "$TMP/r3000.json"
measure "3000 runs" 30 250 0 "$TMP/r3000.json" "$TMP/r3000.json"
rm -f "$TMP/r3000.json"

# 13. A link planted in a sticky world-writable directory by another user, the kernel's
# own protection off: root's --json replaces the link and never writes its target.
if [ -w /proc/sys/fs/protected_symlinks ] && command -v setpriv > /dev/null; then
	set_sysfs /proc/sys/fs/protected_symlinks 0
	chmod 755 "$TMP"
	mkdir -m 1777 "$TMP/sticky"
	echo precious > "$TMP/victim"
	setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$TMP/victim" "$TMP/sticky/out.json"
	expect_eq "13: the link is planted" "$(stat -c %F "$TMP/sticky/out.json")" "symbolic link"
	"$BB" --trace "$a" --json "$TMP/sticky/out.json" -- true > /dev/null 2>&1
	expect_eq "13: --json through the planted link: exit 0" "$?" 0
	expect_eq "13: the victim is untouched" "$(cat "$TMP/victim")" precious
	expect_eq "13: the link became the result" "$(stat -c %F "$TMP/sticky/out.json")" \
		"regular file"
	expect_eq "13: ... a whole JSON document" "$(jqv "$TMP/sticky/out.json" .schema)" \
		"blktrace-bench/1"
else
	skip "13: fs.protected_symlinks not writable or no setpriv"
fi

# A path that leads to a descriptor of ours (/dev/stdout, /dev/stderr,
# /dev/fd/N), a character device or a FIFO is written in place, never renamed over: the
# tool used to rename its temporary file over the link /dev/stdout itself (exit 0, the
# redirected file empty, /dev/stdout a regular file for every process after). Run in a
# mount namespace of its own, with a tmpfs /dev holding the links and nodes the commands
# need, so that the code under test can never break this machine's /dev; the commands
# leave their facts as NAME=VALUE lines, checked here.
cp "$TMP/r.json" "$TMP/o1-a.json"
cat > "$TMP/o1.sh" << 'EOF'
set -u
F=$T/o1.facts
fact() { printf '%s=%s\n' "$1" "$2" >> "$F"; }
kind() { stat -c %F "$1" 2> /dev/null || echo missing; }
# $T is on /dev/shm: carried over into the new /dev.
shm=$(mktemp -d /run/bb-e2e-o1.XXXXXX) || exit 99
mount --bind /dev/shm "$shm" || exit 99
mount -t tmpfs -o size=1m,mode=755 bb-e2e-o1-dev /dev || exit 99
mkdir /dev/shm && mount --move "$shm" /dev/shm && rmdir "$shm" || exit 99
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mknod -m 666 /dev/null c 1 3
mknod -m 666 /dev/zero c 1 5
mknod -m 666 /dev/urandom c 1 9
mknod -m 660 "/dev/$LOOP" b "${LOOPDEV%:*}" "${LOOPDEV#*:}"
fact ready 1
"$BB" report "$R" -o /dev/stdout > "$T/page.html"
fact report_rc $?
fact report_link "$(kind /dev/stdout)"
fact report_page "$(head -c 15 "$T/page.html")"
echo old > "$T/appended.html"
"$BB" report "$R" -o /dev/stdout >> "$T/appended.html"
fact append_first "$(head -1 "$T/appended.html")"
fact append_page "$(sed -n 2p "$T/appended.html" | head -c 15)"
"$BB" report "$R" -o /dev/stdout | cat > "$T/piped.html"
fact pipe_page "$(head -c 15 "$T/piped.html")"
"$BB" info "$LOOP" --json=/dev/stdout > "$T/info.out"
fact info_rc $?
fact info_link "$(kind /dev/stdout)"
fact info_name "$(jq -r .device.name "$T/info.out")"
"$BB" compare "$R" "$A" --json=/dev/stdout > "$T/cmp.out"
fact compare_rc $?
fact compare_link "$(kind /dev/stdout)"
fact compare_json "$(grep -c '"device_changes"' "$T/cmp.out")"
"$BB" compare "$R" "$A" --json=/dev/stderr > /dev/null 2> "$T/log"
fact stderr_rc $?
fact stderr_link "$(kind /dev/stderr)"
fact stderr_log "$(grep -c '"device_changes"' "$T/log")"
"$BB" compare "$R" "$A" --json=/dev/fd/1 > "$T/fd1.out"
fact fd1_link "$(kind /dev/fd)"
fact fd1_json "$(grep -c '"device_changes"' "$T/fd1.out")"
"$BB" compare "$R" "$A" --json=/dev/null > /dev/null
fact null_rc $?
fact null_kind "$(kind /dev/null)"
mkfifo "$T/o1.fifo"
timeout 30 cat "$T/o1.fifo" > "$T/from-fifo.html" & # (bounded: should nothing write)
reader=$!
# The reader is there once cat waits in open() for a writer: before that the report
# would rightly find nobody reading.
for _ in $(seq 200); do
	cat_pid=$(pgrep -P "$reader" -x cat) &&
		[ "$(cat "/proc/$cat_pid/wchan" 2> /dev/null)" = wait_for_partner ] && break
	sleep 0.05
done
timeout 60 "$BB" report "$R" -o "$T/o1.fifo"
fact fifo_rc $?
wait $reader
fact fifo_page "$(head -c 15 "$T/from-fifo.html")"
fact fifo_kind "$(kind "$T/o1.fifo")"
timeout 60 "$BB" report "$R" -o "$T/o1.fifo" 2> "$T/fifo.err"
fact nofifo_rc $?
fact nofifo_kind "$(kind "$T/o1.fifo")"
fact dev "$(ls /dev | LC_ALL=C sort | tr '\n' ' ')"
EOF
if unshare -m --propagation private true 2> /dev/null; then
	BB=$BB T=$TMP R=$TMP/r.json A=$TMP/o1-a.json LOOP=$a LOOPDEV=$(cat "/sys/block/$a/dev") \
		unshare -m --propagation private bash "$TMP/o1.sh" > "$TMP/o1.out" 2>&1
	fact() { sed -n "s/^$1=//p" "$TMP/o1.facts" | tail -1; }
	expect_eq "O1: a private /dev (tmpfs) for the commands" "$(fact ready)" 1
	expect_eq "O1: report -o /dev/stdout > page.html: exit 0" "$(fact report_rc)" 0
	expect_eq "O1: ... /dev/stdout stays a link" "$(fact report_link)" "symbolic link"
	expect_eq "O1: ... page.html holds the page" "$(fact report_page)" "<!DOCTYPE html>"
	expect_eq "O1: >> page: what it held is kept" "$(fact append_first)" old
	expect_eq "O1: ... the page after it" "$(fact append_page)" "<!DOCTYPE html>"
	expect_eq "O1: -o /dev/stdout | cat: the page through the pipe" "$(fact pipe_page)" \
		"<!DOCTYPE html>"
	expect_eq "O1: info DEV --json=/dev/stdout > x: exit 0" "$(fact info_rc)" 0
	expect_eq "O1: ... /dev/stdout stays a link" "$(fact info_link)" "symbolic link"
	expect_eq "O1: ... x holds the JSON" "$(fact info_name)" "$a"
	expect_eq "O1: compare A B --json=/dev/stdout > x: exit 0" "$(fact compare_rc)" 0
	expect_eq "O1: ... /dev/stdout stays a link" "$(fact compare_link)" "symbolic link"
	expect_eq "O1: ... x holds the JSON" "$(fact compare_json)" 1
	expect_eq "O1: compare --json=/dev/stderr 2> log: exit 0" "$(fact stderr_rc)" 0
	expect_eq "O1: ... /dev/stderr stays a link" "$(fact stderr_link)" "symbolic link"
	expect_eq "O1: ... log holds the JSON" "$(fact stderr_log)" 1
	expect_eq "O1: --json=/dev/fd/1: /dev/fd stays a link" "$(fact fd1_link)" "symbolic link"
	expect_eq "O1: ... the JSON on stdout" "$(fact fd1_json)" 1
	expect_eq "O1: --json=/dev/null: exit 0" "$(fact null_rc)" 0
	expect_eq "O1: ... /dev/null stays a character device" "$(fact null_kind)" \
		"character special file"
	expect_eq "O1: -o FIFO with a reader: exit 0" "$(fact fifo_rc)" 0
	expect_eq "O1: ... the reader got the page" "$(fact fifo_page)" "<!DOCTYPE html>"
	expect_eq "O1: ... the FIFO stays a FIFO" "$(fact fifo_kind)" "fifo"
	expect_eq "O1: -o FIFO nobody reads: exit 1 at once (not waited on)" "$(fact nofifo_rc)" 1
	expect_eq "O1: ... one line saying so" "$(cat "$TMP/fifo.err" 2> /dev/null)" \
		"blktrace-bench: cannot write -o $TMP/o1.fifo: nobody reads the FIFO (start its reader first)"
	expect_eq "O1: ... the FIFO stays a FIFO" "$(fact nofifo_kind)" "fifo"
	expect_eq "O1: what the private /dev holds at the end: its links and nodes" "$(fact dev)" \
		"$(printf '%s\n' "$a" fd null shm stderr stdin stdout urandom zero | LC_ALL=C sort |
			tr '\n' ' ')"
else
	skip "O1: no private mount namespace (unshare -m) here"
fi
expect_eq "O1: this machine's /dev/stdout untouched" "$(stat -c %F /dev/stdout)" "symbolic link"

# SIGKILL leaves nothing: the output has no name until the tool commits it.
mkdir -p "$TMP/kill"
"$BB" -v --trace "$a" --json "$TMP/kill/out.json" --snoop "$TMP/kill/out.snoop" \
	> /dev/null 2> "$TMP/kill.err" &
pid=$!
background $pid
wait_until 10 "the tracing line" grep -q '^blktrace-bench: tracing' "$TMP/kill.err"
kill -KILL $pid
wait $pid 2> /dev/null
expect_eq "SIGKILL while tracing: nothing left in the output directory" \
	"$(find "$TMP/kill" -mindepth 1 | wc -l)" 0

finish
