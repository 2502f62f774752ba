#!/bin/bash
# What a new kernel looks like to the tool, for when guest.sh fails on one:
#   VMTEST_GUEST=guest-debug.sh tests/vm/vmtest.sh newest; cat build/vm/newest/report.txt
# The block tracepoints' BTF prototypes, the disks' sysfs facts, and a -v load.
echo "kernel $(uname -r)"
bpftool btf dump file /sys/kernel/btf/vmlinux format c 2>/dev/null |
	grep -E 'typedef void \(\*btf_trace_block_'
for d in /sys/block/*; do
	n=$(basename "$d")
	case $n in loop*) continue ;; esac
	echo "$n dev=$(cat "$d/dev" 2>/dev/null) hidden=$(cat "$d/hidden" 2>/dev/null)" \
		"mq=$(ls "$d/mq" 2>/dev/null | wc -l) max_sectors_kb=$(cat "$d/queue/max_sectors_kb")" \
		"max_segments=$(cat "$d/queue/max_segments") -> $(readlink -f "$d")"
done
grep -v -E ' (ram|loop)[0-9]' /proc/diskstats
blktrace-bench -v --trace vda -- true 2>&1 | grep -v -E 'relo #|CO-RE|found data map' | tail -40
