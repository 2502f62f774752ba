# shellcheck shell=bash
# Sourced by the guest tests' download scripts (tests/vm/kernels.sh, tests/vm/sysroot.sh,
# tests/xen/packages.sh):
# Debian's archive through a private sources list and state directory under the cache,
# so that the machine's own apt configuration is never read or changed. VMTEST_CACHE
# (default /var/cache/blktrace-bench-vmtest) holds the lists, refreshed once a day.
# One architecture's lists, whatever dpkg on this machine knows: VMTEST_ARCH's (amd64 by
# default; arm64 for the arm64 guests, in a state directory of their own, apt-arm64, as
# a refresh drops the lists of an architecture it was not given, and every apt run reads
# all the lists it has: both doubled each run's time).
# Defines CACHE, APTO (apt's options) and the functions below; apt_ready, which the
# scripts call before they use apt, takes the cache's lock and refreshes old lists.

CACHE=${VMTEST_CACHE:-/var/cache/blktrace-bench-vmtest}
APT_ARCH=${VMTEST_ARCH:-amd64}
APT=$CACHE/apt
[ "$APT_ARCH" = amd64 ] || APT=$CACHE/apt-$APT_ARCH
APTO=(-o "Dir::Etc::SourceList=$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT" -o "Dir::Cache::archives=$APT/archives"
      -o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Sandbox::User=root
      -o "APT::Architecture=$APT_ARCH" -o "APT::Architectures=$APT_ARCH")

# apt_ready: the lock, the sources and fresh lists. One script of an architecture at a
# time in the cache, until it exits: two guests booting at once must not both unpack
# what is missing, nor a suite fetch what tests/vm/prefetch.sh is fetching; what one
# architecture fetches (its lists, kernels named by it, its sysroot) is its own, so
# another's need not wait. (The scripts that take it never run each other, nor leave a
# child holding the lock.)
apt_ready() {
	mkdir -p "$APT/lists/partial" "$APT/archives/partial"
	exec {APT_LOCK}> "$CACHE/.lock-$APT_ARCH"
	flock "$APT_LOCK"
	cat > "$APT/sources.list" <<'LIST'
deb http://deb.debian.org/debian bullseye main
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian-security bookworm-security main
deb http://deb.debian.org/debian bookworm-backports main
deb http://deb.debian.org/debian trixie main
deb http://deb.debian.org/debian trixie-backports main
deb http://deb.debian.org/debian sid main
LIST
	apt_refresh
}

apt_refresh() {
	# The stamp names the architecture: lists of another's refresh are not these.
	local stamp=$APT/lists/.updated-$APT_ARCH
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
