#!/bin/bash
# Dom0's part of `make xentest` (tests/xen/dom0-init runs it with the payload disk on
# /payload): the toolstack, then each guest of /payload/xentest.conf in turn, booted
# again for as long as it asks (/xentest/next on its root says "reboot"), as pygrub
# would boot it: with the kernel and the initramfs its own /boot holds. Each guest's
# reports land in /payload/results/NAME/, its console in console.log there.
set -u
export PATH=/usr/lib/xen-4.17/bin:/usr/sbin:/usr/bin:/sbin:/bin
. /payload/xentest.conf # GUESTS, BOOT_TIMEOUT, MAX_BOOTS
say() { echo "dom0: $*"; }
ARCH=$(uname -m)

# The toolstack, as Xen's xencommons starts it; a syslog for the hotplug scripts.
mkdir -p /mnt
syslogd -O /var/log/messages
xenstored --pid-file /run/xen/xenstored.pid
i=0
while [ ! -S /run/xenstored/socket ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
xen-init-dom0 || say "xen-init-dom0 failed"
xenconsoled --log=guest --log-dir=/var/log/xen/console --pid-file /run/xen/xenconsoled.pid
say "toolstack up at $(cut -d' ' -f1 /proc/uptime) s"

# The guest that also runs the checks spanning reboots (guest-sweep.sh): SWEEP_GUEST.
# The multi-queue boot (guest-mq.sh, that alone): MQ_BOOT=1.
extra() {
	if [ "${MQ_BOOT:-0}" = 1 ]; then
		echo bbmq=1
	elif [ "$1" = "${SWEEP_GUEST:-}" ]; then
		echo bbsweep=1
	fi
}

# boot_guest NAME DIR ROOTDEV DISKS...: one boot, to the end (or BOOT_TIMEOUT s).
boot_guest() {
	local name=$1 dir=$2 rootdev=$3 initrd=$dir/initrd.img t0 i cfg
	shift 3
	# Its own /boot, as pygrub reads it: the initramfs update-initramfs made, if any.
	mkdir -p "/mnt/$name"
	mount -o ro "$rootdev" "/mnt/$name" && {
		[ ! -f "/mnt/$name/boot/initrd.img" ] ||
			cp "/mnt/$name/boot/initrd.img" "/tmp/$name-initrd.img"
		umount "/mnt/$name"
	}
	[ ! -f /tmp/$name-initrd.img ] || initrd=/tmp/$name-initrd.img
	cfg=/tmp/$name.cfg
	{
		echo "name = \"$name\""
		# x86's guests are PV; Arm has one kind of guest, which xl names by default.
		[ "$ARCH" != x86_64 ] || echo 'type = "pv"'
		echo "kernel = \"$dir/vmlinuz\""
		echo "ramdisk = \"$initrd\""
		echo "extra = \"console=hvc0 root=/dev/xvdz quiet panic=-1 panic_on_oops=1 $(extra "$name")\""
		echo "memory = ${GUEST_MEMORY:-512}"
		echo "vcpus = ${GUEST_VCPUS:-1}"
		# No CMPXCHG16B for the guests: QEMU's TCG runs the instruction alone, stepping,
		# and a debug trap of that leaks into a PV guest (6.12: exc_debug_kernel warnings
		# in SLUB's double-word cmpxchg, then a corrupted kernel). Without it the kernel
		# takes SLUB's other path; nothing the tests measure changes.
		[ "$ARCH" != x86_64 ] || echo 'cpuid = "host,cmpxchg16=0"'
		echo 'on_poweroff = "destroy"'
		echo 'on_reboot = "destroy"'
		echo 'on_crash = "destroy"'
		printf 'disk = [ '
		local sep=""
		for d in "$@"; do printf "%s'format=raw, vdev=%s, access=rw, script=block-xentest, target=%s'" \
			"$sep" "${d%%=*}" "${d#*=}"; sep=", "; done
		echo ' ]'
	} > "$cfg"
	t0=$(cut -d. -f1 /proc/uptime)
	if ! xl create -q "$cfg"; then
		# The hotplug scripts say why through syslog.
		say "$name: xl create failed; syslog:"
		tail -20 /var/log/messages
		cp /var/log/xen/xen-hotplug.log /var/log/messages /payload/results/ 2> /dev/null
		return 1
	fi
	i=0
	while xl domid "$name" > /dev/null 2>&1; do
		sleep 1
		i=$((i + 1))
		if [ $i -ge "$BOOT_TIMEOUT" ]; then
			say "$name: still running after $BOOT_TIMEOUT s: destroyed"
			xl destroy "$name"
			return 1
		fi
	done
	say "$name: boot done in $(($(cut -d. -f1 /proc/uptime) - t0)) s"
}

# dom0's own view of a guest's xvda over its first boot: blktrace-bench traces the loop
# device blkback serves it from, and names it (info, once the guest runs). The host's
# tests/xen/dom0-checks.sh compares the bytes with the guest's own diskstats.
bbpid=
dom0_trace_start() { # NAME LOOPDEV OUT
	local i=0
	blktrace-bench -v --trace "$2" --json "$3/dom0-xvda.json" > "$3/dom0-trace.txt" \
		2> "$3/dom0-trace.err" &
	bbpid=$!
	while ! grep -q "tracing $(basename "$2")" "$3/dom0-trace.err" 2> /dev/null; do
		sleep 0.5
		i=$((i + 1))
		kill -0 $bbpid 2> /dev/null && [ $i -lt 240 ] ||
			{ say "$1: blktrace-bench did not start: $(tail -3 "$3/dom0-trace.err")"; return; }
	done
	# Once the guest has its disks: what info says of the loop device; then the linked run.
	{
		local id
		i=0
		while ! id=$(xl domid "$1" 2> /dev/null) && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
		echo "$id" > "$3/dom0-domid.txt"
		dom0_link "$id" "$2" "$3" &
		# blkback names the device it serves once the hotplug script has given it one.
		i=0
		while [ ! -s "/sys/bus/xen-backend/devices/vbd-$id-51712/physical_device" ] &&
			[ $i -lt 120 ]; do
			sleep 1
			i=$((i + 1))
		done
		blktrace-bench info "$2" --json > "$3/dom0-info.json" 2> "$3/dom0-info.err"
		blktrace-bench info "$2" > "$3/dom0-info.txt" 2>&1
		# Every disk at once, and the exporter: the guest's disk named in both.
		blktrace-bench --trace all --json "$3/dom0-all.json" -- sleep 3 > /dev/null \
			2> "$3/dom0-all.err"
		dom0_metrics "$2" "$3"
		wait
	} &
}

# /metrics of serve on the loop device, with the guest's labels.
dom0_metrics() { # LOOPDEV OUT
	local pid port i
	ip link set lo up 2> /dev/null
	blktrace-bench serve --trace "$1" --listen 127.0.0.1:0 --duration 300 2> "$2/dom0-serve.err" &
	pid=$!
	i=0
	until grep -q 'serving http' "$2/dom0-serve.err" 2> /dev/null || [ $i -ge 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$2/dom0-serve.err")
	[ -z "$port" ] || wget -q -O "$2/dom0-metrics.txt" "http://127.0.0.1:$port/metrics"
	kill -TERM $pid 2> /dev/null
	wait $pid
}

# The guest's linked run (guest-xen.sh, link_check): dom0 traces the loop device while
# the guest's node data/bb says the guest runs its reads, from "want" to "done".
dom0_link() { # DOMID LOOPDEV OUT
	local node=/local/domain/$1/data/bb i=0 pid
	while [ "$(xenstore-read "$node" 2> /dev/null)" != want ]; do
		sleep 0.5
		i=$((i + 1))
		# Gone, or never asking: nothing to trace.
		[ $i -lt 1200 ] && xenstore-read "/local/domain/$1/name" > /dev/null 2>&1 || return
	done
	blktrace-bench -v --trace "$2" --json "$3/link-dom0.json" -- sh -c \
		"until [ \"\$(xenstore-read $node 2> /dev/null || echo done)\" = done ]; do sleep 0.2; done" \
		> "$3/link-dom0.txt" 2> "$3/link-dom0.err" &
	pid=$!
	i=0
	until grep -q "tracing $(basename "$2")" "$3/link-dom0.err" 2> /dev/null || [ $i -ge 240 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	xenstore-write "$node" tracing
	wait $pid
}
dom0_trace_stop() {
	[ -n "$bbpid" ] || return 0
	kill -INT "$bbpid" 2> /dev/null
	wait "$bbpid"
	bbpid=
}

# run_guest NAME: the guest's disks as loop devices, its boots, its results out.
run_guest() {
	local name=$1 dir=/payload/guests/$1 out=/payload/results/$1 w=/payload/work/$1
	local root xa xb xc boots=0 next started=0 seen retried=0
	mkdir -p "$out" "$w"
	cp "$dir/root.img" "$w/root.img"
	truncate -s 256M "$w/xvda.img"
	truncate -s 128M "$w/xvdb.img"
	truncate -s 512M "$w/xvdc.img"
	# losetup -f takes the first free device: one guest at a time.
	exec 9> /run/xentest-losetup.lock
	flock 9
	root=$(losetup -f --show "$w/root.img") && xa=$(losetup -f --show "$w/xvda.img") &&
		xb=$(losetup -f --show "$w/xvdb.img") && xc=$(losetup -f --show "$w/xvdc.img") ||
		{ say "$name: losetup failed"; exec 9>&-; return 1; }
	exec 9>&-
	# The guest's console, as xenconsoled logs it, streamed to ours (the host's log).
	: > "/var/log/xen/console/guest-$name.log"
	# $! is tail's own PID (the reader is a process substitution): dom0 has no pkill.
	tail -n +1 -F "/var/log/xen/console/guest-$name.log" 2> /dev/null > >(
		while IFS= read -r l; do echo "[$name] $l"; done
	) &
	local tailpid=$!
	while [ $boots -lt "$MAX_BOOTS" ]; do
		boots=$((boots + 1))
		[ $boots != 1 ] || dom0_trace_start "$name" "$xa" "$out"
		boot_guest "$name" "$dir" "$root" xvda="$xa" xvdb="$xb" xvdc="$xc" xvdz="$root" ||
			{ dom0_trace_stop; break; }
		dom0_trace_stop
		next=done seen=$started
		if mount -o ro "$root" "/mnt/$name"; then
			next=$(cat "/mnt/$name/xentest/next" 2> /dev/null || echo done)
			seen=$(cat "/mnt/$name/xentest/boots" 2> /dev/null || echo 0)
			cp -r "/mnt/$name/xentest/results/." "$out/" 2> /dev/null
			umount "/mnt/$name"
		fi
		# Its init never ran: the kernel died while booting (under TCG, now and then, of
		# patching its own text). Once a guest, it is booted again; a crash once the
		# checks ran is their result.
		if [ "$seen" = "$started" ] && [ $retried = 0 ]; then
			retried=1
			say "$name: the kernel died before its init ran: booting it again"
			cp "/var/log/xen/console/guest-$name.log" "$out/console-crashed.log"
			boots=$((boots - 1))
			continue
		fi
		started=$seen
		[ "$next" = reboot ] || break
		say "$name: rebooting it (boot $((boots + 1)))"
	done
	# MQ_GUESTS once more with 2 vCPUs: xen-blkfront gives xvda a ring for each, and the
	# guest runs the multi-queue checks (guest-mq.sh).
	if [[ " ${MQ_GUESTS:-} " == *" $name "* ]]; then
		say "$name: booting it with 2 vCPUs for the multi-queue checks"
		MQ_BOOT=1 GUEST_VCPUS=2 boot_guest "$name" "$dir" "$root" xvda="$xa" xvdb="$xb" \
			xvdc="$xc" xvdz="$root" &&
			mount -o ro "$root" "/mnt/$name" && {
			cp -r "/mnt/$name/xentest/results/." "$out/" 2> /dev/null
			umount "/mnt/$name"
		}
	fi
	sleep 1
	# The tail would wait for ever on a log that no longer grows; its reader ends with it.
	kill "$tailpid" 2> /dev/null
	cp "/var/log/xen/console/guest-$name.log" "$out/console.log"
	for l in "$root" "$xa" "$xb" "$xc"; do losetup -d "$l"; done
	rm -rf "$w"
}

# The guest whose checks span reboots runs beside the others, which run one after the
# other: two guests of one vCPU each keep Xen's two CPUs busy while dom0 mostly waits.
sweep_pid=
for g in $GUESTS; do
	[ "$g" = "${SWEEP_GUEST:-}" ] || continue
	say "$g: starting at $(cut -d' ' -f1 /proc/uptime) s (beside the others)"
	run_guest "$g" &
	sweep_pid=$!
done
for g in $GUESTS; do
	[ "$g" != "${SWEEP_GUEST:-}" ] || continue
	say "$g: starting at $(cut -d' ' -f1 /proc/uptime) s"
	run_guest "$g"
done
[ -z "$sweep_pid" ] || wait "$sweep_pid"
xl list
say "done at $(cut -d' ' -f1 /proc/uptime) s"
