#!/usr/bin/env bash
# serve: /metrics against /proc/diskstats, disk by disk (two traced at once); the size
# histogram's le edges around 44 and 128 KiB; limit-bound counters that only grow when
# the limit changes; OpenMetrics when asked for; the textfile (promtool check metrics),
# written into the directory opened at start even when a user swaps the path for a link;
# disks that come and go under --trace all, the others' counts carried over; SIGTERM
# ends it, SIGHUP and SIGPIPE (a closed stderr) do not; a warning when listening beyond
# loopback; bad input (host names, --interval below 1 s, a textfile directory that is a
# link or that every user may write to).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

command -v curl > /dev/null || { skip "curl missing (tools/deps.sh test installs it)"; finish; exit 0; }
make_loop A 128M || { not_ok "losetup"; finish; exit 1; }
make_loop B 64M || { not_ok "losetup"; finish; exit 1; }
a=$(basename "$A") b=$(basename "$B")
mkdir "$TMP/tf"
start_serve PORT "$TMP/serve.log" --trace "$a,$b" --textfile "$TMP/tf" --interval 1 ||
	{ finish; exit 1; }
ser() { echo "blktrace_bench_$1{device=\"$2\",driver=\"loop\"${3:+,$3}}"; }

# 1. Each disk's requests, bytes and sizes, exact.
wa0=$(diskstat "$A" 5) wb0=$(diskstat "$B" 5)
dd if=/dev/zero of="$A" bs=44k count=200 oflag=direct status=none
dd if=/dev/zero of="$B" bs=128k count=50 oflag=direct status=none
wa=$(($(diskstat "$A" 5) - wa0)) wb=$(($(diskstat "$B" 5) - wb0))
expect_eq "diskstats: dd's writes" "$wa/$wb" "200/50"
wait_until 10 "$a's write counter at $wa" metric_is "$PORT" "$(ser requests_total "$a" 'op="write"')" "$wa" &&
	ok "$a: requests_total{op=write} == diskstats delta ($wa)"
wait_until 10 "$b's write counter at $wb" metric_is "$PORT" "$(ser requests_total "$b" 'op="write"')" "$wb" &&
	ok "$b: requests_total{op=write} == diskstats delta ($wb)"
curl -s "http://127.0.0.1:$PORT/metrics" > "$TMP/m.txt"
val() { awk -v s="$1" 'index($0, s) == 1 { print $NF }' "$TMP/m.txt"; }
expect_eq "$a: bytes_total{op=write}" "$(val "$(ser bytes_total "$a" 'op="write"')")" $((200 * 45056))
expect_eq "$a: no request below 44 KiB (le=45055)" \
	"$(val "$(ser request_bytes_bucket "$a" 'op="write",le="45055"')")" 0
expect_eq "$a: all 200 of 44 KiB in le=49151" \
	"$(val "$(ser request_bytes_bucket "$a" 'op="write",le="49151"')")" 200
expect_eq "$b: none below 128 KiB, 50 in le=135167" \
	"$(val "$(ser request_bytes_bucket "$b" 'op="write",le="131071"')")/$(val "$(ser request_bytes_bucket "$b" 'op="write",le="135167"')")" "0/50"
expect_eq "$b: request_bytes_count == requests" "$(val "$(ser request_bytes_count "$b" 'op="write"')")" 50
expect_eq "$a: max_sectors_kb as bytes" "$(val "$(ser limit_max_sectors_bytes "$a")")" \
	$(($(cat "/sys/block/$a/queue/max_sectors_kb") * 1024))
expect_eq "$a: max_segments" "$(val "$(ser limit_max_segments "$a")")" \
	"$(cat "/sys/block/$a/queue/max_segments")"
expect_eq "$a: nothing in flight" "$(val "$(ser in_flight "$a")")" 0
expect_eq "$a: device timed per completion" \
	"$(val "$(ser latency_seconds_count "$a" 'kind="device"')")" 200

# 2. Limit-bound: at max_sectors_kb=44 a 1 MiB write is 23 requests of 44 KiB and one of
# 12 KiB; the counter keeps what it counted when the limit goes back.
q=/sys/block/$a/queue/max_sectors_kb
orig=$(cat "$q")
set_sysfs "$q" 44
b0=$(metric "$PORT" "$(ser limit_bound_requests_total "$a" 'limit="max_sectors_kb"')")
d0=$(metric "$PORT" "$(ser data_requests_total "$a")")
w0=$(diskstat "$A" 5)
dd if=/dev/zero of="$A" bs=1M count=20 oflag=direct status=none
w=$(($(diskstat "$A" 5) - w0))
expect_eq "max_sectors_kb=44: 24 requests per 1 MiB (diskstats)" "$w" 480
wait_until 10 "data requests +$w" metric_is "$PORT" "$(ser data_requests_total "$a")" $((d0 + w)) &&
	ok "data_requests_total grew by the diskstats delta ($w)"
expect_eq "limit_bound_requests{max_sectors_kb} grew by 460" \
	$(($(metric "$PORT" "$(ser limit_bound_requests_total "$a" 'limit="max_sectors_kb"')") - b0)) 460
echo "$orig" > "$q"
sleep 0.3 # beyond the exporter's freshness: the next scrape reads the maps again
expect_eq "the limit restored: the bound counter did not go back" \
	$(($(metric "$PORT" "$(ser limit_bound_requests_total "$a" 'limit="max_sectors_kb"')") - b0)) 460
expect_eq "limit_bound_ratio{max_sectors_kb}: 460 of 680 data requests" \
	"$(metric "$PORT" "$(ser limit_bound_ratio "$a" 'limit="max_sectors_kb"')" |
		awk '{ printf "%.6f", $1 }')" "$(awk 'BEGIN { printf "%.6f", 460 / 680 }')"

# 3. OpenMetrics when the scraper asks for it, as Prometheus does.
curl -s -D "$TMP/h.txt" -o "$TMP/om.txt" \
	-H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
	"http://127.0.0.1:$PORT/metrics"
expect_true "OpenMetrics: its content type" grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$TMP/h.txt"
expect_eq "OpenMetrics: ends with # EOF" "$(tail -1 "$TMP/om.txt")" "# EOF"
expect_true "OpenMetrics: counter families without _total" grep -qx '# TYPE blktrace_bench_requests counter' "$TMP/om.txt"
expect_true "OpenMetrics: units" grep -qx '# UNIT blktrace_bench_latency_seconds seconds' "$TMP/om.txt"
curl -s -D "$TMP/h2.txt" -o /dev/null "http://127.0.0.1:$PORT/metrics"
expect_true "plain scrape: text 0.0.4" grep -qi '^content-type: text/plain; version=0.0.4' "$TMP/h2.txt"

# 4. The textfile: replaced whole, parsed by promtool.
tf=$TMP/tf/blktrace_bench.prom
tfval() { awk -v s="$1" 'index($0, s) == 1 { print $NF }' "$tf" 2> /dev/null; }
wait_until 10 "the textfile with $a's writes" \
	test "$(tfval "$(ser requests_total "$a" 'op="write"')")" = $((wa + w)) &&
	ok "textfile: $a's writes"
if command -v promtool > /dev/null; then
	promtool check metrics < "$tf" > "$TMP/promtool.out" 2>&1
	expect_eq "promtool check metrics: the textfile passes" "$?/$(cat "$TMP/promtool.out")" "0/"
else
	skip "promtool missing (package prometheus)"
fi

# 5. SIGTERM ends the service: exit 0, the textfile stays, no temporary file left.
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
expect_eq "SIGTERM: exit 0" "$?" 0
expect_eq "SIGTERM: only the textfile in its directory" "$(ls -A "$TMP/tf")" "blktrace_bench.prom"

# 5b. The textfile's directory is opened once: a user who owns the path swaps it for a
# link to root's directory; serve keeps writing into the directory it opened.
chmod 755 "$TMP"
mkdir -m 755 "$TMP/pub" "$TMP/rootdir"
chown nobody "$TMP/pub"
setpriv --reuid=nobody --regid=nogroup --clear-groups mkdir "$TMP/pub/tf"
start_serve PORT "$TMP/serve-tf.log" --trace "$a" --textfile "$TMP/pub/tf" --interval 1 ||
	{ finish; exit 1; }
wait_until 5 "the first textfile" test -s "$TMP/pub/tf/blktrace_bench.prom"
setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c \
	"mv '$TMP/pub/tf' '$TMP/pub/tf.old' && ln -s '$TMP/rootdir' '$TMP/pub/tf'"
t0=$(stat -c %y "$TMP/pub/tf.old/blktrace_bench.prom")
sleep 2.5 # two intervals
expect_eq "a link swapped in: root's directory not written" "$(ls -A "$TMP/rootdir")" ""
expect_true "the directory opened at start still written ($t0)" test \
	"$(stat -c %y "$TMP/pub/tf.old/blktrace_bench.prom")" != "$t0"
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"

# 5c. SIGPIPE and SIGHUP do not end a service (systemd's Restart=on-failure would not
# restart one that exited 0): stderr a pipe nobody reads, a SIGHUP re-reads the disks.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BB" serve --trace "$a" --listen "127.0.0.1:$PORT" 2> >(exec head -c 0) &
SERVE_PID=$!
background "$SERVE_PID"
wait_until 10 "serve on a closed stderr to answer" metric_is "$PORT" blktrace_bench_traced_devices 1 &&
	ok "its stderr closed (SIGPIPE on its first line): serve goes on"
kill -PIPE "$SERVE_PID"
kill -HUP "$SERVE_PID"
sleep 0.5
expect_true "SIGPIPE and SIGHUP: still running, answering" metric_is "$PORT" \
	blktrace_bench_traced_devices 1
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
expect_eq "then SIGTERM: exit 0" "$?" 0
start_serve PORT "$TMP/serve-hup.log" --trace "$a" || { finish; exit 1; }
kill -HUP "$SERVE_PID"
wait_until 5 "SIGHUP said" grep -q "SIGHUP: reading the disks again" "$TMP/serve-hup.log" &&
	ok "SIGHUP: the disks read again, said on stderr"
expect_true "SIGHUP: still serving" metric_is "$PORT" blktrace_bench_traced_devices 1
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"

# 5d. Beyond loopback: a warning, one line; on loopback none.
"$BB" serve --trace "$a" --listen 0.0.0.0:0 --duration 1 2> "$TMP/any.err"
expect_eq "--listen 0.0.0.0: exit 0" "$?" 0
expect_true "--listen 0.0.0.0: a warning ($(head -1 "$TMP/any.err"))" grep -q \
	"^blktrace-bench: warning: --listen 0.0.0.0: not a loopback address: /metrics answers every host" "$TMP/any.err"
"$BB" serve --trace "$a" --listen 0:0 --duration 1 2> "$TMP/any0.err"
expect_true "--listen 0:PORT: the same warning" grep -q "warning: --listen 0.0.0.0: not a loopback" "$TMP/any0.err"
expect_eq "--listen 127.0.0.1: no warning" "$(grep -c warning "$TMP/serve-hup.log")" 0

# 6. Disks that come and go under --trace all; a disk traced throughout keeps its count.
start_serve PORT "$TMP/serve2.log" --trace all || { finish; exit 1; }
dd if=/dev/zero of="$A" bs=4k count=11 oflag=direct status=none
wait_until 10 "$a's 11 writes" metric_is "$PORT" "$(ser requests_total "$a" 'op="write"')" 11
reloads0=$(metric "$PORT" blktrace_bench_tracer_reloads_total)
make_loop C 32M || { not_ok "losetup"; finish; exit 1; }
c=$(basename "$C")
wait_until 15 "$c to be traced" grep -q "+$c" "$TMP/serve2.log" && ok "a new disk is picked up ($c)"
wait_until 5 "$c on /metrics" metric_is "$PORT" "$(ser requests_total "$c" 'op="write"')" 0
w0=$(diskstat "$C" 5)
dd if=/dev/zero of="$C" bs=4k count=77 oflag=direct status=none
w=$(($(diskstat "$C" 5) - w0))
wait_until 10 "$c's writes" metric_is "$PORT" "$(ser requests_total "$c" 'op="write"')" "$w" &&
	ok "the new disk: requests_total == diskstats delta ($w)"
losetup -d "$C"
wait_until 15 "$c to go" grep -q -- "-$c" "$TMP/serve2.log" && ok "a disk that went is dropped"
expect_eq "it is gone from /metrics" "$(metric "$PORT" "$(ser requests_total "$c" 'op="write"')")" ""
expect_cmp "the programs were reloaded (twice at least)" \
	"$(metric "$PORT" blktrace_bench_tracer_reloads_total)" ">=" $((reloads0 + 2))
expect_cmp "the runs the kernel skipped, over the reloads: a count" \
	"$(metric "$PORT" blktrace_bench_tracer_skipped_runs_total)" ">=" 0
expect_eq "$a, traced throughout, kept its count over the reloads" \
	"$(metric "$PORT" "$(ser requests_total "$a" 'op="write"')")" 11
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"

# 7. Bad input: one line, exit 2 (1 for what the system cannot do), nothing served.
refused() { # NAME STATUS PATTERN ARGS...
	local name=$1 st=$2 pat=$3
	shift 3
	timeout 10 "$BB" "$@" > "$TMP/r.out" 2> "$TMP/r.err"
	expect_eq "$name: exit $st" "$?" "$st"
	expect_true "$name: says why ($pat)" grep -qE -- "$pat" "$TMP/r.err"
	expect_eq "$name: one line" "$(wc -l < "$TMP/r.err")" 1
}
refused "--listen without a port" 2 "expected ADDR:PORT" serve --trace "$a" --listen 127.0.0.1
refused "--listen port out of range" 2 "expected ADDR:PORT" serve --trace "$a" --listen 127.0.0.1:70000
refused "--listen an unknown host" 2 "--listen no-such-host.invalid: not a numeric address" \
	serve --trace "$a" --listen no-such-host.invalid:9469
refused "--listen a host name: never looked up" 2 "--listen localhost: not a numeric address" \
	serve --trace "$a" --listen localhost:0
refused "--interval below 1 s for the textfile" 2 "--interval 500ms: below the floor of 1s" \
	serve --trace "$a" --textfile "$TMP/tf" --interval 500ms
ln -s "$TMP/tf" "$TMP/tf-link"
refused "--textfile a symbolic link" 2 "--textfile $TMP/tf-link: a symbolic link" serve \
	--trace "$a" --textfile "$TMP/tf-link"
mkdir -m 777 "$TMP/open"
refused "--textfile a directory every user may write to" 2 "every user may write to it" \
	serve --trace "$a" --textfile "$TMP/open"
refused "--textfile a missing directory" 1 "--textfile $TMP/nodir: No such file" serve \
	--trace "$a" --textfile "$TMP/nodir"
refused "--textfile a file" 2 "not a directory" serve --trace "$a" --textfile "$TMP/m.txt"
refused "serve takes no arguments" 2 "serve takes no arguments" serve "$a"
refused "serve --json" 2 "--json is not used by serve" serve --trace "$a" --json
refused "--interval without --textfile" 2 "--interval" serve --trace "$a" --interval 5
refused "--listen is serve's" 2 "--listen is not used in command mode: it is where serve's" --trace "$a" --listen 127.0.0.1:1 -- true
refused "serve a disk that does not exist" 2 "no such block device: nosuchdisk" serve --trace nosuchdisk
python3 -c 'import socket,time,sys; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(15)' > "$TMP/port" &
background $!
wait_until 5 "a port taken" test -s "$TMP/port"
refused "--listen a port in use" 1 "cannot listen on 127.0.0.1 port $(cat "$TMP/port")" serve \
	--trace "$a" --listen "127.0.0.1:$(cat "$TMP/port")"

finish
