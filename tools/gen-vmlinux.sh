#!/usr/bin/env bash
# Regenerates a committed vmlinux/ARCH/vmlinux.h from a kernel's BTF.
# CO-RE relocates field offsets at load time, so one dump serves every kernel of the
# architecture; regenerate only to reach types or fields that newer kernels added.
#
#   tools/gen-vmlinux.sh [ARCH [FILE]]
#
# ARCH: x86 (default), arm64, ... FILE: where the BTF is, default the running kernel's
# (/sys/kernel/btf/vmlinux, or BTF=FILE): a raw BTF file, or a kernel image (an arm64
# Image, as Debian's linux-image-*-cloud-arm64-unsigned ships it in /boot/vmlinuz-*; a
# gzip'd one too), whose .BTF section is found by its header and cut out. vmlinux/arm64
# comes from Debian's 6.12 cloud kernel (trixie): newer kernels' BTF has anonymous
# embedded structs that clang compiles only with -fms-extensions.
set -euo pipefail
arch=${1:-x86}
src=${2:-${BTF:-/sys/kernel/btf/vmlinux}}
out="$(dirname "$0")/../vmlinux/$arch/vmlinux.h"
[ -r "$src" ] || { echo "gen-vmlinux: $src not readable (a kernel without BTF?)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

btf=$src
if ! bpftool btf dump file "$src" format raw > /dev/null 2>&1; then
	# An image: the BTF blob is the one whose header (magic 0xeb9f, version 1, 24 bytes)
	# gives the types then the strings, each of a plausible size for a kernel.
	python3 - "$src" "$tmp/vmlinux.btf" <<'PY'
import gzip, struct, sys
d = open(sys.argv[1], 'rb').read()
if d[:2] == b'\x1f\x8b':
    d = gzip.decompress(d)
found, i = [], d.find(b'\x9f\xeb\x01\x00')
while i >= 0:
    hdr, toff, tlen, soff, slen = struct.unpack_from('<5I', d, i + 4)
    if hdr == 24 and toff == 0 and soff == tlen and tlen > 1 << 20 and slen > 1 << 16:
        found.append((i, hdr + soff + slen))
    i = d.find(b'\x9f\xeb\x01\x00', i + 1)
if len(found) != 1:
    sys.exit('gen-vmlinux: %s: %d BTF blobs found, not one' % (sys.argv[1], len(found)))
o, n = found[0]
open(sys.argv[2], 'wb').write(d[o:o + n])
PY
	btf=$tmp/vmlinux.btf
fi
mkdir -p "$(dirname "$out")"
bpftool btf dump file "$btf" format c > "$tmp/vmlinux.h"
mv "$tmp/vmlinux.h" "$out"
echo "gen-vmlinux: wrote $out from $src"
