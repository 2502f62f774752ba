// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * bench-floor MODE: attach the two calibration programs of floor.bpf.c (MODE empty,
 * clock, or device DISK), print "ready", and stay attached until SIGINT or SIGTERM.
 * For tools/bench/bench.sh only; it reads their run time from this process's fds. In
 * device mode it prints, on exit, how many completions its histogram counted
 * ("timed N"), for the test that holds it to the disk's count.
 *
 * bench-floor stats: turn BPF run-time statistics on for as long as it runs, through
 * BPF_ENABLE_STATS: the kernel counts such holders, so two benchmarks on one machine
 * never turn each other's statistics off, as writing kernel.bpf_stats_enabled would.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "blkio.h" /* BLKIO_DEV */
#include "hist.h"
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

/*
 * DISK's dev_t as the BPF side compares it (BLKIO_DEV), from sysfs; 0 if there is
 * no such disk, or it is a partition (the programs match whole disks).
 */
static unsigned int disk_dev(const char *disk)
{
	unsigned int maj, min;
	char path[256];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/class/block/%s/partition", disk);
	if (!access(path, F_OK))
		return 0;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", disk);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fscanf(f, "%u:%u", &maj, &min);
	fclose(f);
	return n == 2 ? BLKIO_DEV(maj, min) : 0;
}

/*
 * The latency histogram's total over every bucket and CPU; -1 if it cannot be read. (The
 * loader's bpf_load__sum_percpu sums word by word; linking it would bring the loader's
 * member tables and diagnostics into this standalone tool for one loop.)
 */
static long long timed(struct floor_bpf *skel)
{
	int ncpus = libbpf_num_possible_cpus(), fd = bpf_map__fd(skel->maps.lat);
	size_t n = (size_t)ncpus * HIST_LAT_BUCKETS;
	__u64 *v = ncpus > 0 ? calloc(n, sizeof(*v)) : NULL;
	long long total = -1;
	__u32 zero = 0;

	if (v && !bpf_map_lookup_elem(fd, &zero, v))
		for (total = 0; n--;)
			total += (long long)v[n];
	free(v);
	return total;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct floor_bpf *skel;
	unsigned int dev = 0;
	int err;

	if (argc == 3 && !strcmp(argv[1], "device")) {
		dev = disk_dev(argv[2]);
		if (!dev) {
			fprintf(stderr, "bench-floor: %s: no such disk (a whole disk)\n", argv[2]);
			return 2;
		}
	} else if (argc != 2 || (strcmp(argv[1], "empty") && strcmp(argv[1], "clock") &&
				 strcmp(argv[1], "stats"))) {
		fprintf(stderr, "usage: bench-floor empty|clock|stats|device DISK\n");
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
	skel->rodata->mode = dev ? 2 : strcmp(argv[1], "clock") == 0;
	skel->rodata->dev = dev;
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
	if (dev)
		printf("timed %lld\n", timed(skel));
	floor_bpf__destroy(skel);
	return 0;
}
