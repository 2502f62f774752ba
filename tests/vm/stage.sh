# shellcheck shell=bash
# Sourced by the scripts that build a guest's file system (tests/vm/initramfs.sh, the Xen
# test bed's tests/xen/*.sh): a staging directory filled with binaries, their libraries
# and kernel modules, then packed as a cpio archive or an ext4 image.
# The caller sets `stage` (the directory) and runs under set -e. For a guest of another
# architecture (the arm64 guests) it then sets SYSROOT, that architecture's user space
# unpacked (tests/vm/sysroot.sh), and TRIPLET (aarch64-linux-gnu): binaries and libraries
# then come from there. Empty here, whatever the environment says (a cross toolchain's
# SYSROOT is not the guest's).
SYSROOT="" TRIPLET=""

# add_bin BIN [DEST [PREFIX]]: BIN at DEST (default: the same path) and every library
# `ldd` names, at the same paths as on the host. PREFIX: a tree of unpacked packages
# whose libraries BIN may load too (searched first); they land without the prefix.
# With SYSROOT, add_foreign.
add_bin() {
	local bin=$1 dest=${2:-$1} prefix=${3:-} lib to libpath=""
	if [ -n "$SYSROOT" ]; then
		add_foreign "$bin" "$dest" "$prefix"
		return
	fi
	[ -z "$prefix" ] || libpath=$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu
	mkdir -p "$stage$(dirname "$dest")"
	cp -L "$bin" "$stage$dest"
	# none: a static binary.
	for lib in $(LD_LIBRARY_PATH=$libpath ldd "$bin" 2>/dev/null | grep -o '/[^ ]*' || true); do
		to=$lib
		[ -z "$prefix" ] || to=${lib#"$prefix"}
		[ -e "$stage$to" ] && continue
		mkdir -p "$stage$(dirname "$to")"
		cp -L "$lib" "$stage$to"
	done
	if LD_LIBRARY_PATH=$libpath ldd "$bin" 2>/dev/null | grep -q 'not found'; then
		echo "stage: $bin needs libraries nobody has: $(LD_LIBRARY_PATH=$libpath ldd "$bin" | grep 'not found' | tr -s ' \t\n' ' ')" >&2
		return 1
	fi
}

# add_foreign BIN DEST [PREFIX]: BIN, of SYSROOT's architecture, at DEST, with its
# program interpreter and the libraries its NEEDED entries name, theirs in turn, found in
# PREFIX's (a tree of unpacked packages, as add_bin's) or else SYSROOT's library
# directories and put at the same paths. ldd runs the binary's own loader, which this
# machine cannot: readelf reads the same entries from the file.
add_foreign() {
	local bin=$1 dest=$2 prefix=${3:-} f so found from
	local -a todo=("$bin")
	mkdir -p "$stage$(dirname "$dest")"
	cp -L "$bin" "$stage$dest"
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		so=$(readelf -lW "$f" | sed -n 's/.*program interpreter: \(.*\)\]/\1/p')
		if [ -n "$so" ] && [ ! -e "$stage$so" ]; then
			mkdir -p "$stage$(dirname "$so")"
			cp -L "$SYSROOT$so" "$stage$so"
		fi
		for so in $(readelf -dW "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			from=$SYSROOT
			if [ -n "$prefix" ] && found=$(SYSROOT=$prefix sysroot_lib "$so" 2> /dev/null); then
				from=$prefix
			else
				found=$(sysroot_lib "$so") || return 1
			fi
			[ -e "$stage$found" ] && continue
			mkdir -p "$stage$(dirname "$found")"
			cp -L "$from$found" "$stage$found"
			todo+=("$from$found")
		done
	done
}

# sysroot_lib SONAME: where the guest finds SONAME (/lib/TRIPLET or /usr/lib/TRIPLET),
# as SYSROOT holds it; else a line naming it, and status 1.
sysroot_lib() {
	local d
	for d in /lib/"$TRIPLET" /usr/lib/"$TRIPLET"; do
		[ -e "$SYSROOT$d/$1" ] && echo "$d/$1" && return 0
	done
	echo "stage: no $1 in $SYSROOT (tests/vm/sysroot.sh)" >&2
	return 1
}

# guest_bin NAME: the path of the program NAME the guest runs: this machine's, or with
# SYSROOT, the one unpacked there.
guest_bin() {
	local d
	if [ -z "$SYSROOT" ]; then
		command -v "$1" || { echo "stage: no $1 on this machine (tools/deps.sh vm)" >&2; return 1; }
		return
	fi
	for d in /bin /sbin /usr/bin /usr/sbin; do
		[ -x "$SYSROOT$d/$1" ] && echo "$SYSROOT$d/$1" && return 0
	done
	echo "stage: no $1 in $SYSROOT (tests/vm/sysroot.sh)" >&2
	return 1
}

# add_module KO DEST: a kernel module, decompressed (busybox's insmod reads no .xz).
add_module() {
	case $1 in
	*.xz) xz -dc "$1" > "$2" ;;
	*.zst) zstd -qdc "$1" > "$2" ;;
	*) cp "$1" "$2" ;;
	esac
}

# module_files KDIR RELEASE MODULE...: the .ko files of MODULE... and what they depend
# on, in load order, one per line (modprobe resolves from the kernel's own modules.dep).
module_files() {
	local kdir=$1 rel=$2 m
	shift 2
	depmod -b "$kdir" "$rel"
	for m in "$@"; do
		modprobe -d "$kdir" -S "$rel" --show-depends "$m" 2>/dev/null |
			sed -n 's/^insmod \([^ ]*\).*/\1/p'
	done | awk '!seen[$0]++'
}

# add_modules_numbered KDIR RELEASE DESTDIR MODULE...: the modules into DESTDIR as
# NN-name.ko, in load order, for an init that insmods them in glob order.
add_modules_numbered() {
	local kdir=$1 rel=$2 dest=$3 n=0 ko name
	shift 3
	mkdir -p "$stage$dest"
	while read -r ko; do
		n=$((n + 1))
		name=$(printf '%02d-%s' "$n" "$(basename "$ko" | sed 's/\.ko.*$//').ko")
		add_module "$ko" "$stage$dest/$name"
	done < <(module_files "$kdir" "$rel" "$@")
}

# pack_cpio OUT.cpio.gz: the staging directory as a gzip'd newc archive, atomically.
pack_cpio() {
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$1.tmp"
	mv "$1.tmp" "$1"
}

# add_dlopened SONAME: a library the tool opens itself, and what it loads. awk reads to the
# end (no exit): a reader that leaves early can kill ldconfig with SIGPIPE, and with
# pipefail that ends the script without a word (seen under load).
add_dlopened() {
	local lib
	if [ -n "$SYSROOT" ]; then
		lib=$(sysroot_lib "$1") || return 1
		add_foreign "$SYSROOT$lib" "$lib"
		return
	fi
	lib=$(/sbin/ldconfig -p | awk -v so="$1" '$1 == so && /x86-64/ && !f { f = $NF } END { print f }')
	[ -n "$lib" ] || { echo "stage: $1 not found (tools/deps.sh installs it)" >&2; return 1; }
	add_bin "$lib"
}

# add_guest_userspace BIN: what the guest test scripts run: busybox-static, bash, jq,
# util-linux's sfdisk, losetup and blockdev, dmsetup, mdadm, mke2fs, bpftool, the
# kernel's blktrace and blkparse, and the tool BIN, at /usr/sbin/blktrace-bench.
add_guest_userspace() {
	local tool=$1
	add_bin "$(guest_bin busybox)" /bin/busybox
	add_bin "$(guest_bin bash)" /bin/bash
	add_bin "$(guest_bin jq)" /usr/bin/jq
	add_bin "$(guest_bin sfdisk)" /usr/sbin/sfdisk
	add_bin "$(guest_bin losetup)" /usr/sbin/losetup
	add_bin "$(guest_bin blockdev)" /usr/sbin/blockdev
	add_bin "$(guest_bin dmsetup)" /usr/sbin/dmsetup
	add_bin "$(guest_bin mdadm)" /usr/sbin/mdadm
	add_bin "$(guest_bin mke2fs)" /usr/sbin/mke2fs
	add_bin "$tool" /usr/sbin/blktrace-bench
	# Libraries the tool opens itself (dlopen), which ldd does not name: serve's HTTP server,
	# and xenstore for what a xen-blkfront disk's backend offers.
	add_dlopened libmicrohttpd.so.12
	add_dlopened libxenstore.so.4
	add_bin "$(guest_bin bpftool)" /usr/sbin/bpftool
	# The kernel's blktrace: the oracle of --blktrace (tests/vm/guest-blktrace.sh), and
	# blkparse to set its events beside ours one by one.
	add_bin "$(guest_bin blktrace)" /usr/sbin/blktrace
	add_bin "$(guest_bin blkparse)" /usr/bin/blkparse
}
