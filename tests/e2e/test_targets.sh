#!/usr/bin/env bash
# The one target policy: a disk named by --raw or by --file (directly or through a
# symlink) is not written while it is mounted, swap, holds a swap file, or backs a
# loop device (loop-on-loop, a partition under a loop); --file refuses FIFOs and
# directories at once; sizes are refused before anything is traced; a workload file
# leaves nothing behind, even after SIGKILL; --overwrite never follows a link an
# unprivileged user planted. Every refusal: one line, exit 2, and a
# checksum showing that nothing was written.
. "$(dirname "$0")/lib.sh"

# refused NAME PATTERN DEV ARGS...: exit 2, one line matching PATTERN, nothing traced (no
# "tracing" line under -v), and DEV's checksum unchanged.
refused() {
	local name=$1 pat=$2 dev=$3 rc sum0 sum1
	shift 3
	sum0=$(md5sum < "$dev")
	timeout 60 "$BB" -v "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	sum1=$(md5sum < "$dev")
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q -- "$pat" "$TMP/err" &&
		! grep -q "tracing" "$TMP/err" && [ "$sum0" = "$sum1" ]; then
		ok "$name (exit 2: $(cat "$TMP/err"))"
	else
		not_ok "$name: exit $rc (want 2), checksum $([ "$sum0" = "$sum1" ] && echo same || echo CHANGED), stderr: $(head -3 "$TMP/err")"
	fi
}

# 1. --file naming a mounted disk, directly and through a symlink: even with every
# override, nothing is written. (Read-only mount of a fully initialised ext4, so that
# nothing but us could change the checksum.)
make_loop M 32M || { not_ok "losetup"; finish; exit 1; }
m=$(basename "$M")
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$M"
mkdir -p "$TMP/ro"
mount -o ro "$M" "$TMP/ro" && mounted "$TMP/ro"
refused "--file mounted disk" "$m is mounted on $TMP/ro" "$M" \
	--trace "$m" --file "$M" --rw write --bs 1M --size 4M --overwrite --any-fs --destructive
ln -s "$M" "$TMP/link"
refused "--file symlink to a mounted disk" "$m is mounted on" "$M" \
	--trace "$m" --file "$TMP/link" --rw write --bs 1M --size 4M --overwrite --any-fs \
	--destructive
refused "--file disk without --destructive" "add --destructive" "$M" \
	--trace "$m" --file "$TMP/link" --rw write --bs 1M --size 4M --overwrite --any-fs
refused "--raw mounted disk" "$m is mounted on" "$M" \
	--trace "$m" --raw --rw write --bs 1M --size 4M --destructive

# 2. Loop-on-loop: a disk backing another loop device (no holders/ shows it).
make_loop LA 16M || not_ok "losetup"
la=$(basename "$LA")
if LB=$(losetup -f --show "$LA"); then
	took_loop "$LB"
	refused "--raw disk backing a loop device" "$la backs $(basename "$LB")" "$LA" \
		--trace "$la" --raw --rw write --bs 1M --size 4M --destructive
	refused "--file disk backing a loop device" "$la backs $(basename "$LB")" "$LA" \
		--trace "$la" --file "$LA" --rw write --bs 1M --size 4M --destructive
	losetup -d "$LB"
	"$BB" --trace "$la" --raw --rw write --bs 1M --size 4M --destructive > /dev/null 2>&1
	expect_eq "detached: the same write is allowed" "$?" 0
else
	not_ok "losetup on $LA"
fi

# 3. A partition backing a loop device; a swap partition.
have_swap=1
swapon --show > /dev/null 2>&1 || have_swap=0
img=$(new_image) && remove_at_exit "$img"
truncate -s 64M "$img"
printf 'label: gpt\n,16M\n,16M\n' | sfdisk -q "$img" || not_ok "sfdisk"
if P=$(losetup -f --show -P "$img"); then
	took_loop "$P"
	[ -b "${P}p1" ] || partx -a "$P" 2>/dev/null
	p=$(basename "$P")
	if [ -b "${P}p1" ] && PL=$(losetup -f --show "${P}p1"); then
		took_loop "$PL"
		refused "partition backing a loop device" "${p}p1 backs $(basename "$PL")" "$P" \
			--trace "${p}p1" --raw --rw write --bs 1M --size 4M --destructive
		losetup -d "$PL"
	else
		not_ok "partition ${P}p1 and a loop device on it"
	fi
	refused "whole disk with partitions" "it has partitions" "$P" \
		--trace "$p" --raw --rw write --bs 1M --size 4M --destructive
	if [ $have_swap -eq 1 ] && mkswap -q "${P}p2" > /dev/null && swapon "${P}p2"; then
		swapped "${P}p2"
		refused "swap partition (--raw)" "${p}p2 is used as swap" "$P" \
			--trace "${p}p2" --raw --rw write --bs 1M --size 4M --destructive
		refused "swap partition (--file)" "${p}p2 is used as swap" "$P" \
			--trace "$p" --file "${P}p2" --rw write --bs 1M --size 4M --destructive
		swapoff "${P}p2"
	else
		skip "no swap on this kernel: swap partition not tested"
	fi
else
	not_ok "losetup -P"
fi

# 4. A swap file on a loop disk's filesystem: that disk is refused, the file too.
make_loop S 64M || not_ok "losetup"
s=$(basename "$S")
# No lazy initialisation, and a sync after every change: only we could change its checksum.
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$S"
mkdir -p "$TMP/s"
mount "$S" "$TMP/s" && mounted "$TMP/s"
if [ $have_swap -eq 1 ] && dd if=/dev/zero of="$TMP/s/swapfile" bs=1M count=16 status=none &&
	chmod 600 "$TMP/s/swapfile" && mkswap -q "$TMP/s/swapfile" > /dev/null &&
	swapon "$TMP/s/swapfile"; then
	swapped "$TMP/s/swapfile"
	sync
	refused "disk holding a swap file (--raw)" "$s holds the swap file $TMP/s/swapfile" "$S" \
		--trace "$s" --raw --rw write --bs 1M --size 4M --destructive
	refused "disk holding a swap file (--file)" "$s holds the swap file" "$S" \
		--trace "$s" --file "$S" --rw write --bs 1M --size 4M --destructive --overwrite \
		--any-fs
	refused "the swap file itself" "it is an active swap file" "$S" \
		--trace "$s" --file "$TMP/s/swapfile" --rw write --bs 1M --size 4M --overwrite
	swapoff "$TMP/s/swapfile"
else
	skip "no swap on this kernel: swap file not tested"
fi

# 5. --file kinds: a FIFO is refused at once (it used to block in open()), a directory
# by name.
mkfifo "$TMP/s/fifo"
sync
refused "--file FIFO, reading" "is a FIFO" "$S" --trace "$s" --file "$TMP/s/fifo" --rw read --bs 4k
refused "--file FIFO, writing" "is a FIFO" "$S" \
	--trace "$s" --file "$TMP/s/fifo" --rw write --bs 4k --size 4k --overwrite
refused "--file directory" "is a directory" "$S" --trace "$s" --file "$TMP/s" --rw read --bs 4k

# --file DIR/target.dat --overwrite where an unprivileged user owns DIR.
# The user made target.dat a symbolic link to a file of root's: root used to write that
# file. A link is refused now, naming where it leads; so is a file with more names in a
# directory others can write (hard-linked in, fs.protected_hardlinks off; /tmp too), and
# a file of someone else in the user's directory; the user's own file is written. Then
# the user swaps target.dat between a file of theirs and the link as fast as it can: the
# directory is opened once and the name in it opened by descriptor, O_NOFOLLOW, so
# root's file is never written.
if make_user U && command -v setpriv > /dev/null; then
	as_user() { setpriv --reuid="$U" --regid=65534 --clear-groups "$@"; }
	chmod 755 "$TMP"
	mkdir "$TMP/w1" && chown "$U" "$TMP/w1"
	head -c 64k /dev/urandom > "$TMP/victim"
	victim=$(md5sum < "$TMP/victim")
	as_user ln -s "$TMP/victim" "$TMP/w1/target.dat"
	w1=(--trace "$s" --rw write --bs 4k --size 4k --overwrite --any-fs)
	refused "W1: --overwrite through the user's link" \
		"refusing to write $TMP/w1/target.dat: it is a symbolic link to $TMP/victim" "$S" \
		"${w1[@]}" --file "$TMP/w1/target.dat"
	expect_eq "W1: root's file unchanged" "$(md5sum < "$TMP/victim")" "$victim"
	set_sysfs /proc/sys/fs/protected_hardlinks 0
	mkdir -m 1777 "$TMP/w1-tmp"
	if as_user ln "$TMP/victim" "$TMP/w1/hard.dat" 2> /dev/null &&
		as_user ln "$TMP/victim" "$TMP/w1-tmp/hard.dat" 2> /dev/null; then
		refused "W1: --overwrite of root's file hard-linked into the user's directory" \
			"hard.dat: it has 3 names, and others can write its directory" "$S" \
			"${w1[@]}" --file "$TMP/w1/hard.dat"
		refused "W1: ... into a world-writable sticky directory, as /tmp" \
			"hard.dat: it has 3 names, and others can write its directory" "$S" \
			"${w1[@]}" --file "$TMP/w1-tmp/hard.dat"
		expect_eq "W1: root's file unchanged" "$(md5sum < "$TMP/victim")" "$victim"
		rm -f "$TMP/w1/hard.dat" "$TMP/w1-tmp/hard.dat"
	else
		not_ok "W1: the user could not make a hard link with protected_hardlinks=0"
	fi
	# A file of root's in the user's directory, one name: the user could swap it in.
	cp "$TMP/victim" "$TMP/w1/roots.dat"
	refused "W1: --overwrite of a file not the directory owner's" \
		"it belongs to uid 0, its directory to uid $(id -u "$U")" "$S" \
		"${w1[@]}" --file "$TMP/w1/roots.dat"
	as_user sh -c "head -c 64k /dev/zero > '$TMP/w1/own.dat'"
	"$BB" "${w1[@]}" --file "$TMP/w1/own.dat" > /dev/null 2> "$TMP/err"
	expect_eq "W1: the user's own file is written ($(head -1 "$TMP/err"))" "$?" 0
	# The race: renameat2(RENAME_EXCHANGE) of the user's file and the link, in a loop.
	as_user ln -s "$TMP/victim" "$TMP/w1/link"
	# (setpriv itself, not as_user: $! must be the process that swaps, to be killed)
	setpriv --reuid="$U" --regid=65534 --clear-groups /usr/bin/python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = (os.fsencode(p) for p in sys.argv[1:3])
while True:
    libc.renameat2(-100, a, -100, b, 2)' "$TMP/w1/own.dat" "$TMP/w1/link" &
	swapper=$!
	background $swapper
	wrote=0 refusals=0
	for i in $(seq 40); do
		"$BB" "${w1[@]}" --file "$TMP/w1/own.dat" > /dev/null 2>&1
		case $? in 0) wrote=$((wrote + 1)) ;; 2) refusals=$((refusals + 1)) ;; esac
	done
	kill $swapper
	wait $swapper 2> /dev/null
	expect_eq "W1: 40 runs against the swap ($wrote wrote the user's file, $refusals refused):" \
		"$((wrote + refusals))" 40
	expect_eq "W1: ... root's file never written" "$(md5sum < "$TMP/victim")" "$victim"
else
	skip "W1: cannot add a user (useradd) or no setpriv"
fi

# 6. SIGKILL in the middle of a write leaves no file: it never had a name.
(cd "$TMP/s" && exec "$BB" -v --trace "$s" --rw write --bs 4k --size 64M --runtime 30 \
	--dsync > /dev/null 2> "$TMP/kill.err") &
pid=$!
background $pid
if wait_until 30 "the workload to start" grep -q "tracing $s" "$TMP/kill.err" &&
	wait_until 30 "a file open on $TMP/s" sh -c "ls -l /proc/$pid/fd | grep -q '$TMP/s/'"; then
	kill -KILL $pid
	wait $pid 2> /dev/null
	expect_eq "SIGKILL: killed" "$?" 137
	expect_eq "SIGKILL: nothing left in the directory" "$(ls -A "$TMP/s" | grep -v -e lost+found -e '^fifo$' -e '^swapfile$' | wc -l)" 0
fi

# 7. Sizes that cannot work are refused before anything is traced; --wrap allows wrapping.
make_loop Z 512M || not_ok "losetup"
z=$(basename "$Z")
refused "--bs 3 --direct" "not a multiple of 512 B" "$Z" \
	--trace "$z" --raw --rw read --bs 3 --count 1 --direct
refused "--bs 1G on a 512 MiB disk" "--bs 1 GiB is larger than $z (512 MiB)" "$Z" \
	--trace "$z" --raw --rw read --bs 1G --count 1
refused "--size 1G on a 512 MiB disk" "add --wrap" "$Z" \
	--trace "$z" --raw --rw read --bs 1M --size 1G --direct
"$BB" --trace "$z" --raw --rw read --bs 1M --size 1G --direct --wrap --json "$TMP/wrap.json" \
	> /dev/null 2> "$TMP/err"
expect_eq "--wrap: exit 0" "$?" 0
expect_eq "--wrap: app bytes 1 GiB" "$(jqv "$TMP/wrap.json" .runs[0].app.bytes)" 1073741824
expect_eq "--wrap: the disk read twice over" "$(jqv "$TMP/wrap.json" .runs[0].block.read.bytes)" 1073741824

finish
