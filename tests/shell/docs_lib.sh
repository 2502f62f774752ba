# What the shell tests of the docs share: the files they read, the options a --help
# lists, the man page as text, and the commands of the table as --help lists them.
# shellcheck shell=bash disable=SC2034 # MAN, COMP, COMPLETE: for the tests sourcing it
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

MAN=$ROOT/doc/blktrace-bench.8
COMP=$ROOT/completion/blktrace-bench.bash
COMPLETE=$ROOT/tests/shell/complete.sh

# Long options of a --help text: "  -d, --duration=SEC  ..." and "      --brief  ...".
help_options() {
	sed -n 's/^ \{1,\}\(-[^ -], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' | sort -u
}
# The man page as text: "\-" is a hyphen, "\fB" a font change.
man_text() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN"; }
# The command table (src/cli/command_table.c), as the top-level --help lists it.
table_commands() {
	"$BB" --help | sed -n '/^Commands/,/^$/s/^  \([a-z]\{1,\}\)\( .*\)\{0,1\}$/\1/p'
}
