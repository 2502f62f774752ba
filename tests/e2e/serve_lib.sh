# Helpers of the tests of serve (sourced after lib.sh): start it on a free port, read
# a series from its /metrics.
# shellcheck shell=bash

# start_serve PORTVAR LOG ARGS...: `serve --listen 127.0.0.1:0 ARGS` in the background
# (SERVE_PID; killed at exit), PORTVAR set to the port it chose once it says it serves.
start_serve() {
	local var=$1 log=$2 port
	shift 2
	: > "$log" # there before the wait below reads it, whichever process runs first
	"$BB" serve --listen 127.0.0.1:0 "$@" 2> "$log" &
	SERVE_PID=$!
	background "$SERVE_PID"
	wait_until 30 "serve to listen ($(tr '\n' ' ' < "$log"))" grep -q 'serving http://' "$log" ||
		return 1
	port=$(sed -n 's|.*serving http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$log")
	printf -v "$var" '%s' "$port"
}

# metric PORT SERIES: the sum of the samples whose line starts with SERIES ("" when none).
metric() {
	curl -s -m 10 "http://127.0.0.1:$1/metrics" |
		awk -v s="$2" 'index($0, s) == 1 { v += $NF; n++ } END { if (n) printf "%.17g\n", v }'
}

# metric_is PORT SERIES VALUE: for wait_until.
metric_is() { [ "$(metric "$1" "$2")" = "$3" ]; }
