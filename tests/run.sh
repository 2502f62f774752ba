#!/usr/bin/env bash
# Runs the whole suite: cmocka unit tests (plain and with ASan/UBSan, whichever
# are built), the shell tests that need no root (tests/shell: man page and
# completion against --help), then the end-to-end tests as root on loop devices
# they create. --e2e-only runs the last group alone, --no-e2e the first two (the
# package build's test step). Ends with "N passed, N failed" and exits non-zero
# on any failure.
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

# cmocka prints "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s), listed below:".
run_unit() {
	local bin=$1 out rc p f
	out=$("$bin" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed "s|^|  ${bin#build/}: |" | grep -E 'FAILED|ERROR|SKIPPED|runtime error|Sanitizer' || true
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ $rc -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		failed=$((failed + 1)) # crashed or a sanitizer report before the summary
		printf '%s\n' "$out" | tail -20
	fi
	[ $rc -ne 0 ] && failures+=("$bin")
	echo "unit ${bin#build/}: ${p:-0} passed, ${f:-0} failed"
}

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

if [ $no_e2e -eq 1 ]; then
	:
elif [ "$(id -u)" -ne 0 ]; then
	echo "e2e: skipped: the end-to-end tests need root (loop devices, BPF)"
	skipped=$((skipped + 1))
else
	for t in tests/e2e/test_*.sh; do
		run_script "$t"
	done
fi

[ ${#failures[@]} -gt 0 ] && echo "failing: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
