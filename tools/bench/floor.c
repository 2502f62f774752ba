// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * bench-floor MODE: attach the two calibration programs of floor.bpf.c (MODE empty,
 * clock, device DISK, or disks DISK,DISK,...), print "ready", and stay attached until
 * SIGINT or SIGTERM. For tools/bench/bench.sh and fleet.sh only; they read the run time
 * from this process's fds. In device and disks modes it prints, on exit, how many
 * completions its histograms counted ("timed N"), for the test that holds it to the
 * disks' count.
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

/* Mode 3: the tags kept per disk (a loop disk has 128); the most disks taken. */
#define FLOOR_DISK_TAGS 256
#define FLOOR_MAX_DISKS 4096

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
 * The latency histograms' total over every bucket, CPU and disk; -1 if they cannot be
 * read. (The loader's bpf_load__sum_percpu sums word by word; linking it would bring the
 * loader's member tables and diagnostics into this standalone tool for one loop.)
 */
static long long timed(struct floor_bpf *skel, __u32 ndisks)
{
	int ncpus = libbpf_num_possible_cpus(), fd = bpf_map__fd(skel->maps.lat);
	size_t n = ncpus > 0 ? (size_t)ncpus * HIST_LAT_BUCKETS : 0, i;
	__u64 *v = n ? calloc(n, sizeof(*v)) : NULL;
	long long total = v ? 0 : -1;
	__u32 d;

	for (d = 0; v && d < ndisks; d++) {
		if (bpf_map_lookup_elem(fd, &d, v)) {
			total = -1;
			break;
		}
		for (i = 0; i < n; i++)
			total += (long long)v[i];
	}
	free(v);
	return total;
}

/*
 * The dev_t of each disk of the comma-separated LIST into devs (at most MAX); their
 * count, or 0 once an error is said (an unknown disk, one given twice).
 */
static __u32 parse_disks(char *list, unsigned int *devs, __u32 max)
{
	__u32 n = 0, i;
	char *save = NULL, *d;

	for (d = strtok_r(list, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
		if (n == max) {
			fprintf(stderr, "bench-floor: more than %u disks\n", max);
			return 0;
		}
		devs[n] = disk_dev(d);
		if (!devs[n]) {
			fprintf(stderr, "bench-floor: %s: no such disk (a whole disk)\n", d);
			return 0;
		}
		for (i = 0; i < n; i++)
			if (devs[i] == devs[n]) {
				fprintf(stderr, "bench-floor: %s: given twice\n", d);
				return 0;
			}
		n++;
	}
	if (!n)
		fprintf(stderr, "bench-floor: no disk given\n");
	return n;
}

/* Mode 3: each disk's dev_t -> its index. */
static int fill_disks(struct floor_bpf *skel, const unsigned int *devs, __u32 n)
{
	int fd = bpf_map__fd(skel->maps.disks);
	__u32 i;

	for (i = 0; i < n; i++)
		if (bpf_map_update_elem(fd, &devs[i], &i, BPF_NOEXIST))
			return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	static unsigned int devs[FLOOR_MAX_DISKS];
	struct floor_bpf *skel;
	unsigned int dev = 0;
	__u32 ndisks = 0;
	int err;

	if (argc == 3 && !strcmp(argv[1], "device")) {
		dev = disk_dev(argv[2]);
		if (!dev) {
			fprintf(stderr, "bench-floor: %s: no such disk (a whole disk)\n", argv[2]);
			return 2;
		}
		ndisks = 1;
	} else if (argc == 3 && !strcmp(argv[1], "disks")) {
		ndisks = parse_disks(argv[2], devs, FLOOR_MAX_DISKS);
		if (!ndisks)
			return 2;
	} else if (argc != 2 || (strcmp(argv[1], "empty") && strcmp(argv[1], "clock") &&
				 strcmp(argv[1], "stats"))) {
		fprintf(stderr,
			"usage: bench-floor empty|clock|stats|device DISK|disks DISK,...\n");
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
	skel->rodata->mode = dev ? 2 : !strcmp(argv[1], "disks") ? 3 : !strcmp(argv[1], "clock");
	skel->rodata->dev = dev;
	skel->rodata->disk_tags = FLOOR_DISK_TAGS;
	err = 0;
	if (skel->rodata->mode == 3) {
		err = bpf_map__set_max_entries(skel->maps.disks, ndisks);
		if (!err)
			err = bpf_map__set_max_entries(skel->maps.issued, ndisks * FLOOR_DISK_TAGS);
		if (!err)
			err = bpf_map__set_max_entries(skel->maps.lat, ndisks);
	}
	if (!err)
		err = floor_bpf__load(skel);
	if (!err && skel->rodata->mode == 3)
		err = fill_disks(skel, devs, ndisks);
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
	if (ndisks)
		printf("timed %lld\n", timed(skel, ndisks));
	floor_bpf__destroy(skel);
	return 0;
}
