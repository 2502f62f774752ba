#!/usr/bin/env bash
# serve under a real Prometheus (Debian's prometheus package): started here on a free
# localhost port with a temporary configuration and storage, scraping serve every
# second while fio writes a loop disk. Its HTTP API must see the request counter grow by
# the disk's /proc/diskstats delta over the same window, and histogram_quantile(0.5, ...)
# of the request sizes must land in the le bucket that holds the p50 blktrace-bench
# itself reports for the same requests.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

for tool in prometheus curl fio python3; do
	command -v "$tool" > /dev/null ||
		{ skip "$tool missing (tools/deps.sh test installs it)"; finish; exit 0; }
done
make_loop A 256M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A")
start_serve PORT "$TMP/serve.log" --trace "$a" || { finish; exit 1; }

# A free port for Prometheus (taken back the moment it is found).
PPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$TMP/prometheus.yml" << EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: blktrace-bench
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" > "$TMP/prometheus.log" 2>&1 &
PROM=$!
background "$PROM"
API="http://127.0.0.1:$PPORT/api/v1"

# query PROMQL: its one value now ("" when the result is empty).
query() {
	curl -s -m 5 --data-urlencode "query=$1" "$API/query" | jq -r '.data.result[0].value[1] // empty'
}
query_is() { [ "$(query "$1")" = "$2" ]; }
target_up() { query_is 'up{job="blktrace-bench"}' 1; }

wait_until 60 "Prometheus to scrape serve ($(tail -3 "$TMP/prometheus.log" | tr '\n' ' '))" target_up ||
	{ finish; exit 1; }
ok "Prometheus scrapes serve (up == 1)"
# OpenMetrics with each counter's _created, the disk's own up: parsed, stored.
wait_until 10 "the disk's up" query_is "blktrace_bench_up{device=\"$a\"}" 1 &&
	ok "Prometheus: blktrace_bench_up of $a is 1"
expect_cmp "Prometheus: the write counter's _created, when serve began counting" \
	"$(query "blktrace_bench_requests_created{device=\"$a\",op=\"write\"}")" ">" 1.5e9

writes="blktrace_bench_requests_total{device=\"$a\",op=\"write\"}"
# The window opens once Prometheus has a sample of the idle disk.
wait_until 10 "a sample of $a's write counter" query_is "$writes" 0
w0=$(diskstat "$A" 5)
"$BB" --trace "$a" --json "$TMP/own.json" -- fio --name=mix --filename="$A" --rw=randwrite \
	--bssplit=4k/30:44k/50:128k/20 --norandommap --direct=1 --ioengine=psync --size=200M --runtime=4 \
	--time_based --output="$TMP/fio.out" > /dev/null
expect_eq "fio traced: exit status" "$?" 0
w=$(($(diskstat "$A" 5) - w0))
expect_cmp "fio wrote requests" "$w" ">" 100
expect_eq "blktrace-bench's own count == the diskstats delta" \
	"$(jqv "$TMP/own.json" .runs[0].block.write.requests)" "$w"
wait_until 10 "Prometheus's write counter at $w" query_is "$writes" "$w" &&
	ok "Prometheus: requests_total{op=write} grew by the diskstats delta over the window ($w)"
expect_cmp "Prometheus saw it grow during the run (samples between 0 and $w)" \
	"$(query "count_over_time(($writes > 0 < $w)[1m:1s])")" ">=" 1

# The median request size, Prometheus's estimate against ours, bucket for bucket.
p50=$(jqv "$TMP/own.json" .runs[0].block.request_bytes.p50)
q50=$(query "histogram_quantile(0.5, sum by (le) (blktrace_bench_request_bytes_bucket{device=\"$a\",op=\"write\"}))")
les=$(curl -s "http://127.0.0.1:$PORT/metrics" |
	sed -n "s/^blktrace_bench_request_bytes_bucket{device=\"$a\",.*op=\"write\",le=\"\([0-9]*\)\"}.*/\1/p")
bucket=$(awk -v p="$p50" 'BEGIN { lo = 0 } { if (p <= $1) { print lo " " $1; exit } lo = $1 }' <<<"$les")
expect_eq "our p50: 44 KiB" "$p50" 45056
expect_eq "the le bucket that holds it" "$bucket" "45055 49151"
expect_true "histogram_quantile(0.5) = $q50 lands in ($bucket]" \
	awk -v q="$q50" -v lo="${bucket% *}" -v hi="${bucket#* }" 'BEGIN { exit !(q > lo && q <= hi) }'

kill -TERM "$PROM" "$SERVE_PID"
wait "$PROM" "$SERVE_PID" 2> /dev/null
finish
