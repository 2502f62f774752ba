#!/usr/bin/env bash
# Fetches Debian's cloud kernels for the VM tests, cached between runs.
#
#   tests/vm/kernels.sh [NAME...]    NAME: 5.10 6.1 6.12 newest (default: all)
#
# Prints "NAME RELEASE DIR" per kernel; DIR holds vmlinuz and lib/modules/RELEASE.
# VMTEST_ARCH (Debian's name: amd64, the default, or arm64) picks the architecture's
# cloud kernels: arm64's vmlinuz is a gzip'd Image, which qemu's -kernel unpacks.
# Packages come from deb.debian.org through a private sources list and state
# directory under the cache: the machine's own apt configuration is never read
# or changed. VMTEST_CACHE (default /var/cache/blktrace-bench-vmtest) holds the
# lists (refreshed once a day) and the extracted kernels.
set -eEuo pipefail
trap 'echo "$(basename "$0"): line $LINENO: $BASH_COMMAND failed" >&2' ERR
# Under pipefail, a pipeline's reader never leaves before its writer is done (no
# head, no awk exit): a writer killed by SIGPIPE would fail it, now and then.

arch=${VMTEST_ARCH:-amd64}
case $arch in
amd64 | arm64) ;;
*) echo "kernels: no cloud kernels for '$arch' (amd64, arm64)" >&2; exit 2 ;;
esac
. "$(dirname "${BASH_SOURCE[0]}")/apt.sh"
apt_ready
mkdir -p "$CACHE/kernels"
meta=linux-image-cloud-$arch:$arch

# VERSION SUITE lines of the cloud kernel meta-package, newest first.
versions() {
	apt-cache "${APTO[@]}" madison "$meta" |
		awk -F' *[|] *' '{ split($3, s, " "); print $2, s[2] }' | sort -rV -k1,1
}

# The newest meta-package version in one of the suites given (a regex).
pick() {
	versions | awk -v re="$1" '$2 ~ re && !v { v = $1 } END { print v }'
}

# The kernel release a meta-package version depends on (6.1.0-57-cloud-amd64).
release_of() {
	apt-cache "${APTO[@]}" show "$meta=$1" |
		sed -n "s/^Depends:.*linux-image-\([^ ,]*-cloud-$arch\) .*/\1/p" | sed -n 1p
}

fetch() { # RELEASE: download and extract once
	local rel=$1 dir=$CACHE/kernels/$1 tmp pkgs d
	[ -f "$dir/vmlinuz" ] && [ -d "$dir/lib/modules/$rel" ] && return 0
	tmp=$(mktemp -d "$CACHE/kernels/.fetch.XXXXXX")
	# Up to 6.12 one -unsigned package has it all; later kernels split the image
	# (linux-binary-unsigned) from the modules (linux-modules) and the config and
	# modules.builtin (linux-base).
	if has_pkg "linux-image-$rel-unsigned:$arch"; then
		pkgs=("linux-image-$rel-unsigned:$arch")
	else
		pkgs=("linux-binary-unsigned-$rel:$arch" "linux-modules-$rel:$arch" "linux-base-$rel:$arch")
	fi
	apt_extract "$tmp/root" "${pkgs[@]}"
	rm -rf "$dir" && mkdir -p "$dir/lib/modules"
	if [ -d "$tmp/root/usr/lib/modules/$rel" ]; then
		mv "$tmp/root/usr/lib/modules/$rel" "$dir/lib/modules/"
	else
		mv "$tmp/root/lib/modules/$rel" "$dir/lib/modules/"
	fi
	for d in "$tmp/root/boot/vmlinuz-$rel" "$dir/lib/modules/$rel/vmlinuz.unsigned"; do
		[ -f "$d" ] && mv "$d" "$dir/vmlinuz"
	done
	for d in "$tmp/root/boot/config-$rel" "$dir/lib/modules/$rel/config"; do
		[ -f "$d" ] && mv "$d" "$dir/config"
	done
	rm -rf "$tmp"
	[ -f "$dir/vmlinuz" ] || { echo "kernels: no vmlinuz in ${pkgs[*]}" >&2; return 1; }
}

[ $# -gt 0 ] || set -- 5.10 6.1 6.12 newest
for name in "$@"; do
	case $name in
	5.10) ver=$(pick "^bullseye/") ;;
	6.1) ver=$(pick '^bookworm(-security)?/') ;;
	6.12) ver=$(pick "^bookworm-backports/") ;;
	newest) ver=$(versions | sed -n '1s/ .*//p') ;;
	*) echo "kernels: unknown kernel '$name' (5.10, 6.1, 6.12, newest)" >&2; exit 2 ;;
	esac
	[ -n "$ver" ] || { echo "kernels: no cloud kernel for $name in the archive" >&2; exit 1; }
	rel=$(release_of "$ver")
	[ -n "$rel" ] || { echo "kernels: cannot read the release of $meta=$ver" >&2; exit 1; }
	fetch "$rel"
	echo "$name $rel $CACHE/kernels/$rel"
done
