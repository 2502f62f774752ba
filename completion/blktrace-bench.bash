# bash completion for blktrace-bench(8)                    -*- shell-script -*-
# shellcheck shell=bash
#
# Installed as /usr/share/bash-completion/completions/blktrace-bench, which
# bash-completion loads on the first <TAB> after the command name. Commands,
# options, --rw/--engine values, --set and --knobs settings, disks (from
# /sys/class/block, or $BLKTRACE_BENCH_SYSFS as the tool reads it), result files for
# compare, report, apply and verify, traces for import, and the command after "--".
# tests/shell/test_docs.sh checks it against --help.

# COMPREPLY: the words of $1 that start with $cur.
_blktrace_bench_words()
{
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

# Options whose value is the next word (--json's is optional: see below).
_blktrace_bench_takes_value()
{
	case $1 in
	-t | --trace | -d | --duration | -i | --interval | --snoop | --snoop-text | \
		--fail-on-regression | --rw | --bs | --size | --count | --runtime | --engine | \
		--iodepth | --file | --set | --state-dir | --html | -o | --output | --knobs | \
		--budget | --workload | --root | --listen | --textfile | --blktrace | --limits-from)
		return 0
		;;
	esac
	return 1
}

# Disks; for --trace (with "all" as an argument) also "all" and lists: "xvda,xv<TAB>".
_blktrace_bench_disks()
{
	local sys=${BLKTRACE_BENCH_SYSFS:-/sys} d names=() head="" cur=$cur

	for d in "$sys"/class/block/*; do
		[[ -e $d ]] && names+=("${d##*/}")
	done
	if [[ ${1-} == all && $cur == *,* ]]; then
		head=${cur%,*},
		cur=${cur##*,}
	elif [[ ${1-} == all ]]; then
		names+=(all)
	fi
	mapfile -t COMPREPLY < <(compgen -P "$head" -W "${names[*]}" -- "$cur")
	[[ $cur == /* ]] && _filedir # /dev/xvda
}

_blktrace_bench()
{
	local cur prev words cword split
	_init_completion -s || return

	local workload_opts="--rw --bs --size --count --runtime --engine --iodepth
		--no-fixed-bufs --hugepages --direct --dsync --fsync --fdatasync --repeat
		--drop-caches --file --overwrite --any-fs --raw --destructive --set --wrap
		--state-dir --json --verbose"
	local trace_opts="--trace --duration --interval --html --snoop --snoop-text
		--recommend --brief --blktrace --exact-depth $workload_opts"
	# The command table of src/cli/command_table.c, one line per command: what its other words
	# are (a command to run, a disk, result files), then the options it takes.
	local -A commands=(
		[trace]="command $trace_opts"
		[info]="disk --json"
		[compare]="results --json --html --fail-on-regression"
		[report]="results --html --output"
		[restore]="disk --state-dir"
		[tune]="disk $workload_opts --knobs --budget --workload --apply --dry-run --root
			--exact-depth"
		[apply]="results --dry-run --root --undo"
		[verify]="results --json --fail-on-regression --destructive --overwrite --state-dir
			--exact-depth --verbose"
		[serve]="none --trace --listen --textfile --interval --duration --exact-depth
			--verbose"
		[import]="trace --json --limits-from"
		[resume]="none --abort"
	)
	local general="--help --usage --version"

	local cmd=trace first=1 i w
	if ((cword > 1)) && [[ -v commands[${words[1]}] ]]; then
		cmd=${words[1]}
		first=2
	fi
	# trace: "--" or the first word that is not an option starts the command to run.
	if [[ $cmd == trace ]]; then
		for ((i = first; i < cword; i++)); do
			w=${words[i]}
			if [[ $w == -- ]]; then
				_command_offset $((i + 1))
				return
			elif [[ $w == -j || $w == --json ]]; then
				# trace's --json takes the next word unless it is another option.
				[[ ${words[i + 1]} != -?* ]] && ((i + 1 < cword)) && ((i++))
			elif _blktrace_bench_takes_value "$w"; then
				((i++))
			elif [[ $w != -* ]]; then
				_command_offset "$i"
				return
			fi
		done
	fi

	case $prev in
	-t | --trace)
		_blktrace_bench_disks all
		return
		;;
	--rw)
		_blktrace_bench_words "read write randread randwrite"
		return
		;;
	--engine)
		_blktrace_bench_words "psync io_uring"
		return
		;;
	--set)
		# src/disk/knob.c's sweepable settings; the values are the user's.
		[[ $cur == *=* ]] && return
		mapfile -t COMPREPLY < <(compgen -S = -W "max_sectors_kb read_ahead_kb
			nr_requests scheduler wbt_lat_usec nomerges rq_affinity
			xen_blkfront.max_indirect_segments" -- "$cur")
		compopt -o nospace
		return
		;;
	--snoop | --snoop-text | --file)
		_filedir
		return
		;;
	--knobs)
		# src/tune/tune_knobs.c's settings, comma separated.
		local prefix=${cur%"${cur##*,}"}
		mapfile -t COMPREPLY < <(compgen -P "$prefix" -W "max_sectors_kb read_ahead_kb
			scheduler nr_requests wbt_lat_usec nomerges rq_affinity" -- "${cur##*,}")
		return
		;;
	--workload)
		_filedir json
		return
		;;
	--state-dir | --root | --textfile | --blktrace)
		_filedir -d
		return
		;;
	--limits-from)
		# A disk, or a saved info --json.
		_blktrace_bench_disks
		local disks=("${COMPREPLY[@]}")
		_filedir json
		COMPREPLY+=("${disks[@]}")
		return
		;;
	--html | -o | --output)
		_filedir html
		return
		;;
	-j | --json)
		# trace, tune, verify and import write the next word; info and compare print to
		# stdout unless --json=FILE.
		if [[ $cur != -* && ($cmd == trace || $cmd == tune || $cmd == verify ||
			$cmd == import || $split == true) ]]; then
			_filedir json
			return
		fi
		;;
	esac
	_blktrace_bench_takes_value "$prev" && return # a number, size or duration
	$split && return

	local spec=${commands[$cmd]}
	if [[ $cur == -* ]]; then
		_blktrace_bench_words "${spec#* } $general"
		return
	fi
	if ((cword == 1)); then
		_blktrace_bench_words "${!commands[*]}"
		return
	fi
	case ${spec%% *} in
	command)
		# The command to run, or, before a word is typed, the options.
		if [[ $cur ]]; then
			_command_offset "$cword"
		else
			_blktrace_bench_words "${spec#* } $general"
		fi
		;;
	disk) _blktrace_bench_disks ;;
	results) _filedir json ;;
	trace) _filedir ;; # a directory of blktrace files, or one of them
	esac
} &&
	complete -F _blktrace_bench blktrace-bench

# ex: filetype=sh
