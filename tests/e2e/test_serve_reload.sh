#!/usr/bin/env bash
# serve when the disks change under it, and when reloading fails. A partition resized
# (sfdisk --no-reread, partx -u) or moved (partx -d/-a) is reloaded: its writes count
# where it is now, not where it was. A disk that comes and goes (partx -d/-a in a loop)
# ends up traced; so does one seen half made (in sysfs before its queue/, as add_disk
# registers it: a fake tree, BLKTRACE_BENCH_SYSFS). A load that runs out of file
# descriptors (prlimit) says so (no "verifier", no "bug"), keeps the old programs
# counting, shows the new disk up 0 and is tried again (SIGHUP: at once). An attach that
# fails (EMFILE from tests/e2e/bpf_fault.c, preloaded) attaches the old programs again,
# which count on; when they cannot either, up 0 says the figures stand still. A partition
# resized while loads fail is one series, up 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

for tool in curl sfdisk partx prlimit cc; do
	command -v "$tool" > /dev/null ||
		{ skip "$tool missing (tools/deps.sh test installs it)"; finish; exit 0; }
done
make_loop A 64M || { not_ok "losetup"; finish; exit 1; }
make_loop B 64M /dev/shm -P || { not_ok "losetup -P"; finish; exit 1; }
a=$(basename "$A") p1=$(basename "$B")p1
echo 'start=2048, size=16384' | sfdisk -q "$B" > /dev/null 2>&1
[ -b "${B}p1" ] || partx -a "$B" 2> /dev/null
udevadm settle 2> /dev/null || true
[ -b "${B}p1" ] || { not_ok "partition ${B}p1 missing"; finish; exit 1; }
ser() { echo "blktrace_bench_$1{device=\"$2\",driver=\"loop\"${3:+,$3}}"; }
writes() { metric "$PORT" "$(ser requests_total "$1" 'op="write"')"; }
# dd_count DEV BLOCKS [SEEK]: 4 KiB direct writes; prints how many diskstats saw on DEV.
dd_count() {
	local w0
	w0=$(diskstat "$1" 5)
	dd if=/dev/zero of="$1" bs=4k count="$2" seek="${3:-0}" oflag=direct status=none
	echo $(($(diskstat "$1" 5) - w0))
}
# p1_table START SECTORS: the partition table changed, the kernel not told (sfdisk
# --no-reread), as a partitioning tool leaves it for partx.
p1_table() { echo "start=$1, size=$2" | sfdisk -q --no-reread "$B" > /dev/null 2>&1; }
om_created() { # SERIES: its _created in the OpenMetrics exposition
	curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' \
		"http://127.0.0.1:$PORT/metrics" | awk -v s="$1" 'index($0, s) == 1 { print $NF }'
}
# logged FILE PATTERN N: FILE has N lines with PATTERN at least (for wait_until).
logged() { [ "$(grep -c -- "$2" "$1")" -ge "$3" ]; }
# fd_limit PID FREE: the open file limit that leaves PID FREE descriptors to open (the
# limit bounds the numbers, and a reload leaves holes below its highest).
fd_limit() {
	find "/proc/$1/fd" -mindepth 1 -printf "%f\n" | sort -n | awk -v want="$2" '
		{ open[$1] = 1 } END { for (l = 0; free < want; l++) free += !(l in open); print l }'
}

# 1. A partition resized: writes beyond its old end count, as its own.
start_serve PORT "$TMP/s1.log" --trace "$a,$p1" || { finish; exit 1; }
n=$(dd_count "${B}p1" 5)
wait_until 10 "$p1's first writes" metric_is "$PORT" "$(ser requests_total "$p1" 'op="write"')" "$n"
c0=$(om_created "$(ser requests_created "$p1" 'op="write"')")
p1_table 2048 32768
partx -u --nr 1 "$B"
expect_eq "partx -u: p1 is 16 MiB now" "$(cat "/sys/class/block/$p1/size")" 32768
wait_until 5 "the resize to be seen (~$p1)" grep -q -- "~$p1" "$TMP/s1.log" &&
	ok "a resized partition is reloaded ($(grep -- "~$p1" "$TMP/s1.log" | head -1))"
n=$(dd_count "${B}p1" 7 3072) # at 12 MiB: beyond the old end (8 MiB)
wait_until 5 "$p1's writes beyond its old end ($n)" metric_is "$PORT" \
	"$(ser requests_total "$p1" 'op="write"')" "$n" &&
	ok "writes beyond the old end count: requests_total == diskstats ($n), from 0 again"
expect_cmp "resized: its counters' _created moved on" \
	"$(om_created "$(ser requests_created "$p1" 'op="write"')")" ">" "${c0:-0}"

# 2. Moved: deleted and added again at 20 MiB within a moment. Its writes count; writes
# into where it was (through the whole disk) are not its own.
p1_table 40960 16384
partx -d --nr 1 "$B" && partx -a --nr 1 "$B"
expect_eq "partx -d/-a: p1 starts at 20 MiB" "$(cat "/sys/class/block/$p1/start")" 40960
wait_until 5 "the move to be seen" logged "$TMP/s1.log" "~$p1" 2 &&
	ok "a moved partition is reloaded"
n=$(dd_count "${B}p1" 9)
dd if=/dev/zero of="$B" bs=4k count=11 seek=256 oflag=direct status=none # p1's old place
wait_until 5 "$p1's 9 writes where it is now" metric_is "$PORT" \
	"$(ser requests_total "$p1" 'op="write"')" "$n" &&
	ok "moved: its own writes count (== diskstats, $n), not the 11 at its old place"
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"

# 3. A partition that comes and goes (partx -d/-a for 3 s) ends up traced.
p1_table 2048 16384
partx -d --nr 1 "$B" 2> /dev/null
partx -a --nr 1 "$B"
start_serve PORT "$TMP/s3.log" --trace "$a,$p1" || { finish; exit 1; }
end=$((SECONDS + 3))
while [ $SECONDS -lt $end ]; do
	partx -d --nr 1 "$B" 2> /dev/null
	partx -a --nr 1 "$B" 2> /dev/null
done
[ -b "${B}p1" ] || partx -a --nr 1 "$B"
p1_traced() { [ -n "$(writes "$p1")" ]; }
wait_until 10 "$p1 traced after coming and going" p1_traced && sleep 2.2 # let it settle
m0=$(writes "$p1")
n=$(dd_count "${B}p1" 13)
wait_until 5 "its 13 writes after coming and going" metric_is "$PORT" \
	"$(ser requests_total "$p1" 'op="write"')" $((${m0:-0} + n)) &&
	ok "came and went: traced at the end, its writes counted exactly ($n)"
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"

# 4. A disk seen half made: in /sys/block with dev and size, no queue/ yet (add_disk's
# order). A fake tree; the disk is traced once it is whole.
cp -a "$ROOT/tests/fixtures/sysfs/loop" "$TMP/sys"
D=$TMP/sys/devices/virtual/block
BLKTRACE_BENCH_SYSFS=$TMP/sys start_serve PORT "$TMP/s4.log" --trace all || { finish; exit 1; }
cp -a "$D/loop0" "$D/loop9"
rm -r "$D/loop9/queue"
echo 7:249 > "$D/loop9/dev"
ln -s ../devices/virtual/block/loop9 "$TMP/sys/block/loop9"
ln -s ../../devices/virtual/block/loop9 "$TMP/sys/class/block/loop9"
ln -s ../../devices/virtual/block/loop9 "$TMP/sys/dev/block/7:249"
sleep 2.5 # two looks at the disks while it is half made
expect_eq "half made: not traced yet" "$(metric "$PORT" "$(ser up loop9)")" ""
cp -a "$D/loop0/queue" "$D/loop9/queue"
wait_until 5 "loop9 traced once whole" metric_is "$PORT" "$(ser up loop9)" 1 &&
	ok "a disk seen half made is traced once whole ($(grep -- +loop9 "$TMP/s4.log"))"
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"

# 5. Loading out of file descriptors: said as such, the old disk counts on, the new one
# is up 0 until the load is tried again (SIGHUP: at once).
start_serve PORT "$TMP/s5.log" --trace "$a,$p1" || { finish; exit 1; }
partx -d --nr 1 "$B"
wait_until 5 "$p1 to go" grep -q -- "-$p1" "$TMP/s5.log"
prlimit --pid "$SERVE_PID" --nofile="$(fd_limit "$SERVE_PID" 4)":
partx -a --nr 1 "$B"
if wait_until 5 "a failed load said" grep -q "Too many open files" "$TMP/s5.log"; then
	line=$(grep "Too many open files" "$TMP/s5.log" | head -1)
	expect_true "EMFILE said as such ($line)" grep -q "cannot load the BPF programs: Too many open files: each BPF map, program and link takes a file descriptor: raise the open file limit .* (trying again in 1 s)" <<< "$line"
	expect_eq "no verifier, no bug" "$(grep -ciE 'verifier|bug' "$TMP/s5.log")" 0
fi
expect_eq "the new disk: up 0" "$(metric "$PORT" "$(ser up "$p1")")" 0
expect_eq "the old one: up 1" "$(metric "$PORT" "$(ser up "$a")")" 1
expect_eq "traced_devices: 1" "$(metric "$PORT" blktrace_bench_traced_devices)" 1
expect_cmp "reload failures counted" "$(metric "$PORT" blktrace_bench_tracer_reload_failures_total)" ">=" 1
m0=$(writes "$a")
n=$(dd_count "$A" 17)
wait_until 5 "$a's writes while the load fails" metric_is "$PORT" \
	"$(ser requests_total "$a" 'op="write"')" $((${m0:-0} + n)) &&
	ok "the old disk counts on while the load fails ($n)"
wait_until 10 "the load tried again" logged "$TMP/s5.log" "cannot load the BPF programs" 2 &&
	ok "the load is tried again ($(grep -c "cannot load" "$TMP/s5.log") times so far)"
prlimit --pid "$SERVE_PID" --nofile=1024:
kill -HUP "$SERVE_PID"
wait_until 3 "SIGHUP to load at once" grep -q -- "+$p1" "$TMP/s5.log" &&
	ok "SIGHUP: the disks read again at once, $p1 traced"
n=$(dd_count "${B}p1" 19)
wait_until 5 "$p1's writes" metric_is "$PORT" "$(ser requests_total "$p1" 'op="write"')" "$n" &&
	ok "then its writes count exactly ($n)"
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
expect_eq "SIGTERM after it all: exit 0" "$?" 0

# 6. Attaching fails (EMFILE, preloaded): the old programs are attached again and count on,
# the reload is tried again; when even they cannot attach, up 0 says so.
cc -shared -fPIC -o "$TMP/bpf_fault.so" "$ROOT/tests/e2e/bpf_fault.c" -ldl ||
	{ not_ok "cc bpf_fault.c"; finish; exit 1; }
LD_PRELOAD=$TMP/bpf_fault.so BPF_FAULT_ONCE=$TMP/once BPF_FAULT_WHILE=$TMP/while \
	start_serve PORT "$TMP/s6.log" --trace "$a,$p1" || { finish; exit 1; }
partx -d --nr 1 "$B"
wait_until 5 "$p1 to go" grep -q -- "-$p1" "$TMP/s6.log"
touch "$TMP/once"
partx -a --nr 1 "$B"
if wait_until 5 "a failed attach said" grep -q "cannot attach" "$TMP/s6.log"; then
	expect_true "said, and that the old disks go on ($(grep "cannot attach" "$TMP/s6.log"))" \
		grep -q "cannot attach to the block tracepoints: Too many open files: .*; the disks traced before go on (trying again in 1 s)" "$TMP/s6.log"
fi
m0=$(writes "$a")
n=$(dd_count "$A" 23)
wait_until 5 "$a's writes after the failed attach" metric_is "$PORT" \
	"$(ser requests_total "$a" 'op="write"')" $((${m0:-0} + n)) &&
	ok "the old programs, attached again, count on ($n)"
wait_until 5 "the reload tried again" grep -q -- "+$p1" "$TMP/s6.log" && ok "tried again: $p1 traced"
n=$(dd_count "${B}p1" 29)
wait_until 5 "$p1's writes" metric_is "$PORT" "$(ser requests_total "$p1" 'op="write"')" "$n" &&
	ok "then its writes count exactly ($n)"
expect_cmp "the failure counted" "$(metric "$PORT" blktrace_bench_tracer_reload_failures_total)" ">=" 1
touch "$TMP/while"
partx -d --nr 1 "$B"
wait_until 5 "a failed attach and re-attach" grep -q "nor could the disks traced before" "$TMP/s6.log" &&
	ok "neither attaches: said ($(grep "nor could" "$TMP/s6.log" | head -1))"
expect_eq "up 0: its figures stand still" "$(metric "$PORT" "$(ser up "$a")")" 0
expect_eq "traced_devices 0" "$(metric "$PORT" blktrace_bench_traced_devices)" 0
rm "$TMP/while"
kill -HUP "$SERVE_PID"
wait_until 5 "up again" metric_is "$PORT" "$(ser up "$a")" 1 && ok "the fault gone: up 1 again"
m0=$(writes "$a")
n=$(dd_count "$A" 31)
wait_until 5 "$a's writes" metric_is "$PORT" "$(ser requests_total "$a" 'op="write"')" \
	$((${m0:-0} + n)) && ok "and its writes count again ($n)"
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"

# 7. A partition resized while loading fails: one series for its name, up 0 (its figures
# are of where it was), never the old one up 1 beside a new one up 0.
p1_table 2048 16384
partx -a --nr 1 "$B" 2> /dev/null
partx -u --nr 1 "$B"
wait_until 5 "$p1 back at 8 MiB" test -b "${B}p1"
start_serve PORT "$TMP/s7.log" --trace "$a,$p1" || { finish; exit 1; }
wait_until 10 "$p1 traced" metric_is "$PORT" "$(ser up "$p1")" 1
prlimit --pid "$SERVE_PID" --nofile="$(fd_limit "$SERVE_PID" 4)":
p1_table 2048 24576
partx -u --nr 1 "$B"
wait_until 5 "a failed load said" grep -q "Too many open files" "$TMP/s7.log"
expect_eq "resized, not reloaded: one up series for $p1" \
	"$(curl -s "http://127.0.0.1:$PORT/metrics" | grep -c "^$(ser up "$p1") ")" 1
expect_eq "resized, not reloaded: $p1 up 0" "$(metric "$PORT" "$(ser up "$p1")")" 0
expect_eq "the other disk: up 1" "$(metric "$PORT" "$(ser up "$a")")" 1
prlimit --pid "$SERVE_PID" --nofile=1024:
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
finish
