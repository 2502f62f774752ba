#!/usr/bin/env bash
# serve against bad HTTP (tests/e2e/http_clients.py, 127.0.0.1 only): garbage, huge
# headers, methods other than GET and HEAD, slow clients (64 of them, all it takes),
# one connection over the limit, 1000 connections at once. It must answer or close,
# never crash or stall: scrapes go on meanwhile, and the tracer keeps counting exactly.
# Its memory stays flat over 10,000 scrapes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

for tool in curl python3; do
	command -v "$tool" > /dev/null ||
		{ skip "$tool missing (tools/deps.sh test installs it)"; finish; exit 0; }
done
CLIENTS=$ROOT/tests/e2e/http_clients.py
make_loop A 64M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
start_serve PORT "$TMP/serve.log" --trace "$a" || { finish; exit 1; }
# serve opens libmicrohttpd (and the TLS libraries it brings) itself; a trace never maps it.
expect_true "serve has libmicrohttpd mapped" grep -q libmicrohttpd "/proc/$SERVE_PID/maps"
"$BB" -v --trace "$a" --duration 30 > /dev/null 2> "$TMP/plain.err" &
plain=$!
background "$plain"
if wait_until 10 "the tracing line" grep -q '^blktrace-bench: tracing' "$TMP/plain.err"; then
	expect_eq "a trace maps no libmicrohttpd" "$(grep -c libmicrohttpd "/proc/$plain/maps")" 0
fi
kill -INT "$plain" 2> /dev/null
wait "$plain"
expect_eq "that trace, interrupted: exit status" "$?" 0
alive() { kill -0 "$SERVE_PID" 2> /dev/null && [ "$(metric "$PORT" blktrace_bench_traced_devices)" = 1 ]; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$SERVE_PID/status"; }
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }

r=$(python3 "$CLIENTS" garbage "$PORT")
expect_true "garbage: answered 400 or closed ($r)" grep -qE 'status=(400|closed)' <<<"$r"
r=$(python3 "$CLIENTS" huge "$PORT" 200000)
expect_true "a 200 KB header: refused (431) or closed ($r)" grep -qE 'status=(431|413|400|closed)' <<<"$r"
r=$(python3 "$CLIENTS" methods "$PORT")
expect_eq "methods: only GET and HEAD" "$r" \
	"POST/metrics=405 allow=GET,HEAD PUT/metrics=405 HEAD/metrics=200 head_body=0 GET/=200 GET/nope=404"
for h in ';' ',,;;' 'application/openmetrics-text;q=' "$(printf 'x%.0s' $(seq 1 2000))"; do
	curl -s -o /dev/null -w '%{http_code}\n' -H "Accept: $h" "http://127.0.0.1:$PORT/metrics" >> "$TMP/accept.out"
done
expect_eq "odd Accept headers: served as text" "$(sort -u "$TMP/accept.out")" 200
expect_true "alive after garbage, huge headers and wrong methods" alive

# Slow clients hold connections; scrapes still go through, and dd is counted exactly.
w0=$(diskstat "$A" 5)
python3 "$CLIENTS" slow "$PORT" 30 4 > "$TMP/slow.out" &
slow=$!
dd if=/dev/zero of="$A" bs=4k count=300 oflag=direct status=none
wait "$slow"
r=$(cat "$TMP/slow.out")
w=$(($(diskstat "$A" 5) - w0))
expect_cmp "30 slow clients: scrapes went through ($r)" "$(field "$r" scrapes_ok)" ">=" 10
expect_cmp "30 slow clients: no scrape took a second" "$(field "$r" slowest_ms)" "<" 1000
wait_until 5 "the writes meanwhile" metric_is "$PORT" \
	"blktrace_bench_requests_total{device=\"$a\",driver=\"loop\",op=\"write\"}" "$w" &&
	ok "the tracer counted the writes made meanwhile exactly ($w)"

# 64 clients that never finish a request, a byte every 4 s (they held every connection,
# and every scrape hung): each scrape still answered at once (the client that waited
# longest gives up its place), each of them cut 5 s into its request at the latest.
r=$(python3 "$CLIENTS" loris "$PORT" 64 12 4)
expect_eq "64 clients a byte every 4 s: every scrape answered ($r)" \
	"$(field "$r" scrapes_ok)" "$(field "$r" scrapes)"
expect_cmp "64 slow clients: no scrape took a second" "$(field "$r" slowest_ms)" "<" 1000
expect_true "64 slow clients: each cut within 5 s and a tick ($(field "$r" last_cut_s) s)" \
	awk -v t="$(field "$r" last_cut_s)" 'BEGIN { exit !(t >= 0 && t <= 7) }'
# One over the limit, at once: closed at once, not left waiting in the listen backlog;
# half a second later a scrape takes the place of an idle connection.
r=$(python3 "$CLIENTS" overlimit "$PORT" 64)
expect_eq "64 idle, one more at once: closed ($r)" "$(field "$r" extra)" closed
expect_cmp "... at once" "$(field "$r" extra_ms)" "<" 1000
expect_eq "then a scrape: answered" "$(field "$r" scrape)" 200
expect_true "alive after slow and idle clients" alive

# 1000 connections at once: served up to the limit, the rest closed, none left hanging.
t0=$(date +%s%N)
r=$(python3 "$CLIENTS" storm "$PORT" 1000)
ms=$((($(date +%s%N) - t0) / 1000000))
expect_eq "1000 at once: every one answered or closed ($r)" "$(field "$r" hung)" 0
expect_cmp "1000 at once: some served" "$(field "$r" ok)" ">" 0
expect_cmp "1000 at once: over within 15 s ($ms ms)" "$ms" "<" 15000
expect_true "alive after 1000 at once" alive

# Memory: flat over 10,000 scrapes (after the first 1,000 warmed it up).
python3 "$CLIENTS" scrapes "$PORT" 1000 > /dev/null
rss0=$(rss_kib)
r=$(python3 "$CLIENTS" scrapes "$PORT" 10000)
rss1=$(rss_kib)
expect_eq "10,000 scrapes served ($r)" "$(field "$r" ok)" 10000
expect_cmp "RSS flat over 10,000 scrapes: ${rss0} -> ${rss1} KiB" "$rss1" "<=" $((rss0 + 1024))
expect_true "alive at the end" alive
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
expect_eq "SIGTERM: exit 0" "$?" 0
finish
