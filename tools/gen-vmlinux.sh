#!/usr/bin/env bash
# Regenerates the committed vmlinux.h from the running kernel's BTF.
# CO-RE relocates field offsets at load time, so one dump serves every kernel;
# regenerate only to reach types or fields that newer kernels added.
set -euo pipefail
arch=${1:-x86}
btf=${BTF:-/sys/kernel/btf/vmlinux}
out="$(dirname "$0")/../vmlinux/$arch/vmlinux.h"
[ -r "$btf" ] || { echo "gen-vmlinux: $btf not readable: this kernel has no BTF" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
bpftool btf dump file "$btf" format c > "$out.tmp"
mv "$out.tmp" "$out"
echo "gen-vmlinux: wrote $out from $btf ($(uname -r))"
