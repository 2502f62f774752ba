#!/usr/bin/env bash
# make deb: the Debian package, built by dpkg-buildpackage in a copy of the tree
# (build/deb/blktrace-bench-VERSION: dpkg-buildpackage writes into debian/ and the
# parent directory, so the tree itself stays clean), checked by lintian. Leaves in
# build/deb/ the .deb, the source package, build.log and lintian.txt; prints the
# .deb's path last. Fails on a lintian error or warning (debian/*lintian-overrides
# say why the overridden ones are fine).
#
#   tools/deb.sh [ARCH]   ARCH: the Makefile's (x86, arm64); another than the machine's
#                         cross-builds (dpkg-buildpackage -a, profiles cross and nocheck:
#                         the unit tests cannot run here) into build/deb-ARCH/.
set -euo pipefail
cd "$(dirname "$0")/.."

build_arch=$(dpkg-architecture -q DEB_BUILD_ARCH)
case ${1:-} in
'') arch=$build_arch ;;
x86) arch=amd64 ;;
arm64) arch=arm64 ;;
*) echo "deb: unknown architecture '$1' (x86, arm64)" >&2; exit 2 ;;
esac
cross=()
out=build/deb
if [ "$arch" != "$build_arch" ]; then
	cross=(-a "$arch" -Pcross,nocheck)
	# dpkg-architecture checks CC against the host before dh sets it.
	CC=$(dpkg-architecture -a "$arch" -q DEB_HOST_GNU_TYPE 2> /dev/null)-gcc
	export CC
	export DEB_BUILD_OPTIONS="nocheck${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}"
	out=build/deb-$arch
fi
version=$(dpkg-parsechangelog -S Version)
src=$out/blktrace-bench-$version
deb=$out/blktrace-bench_${version}_$arch.deb
changes=$out/blktrace-bench_${version}_$arch.changes

rm -rf "$out"
mkdir -p "$src"
# What a clone has plus the files not committed yet; nothing ignored, no build/.
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done |
		tar --null -T - -cf - | tar -xf - -C "$src"
else
	tar --exclude=./build --exclude=./blktrace-bench -cf - . | tar -xf - -C "$src"
fi

echo "  DEB      $src (log: $out/build.log)"
if ! (cd "$src" && dpkg-buildpackage -us -uc -jauto "${cross[@]}") > "$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed; the whole log is $out/build.log" >&2
	exit 1
fi

echo "  LINTIAN  $changes"
# Info tags (I:) are shown, only errors and warnings fail.
rc=0
lintian --display-info --fail-on error,warning "$changes" > "$out/lintian.txt" 2>&1 || rc=$?
sed 's/^/  /' "$out/lintian.txt"
if [ $rc -ne 0 ]; then
	echo "deb: lintian found errors or warnings (above; $out/lintian.txt)" >&2
	exit 1
fi
echo "$deb"
