#!/usr/bin/env bash
# doc/json-keys.md against the counter table it is generated from (bpf/blkio_counters.h,
# by tools/json-keys.c: make json-keys), and its keys against a result the program writes
# (import of the blktrace fixture, no root): each names a number of the block object.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"

DOC=$ROOT/doc/json-keys.md
GEN=$ROOT/build/json-keys
SAVED=$TMP/import.json

expect_true "build/json-keys is built (make unit)" test -x "$GEN"
"$GEN" > "$TMP/json-keys.md"
cmp -s "$DOC" "$TMP/json-keys.md" || diff -u "$DOC" "$TMP/json-keys.md" | head -20
expect_true "doc/json-keys.md is the table's (make json-keys writes it)" \
	cmp -s "$DOC" "$TMP/json-keys.md"

"$BB" import "$ROOT/tests/fixtures/blktrace/kernel-6.1" --json "$SAVED" > /dev/null \
	2> "$TMP/import.err"
expect_eq "import writes a result" "$?" 0
# shellcheck disable=SC2016 # the backquotes are markdown
keys=$(sed -n 's/^| `\([a-z_.<>]*\)` |.*/\1/p' "$DOC")
expect_cmp "doc/json-keys.md lists keys" "$(wc -w <<<"$keys")" ">" 10
for k in $keys; do
	for op in read write flush discard other; do
		path=".runs[0].block.${k//<op>/$op}"
		expect_eq "$path in a result is a number" "$(jqv "$SAVED" "$path | type")" number
		[[ $k == *"<op>"* ]] || break
	done
done

finish
