/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Types shared by bpf/blkfront.bpf.c (probes on xen-blkfront's own functions) and the
 * loader (src/trace/blkfront_probes.c). Fixed-width types only, as blkio.h.
 */
#ifndef BLKTRACE_BENCH_BLKFRONT_H
#define BLKTRACE_BENCH_BLKFRONT_H

#include "hist.h"

/* Rings (hardware queues) counted one by one; higher ones count with the last. */
#define BLKFRONT_MAX_RINGS 8
/* Data grants one page of indirect descriptors holds (4096 / sizeof(segment)). */
#define BLKFRONT_GRANTS_PER_INDIRECT_PAGE 512

/* One ring's share of a device's counts. */
struct blkfront_ring_counts {
	__u64 requests;	  /* put on this ring */
	__u64 backend_ns; /* summed: submission on the ring to the backend's interrupt */
	__u64 backend_n;  /* requests in backend_ns */
	__u64 stops;	  /* .queue_rq turned a request away: ring full or no grants */
	__u64 full_ns;	  /* time the ring was full: a request took its last slot, until an
			   * interrupt freed one */
};

/*
 * What the probes count per traced device, per CPU (the loader sums the CPUs). Every
 * field is a __u64 counter, so that an interval is the difference of two snapshots.
 */
struct blkfront_counts {
	__u64 requests;	      /* put on a ring (all operations) */
	__u64 direct;	      /* reads and writes whose grants are in the request itself */
	__u64 indirect;	      /* ... in pages of indirect descriptors (BLKIF_OP_INDIRECT) */
	__u64 no_data;	      /* without data grants: flush, discard */
	__u64 grants;	      /* data grants (4 KiB each) of all requests */
	__u64 indirect_pages; /* grants of the indirect descriptor pages */
	__u64 copied_grants;  /* grants whose data was copied: persistent grants, bounce */
	__u64 full_stops;     /* turned away: the ring was full */
	__u64 grant_stops;    /* turned away with free slots: no grant references */
	__u64 waits;	      /* requests put on the ring after being turned away */
	__u64 wait_ns;	      /* summed: their first turning away to their submission */
	__u64 full_ns;	      /* summed over the rings: ring_counts.full_ns */
	__u64 fulls;	      /* times a request took a ring's last free slot */
	__u64 occupancy_sum;  /* ring slots in use at submission, this request's included */
	__u64 backend_ns;     /* summed over the rings */
	__u64 backend_n;
	__u64 unmatched; /* requests not counted: the driver's state did not read as expected */
	struct blkfront_ring_counts ring[BLKFRONT_MAX_RINGS];
	__u64 grants_direct[HIST_COUNT_BUCKETS];   /* hist_count_index(grants): exact */
	__u64 grants_indirect[HIST_COUNT_BUCKETS]; /* hist_count_index(grants) */
	__u64 occupancy[HIST_COUNT_BUCKETS];	   /* hist_count_index(slots in use) */
	__u64 backend_lat[HIST_LAT_BUCKETS];	   /* hist_lat_index(backend ns) */
};

#endif /* BLKTRACE_BENCH_BLKFRONT_H */
