#!/usr/bin/env bash
# A --state-dir below a directory an unprivileged user may write: what root reads there
# (the state a dead sweep left) and writes into sysfs from it must not be the user's.
# The user swaps the checked directory for one of their own the moment the tool creates
# its lock file in it (inotify, renameat2 RENAME_EXCHANGE: swap_on_create.py); strace
# holds the tool in its flock() for a second meanwhile, so the swap always lands between
# the tool's check of the directory and its use: deterministic, not a race to win. The
# tool opened the directory once and reads through that descriptor: the user's state
# file is never read, sysfs keeps its values. A directory the user made is refused.
. "$(dirname "$0")/lib.sh"

command -v strace > /dev/null || { skip "no strace"; finish; exit 0; }
make_loop A 64M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
msk=/sys/block/$a/queue/max_sectors_kb
set_sysfs "$msk" "$(cat "$msk")" # a safety net: the tool must not change it
msk0=$(cat "$msk")
make_user u || { not_ok "useradd"; finish; exit 1; }
as_user() { setpriv --reuid "$u" --regid "$u" --clear-groups -- "$@"; }

# P: the user's; P/st: root's state directory in it, as the tool makes it.
chmod 711 "$TMP"
p=$TMP/p
mkdir "$p" && chown "$u:" "$p"
mkdir "$p/st"
# The user's own directory with a state file that passes every check of its content: the
# one a killed sweep of the disk left (its value the one in force: nothing changes), its
# original edited to 8, the value in force said to be the sweep's.
"$BB" --trace "$a" --raw --rw read --bs 64k --runtime 60 --set "max_sectors_kb=$msk0" \
	--state-dir "$TMP/gen" > /dev/null 2>&1 &
pid=$!
background $pid
wait_until 30 "the sweep's state file" test -s "$TMP/gen/$a.state"
kill -KILL $pid
wait $pid 2> /dev/null
as_user mkdir "$p/fake"
{ sed "/^wrote/d; s/^set max_sectors_kb .*/set max_sectors_kb 8/" "$TMP/gen/$a.state" &&
	echo "wrote max_sectors_kb $msk0"; } | as_user sh -c "cat > '$p/fake/$a.state'"
# The old format too: a file without diskseq and boot lines.
as_user sh -c "printf '%s\n' 'blktrace-bench sweep state 1' 'pid 1' \
	'disk $a $(cat "/sys/block/$a/dev")' 'set max_sectors_kb 8' > '$p/fake/$a.state.1'"

# 1. The swap after the check.
cp "$ROOT/tests/e2e/swap_on_create.py" "$p/swap.py"
as_user /usr/bin/python3 "$p/swap.py" "$p/st" "$p/fake" "$a.lock" "$p/ready" > "$TMP/swap.out" \
	2>&1 &
background $!
wait_until 10 "the user's watch" test -e "$p/ready"
strace -f -qq -o /dev/null -e trace=flock -e inject=flock:delay_enter=1s \
	"$BB" restore "$a" --state-dir "$p/st" > /dev/null 2> "$TMP/restore.err"
expect_eq "swapped: exit 0" "$?" 0
wait_until 10 "the swap" grep -q swapped "$TMP/swap.out"
expect_eq "swapped: the user's directory is at the path now" "$(stat -c %U "$p/st")" "$u"
expect_eq "swapped: max_sectors_kb untouched" "$(cat "$msk")" "$msk0"
expect_true "swapped: nothing of the user's restored" grep -q "nothing to restore on $a" \
	"$TMP/restore.err"
expect_true "swapped: the user's state file unread, still there" test -e "$p/st/$a.state"

# 2. The user's directory at the path from the start: refused, one line, exit 2.
"$BB" restore "$a" --state-dir "$p/st" > /dev/null 2> "$TMP/refused.err"
expect_eq "the user's directory: exit 2" "$?" 2
expect_true "the user's directory: says why" grep -q "$p/st belongs to UID $(id -u "$u"): not trusting" \
	"$TMP/refused.err"
expect_eq "the user's directory: one line" "$(wc -l < "$TMP/refused.err")" 1
# A link to it (or to anything) is not followed.
ln -s "$p/st" "$TMP/link"
"$BB" restore "$a" --state-dir "$TMP/link" > /dev/null 2> "$TMP/link.err"
expect_eq "a link: exit 2" "$?" 2
expect_true "a link: says so" grep -q "$TMP/link is a symbolic link" "$TMP/link.err"

# 3. The user's file, had it been in root's directory, would have been applied: the
# test's attack is real.
mkdir -m 755 "$TMP/own" "$TMP/own2"
cp "$p/st/$a.state" "$TMP/own2/"
"$BB" restore "$a" --state-dir "$TMP/own2" > /dev/null 2>&1
expect_eq "the user's file, in root's directory: applied" "$(cat "$msk")" 8
echo "$msk0" > "$msk"

# 4. A state file without diskseq and boot lines, in root's own directory: refused. A
# version-2 file as a sweep writes it, those two lines taken out (not an older version's,
# which is refused for its first line alone).
sed '/^diskseq /d; /^boot /d' "$TMP/gen/$a.state" > "$TMP/own/$a.state"
expect_true "the file is this version's" grep -q '^blktrace-bench sweep state 2$' \
	"$TMP/own/$a.state"
"$BB" restore "$a" --state-dir "$TMP/own" > /dev/null 2> "$TMP/old.err"
expect_eq "no diskseq, no boot: exit 1" "$?" 1
expect_true "no diskseq, no boot: not ours" grep -q "is not a state file of this tool" \
	"$TMP/old.err"
expect_eq "no diskseq, no boot: max_sectors_kb untouched" "$(cat "$msk")" "$msk0"

finish
