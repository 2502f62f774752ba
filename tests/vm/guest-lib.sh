# shellcheck shell=bash
# What every guest test script shares (tests/vm/guest.sh, tests/xen/guest-xen.sh):
# counting assertions, the guest's own /proc/diskstats as the oracle, and `run`, which
# keeps the tool's output and on a failure shows its -vv rerun and the kernel log.
# Each script ends with "RESULT passed=N failed=N skipped=N".
BB=/usr/sbin/blktrace-bench
W=/tmp/vm
PASS=0 FAIL=0 SKIP=0
MiB=1048576
mkdir -p "$W"

ok() { PASS=$((PASS + 1)); echo "  ok   $1"; }
not_ok() { FAIL=$((FAIL + 1)); echo "  FAIL $1"; }
skip() { SKIP=$((SKIP + 1)); echo "  skip $1"; }
expect_eq() { # NAME ACTUAL EXPECTED: status 1 when they differ
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else not_ok "$1: got '$2', expected '$3'"; return 1; fi
}
expect_cmp() { # NAME A OP B
	if awk -v a="$2" -v b="$4" "BEGIN { exit !(a $3 b) }"; then
		ok "$1 ($2 $3 $4)"
	else
		not_ok "$1: expected $2 $3 $4"
	fi
}
jqv() { jq -r "$2" "$1" 2>/dev/null; }

# diskstat FIELD NAME...: FIELD summed over the named disks (Documentation/admin-
# guide/iostats.rst: 1 reads completed, 3 sectors read, 5 writes completed, 7 sectors
# written). Hidden disks are listed by name too (as 0 0 on 5.10).
diskstat() {
	local f=$1
	shift
	awk -v f="$f" -v names=" $* " 'index(names, " " $3 " ") { s += $(f + 3) } END { print s + 0 }' \
		/proc/diskstats
}

# run NAME ARGS...: the tool, its stderr kept; on failure the -vv rerun and dmesg.
run() {
	local name=$1 rc
	shift
	"$BB" "$@" > "$W/$name.out" 2> "$W/$name.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		not_ok "$name: exit $rc: $(head -c 600 "$W/$name.err")"
		echo "--- $name: blktrace-bench -vv $*"
		"$BB" -vv "$@" 2>&1 | tail -40
		echo "--- kernel log"
		dmesg | tail -20
		return 1
	fi
	return 0
}

# pinned_readers DISK: a job per CPU (CPUS), pinned, of READERS synchronous O_DIRECT dd
# readers of BLOCKS blocks of BS each, every reader its own region of DISK; as the traced
# command (bash -c "pinned_readers DISK"), the script exporting those four.
pinned_readers() {
	local cpu r
	for cpu in $(seq 0 $((CPUS - 1))); do
		for r in $(seq 0 $((READERS - 1))); do
			taskset -c "$cpu" dd if="/dev/$1" of=/dev/null bs="$BS" count="$BLOCKS" \
				skip=$(((cpu * READERS + r) * BLOCKS)) iflag=direct 2> /dev/null &
		done
	done
	wait
}
export -f pinned_readers

# scrape PORT SERIES WANT: the value of SERIES (the sample's name and labels, as written)
# on /metrics at PORT, read again for up to 5 s until it is WANT (busybox wget).
scrape() {
	local got="" i
	for i in $(seq 1 25); do
		got=$(wget -q -O - "http://127.0.0.1:$1/metrics" 2> /dev/null |
			awk -v s="$2" 'index($0, s) == 1 { print $NF }')
		[ "$got" = "$3" ] && break
		sleep 0.2
	done
	echo "$got"
}
