#!/usr/bin/env bash
# The HTML reports in a real browser: a sweep (live --html and `report` of its JSON, the
# same page), a comparison and a passive run with --interval are opened in headless
# Chromium. The screenshot is not blank (pixel statistics, checked against a blank
# page); in the DOM every histogram has one bar per non-empty bucket of the JSON, every
# non-empty histogram of the JSON has its chart, every finding appears in full, the
# verdict rows carry compare's verdicts, the intervals chart a point per interval, a
# stacked device's page every layer with the counts /proc/diskstats confirms; no page
# refers to anything outside itself; bad input is refused in one line.
. "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ] || ! command -v identify > /dev/null; then
	not_ok "chromium and ImageMagick's identify are needed (tools/deps.sh test installs them)"
	finish
	exit 1
fi

# browse MODE FILE OUT: --dump-dom into OUT, or --screenshot OUT (1100x1400).
browse() {
	local args=(--headless --no-sandbox --disable-gpu --hide-scrollbars
		--user-data-dir="$TMP/chromium" --window-size=1100,1400)
	if [ "$1" = dom ]; then
		timeout 120 "$CHROMIUM" "${args[@]}" --dump-dom "file://$2" > "$3" 2> /dev/null
	else
		timeout 120 "$CHROMIUM" "${args[@]}" --screenshot="$3" "file://$2" > /dev/null 2>&1
	fi
}

# not_blank NAME PNG: the standard deviation of the pixels and the number of colours.
not_blank() {
	local stats
	stats=$(identify -format '%[fx:standard_deviation] %k' "$2")
	expect_cmp "$1: screenshot has contrast (stddev of $stats)" "${stats% *}" ">" 0.05
	expect_cmp "$1: screenshot has colours" "${stats#* }" ">" 40
}

# charts DOM: "ID BARS" for every chart with a data-hist (the JSON path of its buckets).
charts() {
	awk 'BEGIN { RS = "<" }
	     /^svg / { id = ""; n = 0
		       if (match($0, /data-hist="[^"]*"/)) id = substr($0, RSTART + 11, RLENGTH - 12) }
	     id != "" && /^rect class="bar/ { n++ }
	     /^\/svg>/ { if (id != "") print id, n; id = "" }' "$1"
}

# The non-empty histograms of a result, as the paths the page names them by.
hist_paths() {
	jq -r '.runs | to_entries[] | .key as $i | .value |
		((.block // {}) | to_entries[] | select(.key != "request_bytes" and
			(.value | type) == "object" and ((.value.buckets // []) | length) > 0) |
			"runs[\($i)].block.\(.key).buckets"),
		((.block.request_bytes.by_op // {}) | to_entries[] | select((.value | length) > 0) |
			"runs[\($i)].block.request_bytes.by_op.\(.key)"),
		(select(((.app.latency_ns.buckets // []) | length) > 0) |
			"runs[\($i)].app.latency_ns.buckets")' "$1" | sort
}

# check_bars NAME DOM JSON MIN: one bar per non-empty bucket, a chart per non-empty
# histogram, at least MIN charts.
check_bars() {
	local id n want bad=0 total=0
	charts "$2" > "$TMP/charts"
	while read -r id n; do
		want=$(jq "[.${id}[]] | length" "$3")
		total=$((total + 1))
		[ "$n" = "$want" ] || { bad=$((bad + 1)); echo "    $id: $n bars, $want buckets"; }
	done < "$TMP/charts"
	expect_cmp "$1: histogram charts in the DOM" "$total" ">=" "$4"
	expect_eq "$1: every chart has one bar per non-empty bucket" "$bad" 0
	expect_eq "$1: a chart for every non-empty histogram of the JSON" \
		"$(cut -d' ' -f1 "$TMP/charts" | sort | tr '\n' ' ')" "$(hist_paths "$3" | tr '\n' ' ')"
}

# The findings section of a DOM as plain text.
findings_text() {
	sed -n '/<section id="findings">/,/<\/section>/p' "$1" | sed -e 's/<[^>]*>//g' \
		-e 's/&gt;/>/g' -e 's/&lt;/</g' -e 's/&quot;/"/g' -e "s/&#39;/'/g" -e 's/&amp;/\&/g'
}

check_findings() { # NAME DOM JSON
	local text missing=0 figures=0 x n=0
	findings_text "$2" > "$TMP/findings.txt"
	while IFS= read -r text; do
		n=$((n + 1))
		grep -qF -- "$text" "$TMP/findings.txt" || { missing=$((missing + 1)); echo "    missing: $text"; }
		for x in $(grep -oE '[0-9]+(\.[0-9]+)?' <<<"$text"); do
			grep -qF -- "$x" "$TMP/findings.txt" || figures=$((figures + 1))
		done
	done < <(jq -r '[.runs[].findings[]?.text] | unique[]' "$3")
	expect_cmp "$1: the result has findings" "$n" ">" 0
	expect_eq "$1: every finding appears in full at the top" "$missing" 0
	expect_eq "$1: every figure of the findings appears" "$figures" 0
}

# self_contained NAME HTML: no src/href leaves the file, no script, no style from elsewhere.
self_contained() {
	expect_eq "$1: no src or href with a scheme or a host" \
		"$(grep -oE '(src|href)="[^"]*"' "$2" | grep -ciE 'http|//|:' || true)" 0
	expect_eq "$1: no http anywhere in attributes" "$(grep -oE '="[^"]*http[^"]*"' "$2" | wc -l)" 0
	expect_eq "$1: no <link>, <script>, @import or url()" \
		"$(grep -ciE '<link|<script|@import|url\(' "$2" || true)" 0
}

make_loop A 256M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")

# 0. The oracle of "not blank": a blank page is blank.
printf '<!DOCTYPE html><html><body></body></html>\n' > "$TMP/blank.html"
browse shot "$TMP/blank.html" "$TMP/blank.png"
expect_cmp "blank page: stddev 0" "$(identify -format '%[fx:standard_deviation]' "$TMP/blank.png")" "<" 0.01

# 1. A sweep of max_sectors_kb: live --html, and `report` of its JSON.
"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct --repeat 2 \
	--set max_sectors_kb=44,128 --recommend --brief --json "$TMP/s.json" \
	--html "$TMP/live.html" > /dev/null 2>&1
expect_eq "sweep with --html: exit 0" "$?" 0
"$BB" report "$TMP/s.json" -o "$TMP/r.html" > "$TMP/out" 2>&1
expect_eq "report: exit 0" "$?" 0
expect_eq "report: nothing on stdout with -o" "$(wc -c < "$TMP/out")" 0
expect_eq "report of the saved result is the live page (but for the file's name)" \
	"$(diff "$TMP/live.html" "$TMP/r.html" | grep -c '^[<>]')" 1
"$BB" report "$TMP/s.json" | cmp -s - "$TMP/r.html"
expect_eq "report without -o: the page on stdout" "$?" 0
"$BB" report "$TMP/s.json" --html "$TMP/r2.html"
expect_eq "report --html FILE: the page -o writes (--html names it for every command)" \
	"$(cmp -s "$TMP/r.html" "$TMP/r2.html"; echo $?)" 0
"$BB" report "$TMP/s.json" --html "$TMP/r3.html" -o "$TMP/r4.html" 2> "$TMP/err"
expect_eq "report --html and -o: exit 2" "$?" 2
expect_eq "... one line naming both" "$(cat "$TMP/err")" \
	"blktrace-bench: --html and -o both name report's page: give one"
expect_eq "... neither written" "$(ls "$TMP"/r3.html "$TMP"/r4.html 2> /dev/null)" ""
browse dom "$TMP/r.html" "$TMP/r.dom"
browse shot "$TMP/r.html" "$TMP/r.png"
not_blank "sweep report" "$TMP/r.png"
check_bars "sweep report" "$TMP/r.dom" "$TMP/s.json" 28
check_findings "sweep report" "$TMP/r.dom" "$TMP/s.json"
self_contained "sweep report" "$TMP/r.html"
# Runs the kernel skipped of our programs: a fact of the page when there are any, as read
# back from the JSON (a trace here rarely skips one: the count is set in a copy).
expect_eq "sweep report: skipped runs said only when there are any" \
	"$(grep -c 'runs of our programs' "$TMP/r.html")" \
	"$(jqv "$TMP/s.json" '.tracer.skipped_runs | if . > 0 then 1 else 0 end')"
jq '.tracer.skipped_runs = 5' "$TMP/s.json" > "$TMP/sk.json"
"$BB" report "$TMP/sk.json" -o "$TMP/sk.html"
expect_true "report: 5 skipped runs said" grep -q 'the kernel skipped 5 runs of our programs' "$TMP/sk.html"
sweep=$(awk 'BEGIN { RS = "<" } /^svg .*data-chart="sweep"/ { on = 1 } on { print "<" $0 }
	     /^\/svg>/ { on = 0 }' "$TMP/r.dom")
expect_true "sweep chart: the swept values on its x axis" grep -q '>44</text>.*>128</text>' <<<"$(tr -d '\n' <<<"$sweep")"
expect_true "sweep chart: throughput, request size and limit-bound panels" \
	grep -q 'app MB/s.*request size.*limit-bound' <<<"$(tr -d '\n' <<<"$sweep")"
expect_eq "sweep chart: a throughput point per value" "$(grep -c '^<title>[^<]*MB/s +-' <<<"$sweep")" 2
expect_true "sweep chart: the recommendation marked" grep -q 'class="mark rec"' <<<"$sweep"

# 2. A comparison: max_sectors_kb 44 against 128.
for v in 44 128; do
	"$BB" --trace "$a" --raw --rw read --bs 1M --size 16M --direct --repeat 3 \
		--set max_sectors_kb=$v --brief --json "$TMP/$v.json" > /dev/null 2>&1
done
"$BB" compare "$TMP/44.json" "$TMP/128.json" --html "$TMP/c.html" > "$TMP/out" 2>&1
expect_eq "compare --html: exit 0" "$?" 0
"$BB" compare "$TMP/44.json" "$TMP/128.json" --json > "$TMP/c.json"
browse dom "$TMP/c.html" "$TMP/c.dom"
browse shot "$TMP/c.html" "$TMP/c.png"
not_blank "comparison" "$TMP/c.png"
self_contained "comparison" "$TMP/c.html"
expect_eq "comparison: a row per metric, coloured by compare's verdict" \
	"$(grep -oE '<tr class="[a-z]+"><td>[a-z_.0-9]+</td>' "$TMP/c.dom" |
	   sed -E 's/<tr class="([a-z]+)"><td>([^<]*)<.*/\2 \1/' | sort | tr '\n' ' ')" \
	"$(jq -r '.metrics[] | "\(.name) \(.verdict)"' "$TMP/c.json" | sort | tr '\n' ' ')"
expect_true "comparison: request sizes moved (a higher row: larger is not better)" grep -q '<tr class="higher"><td>block.request_bytes.mean' "$TMP/c.dom"
expect_cmp "comparison: A's bars" "$(grep -c '<rect class="bar a"' "$TMP/c.dom")" ">" 0
expect_cmp "comparison: B's bars" "$(grep -c '<rect class="bar b"' "$TMP/c.dom")" ">" 0
expect_eq "comparison: latency CDFs of A and B" "$(grep -c '<path class="line [ab]"' "$TMP/c.dom")" 6
expect_true "comparison: the setting that differs" grep -q '<td>max_sectors_kb</td><td>44</td><td>128</td>' "$TMP/c.dom"

# 3. Passive mode with --interval: the charts over time, a point per interval.
# The writer stops at a file, after its dd: nothing holds the disk when cleanup detaches it.
( while [ ! -e "$TMP/stop" ]; do dd if=/dev/zero of="$A" bs=64k count=64 oflag=direct 2> /dev/null; done ) &
writer=$!
background "$writer"
"$BB" --trace "$a" --duration 2.2 --interval 0.5 --json "$TMP/p.json" --html "$TMP/p.html" > /dev/null 2>&1
expect_eq "passive --html: exit 0" "$?" 0
touch "$TMP/stop"
wait "$writer" 2> /dev/null
n=$(jqv "$TMP/p.json" '.runs[0].intervals | length')
expect_cmp "passive: intervals kept in the JSON" "$n" ">=" 3
"$BB" report "$TMP/p.json" -o "$TMP/pr.html"
browse dom "$TMP/pr.html" "$TMP/p.dom"
dots=$(awk 'BEGIN { RS = "<" } /^svg .*data-chart="runs\[0\]\.intervals"/ { on = 1 }
	    on && /^circle class="dot/ { n++ } /^\/svg>/ { on = 0 } END { print n + 0 }' "$TMP/p.dom")
expect_eq "passive: 6 lines over time, a point per interval" "$dots" "$((6 * n))"
check_bars "passive report" "$TMP/p.dom" "$TMP/p.json" 7

# 5. A stack: a loop device whose backing file is on another loop device's ext4. The
# page has both in its stack table with the reads and writes the JSON counted, which
# /proc/diskstats confirms, and a bar per device and direction that moved bytes.
stack_rows() { # DOM: "device|reads / writes|bytes per byte above" per row of the table
	sed -n '/<table class="stack">/,/<\/table>/p' "$1" | tr -d '\n' | sed 's|</tr>|\n|g' |
		grep '<td' | sed -e 's|</td><td[^>]*>|\t|g' -e 's/<[^>]*>//g' | awk -F'\t' '{ print $1 "|" $3 "|" $6 }'
}
make_loop LOW 256M || not_ok "losetup"
low=$(basename "$LOW")
mkdir "$TMP/low"
if mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOW" && mount "$LOW" "$TMP/low"; then
	mounted "$TMP/low"
	truncate -s 64M "$TMP/low/top.img"
	sync
fi
if TOP=$(losetup -f --show "$TMP/low/top.img"); then
	took_loop "$TOP"
	loop_defaults "$TOP"
	top=$(basename "$TOP")
	w0=$(diskstat "$LOW" 7) t0=$(diskstat "$TOP" 7)
	"$BB" --trace "$top" --raw --destructive --rw write --bs 1M --size 16M --direct --fsync \
		--json "$TMP/st.json" --html "$TMP/st.html" > /dev/null 2>&1
	expect_eq "stack --html: exit 0" "$?" 0
	w1=$(diskstat "$LOW" 7) t1=$(diskstat "$TOP" 7)
	detach_loop "$TOP"
	umount "$TMP/low"
	expect_eq "stack: the layer under $top, found by its backing file" \
		"$(jqv "$TMP/st.json" '[.stack.layers[] | .device.name + ":" + .link] | join(",")')" \
		"$low:backing_file"
	expect_eq "stack: $top's bytes written, as /proc/diskstats counts them" \
		"$(jqv "$TMP/st.json" '.runs[0].block.write.bytes')" "$(((t1 - t0) * 512))"
	expect_eq "stack: $low's bytes written, as /proc/diskstats counts them" \
		"$(jqv "$TMP/st.json" '.runs[0].layers[0].block.write.bytes')" "$(((w1 - w0) * 512))"
	"$BB" report "$TMP/st.json" -o "$TMP/str.html"
	expect_eq "stack: report of the saved result is the live page (but for the file's name)" \
		"$(diff "$TMP/st.html" "$TMP/str.html" | grep -c '^[<>]')" 1
	browse dom "$TMP/str.html" "$TMP/st.dom"
	expect_eq "stack: a row per device, with the JSON's reads / writes and bytes per byte above" \
		"$(stack_rows "$TMP/st.dom" | tr '\n' ' ')" \
		"$(jq -r '.runs[0] | "\(.block.read.requests) / \(.block.write.requests)",
			(.layers[] | "\(.device)|\(.block.read.requests) / \(.block.write.requests)|\(.bytes_per_above)")' \
			"$TMP/st.json" | { read -r t; echo "$top|$t|-"; while IFS='|' read -r d n ratio; do
				printf '%s|%s|%.2fx\n' "$d" "$n" "$ratio"; done; } | tr '\n' ' ')"
	expect_eq "stack: a bar per device and direction that moved bytes" \
		"$(awk 'BEGIN { RS = "<" } /^svg .*data-chart="runs\[0\]\.layers"/ { on = 1 }
			on && /^rect class="bar/ { n++ } /^\/svg>/ { on = 0 } END { print n + 0 }' "$TMP/st.dom")" \
		"$(jq '[.runs[0] | .block, .layers[].block | .read.bytes, .write.bytes | select(. > 0)] | length' "$TMP/st.json")"
	check_findings "stack report" "$TMP/st.dom" "$TMP/st.json"
	expect_true "stack: the finding across the layers" \
		grep -q "$top writes: .* on $low" <<<"$(findings_text "$TMP/st.dom")"
else
	not_ok "losetup on a file of $low's ext4"
fi

# 4. Bad input: one line, exit 2, nothing written where the user did not ask.
"$BB" report "$TMP/missing.json" -o "$TMP/m.html" > /dev/null 2> "$TMP/err"
expect_eq "missing result: exit 1 (cannot be opened: a runtime failure)" "$?" 1
expect_eq "missing result: one line" "$(wc -l < "$TMP/err")" 1
expect_true "missing result: names the file" grep -q "missing.json: No such file" "$TMP/err"
expect_true "missing result: no page left behind" test ! -e "$TMP/m.html"
sum=$(md5sum < "$TMP/s.json")
"$BB" report "$TMP/s.json" -o "$TMP/s.json" > /dev/null 2> "$TMP/err"
expect_eq "-o the result itself: exit 2" "$?" 2
expect_eq "-o the result itself: the result untouched" "$(md5sum < "$TMP/s.json")" "$sum"
"$BB" report "$TMP/s.json" -o "$A" 2> "$TMP/err"
expect_eq "-o a block device: exit 2" "$?" 2
expect_eq "-o a block device: one line" "$(wc -l < "$TMP/err")" 1
# A character device is written in place (the output policy): /dev/null takes the page.
"$BB" report "$TMP/s.json" -o /dev/null 2> "$TMP/err"
expect_eq "-o /dev/null: exit 0, written in place" "$?" 0
expect_true "-o /dev/null: still the device" test -c /dev/null
"$BB" report "$TMP/s.json" --rw read > /dev/null 2> "$TMP/err"
expect_eq "report --rw: refused, exit 2" "$?" 2
"$BB" report > /dev/null 2> "$TMP/err"
expect_eq "report without a file: exit 2" "$?" 2
jq '.runs[0].block.device_ns.mean = "fast"' "$TMP/s.json" > "$TMP/broken.json"
"$BB" report "$TMP/broken.json" > "$TMP/out" 2> "$TMP/err"
expect_eq "a wrong field: exit 2" "$?" 2
expect_true "a wrong field: named by its path" grep -q 'broken.json: runs\[0\].block.device_ns.mean is a string' "$TMP/err"
expect_eq "a wrong field: nothing on stdout" "$(wc -c < "$TMP/out")" 0
"$BB" --trace "$a" --duration 0.1 --json "$TMP/x.json" --html "$TMP/x.json" > /dev/null 2> "$TMP/err"
expect_eq "--html the --json file: exit 2" "$?" 2
expect_true "--html the --json file: says so" grep -q -- "--html.*the --json output" "$TMP/err"
"$BB" compare "$TMP/44.json" "$TMP/128.json" --json --html - > /dev/null 2> "$TMP/err"
expect_eq "compare --json and --html -: exit 2" "$?" 2
"$BB" info "$a" --html "$TMP/i.html" > /dev/null 2> "$TMP/err"
expect_eq "info --html: refused, exit 2" "$?" 2
expect_true "info --html: nothing written" test ! -e "$TMP/i.html"

finish
