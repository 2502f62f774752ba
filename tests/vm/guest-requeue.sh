# Sourced by tests/vm/guest.sh: requeues, which no disk of the host's tests makes (loop
# never gives a request back). scsi_debug answers every 4th command "host busy"
# (opts=0x8000) after the block layer issued it; the request is given back
# (block_rq_requeue) and issued again: every issue beyond a write's first follows a
# requeue, and /proc/diskstats completes each write once. (The kernel also traces a
# requeue for a request it never started, SCSI's check of a host still blocked by the
# busy answer: those count too, so requeues >= issues again, not ==.)
# shellcheck shell=bash

sd_ko=/lib/modules/extra/scsi_debug.ko
sd_dir=/sys/bus/pseudo/drivers/scsi_debug
if [ ! -e "$sd_ko" ]; then
	skip "requeue: no scsi_debug module for this kernel"
elif ! insmod "$sd_ko" dev_size_mb=16 statistics=1; then
	not_ok "requeue: insmod scsi_debug failed"
else
	sd=""
	# Its disk, once the kernel's scan has read it and it answers (before any busy).
	for _ in $(seq 1 100); do
		set -- "$sd_dir"/adapter*/host*/target*/*/block/*
		[ -e "$1" ] && [ "$(cat "$1/size")" -gt 0 ] &&
			dd if="/dev/${1##*/}" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null &&
			sd=${1##*/} && break
		sleep 0.1
	done
	if [ -z "$sd" ]; then
		not_ok "requeue: scsi_debug made no disk that reads"
	else
		w0=$(diskstat 5 "$sd")
		echo 4 > "$sd_dir/every_nth"
		echo 0x8000 > "$sd_dir/opts" # SDEBUG_OPT_HOST_BUSY
		run requeue --trace "$sd" --json "$W/requeue.json" -- \
			dd if=/dev/zero of="/dev/$sd" bs=4k count=64 oflag=direct
		echo 0 > "$sd_dir/opts"
		echo 0 > "$sd_dir/every_nth"
		w=$(($(diskstat 5 "$sd") - w0))
		expect_eq "requeue: diskstats completed the 64 writes" "$w" 64
		expect_cmp "requeue: requeues counted" "$(jqv "$W/requeue.json" .runs[0].block.requeues)" \
			">" 0
		again=$(($(jqv "$W/requeue.json" .runs[0].block.write.requests) - w))
		expect_cmp "requeue: writes issued again (busy answers)" "$again" ">" 0
		expect_cmp "requeue: a requeue before each issue again" \
			"$(jqv "$W/requeue.json" .runs[0].block.requeues)" ">=" "$again"
		expect_eq "requeue: every write completed once" \
			"$(jqv "$W/requeue.json" .runs[0].block.completed)" "$w"
	fi
	rmmod scsi_debug || not_ok "requeue: rmmod scsi_debug failed"
fi
