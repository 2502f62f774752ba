#!/usr/bin/env bash
# The Debian package as a user gets it: make deb (dpkg-buildpackage in a copy of
# the tree, lintian), dpkg -i, the installed binary on a loop disk (info, and a
# traced dd counted exactly against /proc/diskstats), its man page and its bash
# completion as bash-completion loads it, make install's files against the
# package's, and dpkg -r / -P leaving nothing behind. The package is purged at
# exit, also on failure.
. "$(dirname "$0")/lib.sh"

PKG=blktrace-bench
SBIN=/usr/sbin/blktrace-bench
export LC_ALL=C # sorted file lists

for tool in dpkg-buildpackage dh lintian man git; do
	if ! command -v "$tool" > /dev/null; then
		skip "$tool is not installed (tools/deps.sh installs it): package not built"
		finish
		exit 0
	fi
done
# A blktrace-bench the machine's owner installed is theirs: neither replaced nor removed.
state=$(dpkg-query -W -f='${db:Status-Status}' "$PKG" 2> /dev/null)
if [ -n "$state" ] && [ "$state" != not-installed ]; then
	skip "$PKG is already on this machine ($state): not touching it"
	finish
	exit 0
fi

installed=0
purge() {
	[ $installed -eq 1 ] && dpkg -P "$PKG" > /dev/null 2>&1
	installed=0
}
trap 'purge; cleanup' EXIT

# 1. make deb builds in build/deb/ and leaves the tree as it was.
before=$(git -C "$ROOT" status --porcelain --ignored=no)
make -C "$ROOT" --no-print-directory deb > "$TMP/deb.out" 2>&1
rc=$?
expect_eq "make deb: exit status" "$rc" 0
deb=$ROOT/$(tail -n 1 "$TMP/deb.out")
if [ $rc -ne 0 ] || [ ! -f "$deb" ]; then
	sed 's/^/    /' "$TMP/deb.out" | tail -30
	not_ok "make deb: no .deb ($deb)"
	finish
	exit 1
fi
expect_eq "make deb: the .deb is in build/deb/" "${deb#"$ROOT"/}" \
	"build/deb/${PKG}_$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)_$(dpkg --print-architecture).deb"
expect_true "make deb: the tree is unchanged (git status)" \
	test "$(git -C "$ROOT" status --porcelain --ignored=no)" = "$before"
expect_true "the package depends on libbpf through shlibs" \
	grep -q 'libbpf1' <(dpkg-deb -f "$deb" Depends)
# libxenstore is opened (dlopen) for xen-blkfront disks only: recommended, not needed.
expect_eq "the package recommends libxenstore4" "$(dpkg-deb -f "$deb" Recommends)" libxenstore4
dpkg-deb -x "$deb" "$TMP/unpacked"
expect_eq "libxenstore is not linked" \
	"$(readelf -d "$TMP/unpacked$SBIN" | grep -c 'NEEDED.*libxenstore')" 0

# 2. lintian: no error, no warning (overrides say why).
lintian --fail-on error,warning "${deb%.deb}.changes" > "$TMP/lintian.txt" 2>&1
rc=$?
expect_eq "lintian: exit status" "$rc" 0
expect_eq "lintian: no error or warning" "$(grep -E '^[EW]: ' "$TMP/lintian.txt")" ""

# 3. Installed.
dpkg -i "$deb" > "$TMP/dpkg-i.txt" 2>&1
rc=$?
installed=1
expect_eq "dpkg -i: exit status" "$rc" 0
[ $rc -eq 0 ] || sed 's/^/    /' "$TMP/dpkg-i.txt"
dpkg -L "$PKG" | while read -r f; do [ -d "$f" ] || echo "$f"; done | sort > "$TMP/files"
expect_eq "the package's files" "$(tr '\n' ' ' < "$TMP/files")" \
	"$SBIN /usr/share/bash-completion/completions/$PKG /usr/share/doc/$PKG/README.md.gz /usr/share/doc/$PKG/changelog.gz /usr/share/doc/$PKG/contrib/blktrace-bench.rules.yml /usr/share/doc/$PKG/contrib/blktrace-bench.service /usr/share/doc/$PKG/contrib/prometheus.yml /usr/share/doc/$PKG/copyright /usr/share/doc/$PKG/guide.md.gz /usr/share/doc/$PKG/json-keys.md /usr/share/doc/$PKG/json.md.gz /usr/share/man/man8/$PKG.8.gz "
expect_eq "$SBIN: --version" "$("$SBIN" --version | cut -d' ' -f1)" "$PKG"

# 4. The installed binary on a loop disk.
make_loop A 64M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
"$SBIN" info "$a" > "$TMP/info.txt"
expect_eq "info: exit status" "$?" 0
expect_true "info: names the loop driver" grep -qw loop "$TMP/info.txt"
expect_eq "info --json: the disk" "$("$SBIN" info "$a" --json | jq -r .device.name)" "$a"
w0=$(diskstat "$A" 5)
"$SBIN" --trace "$a" --json "$TMP/dd.json" -- \
	dd if=/dev/zero of="$A" bs=64k count=64 oflag=direct status=none > "$TMP/dd.txt"
rc=$?
w1=$(diskstat "$A" 5)
expect_eq "traced dd: exit status" "$rc" 0
expect_eq "traced dd: write requests" "$(jqv "$TMP/dd.json" .runs[0].block.write.requests)" 64
expect_eq "traced dd: diskstats writes completed" "$((w1 - w0))" 64
expect_eq "traced dd: request size" "$(jqv "$TMP/dd.json" .runs[0].block.request_bytes.max)" 65536

# 5. The man page, where man looks for it.
expect_eq "man -w finds the page" "$(man -w "$PKG" 2> /dev/null)" "/usr/share/man/man8/$PKG.8.gz"
expect_true "man renders it" grep -q -- '--fail-on-regression' <(MANWIDTH=80 man 8 "$PKG" 2> /dev/null)
expect_true "man: no groff warnings" test -z "$(man --warnings -l /usr/share/man/man8/$PKG.8.gz 2>&1 > /dev/null)"

# 6. The completion, as bash-completion finds and loads it on a first <TAB>.
complete_installed() {
	"$ROOT/tests/shell/complete.sh" --installed "$@" 2> "$TMP/complete.err" | tr '\n' ' ' |
		sed 's/ $//'
}
expect_eq "completion: a command" "$(complete_installed comp)" compare
expect_eq "completion: an option" "$(complete_installed --trace "$a" --drop)" --drop-caches
expect_eq "completion: a --set knob" "$(complete_installed --trace "$a" --set read)" \
	read_ahead_kb=
expect_true "completion: the loop disk for --trace" \
	grep -qx "$a" <(complete_installed --trace "${a%?}" | tr ' ' '\n')
expect_true "completion: the loop disk for info" \
	grep -qx "$a" <(complete_installed info "" | tr ' ' '\n')

# 7. make install PREFIX=/usr installs the same files (Debian adds its copyright
# and changelog, and compresses the page and the docs).
make -C "$ROOT" --no-print-directory install DESTDIR="$TMP/inst" PREFIX=/usr > /dev/null
expect_eq "make install: exit status" "$?" 0
(cd "$TMP/inst" && find . ! -type d | sed 's/^\.//' | sort) > "$TMP/inst.files"
expect_eq "make install == the package's files" "$(tr '\n' ' ' < "$TMP/inst.files")" \
	"$(grep -vE "^/usr/share/doc/$PKG/(copyright|changelog.gz)$" "$TMP/files" |
		sed 's/\.gz$//' | tr '\n' ' ')"
expect_true "make install: the same man page" \
	cmp -s "$TMP/inst/usr/share/man/man8/$PKG.8" <(zcat "/usr/share/man/man8/$PKG.8.gz")
expect_true "make install: the same completion" \
	cmp -s "$TMP/inst/usr/share/bash-completion/completions/$PKG" \
	"/usr/share/bash-completion/completions/$PKG"
make -C "$ROOT" --no-print-directory uninstall DESTDIR="$TMP/inst" PREFIX=/usr > /dev/null
expect_eq "make uninstall: no file left" "$(find "$TMP/inst" ! -type d)" ""

# 8. dpkg -r removes every file, dpkg -P the package's last trace.
dpkg -r "$PKG" > "$TMP/dpkg-r.txt" 2>&1
expect_eq "dpkg -r: exit status" "$?" 0
left=$(while read -r f; do [ -e "$f" ] && echo "$f"; done < "$TMP/files")
expect_eq "dpkg -r: no file left" "$left" ""
expect_true "dpkg -r: no doc directory left" test ! -e "/usr/share/doc/$PKG"
dpkg -P "$PKG" > "$TMP/dpkg-p.txt" 2>&1
expect_eq "dpkg -P: exit status" "$?" 0
installed=0
expect_eq "dpkg -P: not installed" \
	"$(dpkg-query -W -f='${db:Status-Status}' "$PKG" 2> /dev/null || echo not-installed)" \
	not-installed
expect_eq "dpkg -P: nothing in dpkg's database" "$(ls /var/lib/dpkg/info/"$PKG".* 2> /dev/null)" ""
expect_eq "man -w: the page is gone" "$(man -w "$PKG" 2> /dev/null)" ""

finish
