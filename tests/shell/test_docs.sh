#!/usr/bin/env bash
# The man page and the bash completion against the program (no root needed):
# every long option that --help and each command's --help print, and every
# command of the table (src/cli/command_table.c) that --help lists, appears in both;
# every --set knob of src/disk/queue_setting.c and src/disk/boot_knob.c too; the completion,
# run in bash, offers exactly what the program takes; and the man page and
# debian/changelog carry the Makefile's version.
# shellcheck source=tests/shell/docs_lib.sh
. "$(dirname "$0")/docs_lib.sh"

# WORD appears in FILE as a whole option word, not as part of a longer one.
has_word() { grep -qE -- "(^|[^a-z0-9_-])$1([^a-z0-9_-]|$)" "$2"; }

# The command table, as the top-level --help lists it (tests/shell/test_commands.sh holds
# each command's options to the completion and the man page's synopsis).
commands=$(table_commands)
knobs=$(sed -n 's/^\t{ *"\([a-z_]*\)", -\{0,1\}[0-9]*, -\{0,1\}[A-Z0-9_]*, [a-z]* *},.*/\1/p' \
	"$ROOT/src/disk/queue_setting.c")
expect_true "--help lists the command table" grep -qw info <<<"$commands"
expect_eq "src/disk/queue_setting.c's knob table parsed" "$(wc -w <<<"$knobs")" 7
# The settings a reboot changes (src/disk/boot_knob.c): swept with --set too.
boot_knobs=$(sed -n 's/^\t{ *"\([a-z_]*\.[a-z_]*\)", .*/\1/p' "$ROOT/src/disk/boot_knob.c")
expect_eq "src/disk/boot_knob.c's table parsed" "$boot_knobs" xen_blkfront.max_indirect_segments
knobs="$knobs
$boot_knobs"
man_text > "$TMP/man.txt"

"$BB" --help | help_options > "$TMP/opts.trace-implicit"
expect_true "--help is trace's" cmp -s "$TMP/opts.trace-implicit" <("$BB" trace --help | help_options)
for c in $commands; do
	"$BB" "$c" --help | help_options > "$TMP/opts.$c"
done
expect_cmp "--help lists options" "$(wc -l < "$TMP/opts.trace-implicit")" ">" 20

missing_man=() missing_comp=()
while read -r opt; do
	has_word "$opt" "$TMP/man.txt" || missing_man+=("$opt")
	has_word "$opt" "$COMP" || missing_comp+=("$opt")
done < <(sort -u "$TMP"/opts.*)
expect_eq "every --help option is in the man page" "${missing_man[*]}" ""
expect_eq "every --help option is in the completion" "${missing_comp[*]}" ""

for c in $commands; do
	# A COMMANDS entry (".B info" or ".BI info " DEV") and the completion's table.
	expect_true "man page: command $c" grep -qE "^\.BI? \"?$c( |\"|$)" "$MAN"
	expect_true "completion: command $c" grep -qF "[$c]=" "$COMP"
done
for k in $knobs; do
	expect_true "man page: --set $k" has_word "$k" "$TMP/man.txt"
done

# One version: the Makefile's (compiled in), the man page's and the package's.
version=$(sed -n 's/^VERSION := //p' "$ROOT/Makefile")
expect_eq "man page: the Makefile's version" \
	"$(sed -n 's/^\.TH .* "blktrace-bench \([^"]*\)".*/\1/p' "$MAN")" "$version"
expect_eq "debian/changelog: the Makefile's version" \
	"$(sed -n '1s/^blktrace-bench (\([^)]*\)).*/\1/p' "$ROOT/debian/changelog")" "$version"

# The README is where users look first: short, the two setup commands at its top, the
# package's install soon after; the rest lives in doc/, tests/README.md and tools/bench/.
README=$ROOT/README.md
expect_cmp "README: at most 300 lines" "$(wc -l < "$README")" "<=" 300
expect_true "README: make demo in its first 10 lines" grep -q '^make demo ' <(head -n 10 "$README")
expect_true "README: make check in its first 10 lines" grep -q '^make check ' <(head -n 10 "$README")
expect_true "README: the .deb's install in its first 60 lines" \
	grep -q '^apt install \./build/deb/blktrace-bench_' <(head -n 60 "$README")
# The markdown outside fenced code blocks.
md_prose() { awk '/^```/ { code = !code; next } !code' "$1"; }
# The anchors GitHub makes of FILE's headings: lower case, punctuation gone, spaces hyphens.
md_anchors() {
	md_prose "$1" | sed -n 's/^#\{1,6\} \(.*\)/\1/p' |
		sed -e 's/.*/\L&/' -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}
# "FILE: TARGET" for every relative link of FILE whose file or anchor is missing.
broken_links() {
	local md=$1 dir target path frag
	dir=$(dirname "$md")
	md_prose "$md" | grep -o '](\([^)]*\))' | sed 's/^](\(.*\))$/\1/' | while read -r target; do
		case $target in http://* | https://* | mailto:*) continue ;; esac
		path=${target%%#*} frag=
		[ "$path" = "$target" ] || frag=${target#*#}
		[ -n "$path" ] && path=$dir/$path || path=$md
		if [ ! -e "$path" ]; then
			echo "${md#"$ROOT"/}: $target"
		elif [ -n "$frag" ] && ! md_anchors "$path" | grep -qxF -- "$frag"; then
			echo "${md#"$ROOT"/}: $target (no such heading)"
		fi
	done
}
docs=("$README" "$ROOT"/doc/*.md "$ROOT/tests/README.md" "$ROOT/tools/bench/README.md")
for md in "${docs[@]}"; do
	expect_eq "${md#"$ROOT"/}: every relative link resolves" "$(broken_links "$md")" ""
done
# The checker itself: a planted broken link and a planted missing anchor are found.
printf '[a](%s) [b](#nowhere) [c](#a-heading)\n# A heading\n' "no-such-file.md" > "$TMP/planted.md"
expect_eq "the link check finds planted faults" "$(broken_links "$TMP/planted.md" | wc -l)" 2
# User docs speak of the tool, not of the project's tracker or of a day's measurements.
expect_eq "user docs: no internal issue numbers" \
	"$(grep -nE '\b[Ii]ssues? #?[0-9]+|\(#[0-9]+\)|\bPR #?[0-9]+' "$README" "$ROOT/doc/guide.md" "$ROOT/doc/json.md")" ""
expect_eq "user docs: no dated figures" \
	"$(grep -nE '\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b' "$README" "$ROOT/doc/guide.md" \
		"$ROOT/doc/json.md")" ""

# The completion run in bash as bash-completion runs it.
"$COMPLETE" "$COMP" "" > /dev/null 2>&1
if [ $? -eq 77 ]; then
	skip "bash-completion is not installed (tools/deps.sh installs it): completion not run"
	finish
	exit
fi
complete_words() { "$COMPLETE" "$COMP" "$@" 2> /dev/null | tr '\n' ' ' | sed 's/ $//'; }

# --drop-caches drops every file's cached pages, not the target's alone: said where it is offered.
expect_true "--help: --drop-caches says it is the whole machine's page cache" \
	grep -q "Drop the whole machine's page cache" <("$BB" --help)
expect_true "guide: --drop-caches says so too" grep -q "drops the whole" "$ROOT/doc/guide.md"
expect_eq "completion: the commands" "$(complete_words "")" "$(sort <<<"$commands" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "completion: a partial command" "$(complete_words comp)" compare
# trace (with or without its name) offers every option its --help lists, and its --help
# lists only the options it takes: --fail-on-regression belongs to compare and verify,
# --output to report, --knobs and friends to tune and apply, --listen and --textfile to
# serve, --limits-from to import, and trace refuses them in one line.
"$BB" --fail-on-regression 5 > /dev/null 2> "$TMP/refused.err"
expect_eq "trace refuses --fail-on-regression" "$?/$(cat "$TMP/refused.err")" \
	"2/blktrace-bench: --fail-on-regression is not used in passive mode: it is compare's and verify's"
"$BB" --output x.html > /dev/null 2> "$TMP/refused.err"
expect_eq "trace refuses --output" "$?/$(cat "$TMP/refused.err")" \
	"2/blktrace-bench: --output is not used in passive mode: it is report's page (trace and compare take --html FILE)"
"$BB" --limits-from sda > /dev/null 2> "$TMP/refused.err"
expect_eq "trace refuses --limits-from" "$?/$(cat "$TMP/refused.err")" \
	"2/blktrace-bench: --limits-from is not used in passive mode: it is import's: the traced disk's limits"
# An option trace refuses in every mode (passive, workload, command) is another command's.
# (After a flag, the 1 is a command: passive and command mode are then the same test.)
refused_everywhere() {
	"$BB" "$1" 1 2>&1 | grep -Eq "is not used in (passive|command) mode" &&
		"$BB" --rw read "$1" 1 2>&1 | grep -q "is not used in workload mode" &&
		"$BB" "$1" 1 -- true 2>&1 | grep -q "is not used in command mode"
}
sort -u "$TMP"/opts.* > "$TMP/opts.all"
while read -r opt; do
	refused_everywhere "$opt" && echo "$opt"
done < "$TMP/opts.all" > "$TMP/trace.refuses"
expect_eq "trace refuses the options of other commands" "$(tr '\n' ' ' < "$TMP/trace.refuses")" \
	"--abort --apply --budget --dry-run --fail-on-regression --knobs --limits-from --listen --output --root --textfile --undo --workload "
expect_eq "trace's --help lists every option trace takes, and no other" \
	"$(comm -23 "$TMP/opts.all" "$TMP/trace.refuses" | tr '\n' ' ')" \
	"$(tr '\n' ' ' < "$TMP/opts.trace")"
for words in "--" "trace --"; do
	# shellcheck disable=SC2086 # the words are meant to split
	expect_eq "completion: '$words' offers trace's options" "$(complete_words $words)" \
		"$(tr '\n' ' ' < "$TMP/opts.trace" | sed 's/ $//')"
done
for c in $commands; do
	# A command may offer fewer options than it accepts, never one it does not.
	extra=$(comm -23 <("$COMPLETE" "$COMP" "$c" -- 2> /dev/null) "$TMP/opts.$c" | tr '\n' ' ')
	expect_eq "completion: $c offers only its options" "$extra" ""
done
expect_eq "completion: a partial option" "$(complete_words --trace x --fdat)" --fdatasync
expect_eq "completion: --set knobs" "$(complete_words --trace x --set "")" \
	"$(sort <<<"$knobs" | sed 's/$/=/' | tr '\n' ' ' | sed 's/ $//')"
expect_eq "completion: a partial --set knob" "$(complete_words --trace x --set max_s)" \
	max_sectors_kb=
expect_eq "completion: --knobs, the second of a list" \
	"$(complete_words tune x --knobs max_sectors_kb,sch)" max_sectors_kb,scheduler
expect_eq "completion: tune's disk" \
	"$(BLKTRACE_BENCH_SYSFS=$ROOT/tests/fixtures/sysfs/loop complete_words tune lo)" \
	"loop0 loop1"
expect_eq "completion: --rw" "$(complete_words --trace x --rw rand)" "randread randwrite"
expect_eq "completion: --engine" "$(complete_words --trace x --engine "")" "io_uring psync"
export BLKTRACE_BENCH_SYSFS=$ROOT/tests/fixtures/sysfs/loop
expect_eq "completion: disks for --trace" "$(complete_words --trace lo)" "loop0 loop1"
expect_eq "completion: all, or a list for --trace" "$(complete_words serve --trace a)" "all"
expect_eq "completion: the next disk of a list" "$(complete_words --trace loop0,z)" "loop0,zram0"
expect_eq "completion: disks for info" "$(complete_words info "")" "loop0 loop1 zram0"
unset BLKTRACE_BENCH_SYSFS
touch "$TMP/a.json" "$TMP/b.json" "$TMP/notes.txt"
expect_eq "completion: result files for compare" \
	"$(cd "$TMP" && complete_words compare "")" "a.json b.json"
expect_eq "completion: result files for verify" \
	"$(cd "$TMP" && complete_words verify "")" "a.json b.json"
expect_eq "completion: tune --json FILE" "$(cd "$TMP" && complete_words tune x --json a)" a.json
expect_eq "completion: --json FILE" "$(cd "$TMP" && complete_words --trace x --json a)" a.json
expect_eq "completion: --snoop FILE" "$(cd "$TMP" && complete_words --trace x --snoop n)" \
	notes.txt
mkdir "$TMP/promdir"
expect_eq "completion: serve --textfile DIR" "$(cd "$TMP" && complete_words serve --textfile pr)" \
	promdir
# After "--" (or the first word that is not an option) comes a command and its words.
expect_true "completion: the command after --" \
	grep -qx dd <(complete_words --trace x -- d | tr ' ' '\n')
expect_eq "completion: that command's own words" \
	"$(cd "$TMP" && complete_words --trace x -- dd if=/dev/null of=no)" notes.txt

finish
