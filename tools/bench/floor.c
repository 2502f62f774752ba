// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * bench-floor MODE: attach the two calibration programs of floor.bpf.c (MODE empty
 * or clock), print "ready", and stay attached until SIGINT or SIGTERM. For
 * tools/bench/bench.sh only; it reads their run time from this process's fds.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct floor_bpf *skel;
	int err;

	if (argc != 2 || (strcmp(argv[1], "empty") && strcmp(argv[1], "clock"))) {
		fprintf(stderr, "usage: bench-floor empty|clock\n");
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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
