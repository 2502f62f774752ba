#!/usr/bin/env bash
# --set sweeps: each value shapes its runs, and the original value comes back after
# success, after an error, after any catchable signal in the middle, and after SIGKILL
# (the next run, or `restore DEV`); a second sweep of the same disk is refused.
. "$(dirname "$0")/lib.sh"

# value_is FILE VALUE: for wait_until.
value_is() { [ "$(cat "$1")" = "$2" ]; }

make_loop A 256M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
msk=/sys/block/$a/queue/max_sectors_kb
orig=$(cat "$msk")
_RESTORE+=("$msk=$orig") # a safety net; the tool itself must restore
ra_file=/sys/block/$a/queue/read_ahead_kb
_RESTORE+=("$ra_file=$(cat "$ra_file")")
state=/run/blktrace-bench/$a.state
remove_at_exit "$state"
remove_at_exit "/run/blktrace-bench/$a.lock"

# 1. max_sectors_kb=16,64,256 with 1 MiB direct reads: the largest request of each run.
"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct --set max_sectors_kb=16,64,256 \
	--json "$TMP/sweep.json" > /dev/null 2> "$TMP/err"
expect_eq "sweep: exit 0" "$?" 0
expect_eq "sweep: largest request per value" \
	"$(jqv "$TMP/sweep.json" '[.runs[].block.request_bytes.max] | map(tostring) | join(",")')" \
	"16384,65536,262144"
expect_eq "sweep: requests per value (16M / limit)" \
	"$(jqv "$TMP/sweep.json" '[.runs[].block.read.requests] | map(tostring) | join(",")')" \
	"1024,256,64"
expect_eq "sweep: runs labelled with the value" \
	"$(jqv "$TMP/sweep.json" '[.runs[].params.max_sectors_kb] | join(",")')" "16,64,256"
expect_eq "sweep: limit-bound against the run's own limit" \
	"$(jqv "$TMP/sweep.json" '[.runs[].block.limit_bound.max_sectors] | map(tostring) | join(",")')" "1,1,1"
expect_eq "sweep: restored after success" "$(cat "$msk")" "$orig"
expect_true "sweep: says it restored" grep -q "restored max_sectors_kb=$orig" "$TMP/err"

# 1a. The scheduler, swept by name: the active one (bracketed) comes back.
sched_file=/sys/block/$a/queue/scheduler
active_sched() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$sched_file"; }
sched0=$(active_sched)
if grep -qw mq-deadline "$sched_file"; then
	"$BB" --trace "$a" --raw --rw read --bs 64k --size 1M --set scheduler=mq-deadline,none \
		> /dev/null 2> "$TMP/err"
	expect_eq "scheduler sweep: exit 0" "$?" 0
	expect_eq "scheduler sweep: restored" "$(active_sched)" "$sched0"
	expect_true "scheduler sweep: says so" grep -q "restored scheduler=$sched0 on $a" "$TMP/err"
else
	skip "no mq-deadline here: the scheduler sweep is not tested"
fi

# 1b. --recommend: names a best value and shows the evidence for each.
"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct --set max_sectors_kb=16,256 \
	--repeat 3 --recommend --json "$TMP/rec.json" > "$TMP/rec.txt" 2>&1
expect_eq "recommend: for the swept knob" "$(jqv "$TMP/rec.json" '.recommendation[0].knob')" max_sectors_kb
expect_eq "recommend: evidence for both values" \
	"$(jqv "$TMP/rec.json" '.recommendation[0].evidence | map(.value) | join(",")')" "16,256"
expect_eq "recommend: the best has the highest mean MB/s" \
	"$(jqv "$TMP/rec.json" '.recommendation[0].best')" \
	"$(jqv "$TMP/rec.json" '.recommendation[0].evidence | max_by(.mb_per_s) | .value')"
expect_true "recommend: printed" grep -q "^recommendation (max_sectors_kb)" "$TMP/rec.txt"
expect_eq "recommend: restored" "$(cat "$msk")" "$orig"
"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct --recommend > /dev/null 2> "$TMP/err"
expect_eq "recommend without --set: exit 2" "$?" 2

# 1c. read_ahead_kb swept over 512 B buffered reads: each row's line names read-ahead with
# the value in effect during its runs (not the disk's original), and at 4096 the
# max_sectors_kb cap that stopped most of its requests too.
ra0=$(cat "$ra_file")
"$BB" --trace "$a" --raw --rw read --bs 512 --size 32M --set read_ahead_kb=128,1024,4096 \
	--brief --json "$TMP/ra.json" > "$TMP/ra.txt" 2> /dev/null
expect_eq "read-ahead sweep: a read_ahead finding first in every run" \
	"$(jqv "$TMP/ra.json" '[.runs[].findings[0].kind] | unique | join(",")')" read_ahead
for v in 128 1024 4096; do
	expect_true "read-ahead sweep: the $v row names read_ahead_kb=$v" \
		grep -q "^  read_ahead_kb=$v read bs=512 B psync: 100.0% of requests were read-ahead (read_ahead_kb=$v)" \
		"$TMP/ra.txt"
done
expect_true "read-ahead sweep: the 4096 row also names the max_sectors_kb cap" \
	grep -q "^  read_ahead_kb=4096 read bs=512 B psync: .* requests were capped at .* by max_sectors_kb=" \
	"$TMP/ra.txt"
expect_eq "read-ahead sweep: no application's I/O size claimed" \
	"$(grep -c "application's I/O size" "$TMP/ra.txt")" 0
expect_eq "read-ahead sweep: restored" "$(cat "$ra_file")" "$ra0"

# 1d. A scheduler has no "smaller" value: the recommendation never says so.
if grep -qw mq-deadline "$sched_file"; then
	"$BB" --trace "$a" --raw --rw read --bs 64k --size 4M --direct \
		--set scheduler=none,mq-deadline --repeat 3 --recommend --json "$TMP/srec.json" \
		> "$TMP/srec.txt" 2> /dev/null
	expect_eq "scheduler recommendation: not ordered" \
		"$(jqv "$TMP/srec.json" '.recommendation[0].ordered')" false
	expect_eq "scheduler recommendation: no smallest equivalent" \
		"$(jqv "$TMP/srec.json" '.recommendation[0] | has("smallest_equivalent")')" false
	expect_eq "scheduler recommendation: never 'smaller'" "$(grep -c smaller "$TMP/srec.txt")" 0
	# What it says agrees with the p-values it shows.
	as_good=$(jqv "$TMP/srec.json" '[.recommendation[0].evidence[] | select(.as_good)] | length')
	above=$(jqv "$TMP/srec.json" '.recommendation[0] as $r | [$r.evidence[] |
		select(.value != $r.best and .p_value_vs_best != null and .p_value_vs_best >= 0.05)]
		| length')
	expect_eq "scheduler recommendation: as good exactly where p >= 0.05" "$as_good" "$above"
fi

# 2. Validation before anything runs: above max_hw_sectors_kb is refused, naming it.
hw=$(cat "/sys/block/$a/queue/max_hw_sectors_kb")
r0=$(diskstat "$A" 1)
"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct \
	--set max_sectors_kb=64,$((hw * 2)) > /dev/null 2> "$TMP/err"
expect_eq "too large: exit 2" "$?" 2
expect_true "too large: names max_hw_sectors_kb" grep -q "max_hw_sectors_kb=$hw" "$TMP/err"
expect_eq "too large: nothing ran" "$(($(diskstat "$A" 1) - r0))" 0
expect_eq "too large: unchanged" "$(cat "$msk")" "$orig"
# 2a. DEV:KNOB names a layer of the traced device's stack; a loop disk on tmpfs has none.
"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct \
	--set vda:max_sectors_kb=64 > /dev/null 2> "$TMP/err"
expect_eq "not in the stack: exit 2" "$?" 2
expect_eq "not in the stack: one line naming the stack" "$(cat "$TMP/err")" \
	"blktrace-bench: --set vda:max_sectors_kb: vda is not under $a (its stack: $a)"
expect_eq "not in the stack: nothing ran" "$(($(diskstat "$A" 1) - r0))" 0
# 2b. A --state-dir that is no directory is a refused option (exit 2), like any other.
echo x > "$TMP/notadir"
"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct --set max_sectors_kb=64 \
	--state-dir "$TMP/notadir" > /dev/null 2> "$TMP/err"
expect_eq "--state-dir a file: exit 2" "$?" 2
expect_true "--state-dir a file: says so" grep -q "$TMP/notadir is not a directory" "$TMP/err"
expect_eq "--state-dir a file: unchanged" "$(cat "$msk")" "$orig"
"$BB" restore "$a" --state-dir "$TMP/notadir" > /dev/null 2> "$TMP/err"
expect_eq "restore --state-dir a file: exit 2" "$?" 2
# 2c. A FIFO in the state file's place is refused at once, in one line: restore,
# and a sweep, which recovers a dead one's settings first, used to wait on it for ever.
mkdir -m 700 "$TMP/st" && mkfifo "$TMP/st/$a.state"
timeout 20 "$BB" restore "$a" --state-dir "$TMP/st" > /dev/null 2> "$TMP/err"
rc=$?
expect_eq "restore, a FIFO as the state file: exit 1, one line" "$rc:$(wc -l < "$TMP/err")" "1:1"
expect_true "  ... naming it ($(cat "$TMP/err"))" \
	grep -q "$TMP/st/$a.state is not a state file of this tool" "$TMP/err"
timeout 20 "$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct \
	--set max_sectors_kb=64 --state-dir "$TMP/st" > /dev/null 2> "$TMP/err"
rc=$?
expect_eq "a sweep, a FIFO as the state file: exit 1, one line ($(cat "$TMP/err"))" \
	"$rc:$(wc -l < "$TMP/err")" "1:1"
expect_eq "  ... unchanged" "$(cat "$msk")" "$orig"

# 3. An error in the middle (the workload fails: reading past a missing file) restores.
"$BB" --trace "$a" --file /nonexistent/file --rw read --bs 4k --any-fs \
	--set max_sectors_kb=32 > /dev/null 2>&1
# (This one fails after the values were tried: the trial writes must be undone.)
expect_eq "error before the runs: trial values undone" "$(cat "$msk")" "$orig"
mkfs.ext4 -q -F "$A"
mkdir -p "$TMP/mnt"
mount "$A" "$TMP/mnt" && mounted "$TMP/mnt"
(cd "$TMP/mnt" && "$BB" --trace "$a" --rw write --bs 4k --size 1G --set max_sectors_kb=32 \
	> /dev/null 2> "$TMP/err")
rc=$?
expect_cmp "error (disk full): non-zero exit" "$rc" "!=" 0
expect_eq "error (disk full): restored" "$(cat "$msk")" "$orig"

# 4. SIGINT in the middle of a sweep: restored, the file removed.
(cd "$TMP/mnt" && exec "$BB" -v --trace "$a" --rw write --bs 4k --size 16M --runtime 20 --dsync \
	--set max_sectors_kb=8,16 > /dev/null 2> "$TMP/int.err") &
pid=$!
background $pid
wait_until 30 "the sweep to trace" grep -q "tracing $a" "$TMP/int.err"
wait_until 10 "max_sectors_kb=8 in force" value_is "$msk" 8
expect_eq "SIGINT: the value is in force while it runs" "$(cat "$msk")" 8
kill -INT $pid
wait $pid
expect_eq "SIGINT: exit 130" "$?" 130
expect_eq "SIGINT: restored" "$(cat "$msk")" "$orig"
expect_eq "SIGINT: file removed" "$(ls "$TMP/mnt" | grep -c blktrace-bench)" 0

# 5. SIGTERM likewise.
ra=$(cat "/sys/block/$a/queue/read_ahead_kb")
(cd "$TMP/mnt" && exec "$BB" -v --trace "$a" --rw write --bs 4k --size 16M --runtime 20 --dsync \
	--set read_ahead_kb=0,512 > /dev/null 2> "$TMP/term.err") &
pid=$!
background $pid
wait_until 30 "the sweep to trace" grep -q "tracing $a" "$TMP/term.err"
kill -TERM $pid
wait $pid
expect_eq "SIGTERM: exit 143" "$?" 143
expect_eq "SIGTERM: read_ahead_kb restored" "$(cat "/sys/block/$a/queue/read_ahead_kb")" "$ra"

# start_sweep LOG ARGS...: a long --set sweep of raw reads in the background; $pid is it.
# Returns once it traces and its first value (max_sectors_kb=64 unless ARGS say) is in force.
start_sweep() {
	local log=$1
	shift
	"$BB" -v --trace "$a" --raw --rw read --bs 1M --size 16M --direct --runtime 60 "$@" \
		> /dev/null 2> "$log" &
	pid=$!
	background $pid
	wait_until 30 "the sweep to trace" grep -q "tracing $a" "$log"
}

# 6. Every other catchable termination signal restores too (a dropped SSH session is HUP).
for sig in HUP QUIT USR1 USR2 ALRM PIPE; do
	start_sweep "$TMP/sig.err" --set max_sectors_kb=64 &&
		wait_until 10 "max_sectors_kb=64 in force" value_is "$msk" 64 || continue
	kill -"$sig" $pid
	wait $pid
	rc=$?
	expect_eq "SIG$sig: exit 128+$(kill -l "$sig")" "$rc" "$((128 + $(kill -l "$sig")))"
	expect_eq "SIG$sig: restored" "$(cat "$msk")" "$orig"
	expect_true "SIG$sig: says so" grep -q "restored max_sectors_kb=$orig on $a" "$TMP/sig.err"
done

# 7. Two sweeps of the same disk (and knob): the second is refused, naming the first's
# PID, and changes nothing; so is `restore` while a sweep runs.
if start_sweep "$TMP/first.err" --set max_sectors_kb=64,128 &&
	wait_until 10 "max_sectors_kb=64 in force" value_is "$msk" 64; then
	"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct \
		--set max_sectors_kb=256,512 > "$TMP/out" 2> "$TMP/second.err"
	expect_eq "second sweep: exit 2" "$?" 2
	expect_true "second sweep: names the first's PID" \
		grep -q "$a is being swept by PID $pid" "$TMP/second.err"
	expect_eq "second sweep: one line" "$(wc -l < "$TMP/second.err")" 1
	expect_eq "second sweep: the first's value untouched" "$(cat "$msk")" 64
	"$BB" restore "$a" > /dev/null 2> "$TMP/err"
	expect_eq "restore during a sweep: exit 2" "$?" 2
	expect_true "restore during a sweep: names the PID" \
		grep -q "$a is being swept by PID $pid" "$TMP/err"
	kill -INT $pid
	wait $pid
	expect_eq "first sweep: exit 130" "$?" 130
fi
expect_eq "two sweeps: the original survives" "$(cat "$msk")" "$orig"

# 8. SIGKILL during a sweep: the value stays changed, but the next run (a sweep of its
# own) puts the original back first, says so, and takes the real original as its own.
if start_sweep "$TMP/killed.err" --set max_sectors_kb=64 &&
	wait_until 10 "max_sectors_kb=64 in force" value_is "$msk" 64; then
	kill -KILL $pid
	wait $pid 2> /dev/null
	expect_eq "SIGKILL: exit 137" "$?" 137
	expect_eq "SIGKILL: left changed" "$(cat "$msk")" 64
	expect_true "SIGKILL: the original is on record" grep -q "set max_sectors_kb $orig" "$state"
	"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct --set max_sectors_kb=128 \
		> /dev/null 2> "$TMP/next.err"
	expect_eq "next run: exit 0" "$?" 0
	expect_true "next run: restored what PID $pid left, and says so" \
		grep -q "restored max_sectors_kb=$orig on $a, left changed by PID $pid" "$TMP/next.err"
	expect_eq "next run: the original after its own sweep" "$(cat "$msk")" "$orig"
	expect_true "next run: no state left" test ! -e "$state"
fi

# 9. `restore DEV` after SIGKILL, with the state in a directory of the caller's choosing.
ra=$(cat "$ra_file")
if start_sweep "$TMP/killed.err" --set read_ahead_kb=$((ra + 4)) --state-dir "$TMP/state" &&
	wait_until 10 "read_ahead_kb=$((ra + 4)) in force" value_is "$ra_file" $((ra + 4)); then
	kill -KILL $pid
	wait $pid 2> /dev/null
	expect_true "--state-dir: the state is there" test -s "$TMP/state/$a.state"
	"$BB" restore "$a" --state-dir "$TMP/state" > /dev/null 2> "$TMP/restore.err"
	expect_eq "restore: exit 0" "$?" 0
	expect_eq "restore: read_ahead_kb back" "$(cat "$ra_file")" "$ra"
	expect_true "restore: says what and whose" \
		grep -q "restored read_ahead_kb=$ra on $a, left changed by PID $pid" "$TMP/restore.err"
	"$BB" restore "/dev/$a" --state-dir "$TMP/state" > /dev/null 2> "$TMP/restore.err"
	expect_eq "restore again: exit 0" "$?" 0
	expect_true "restore again: nothing to do" grep -q "nothing to restore on $a" "$TMP/restore.err"
fi

# 10. SIGKILL, then an admin sets the value by hand: the next run (a passive trace) puts
# back no stale original over it, and says what it leaves. (A value the dead sweep wrote
# is put back as before: section 8.)
if start_sweep "$TMP/killed.err" --set max_sectors_kb=64 --state-dir "$TMP/st10" &&
	wait_until 10 "max_sectors_kb=64 in force" value_is "$msk" 64; then
	kill -KILL $pid
	wait $pid 2> /dev/null
	echo 128 > "$msk"
	"$BB" --trace "$a" --duration 0.1 --state-dir "$TMP/st10" > /dev/null 2> "$TMP/admin.err"
	expect_eq "set since: passive trace exit 0" "$?" 0
	expect_eq "set since: the admin's value stays" "$(cat "$msk")" 128
	expect_true "set since: says so" grep -q \
		"left max_sectors_kb=128 on $a as it is: not what PID $pid (it wrote 64) left" \
		"$TMP/admin.err"
	expect_true "set since: no state left" test ! -e "$TMP/st10/$a.state"
	echo "$orig" > "$msk"
fi

finish
