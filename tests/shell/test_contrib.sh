#!/usr/bin/env bash
# contrib/ as a user installs it (no root needed): the Prometheus configuration and its
# rule file pass promtool; the alert on max_segments fires on made-up series where 60%
# of the requests are capped, not where 40% are, and only after its 15 minutes, the one
# on a disk not traced (blktrace_bench_up 0) after 5 minutes of it
# (tests/shell/contrib_rules_test.yml); the systemd unit passes systemd-analyze verify,
# and its reload is serve's SIGHUP.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"

C=$ROOT/contrib
expect_true "the unit serves every disk, on localhost only" \
	grep -qx 'ExecStart=/usr/sbin/blktrace-bench serve --trace all --listen 127.0.0.1:9469' \
	"$C/blktrace-bench.service"
expect_true "systemctl reload: SIGHUP, the disks read again" \
	grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$C/blktrace-bench.service"
if command -v promtool > /dev/null; then
	promtool check config "$C/prometheus.yml" > "$TMP/out" 2>&1
	expect_eq "promtool check config contrib/prometheus.yml" "$?" 0
	expect_true "it loads the rule file" grep -q "SUCCESS: 1 rule files found" "$TMP/out"
	promtool check rules "$C/blktrace-bench.rules.yml" > "$TMP/out" 2>&1
	expect_eq "promtool check rules contrib/blktrace-bench.rules.yml" "$?/$(grep -c SUCCESS "$TMP/out")" "0/1"
	promtool test rules "$ROOT/tests/shell/contrib_rules_test.yml" > "$TMP/out" 2>&1
	expect_eq "promtool test rules: the alerts fire at 60%, not at 40%, and on up 0" "$?" 0 ||
		cat "$TMP/out"
else
	skip "promtool missing (package prometheus; tools/deps.sh test installs it)"
fi
if command -v systemd-analyze > /dev/null; then
	# The unit as installed, but with this tree's binary (verify checks that it exists).
	sed "s|/usr/sbin/blktrace-bench|$BB|" "$C/blktrace-bench.service" > "$TMP/blktrace-bench.service"
	systemd-analyze verify --man=no "$TMP/blktrace-bench.service" > "$TMP/out" 2>&1
	expect_eq "systemd-analyze verify: the unit, no warning" "$?/$(cat "$TMP/out")" "0/"
else
	skip "systemd-analyze missing: the unit not verified"
fi
finish
