/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The block-layer tracer of one or several devices: an opaque handle over the BPF skeleton.
 * Probe kernel features, configure, load (tracer__open); attach (tracer__start);
 * read cumulative totals at any time (tracer__snapshot); tracer__close(NULL) is
 * safe. Functions return 0 or a negative errno (tracer__open with the reason in a
 * struct diag) and never print, except libbpf's own diagnostics when opts.verbose is set.
 */
#ifndef BLKTRACE_BENCH_TRACER_H
#define BLKTRACE_BENCH_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "disk/device.h"
#include "disk/driver_probes.h"
#include "result/run.h"

struct tracer;

struct tracer_opts {
	/*
	 * The devices to trace, each with statistics of its own (tracer__snapshot's
	 * index): a disk or a partition of one, an NVMe multipath head (with its paths), a
	 * bio-based device (dm, md: counted in bios). At most BLKIO_MAX_DEVICES.
	 */
	const struct device *const *devs;
	unsigned int nr_devs;
	bool force_raw_tp;	 /* the raw_tp twins even where tp_btf works (--raw-tp, env) */
	int verbose;		 /* 1: libbpf's warnings and info in notes; 2: debug too */
	FILE *notes;		 /* where -v's output goes; NULL: nowhere */
	size_t snoop_ring_bytes; /* snoop mode: ring buffer size (power of 2); 0: off */
	/*
	 * --blktrace: the issue and completion programs log D and C into the per-event
	 * tracer's records (bpf/blktrace_rec.bpf.h), through a ring buffer of this size (a
	 * power of 2); 0: off.
	 */
	size_t blktrace_ring_bytes;
	/*
	 * The disk's depth at every issue (--exact-depth): a line the completing CPUs write
	 * read by every issue. Else on one issue in blkio_depth_sample() per CPU.
	 */
	bool exact_depth;
	unsigned int lose_every; /* tests: ignore about 1 completion in N (0: none) */
	/*
	 * Where to look for what the kernel allows (kallsyms, sysfs): given, the probes on
	 * xen-blkfront's functions count block_stats.ring of its disks (blkfront_probes.h);
	 * NULL: not tried.
	 */
	const struct driver_probe_env *xen_env;
	bool force_kprobes; /* those probes by kprobes even where fentry would do */
};

struct diag;

/* 0, or -errno with the reason in d (a runtime failure: the kernel, privileges, memory). */
int tracer__open(const struct tracer_opts *opts, struct tracer **out, struct diag *d);
int tracer__start(struct tracer *t);
/* Device I's cumulative totals since tracer__start (max fields: since the last reset). */
int tracer__snapshot(struct tracer *t, unsigned int device, struct block_stats *out);
/* Every device's, in tracer_opts.devs order: out has tracer__nr_devices entries. */
int tracer__snapshot_all(struct tracer *t, struct block_stats *out);
unsigned int tracer__nr_devices(const struct tracer *t);
/*
 * Requests (bios, for a bio-based device) of device I in flight now, issued since attach;
 * of a disk of one queue on kernels since 5.19, as of its last tracer__snapshot.
 */
long long tracer__in_flight(const struct tracer *t, unsigned int device);
/* Start a new interval for the max fields. */
int tracer__reset_max(struct tracer *t);
/* Detach the programs, keep the maps (to drain the snoop ring buffer). */
void tracer__detach(struct tracer *t);
void tracer__close(struct tracer *t);
/* The snoop ring buffer map, for snoop__start; -1 when not in snoop mode. */
int tracer__events_fd(const struct tracer *t);
/*
 * Snoop mode: the slots map (bpf/blkio.h: struct blkio_slot), mmap-able, and its entries
 * in *nr, for snoop__start; -1 (and 0) otherwise.
 */
int tracer__slots_fd(const struct tracer *t, size_t *nr);

/* Depth samples leave out requests whose completion was lost (needs bpf_loop, 5.17). */
bool tracer__walks_slots(const struct tracer *t);
/* A disk of one queue counts its requests in flight per CPU (5.19: blkio.bpf.c, pcpu_inflight). */
bool tracer__counts_per_cpu(const struct tracer *t);
/*
 * The xen-blkfront probes: "fentry" or "kprobe" when they count block_stats.ring, else
 * NULL and *why says why not ("" when no traced device is a xen-blkfront disk).
 */
const char *tracer__ring_probes(const struct tracer *t, const char **why);
/* --blktrace's maps, which the per-event tracer (btrace.h) shares: their fds. */
struct tracer_bt_maps {
	int events, pcpu, slots, waiting, state;
};
/* 0, or -ENOENT when the tracer was not opened for --blktrace. */
int tracer__bt_maps(const struct tracer *t, struct tracer_bt_maps *out);
/* The runs of the issue and completion programs the kernel skipped (tracer__skipped's). */
int tracer__skipped_dc(const struct tracer *t, uint64_t *issue, uint64_t *complete);
/* "tp_btf" or "raw_tp": the program flavour in use. */
const char *tracer__flavour(const struct tracer *t);
/* Bytes of BPF map memory the tracer holds (for --verbose). */
size_t tracer__map_bytes(const struct tracer *t);
/*
 * The runs of our programs the kernel skipped since load (their recursion_misses): a
 * tracepoint hit while the same program was running on that CPU (an interrupt's I/O in
 * the middle of a run) is not run. The programs filter the disks themselves, so a skipped
 * run may have been another disk's event. Kernels without that check (it came in 2022,
 * after 5.10) run the program nested instead: 0 there, and true (before 5.12 the kernel
 * has no count to give, nor anything to count). The xen-blkfront probes' count too (a
 * kprobe skipped because another of ours ran is counted nowhere). 0, or -errno when the
 * kernel will not say.
 */
int tracer__skipped(const struct tracer *t, uint64_t *n);

/*
 * A device's statistics from its `stats` value summed over the CPUs (maxima from the
 * CPUs on the current epoch) and its latency histograms, already in out->lat: the
 * counters the BPF side leaves to the histograms derived, the rest copied (blkio.h).
 */
void tracer__fold(const struct blkio_pcpu *v, struct block_stats *out);

/* The larger of each maximum of into and m into into (per-CPU or per-interval maxima). */
void blkio_maxes__merge(struct blkio_maxes *into, const struct blkio_maxes *m);
/* out = after - before for sums and histograms; max fields are taken from after. */
void block_stats__delta(struct block_stats *out, const struct block_stats *after,
			const struct block_stats *before);
/* The same for N devices' stats side by side. */
void block_stats__delta_n(struct block_stats *out, const struct block_stats *after,
			  const struct block_stats *before, size_t n);

#endif /* BLKTRACE_BENCH_TRACER_H */
