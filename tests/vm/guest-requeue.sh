# Sourced by tests/vm/guest.sh: requeues, which no disk of the host's tests makes (loop
# never gives a request back). scsi_debug answers every 4th command "host busy"
# (opts=0x8000) after the block layer issued it; the request is given back
# (block_rq_requeue) and issued again: every issue beyond a write's first follows a
# requeue, and /proc/diskstats completes each write once. (The kernel also traces a
# requeue for a request it never started, SCSI's check of a host still blocked by the
# busy answer: those count too, so requeues >= issues again, not ==.)
# shellcheck shell=bash

if scsi_debug_up requeue; then
	w0=$(diskstat 5 "$sd")
	echo 4 > "$SD_DIR/every_nth"
	echo 0x8000 > "$SD_DIR/opts" # SDEBUG_OPT_HOST_BUSY
	run requeue --trace "$sd" --json "$W/requeue.json" -- \
		dd if=/dev/zero of="/dev/$sd" bs=4k count=64 oflag=direct
	echo 0 > "$SD_DIR/opts"
	echo 0 > "$SD_DIR/every_nth"
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
	rmmod scsi_debug || not_ok "requeue: rmmod scsi_debug failed"
fi
