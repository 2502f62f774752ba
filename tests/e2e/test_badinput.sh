#!/usr/bin/env bash
# Bad input: one line on stderr naming the problem, the documented exit code: 2 for what
# is refused as asked, 1 for what the system could not do (src/base/diag.h).
. "$(dirname "$0")/lib.sh"

make_loop A 16M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")

# expect_fail NAME EXIT PATTERN -- ARGS...
expect_fail() {
	local name=$1 code=$2 pat=$3 rc lines
	shift 4
	"$BB" "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	lines=$(wc -l < "$TMP/err")
	if [ $rc -eq "$code" ] && [ "$lines" -eq 1 ] && grep -q -- "$pat" "$TMP/err" && [ ! -s "$TMP/out" ]; then
		ok "$name (exit $rc: $(cat "$TMP/err"))"
	else
		not_ok "$name: exit $rc (want $code), stderr: $(head -3 "$TMP/err"), stdout bytes $(wc -c < "$TMP/out")"
	fi
}

expect_fail "unknown disk" 2 "nosuchdisk" -- --trace nosuchdisk -- true
expect_fail "bad MAJ:MIN" 2 "12:" -- --trace 12: -- true
expect_fail "garbage duration" 2 "abc" -- --trace "$a" --duration abc
expect_fail "negative duration" 2 "duration" -- --trace "$a" --duration -1
expect_fail "no --trace" 2 "--trace" -- --duration 1
expect_fail "unknown command" 2 "frobnicate" -- frobnicate
expect_fail "command not found" 127 "no-such-program-xyz" -- --trace "$a" -- no-such-program-xyz
expect_fail "duration with a command" 2 "passive" -- --trace "$a" --duration 1 -- true
# Workload options that contradict each other are refused before any I/O.
expect_fail "--iodepth without io_uring" 2 "needs --engine io_uring" -- \
	--trace "$a" --raw --rw read --iodepth 4
expect_fail "--no-fixed-bufs without io_uring" 2 "no-fixed-bufs" -- \
	--trace "$a" --raw --rw read --no-fixed-bufs
expect_fail "raw write without --destructive" 2 "destructive" -- \
	--trace "$a" --raw --rw write --size 1M
# An option the mode or command would ignore is refused, naming it and what it is for: it
# used to exit 0 and change nothing.
q=/sys/block/$a/queue
ra0=$(cat "$q/read_ahead_kb")
expect_fail "--set in command mode" 2 "--set is not used in command mode: it sweeps" -- \
	--trace "$a" --set read_ahead_kb=64 -- true
expect_eq "--set in command mode: read_ahead_kb untouched" "$(cat "$q/read_ahead_kb")" "$ra0"
for opt in "--set read_ahead_kb=64" "--repeat 3" --recommend --drop-caches "--bs 4k"; do
	# shellcheck disable=SC2086 # the option and its value are two words
	expect_fail "$opt in command mode" 2 "${opt%% *} is not used in command mode" -- \
		--trace "$a" $opt -- true
	# shellcheck disable=SC2086
	expect_fail "$opt in passive mode" 2 "${opt%% *} is not used in passive mode" -- \
		--trace "$a" $opt --duration 0.1
done
expect_fail "info --rw write --destructive" 2 "--rw is not used by info" -- \
	info "$a" --rw write --destructive --set nomerges=1
expect_fail "info --snoop" 2 "--snoop is not used by info" -- info "$a" --snoop "$TMP/x.snoop"
expect_true "info --snoop: nothing written" test ! -e "$TMP/x.snoop"
expect_fail "a second --trace" 2 "--trace given twice" -- --trace "$a" --trace nosuchdisk -- true
"$BB" info "$a" --json="$TMP/info.json" > "$TMP/out" 2> "$TMP/err"
expect_eq "info --json=FILE: exit 0, nothing on stdout" "$?/$(wc -c < "$TMP/out")" 0/0
expect_eq "info --json=FILE: the file holds the disk" "$(jqv "$TMP/info.json" .device.name)" "$a"
# ... and a workload option this workload would not use.
expect_fail "--drop-caches with writes" 2 "--drop-caches is for buffered reads" -- \
	--trace "$a" --raw --rw write --size 1M --destructive --drop-caches
expect_fail "--drop-caches with --direct" 2 "--direct bypasses the page cache" -- \
	--trace "$a" --raw --rw read --direct --drop-caches
expect_fail "--overwrite with reads" 2 "--overwrite is for write workloads" -- \
	--trace "$a" --raw --rw read --overwrite
expect_fail "--destructive with reads" 2 "--destructive is for write workloads" -- \
	--trace "$a" --raw --rw read --destructive
expect_fail "--wrap without --size or --count" 2 "--wrap lets --size or --count" -- \
	--trace "$a" --raw --rw read --wrap

# --interval below its floor (10 ms): 1e-300 spun at 100% CPU for ever, deaf to SIGTERM
# (timeout -k kills it), and 1us kept a report per microsecond in memory.
for iv in 1e-300 1us 9ms; do
	timeout -k 1 5 "$BB" --trace "$a" --interval "$iv" --duration 1 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] &&
		grep -q -- "--interval $iv: below the floor of 10ms" "$TMP/err"; then
		ok "--interval $iv: refused, one line ($(cat "$TMP/err"))"
	else
		not_ok "--interval $iv: exit $rc (want 2), stderr: $(head -2 "$TMP/err")"
	fi
done

# What the system cannot do is a runtime failure (exit 1), what is refused bad input (2).
expect_fail "--file in a missing directory: cannot use it" 1 \
	"cannot use /nonexistent-dir: No such file or directory" -- \
	--trace "$a" --rw read --size 1M --file /nonexistent-dir/x.bin
expect_fail "compare: an input that cannot be opened" 1 \
	"/nonexistent/a.json: No such file or directory" -- compare /nonexistent/a.json /nonexistent/b.json
expect_fail "--snoop-text: a file that cannot be opened" 1 "/nonexistent.snoop" -- \
	--snoop-text /nonexistent.snoop
echo '{"schema": "blktrace-bench/1"}' > "$TMP/norun.json"
expect_fail "compare: a file that is no result" 2 "no \"runs\" array" -- \
	compare "$TMP/norun.json" "$TMP/norun.json"

"$BB" --trace "$a" -- sh -c 'exit 3' > /dev/null 2>&1
expect_eq "the command's exit status is ours" "$?" 3
"$BB" --trace "$a" -- true > /dev/null 2>&1
expect_eq "success exits 0" "$?" 0
# A command a signal ended: 128+N, the status the shell itself gives it.
for sig in TERM KILL; do
	{ sh -c "kill -$sig \$\$"; } 2> /dev/null # bash's "Killed" note
	want=$?
	"$BB" --trace "$a" -- sh -c "kill -$sig \$\$" > /dev/null 2>&1
	expect_eq "a command ended by SIG$sig: the shell's status ($want)" "$?" "$want"
done
"$BB" --trace "$a" --json - -- true > "$TMP/stdout.json" 2> "$TMP/err"
expect_eq "--json -: stdout holds only the JSON document" "$(jq -r .schema "$TMP/stdout.json")" \
	"blktrace-bench/1"
"$BB" --trace "$a" --json /nonexistent-dir/x.json -- true > /dev/null 2> "$TMP/err"
expect_eq "unwritable --json path refused before the run (exit 1: cannot create it)" "$?" 1

# Without root's capabilities, loading is refused with a line saying what is missing.
if command -v setpriv > /dev/null; then
	# A copy nobody can reach, wherever the checkout lives (CI's may sit under /root).
	pub=$(mktemp -d /tmp/bb-e2e-pub.XXXXXX)
	chmod 755 "$pub"
	cp "$BB" "$pub/"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$pub/blktrace-bench" --trace "$a" -- true > "$TMP/out" 2> "$TMP/err"
	rc=$?
	rm -rf "$pub"
	if [ $rc -ne 0 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "root" "$TMP/err"; then
		ok "unprivileged: one line naming what is missing ($(cat "$TMP/err"))"
	else
		not_ok "unprivileged: exit $rc, stderr: $(head -3 "$TMP/err")"
	fi
	# uid 0 without the capabilities is the same case; with them (every other test
	# here), a failed load would be the verifier's, never "needs root".
	setpriv --inh-caps=-all --bounding-set=-all \
		"$BB" --trace "$a" -- true > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)" \
		"$TMP/err"; then
		ok "root without capabilities: told what is missing"
	else
		not_ok "root without capabilities: exit $rc, stderr: $(head -3 "$TMP/err")"
	fi
else
	skip "setpriv missing: unprivileged path not tested"
fi

finish
