# shellcheck shell=bash
# The counting assertions of the host's test scripts (tests/e2e/lib.sh sources them, and
# so do the scripts that need no built tool, tests/cross.sh): ok/FAIL/skip lines named
# for T_NAME, and "RESULT passed=N failed=N skipped=N" at the end.
PASS=0 FAIL=0 SKIP=0
T_NAME=${T_NAME:-$(basename "$0" .sh)}

ok() { PASS=$((PASS + 1)); echo "  ok   $T_NAME: $1"; }
not_ok() { FAIL=$((FAIL + 1)); echo "  FAIL $T_NAME: $1"; }
skip() { SKIP=$((SKIP + 1)); echo "  skip $T_NAME: $1"; }

expect_eq() { # NAME ACTUAL EXPECTED: status 1 when they differ
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else not_ok "$1: got '$2', expected '$3'"; return 1; fi
}
expect_cmp() { # NAME A OP B   (numeric, awk semantics)
	if awk -v a="$2" -v b="$4" "BEGIN { exit !(a $3 b) }"; then
		ok "$1 ($2 $3 $4)"
	else
		not_ok "$1: expected $2 $3 $4"
	fi
}
expect_true() { # NAME CMD...: CMD's exit status decides; its stdout is dropped
	local name=$1
	shift
	if "$@" > /dev/null; then ok "$name"; else not_ok "$name"; fi
}

finish() {
	echo "RESULT passed=$PASS failed=$FAIL skipped=$SKIP"
	[ "$FAIL" -eq 0 ]
}
