# Sourced by tests/vm/guest.sh: several disks in one set of programs on this kernel.
# Ten loop disks traced at once, in both flavours: the first 8 members sit in the
# programs' read-only arrays, members 9 and 10 are looked up in member_map, a path the
# verifier of each kernel must accept (it prunes it away when there are 8 or fewer).
# Each disk's writes are checked against its own diskstats. Then serve on one of them:
# /metrics (through busybox wget, on the loopback) against diskstats.
# shellcheck shell=bash

fleet_devs=() fleet_names=()
for i in $(seq 1 10); do
	truncate -s 8M "/tmp/fleet$i.img"
	d=$(losetup -f --show "/tmp/fleet$i.img") || break
	fleet_devs+=("$d") fleet_names+=("$(basename "$d")")
done
if [ ${#fleet_devs[@]} -eq 10 ]; then
	list=$(IFS=,; echo "${fleet_names[*]}")
	script=""
	for i in "${!fleet_devs[@]}"; do
		script+="dd if=/dev/zero of=${fleet_devs[$i]} bs=4k count=$((i + 1)) oflag=direct 2>/dev/null && "
	done
	for flavour in tp_btf raw_tp; do
		declare -A before=()
		for i in "${!fleet_devs[@]}"; do before[$i]=$(diskstat 5 "${fleet_names[$i]}"); done
		if BLKTRACE_BENCH_RAW_TP=$([ $flavour = raw_tp ] && echo 1 || echo 0) \
			run "fleet-$flavour" --trace "$list" --json "$W/fleet.json" -- sh -c "${script}true"; then
			bad=""
			for i in "${!fleet_devs[@]}"; do
				got=$(jqv "$W/fleet.json" ".results[$i].runs[0].block.write.requests")
				want=$(($(diskstat 5 "${fleet_names[$i]}") - before[$i]))
				[ "$got" = "$want" ] && [ "$got" = $((i + 1)) ] ||
					bad+=" ${fleet_names[$i]}:$got/$want"
			done
			expect_eq "fleet $flavour: 10 disks, each == its diskstats (9, 10 via member_map)" \
				"${bad:-none wrong}" "none wrong"
			expect_eq "fleet $flavour: the programs' flavour" \
				"$(jqv "$W/fleet.json" '.results[0].tracer.flavour')" "$flavour"
		fi
	done

	# serve: /metrics on the loopback, read with busybox wget.
	ip link set lo up 2> /dev/null || ifconfig lo 127.0.0.1 up 2> /dev/null
	"$BB" serve --trace "${fleet_names[0]}" --listen 127.0.0.1:0 --duration 20 2> "$W/serve.err" &
	serve=$!
	for i in $(seq 1 100); do grep -q 'serving http' "$W/serve.err" && break; sleep 0.1; done
	port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$W/serve.err")
	if [ -n "$port" ]; then
		w0=$(diskstat 5 "${fleet_names[0]}")
		dd if=/dev/zero of="${fleet_devs[0]}" bs=4k count=21 oflag=direct 2> /dev/null
		w=$(($(diskstat 5 "${fleet_names[0]}") - w0))
		series="blktrace_bench_requests_total{device=\"${fleet_names[0]}\",driver=\"loop\",op=\"write\"}"
		got=$(scrape "$port" "$series" "$w")
		expect_eq "serve: requests_total == diskstats ($w)" "$got" "$w"
	else
		not_ok "serve did not start: $(head -c 300 "$W/serve.err")"
	fi
	kill -TERM "$serve" 2> /dev/null
	wait "$serve"
	expect_eq "serve: SIGTERM ends it with 0" "$?" 0
else
	not_ok "fleet: cannot attach 10 loop devices (${#fleet_devs[@]})"
fi
for d in "${fleet_devs[@]}"; do losetup -d "$d"; done
rm -f /tmp/fleet*.img
