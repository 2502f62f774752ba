// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * bench-floor MODE: attach the two calibration programs of floor.bpf.c (MODE empty
 * or clock), print "ready", and stay attached until SIGINT or SIGTERM. For
 * tools/bench/bench.sh only; it reads their run time from this process's fds.
 *
 * bench-floor stats: turn BPF run-time statistics on for as long as it runs, through
 * BPF_ENABLE_STATS: the kernel counts such holders, so two benchmarks on one machine
 * never turn each other's statistics off, as writing kernel.bpf_stats_enabled would.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int hold_stats(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (fd < 0) {
		fprintf(stderr, "bench-floor: cannot enable BPF statistics: %s\n", strerror(-fd));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct floor_bpf *skel;
	int err;

	if (argc != 2 ||
	    (strcmp(argv[1], "empty") && strcmp(argv[1], "clock") && strcmp(argv[1], "stats"))) {
		fprintf(stderr, "usage: bench-floor empty|clock|stats\n");
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!strcmp(argv[1], "stats"))
		return hold_stats();
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "bench-floor: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->mode = strcmp(argv[1], "clock") == 0;
	err = floor_bpf__load(skel);
	if (!err)
		err = floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "bench-floor: cannot load or attach: %s\n", strerror(-err));
		floor_bpf__destroy(skel);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	floor_bpf__destroy(skel);
	return 0;
}
