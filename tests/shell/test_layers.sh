#!/usr/bin/env bash
# make check-layers (tools/check-layers.sh): src/ as it is passes; a copy of it with an
# include that goes up a layer, one with two modules that include each other and one
# with a folder that is no layer each fail, naming what is wrong.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"

CHECK=$ROOT/tools/check-layers.sh
# The copies of src/ go in lib.sh's TMP, which its cleanup removes at exit.

out=$("$CHECK" "$ROOT/src" 2>&1)
expect_eq "src/ keeps its layers: exit 0" "$?" 0
expect_eq "... and says nothing" "$out" ""

# A fresh copy of src/ for each planted violation.
plant() {
	rm -rf "$TMP/src"
	cp -r "$ROOT/src" "$TMP/src"
}

plant
sed -i '0,/^#include "/s//#include "cli\/cli.h"\n&/' "$TMP/src/base/diag.c"
out=$("$CHECK" "$TMP/src" 2>&1)
expect_eq "base/ including cli/cli.h: exit 1" "$?" 1
expect_eq "... first, one line naming the include and the layers" "$(head -1 <<<"$out")" \
	"check-layers: src/base/diag.c includes cli/cli.h: cli is above base"

plant
# series.h is included by report.h: report.h back from series.h closes a circle.
sed -i '0,/^#include "/s//#include "analysis\/report.h"\n&/' "$TMP/src/analysis/series.h"
out=$("$CHECK" "$TMP/src" 2>&1)
expect_eq "analysis/series.h including analysis/report.h: exit 1" "$?" 1
expect_true "... names both modules of the circle" \
	grep -q "round a circle:.*analysis/report.*analysis/series\|round a circle:.*analysis/series.*analysis/report" <<<"$out"
expect_eq "... and no upward include" "$(grep -c "is above" <<<"$out")" 0

plant
mkdir "$TMP/src/misc"
printf '#include "base/diag.h"\n' > "$TMP/src/misc/stray.c"
out=$("$CHECK" "$TMP/src" 2>&1)
expect_eq "a folder that is no layer: exit 1" "$?" 1
expect_true "... named" grep -q "check-layers: misc/stray.c: misc is no layer" <<<"$out"

finish
