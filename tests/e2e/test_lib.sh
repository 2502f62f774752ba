#!/usr/bin/env bash
# The helpers every end-to-end test stands on (tests/e2e/lib.sh). A detached loop device
# keeps its queue settings and losetup -f hands it to the next test as it was: make_loop
# puts back a new loop device's (the values tests/run.sh checks after the suite). A test
# that fails still puts back what set_sysfs changed and detaches what make_loop attached.
. "$(dirname "$0")/lib.sh"

make_loop A 16M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
q=/sys/block/$a/queue

# 1. A loop device left as a test may leave it: every setting loop_defaults knows, changed
# (set_sysfs: the originals come back at exit whatever happens here).
set_sysfs "$q/max_sectors_kb" 64
set_sysfs "$q/read_ahead_kb" 4096
set_sysfs "$q/nomerges" 2
set_sysfs "$q/rq_affinity" 2
sched=0
if [ -e "$q/scheduler" ] && grep -qw mq-deadline "$q/scheduler"; then
	set_sysfs "$q/scheduler" mq-deadline
	sched=1
fi
loop_defaults "$A"
expect_eq "loop_defaults: max_sectors_kb is max_hw_sectors_kb" "$(cat "$q/max_sectors_kb")" \
	"$(cat "$q/max_hw_sectors_kb")"
expect_eq "loop_defaults: read_ahead_kb" "$(cat "$q/read_ahead_kb")" 128
expect_eq "loop_defaults: nomerges" "$(cat "$q/nomerges")" 0
expect_eq "loop_defaults: rq_affinity" "$(cat "$q/rq_affinity")" 1
if [ $sched -eq 1 ]; then
	expect_true "loop_defaults: scheduler none" grep -q '\[none\]' "$q/scheduler"
else
	skip "no mq-deadline here: the scheduler's default is not tested"
fi

# 2. A test that fails half way: what it changed comes back, what it attached is detached.
ra=$(cat "$q/read_ahead_kb")
cat > "$TMP/failing.sh" << EOF
. "$ROOT/tests/e2e/lib.sh"
make_loop C 8M || exit 3
echo "\${_IMAGES[-1]}" > "$TMP/child-image"
set_sysfs "$q/read_ahead_kb" 512
[ "\$(cat "$q/read_ahead_kb")" = 512 ] || exit 3
exit 1
EOF
bash "$TMP/failing.sh" > /dev/null 2>&1
expect_eq "a failing test: exit 1" "$?" 1
expect_eq "a failing test: set_sysfs put back read_ahead_kb" "$(cat "$q/read_ahead_kb")" "$ra"
img=$(cat "$TMP/child-image" 2> /dev/null)
expect_true "a failing test: it attached a loop device" test -n "$img"
expect_eq "a failing test: its loop device detached" "$(losetup -j "${img:-/nonexistent}" | wc -l)" 0
expect_true "a failing test: its image removed" test ! -e "${img:-/nonexistent}"

finish
