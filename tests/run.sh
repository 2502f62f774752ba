#!/usr/bin/env bash
# Runs the whole suite: cmocka unit tests (plain and with ASan/UBSan, whichever
# are built), the shell tests that need no root (tests/shell: man page and
# completion against --help), then the end-to-end tests as root on loop devices
# they create. --e2e-only runs the last group alone, --no-e2e the first two (the
# package build's test step). Ends with "N passed, N failed, N skipped" over all of
# them and exits non-zero on any failure, and when a suite ran no test at all (a
# suite that cannot fail is a defect).
set -u
cd "$(dirname "$0")/.." || exit 1

passed=0 failed=0 skipped=0
failures=()
e2e_only=0 no_e2e=0
case "${1:-}" in
--e2e-only) e2e_only=1 ;;
--no-e2e) no_e2e=1 ;;
"") ;;
*)
	echo "usage: tests/run.sh [--e2e-only|--no-e2e]" >&2
	exit 2
	;;
esac

# cmocka prints "[  PASSED  ] N test(s).", "[  FAILED  ] N test(s), listed below:" and
# "[  SKIPPED ] N test(s), listed below:".
run_unit() {
	local bin=$1 out rc p f s
	out=$("$bin" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed "s|^|  ${bin#build/}: |" | grep -E 'FAILED|ERROR|SKIPPED|runtime error|Sanitizer' || true
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	skipped=$((skipped + ${s:-0}))
	if [ "${p:-0}" -eq 0 ] && [ "${f:-0}" -eq 0 ]; then
		failed=$((failed + 1))
		echo "unit ${bin#build/}: ran no test"
		rc=1
	fi
	if [ $rc -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		failed=$((failed + 1)) # crashed or a sanitizer report before the summary
		printf '%s\n' "$out" | tail -20
	fi
	[ $rc -ne 0 ] && failures+=("$bin")
	echo "unit ${bin#build/}: ${p:-0} passed, ${f:-0} failed, ${s:-0} skipped"
}

# LeakSanitizer is on in the ASan build (build/san): a leak fails the test binary.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1

# Each script prints "RESULT passed=N failed=N skipped=N" as its last line.
run_script() {
	local t=$1 out rc line p f s
	out=$(bash "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -v '^RESULT'
	line=$(printf '%s\n' "$out" | grep '^RESULT' | tail -1)
	p=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$line")
	f=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$line")
	s=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$line")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	skipped=$((skipped + ${s:-0}))
	if [ -z "$line" ] || { [ $rc -ne 0 ] && [ "${f:-0}" -eq 0 ]; }; then
		failed=$((failed + 1))
		echo "$t: exited $rc without a result line"
	elif [ "${p:-0}" -eq 0 ] && [ "${f:-0}" -eq 0 ]; then
		failed=$((failed + 1))
		rc=1
		echo "$t: ran no test (${s:-0} skipped)"
	fi
	[ $rc -ne 0 ] && failures+=("$t")
}

if [ $e2e_only -eq 0 ]; then
	for bin in build/unit/test_* build/san/unit/test_*; do
		[ -x "$bin" ] && run_unit "$bin"
	done
	for t in tests/shell/test_*.sh; do
		run_script "$t"
	done
fi

# Loop devices whose queue settings differ from a new loop device's: no test may leave
# one so, attached or not (a detached loop device keeps its settings for whoever gets it
# next; tests/e2e/lib.sh make_loop puts the defaults back on the ones it takes).
loop_not_default() {
	local d q
	for d in /sys/block/loop*; do
		q=$d/queue
		[ "$(cat "$q/max_sectors_kb")" = "$(cat "$q/max_hw_sectors_kb")" ] &&
			[ "$(cat "$q/read_ahead_kb")" = 128 ] && [ "$(cat "$q/nomerges")" = 0 ] &&
			[ "$(cat "$q/rq_affinity")" = 1 ] &&
			{ [ ! -e "$q/scheduler" ] || grep -q '\[none\]' "$q/scheduler"; } ||
			echo "${d##*/}"
	done
}

if [ $no_e2e -eq 1 ]; then
	:
elif [ "$(id -u)" -ne 0 ]; then
	echo "e2e: skipped: the end-to-end tests need root (loop devices, BPF)"
	skipped=$((skipped + 1))
else
	odd0=$(loop_not_default)
	# This run's images and loop devices, told apart from another run's on the same
	# machine (tests/e2e/lib.sh names the images after BB_E2E_RUN, lists the loop
	# devices it takes in BB_E2E_LOOPS).
	export BB_E2E_RUN=$$ BB_E2E_LOOPS
	BB_E2E_LOOPS=$(mktemp /dev/shm/bb-e2e-loops.XXXXXX)
	for t in tests/e2e/test_*.sh; do
		run_script "$t"
	done
	left=$(losetup -a | grep -c "bb-e2e-img-$BB_E2E_RUN\." || true)
	if [ "$left" -ne 0 ]; then
		failed=$((failed + 1))
		failures+=("loop devices left attached: $left")
	fi
	for d in $(loop_not_default); do
		grep -qx "$d" "$BB_E2E_LOOPS" || continue
		if ! grep -qx "$d" <<<"$odd0"; then
			failed=$((failed + 1))
			failures+=("$d: queue settings left changed")
		fi
	done
fi

[ -n "${BB_E2E_LOOPS:-}" ] && rm -f "$BB_E2E_LOOPS"
[ ${#failures[@]} -gt 0 ] && echo "failing: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
