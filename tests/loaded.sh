#!/usr/bin/env bash
# The end-to-end suite N times in a row (default 5) while fio keeps another loop disk of
# its own busy: random 4 KiB reads and writes at depth 16, which loads the CPUs, the block
# layer and the page cache the tests share. A test that synchronises on time rather than
# events, or counts what another disk did, fails here first. Prints one line per round
# and "loaded: P of N rounds passed"; exits non-zero unless every round passed.
# The load's loop disk and image are removed whatever happens (trap).
set -u
cd "$(dirname "$0")/.." || exit 1

rounds=${1:-5}
case "$rounds" in
'' | *[!0-9]* | 0)
	echo "usage: tests/loaded.sh [ROUNDS]" >&2
	exit 2
	;;
esac
command -v fio > /dev/null || {
	echo "loaded: fio is missing (tools/deps.sh installs it)" >&2
	exit 1
}

img=$(mktemp /dev/shm/bb-load.XXXXXX) || exit 1
loop="" fio_pid="" logs=build/loaded
cleanup() {
	[ -n "$fio_pid" ] && kill "$fio_pid" 2> /dev/null && wait "$fio_pid" 2> /dev/null
	[ -n "$loop" ] && losetup -d "$loop"
	rm -f "$img"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

truncate -s 512M "$img" && loop=$(losetup -f --show "$img") || exit 1
# time_based for as long as the rounds take; killed by cleanup.
fio --name=load --filename="$loop" --rw=randrw --bs=4k --iodepth=16 --ioengine=io_uring \
	--direct=1 --time_based --runtime=24h --output=/dev/null > /dev/null 2>&1 &
fio_pid=$!
mkdir -p "$logs"

ok=0
for i in $(seq 1 "$rounds"); do
	start=$(date +%s)
	if tests/run.sh --e2e-only > "$logs/round-$i.log" 2>&1; then
		ok=$((ok + 1))
		verdict=passed
	else
		verdict="FAILED: $(grep -c '^  FAIL' "$logs/round-$i.log") checks (see $logs/round-$i.log)"
	fi
	kill -0 "$fio_pid" 2> /dev/null || {
		echo "loaded: the load (fio) died during round $i" >&2
		exit 1
	}
	echo "loaded: round $i of $rounds: $(tail -1 "$logs/round-$i.log" | tr -d '\n'), $verdict," \
		"$(($(date +%s) - start)) s"
done
echo "loaded: $ok of $rounds rounds passed under load"
[ "$ok" -eq "$rounds" ]
