# shellcheck shell=bash
# Sourced by the guest tests' download scripts (tests/vm/kernels.sh, tests/xen/packages.sh):
# Debian's archive through a private sources list and state directory under the cache,
# so that the machine's own apt configuration is never read or changed. VMTEST_CACHE
# (default /var/cache/blktrace-bench-vmtest) holds the lists, refreshed once a day.
# Every refresh lists amd64 and arm64, whatever dpkg on this machine knows: a refresh of
# one architecture drops the other's lists (the arm64 guests, VMTEST_ARCH=arm64).
# Defines CACHE, APTO (apt's options) and refreshes the lists when they are old.

CACHE=${VMTEST_CACHE:-/var/cache/blktrace-bench-vmtest}
APT=$CACHE/apt
mkdir -p "$APT/lists/partial" "$APT/archives/partial"

cat > "$APT/sources.list" <<'LIST'
deb http://deb.debian.org/debian bullseye main
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian-security bookworm-security main
deb http://deb.debian.org/debian bookworm-backports main
deb http://deb.debian.org/debian trixie main
deb http://deb.debian.org/debian trixie-backports main
deb http://deb.debian.org/debian sid main
LIST
APTO=(-o "Dir::Etc::SourceList=$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT" -o "Dir::Cache::archives=$APT/archives"
      -o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Sandbox::User=root
      -o APT::Architecture=amd64 -o APT::Architectures=amd64,arm64)

apt_refresh() {
	# The stamp names the architectures: lists of an older refresh of amd64 alone are old.
	local stamp=$APT/lists/.updated-amd64-arm64
	[ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ] || return 0
	echo "apt: refreshing the package lists" >&2
	if apt-get "${APTO[@]}" -qq update >&2; then
		touch "$stamp"
	elif [ -e "$stamp" ]; then
		echo "apt: the archive is unreachable; using the lists of $(date -r "$stamp")" >&2
	else
		echo "apt: cannot read Debian's package lists" >&2
		return 1
	fi
}
apt_refresh

has_pkg() { apt-cache "${APTO[@]}" show "$1" > /dev/null 2>&1; }

# apt_extract DIR PKG...: download PKG... (NAME or NAME=VERSION) and unpack them into DIR.
apt_extract() {
	local dir=$1 tmp d
	shift
	tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
	echo "apt: downloading $*" >&2
	(cd "$tmp" && apt-get "${APTO[@]}" -qq download "$@" >&2) || { rm -rf "$tmp"; return 1; }
	mkdir -p "$dir"
	for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$dir"; done
	rm -rf "$tmp"
}
