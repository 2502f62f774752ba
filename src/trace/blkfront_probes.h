/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Probes on xen-blkfront's own functions (bpf/blkfront.bpf.c): per traced xen-blkfront
 * disk, how its requests went on the shared ring (direct or indirect, grants each, the
 * ring's occupancy, turned away when full and for how long, the backend's response
 * time, copies through granted pages). Loaded beside the block-layer tracer (tracer.c)
 * when a traced device is a xen-blkfront disk and the kernel lets programs attach to the
 * module (disk/driver_probes.h); fentry where xen_blkfront has BTF, kprobes otherwise.
 */
#ifndef BLKTRACE_BENCH_BLKFRONT_PROBES_H
#define BLKTRACE_BENCH_BLKFRONT_PROBES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "blkfront.h"
#include "disk/device.h"
#include "disk/driver_probes.h"

struct blkfront_probes;

struct blkfront_probes_opts {
	const struct device *const *devs; /* the tracer's devices, in its order */
	unsigned int nr_devs;
	const struct driver_probe_env *env;
	int verbose; /* 1: libbpf's warnings in notes; 2: its debug output too */
	FILE *notes;
	bool force_kprobes; /* kprobes even where fentry would do (where the kernel has them) */
};

/* Does any of the devices sit on xen-blkfront (then the probes have something to count)? */
bool blkfront_probes__wanted(const struct device *const *devs, unsigned int n);

/*
 * Load the probes of the flavour the kernel allows. 0 with *out set; otherwise -errno and
 * why in why (one clause, "no kprobes, and no xen_blkfront BTF for fentry"), *out NULL.
 */
int blkfront_probes__open(const struct blkfront_probes_opts *opts, struct blkfront_probes **out,
			  char *why, size_t len);
/* Attach; 0 or -errno (the probes are then detached). */
int blkfront_probes__start(struct blkfront_probes *p);
/* Detach, keeping the counts readable. */
void blkfront_probes__detach(struct blkfront_probes *p);
/* Device I's counts since start, summed over the CPUs. 0 or -errno. */
int blkfront_probes__read(struct blkfront_probes *p, unsigned int device,
			  struct blkfront_counts *out);
/* Add the runs of the probes the kernel skipped (fentry's recursion_misses) to *n. */
int blkfront_probes__skipped(const struct blkfront_probes *p, uint64_t *n);
/* "fentry" or "kprobe". */
const char *blkfront_probes__how(const struct blkfront_probes *p);
void blkfront_probes__close(struct blkfront_probes *p);

#endif /* BLKTRACE_BENCH_BLKFRONT_PROBES_H */
