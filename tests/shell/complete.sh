#!/usr/bin/env bash
# complete.sh SCRIPT|--installed WORD...: what bash completion offers for the last
# WORD after "blktrace-bench" ("" completes a new word), one per line, sorted.
# SCRIPT is sourced as it is; --installed lets bash-completion find the command's
# script in its completions directories, as on a user's first <TAB>.
# Exit 77 when bash-completion itself is not installed.
set -u
bc=/usr/share/bash-completion/bash_completion
if [ ! -r "$bc" ]; then
	echo "complete.sh: no $bc (apt-get install bash-completion)" >&2
	exit 77
fi
# shellcheck source=/dev/null
. "$bc"
src=$1
shift
if [ "$src" = --installed ]; then
	__load_completion blktrace-bench || {
		echo "complete.sh: bash-completion finds no script for blktrace-bench" >&2
		exit 1
	}
else
	# shellcheck source=/dev/null
	. "$src"
fi
fn=$(complete -p blktrace-bench 2> /dev/null | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
[ -n "$fn" ] || { echo "complete.sh: no completion function for blktrace-bench" >&2; exit 1; }
compopt() { :; } # valid only while bash itself is completing

COMP_WORDS=(blktrace-bench "$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="${COMP_WORDS[*]}"
COMP_POINT=${#COMP_LINE}
COMPREPLY=()
"$fn" blktrace-bench "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort -u
