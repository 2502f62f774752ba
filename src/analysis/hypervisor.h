/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Both sides of a Xen guest's disk in one view: a guest's trace of its xen-blkfront disk
 * and dom0's trace of the device xen-blkback serves it from, over the same run. What each
 * side saw (requests, bytes, sizes before and after the backend) and where a request's
 * time went: the guest's queue, the ring, the backend (submission to the interrupt), and
 * within it dom0's own queue and device time.
 */
#ifndef BLKTRACE_BENCH_HYPERVISOR_H
#define BLKTRACE_BENCH_HYPERVISOR_H

#include <stdbool.h>
#include "result/run.h"
#include "result/run_summary.h"

/* One side: its device and its runs' statistics summed (runs cut short left out). */
struct hv_side {
	const struct result *res;
	const char *file;
	size_t nr_runs;
	double seconds;
	struct block_stats *b; /* the sum */
	struct block_summary s;
	struct ring_summary ring; /* the guest's, when its ring was probed */
};

/*
 * Where a guest request's time went, means in ns; < 0 where not known. The backend's
 * part holds dom0's (its queue and device time, per dom0 request); what is left of it
 * is blkback's and the hypervisor's, said only where dom0 took one request for each of
 * the guest's (else its requests overlap in ways the means cannot tell).
 */
struct hv_time {
	double guest_queue;	 /* allocation to issue in the guest (G2D) */
	double backend;		 /* on the ring: submission to the backend's interrupt */
	double dom0_queue;	 /* dom0's queue (G2D), per dom0 request */
	double dom0_device;	 /* dom0's device (D2C), per dom0 request */
	double backend_rest;	 /* backend less dom0's queue and device: blkback, Xen */
	double guest_completion; /* the guest's device time (D2C) less the backend's */
};

struct hv_link {
	struct hv_side guest, host;
	struct hv_time time;
	/* dom0's data requests per guest data request: how blkback split (or merged) them */
	double split;
	double bytes_ratio; /* dom0's bytes over the guest's */
};

/*
 * Do a and b make a guest and dom0 pair: one a xen-blkfront disk, the other a device
 * xen-blkback serves (device.xen_guest)? 1 with *guest_first set, 0 when they are not
 * such a pair, -EINVAL when they are but of different disks (why in why: the guest's
 * disk and the one dom0 serves differ by name or number).
 */
int hv_link__pair(const struct result *a, const struct result *b, bool *guest_first, char *why,
		  size_t len);
/* Sum each side's runs and derive the figures. 0 or -ENOMEM. */
int hv_link__build(struct hv_link *l, const struct result *guest, const char *guest_file,
		   const struct result *host, const char *host_file);
void hv_link__free(struct hv_link *l);

#endif /* BLKTRACE_BENCH_HYPERVISOR_H */
