#!/bin/bash
# Ad-hoc exploration in a guest: VMTEST_GUEST=guest-debug.sh tests/vm/vmtest.sh 5.10
echo "kernel $(uname -r)"
blktrace-bench -vv --trace vda -- true 2>&1 | grep -B2 -A40 'BEGIN PROG LOAD\|load failed' | head -80
blktrace-bench --trace vda -v -- true 2>&1 | head
