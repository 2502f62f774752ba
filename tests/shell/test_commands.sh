#!/usr/bin/env bash
# The command table (src/cli/command_table.c) against what the user reads and types (no root
# needed). For every command the top-level --help lists (it prints the table), the
# options its own --help lists (the options of its modes: the table's too) are exactly
# what the bash completion offers for it; the man page's SYNOPSIS names no option the
# command refuses, and names each one it takes, or points to an options section that
# describes it ("[options]", "[workload options]"); every option has its own entry there.
# shellcheck source=tests/shell/docs_lib.sh
. "$(dirname "$0")/docs_lib.sh"

# The long options named in a text.
named_options() { grep -oE -- '--[a-z][a-z0-9-]*' | sort -u; }
# One line of words, for messages.
line() { tr '\n' ' ' | sed 's/ $//'; }

# The commands: the lines under "Commands" in the top-level --help.
commands=$(table_commands)
expect_true "--help lists the command table" grep -qx info <<<"$commands"
expect_cmp "--help lists every command" "$(wc -w <<<"$commands")" ">=" 11

# The man page as text ("\-" a hyphen, fonts dropped), its SYNOPSIS cut into one file
# per command: a block starts at ".B blktrace-bench [NAME]" ("[trace]" on the next line
# when the name is left out), and ends at ".br".
man_text > "$TMP/man.txt"
awk -v dir="$TMP" '
	/^\.SH/ { in_syn = ($0 == ".SH SYNOPSIS") }
	!in_syn { next }
	/^\.B blktrace-bench/ { cmd = $3 ? $3 : "?" }
	/^\.br/ { cmd = ""; next }
	cmd == "?" && !/^\.B/ { cmd = ($0 ~ /^\[trace\]/) ? "trace" : "general" }
	cmd != "" && cmd != "?" { print > (dir "/syn." cmd) }
' "$TMP/man.txt"
# The options an options section describes: ".TP" then ".B --x" or ".BR -x \", \" --x".
section_options() { # SECTION-PATTERN
	awk -v pat="$1" '/^\.SH/ { in_sec = ($0 ~ pat) } in_sec && prev == ".TP" { print }
		{ prev = $0 }' "$TMP/man.txt" | named_options
}
section_options ' OPTIONS$' > "$TMP/described"
section_options '^\.SH WORKLOAD OPTIONS$' > "$TMP/described.workload"

"$COMPLETE" "$COMP" "" > /dev/null 2>&1
have_completion=$?

for c in $commands; do
	"$BB" "$c" --help | help_options > "$TMP/help.$c"
	expect_cmp "$c --help lists options" "$(wc -l < "$TMP/help.$c")" ">" 3

	# The completion: exactly the options the command takes.
	if [ "$have_completion" -ne 77 ]; then
		expect_eq "completion: $c -- offers exactly $c's options" \
			"$("$COMPLETE" "$COMP" "$c" -- 2> /dev/null | line)" "$(line < "$TMP/help.$c")"
	fi

	# The man page: a synopsis, naming no option the command refuses...
	syn=$TMP/syn.$c
	if ! expect_true "man page: a SYNOPSIS of $c" test -s "$syn"; then
		continue
	fi
	named_options < "$syn" > "$TMP/named.$c"
	expect_eq "man page: $c's SYNOPSIS names only options $c takes" \
		"$(comm -23 "$TMP/named.$c" "$TMP/help.$c" | line)" ""
	# ...and every one it takes, or the section that describes it.
	cp "$TMP/named.$c" "$TMP/covered.$c"
	grep -q '\[options\]' "$syn" && cat "$TMP/described" >> "$TMP/covered.$c"
	grep -q '\[workload options\]' "$syn" && cat "$TMP/described.workload" >> "$TMP/covered.$c"
	expect_eq "man page: $c's SYNOPSIS covers every option $c takes" \
		"$(grep -vxE -- '--(help|usage|version)' "$TMP/help.$c" |
			comm -23 - <(sort -u "$TMP/covered.$c") | line)" ""
	expect_eq "man page: every option of $c has an entry" \
		"$(comm -23 "$TMP/help.$c" "$TMP/described" | line)" ""
done
if [ "$have_completion" -eq 77 ]; then
	skip "bash-completion is not installed (tools/deps.sh installs it): completion not run"
else
	# Without a command name, the options are trace's.
	expect_eq "completion: -- offers exactly trace's options" \
		"$("$COMPLETE" "$COMP" -- 2> /dev/null | line)" "$(line < "$TMP/help.trace")"
fi
expect_true "man page: the general synopsis names --help" grep -q -- --help "$TMP/syn.general"

finish
