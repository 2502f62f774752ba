#!/usr/bin/env bash
# make check-layers: src/ keeps its layers. Each folder of src/ is a layer, listed here
# from the ground up (doc/ARCHITECTURE.md draws them); a subfolder belongs to its
# folder's layer. A file may include headers of its own layer and of the layers below,
# never above; and no module (a .c and its .h) may reach itself through the includes of
# others (a circle).
#
#   tools/check-layers.sh [SRC_DIR]     default: src (the tests plant violations in a copy)
#
# Exit 0 when both hold; 1 with one line per upward include and per circle.
set -uo pipefail
LAYERS=(base files disk result store trace blktrace analysis output workload serve tune cli)
src=${1:-$(dirname "$0")/../src}

declare -A rank
for i in "${!LAYERS[@]}"; do rank[${LAYERS[i]}]=$i; done

fail=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
while IFS= read -r -d '' f; do
	rel=${f#"$src"/}
	layer=${rel%%/*}
	if [ -z "${rank[$layer]+x}" ]; then
		echo "check-layers: $rel: $layer is no layer (${LAYERS[*]})"
		fail=1
		continue
	fi
	module=${rel%.*}
	while IFS= read -r inc; do
		to=${inc%%/*}
		[ -n "${rank[$to]+x}" ] || continue # bpf/ headers, the skeletons: under every layer
		if [ "${rank[$to]}" -gt "${rank[$layer]}" ]; then
			echo "check-layers: src/$rel includes $inc: $to is above $layer"
			fail=1
		fi
		[ "${inc%.h}" = "$module" ] || echo "$module ${inc%.h}" >> "$edges"
	done < <(sed -n 's/^#include "\([a-z0-9_/]*\.h\)".*/\1/p' "$f")
done < <(find "$src" -name '*.[ch]' -print0 | sort -z)

# tsort names the modules of each circle it breaks after "input contains a loop".
loops=$(sort -u "$edges" | tsort 2>&1 > /dev/null | sed -n 's/^tsort: //p' |
	grep -v 'input contains a loop' | sort -u)
if [ -n "$loops" ]; then
	echo "check-layers: modules that include each other, round a circle:" $loops
	fail=1
fi
exit $fail
