# Shared helpers of the end-to-end tests: loop disks that are always detached,
# sysfs settings that are always restored, assertions that count.
# shellcheck shell=bash
set -u
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin" # losetup, mkfs.ext4, sfdisk
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BB="$ROOT/blktrace-bench"
TMP=$(mktemp -d /dev/shm/bb-e2e.XXXXXX)
_LOOPS=() _IMAGES=() _MOUNTS=() _RESTORE=() _SWAPS=() _PIDS=() _USERS=()

cleanup() {
	local i
	for p in "${_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	for u in "${_USERS[@]}"; do userdel "$u" 2>/dev/null; done
	for ((i = ${#_RESTORE[@]} - 1; i >= 0; i--)); do
		echo "${_RESTORE[i]#*=}" > "${_RESTORE[i]%%=*}" 2>/dev/null
	done
	for s in "${_SWAPS[@]}"; do swapoff "$s" 2>/dev/null; done
	for m in "${_MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
	# Newest first: a loop device may sit on an older one.
	for ((i = ${#_LOOPS[@]} - 1; i >= 0; i--)); do losetup -d "${_LOOPS[i]}" 2>/dev/null; done
	for f in "${_IMAGES[@]}"; do rm -f "$f"; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# new_image [DIR]: the path of a new scratch image, named for this run of tests/run.sh
# (BB_E2E_RUN), so that it can tell its own from another run's on the same machine.
new_image() { mktemp "${1:-/dev/shm}/bb-e2e-img${BB_E2E_RUN:+-$BB_E2E_RUN}.XXXXXX"; }

# took_loop DEV: a loop device this test attached: detached at exit, and listed for
# tests/run.sh, which checks at the end that its settings are back to a new device's.
took_loop() {
	_LOOPS+=("$1")
	[ -z "${BB_E2E_LOOPS:-}" ] || echo "${1##*/}" >> "$BB_E2E_LOOPS"
}

# detach_loop DEV: detach a loop device took_loop listed, now; cleanup then leaves its
# number alone (by then it may be another test's).
detach_loop() {
	local i
	losetup -d "$1" || return 1
	for i in "${!_LOOPS[@]}"; do [ "${_LOOPS[i]}" != "$1" ] || unset '_LOOPS[i]'; done
	_LOOPS=("${_LOOPS[@]}")
}

# make_loop VAR SIZE [DIR] [losetup flags...]: attaches a new loop disk and sets
# VAR to it. (Not "$(make_loop)": a subshell would lose what cleanup must undo.)
make_loop() {
	local var=$1 size=$2 dir=${3:-/dev/shm} img dev
	shift 3 2>/dev/null || shift $#
	img=$(new_image "$dir") || return 1
	_IMAGES+=("$img")
	truncate -s "$size" "$img"
	dev=$(losetup -f --show "$@" "$img") || return 1
	took_loop "$dev"
	udevadm settle 2>/dev/null || true
	loop_defaults "$dev"
	printf -v "$var" '%s' "$dev"
}

# make_loops N SIZE: N new loop disks of SIZE, their devices in the array `disks` and
# their names in `names`; on a failure a FAIL and the test ends.
make_loops() {
	local i
	disks=() names=()
	for i in $(seq 1 "$1"); do
		make_loop D "$2" || { not_ok "losetup $i of $1"; finish; exit 1; }
		disks+=("$D") names+=("$(basename "$D")")
	done
}

# loop_defaults DEV: a detached loop device keeps its queue settings, and losetup -f
# hands it to the next test as it was: put back what a new loop device has.
loop_defaults() {
	local q=/sys/block/$(basename "$1")/queue
	cat "$q/max_hw_sectors_kb" > "$q/max_sectors_kb"
	echo 128 > "$q/read_ahead_kb"
	echo 0 > "$q/nomerges"
	echo 1 > "$q/rq_affinity"
	echo none > "$q/scheduler" 2>/dev/null
	echo -1 > "$q/wbt_lat_usec" 2>/dev/null # -1: the kernel's default
	return 0
}

# set_sysfs FILE VALUE: remembers the old value, restored at exit. A choice file
# ("[none] mq-deadline", queue/scheduler) is restored to its bracketed value.
set_sysfs() {
	local old
	old=$(cat "$1")
	[[ $old != *\[*\]* ]] || old=$(sed 's/.*\[\(.*\)\].*/\1/' <<< "$old")
	_RESTORE+=("$1=$old")
	echo "$2" > "$1"
}

# make_user VAR: a new unprivileged user (no home, no shell), removed at exit; VAR gets
# its name. Run as it with: setpriv --reuid "$u" --regid "$u" --clear-groups CMD...
make_user() {
	local name=bb-e2e-$$-${#_USERS[@]}
	useradd -M -s /usr/sbin/nologin "$name" || return 1
	_USERS+=("$name")
	printf -v "$1" '%s' "$name"
}

mounted() { _MOUNTS+=("$1"); }
swapped() { _SWAPS+=("$1"); }  # swapoff at exit, before the unmounts
remove_at_exit() { _IMAGES+=("$1"); }
# background PID: killed at exit if the test did not reap it (a failed check must not leave
# a sweep running)
background() { _PIDS+=("$1"); }

# wait_until SECS WHAT CMD...: poll CMD until it succeeds; after SECS, a failed check
# naming WHAT and status 1. For events (a line in a log, a value in sysfs), not sleeps.
wait_until() {
	local secs=$1 what=$2 end
	shift 2
	end=$(($(date +%s%N) + secs * 1000000000))
	until "$@" > /dev/null 2>&1; do
		if [ "$(date +%s%N)" -gt "$end" ]; then
			not_ok "timed out after ${secs}s waiting for $what"
			return 1
		fi
		sleep 0.02
	done
}

# diskstat DEV FIELD: FIELD counted as in Documentation/admin-guide/iostats.rst
# (1 = reads completed, 5 = writes completed, 7 = sectors written, 16 = flushes).
diskstat() {
	awk -v d="$(basename "$1")" -v f="$2" '$3 == d { print $(f + 3) }' /proc/diskstats
}

jqv() { jq -r "$2" "$1"; }

# shellcheck source=tests/e2e/assert.sh
. "$ROOT/tests/e2e/assert.sh"

[ -x "$BB" ] || { echo "  FAIL $T_NAME: $BB not built"; echo "RESULT passed=0 failed=1 skipped=0"; exit 1; }
