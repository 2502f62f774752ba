/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Driver probes: whether the programs on xen-blkfront's own functions (the ring's view:
 * trace/blkfront_probes.h) can attach on this kernel, and which flavour; where they
 * cannot, xen disks are told why once.
 */
#ifndef BLKTRACE_BENCH_DRIVER_PROBES_H
#define BLKTRACE_BENCH_DRIVER_PROBES_H

#include <stdbool.h>
#include <stdio.h>
#include "disk/device.h"

/* Where to look; both are needed (env_config.h has the defaults). */
struct driver_probe_env {
	const char *kallsyms;	/* /proc/kallsyms */
	const char *sysfs_root; /* /sys: kernel/btf/, bus/event_source/devices/kprobe/ */
};

struct xen_probe_support {
	bool queue_rq;	  /* blkif_queue_rq in kallsyms: submission, one ring slot per request */
	bool interrupt;	  /* blkif_interrupt: completion */
	bool in_module;	  /* the symbols belong to module xen_blkfront (else built in) */
	bool btf;	  /* BTF describes both (fentry needs it) */
	bool kprobes;	  /* the kernel has kprobes */
	bool fentry;	  /* the kernel has BPF trampolines on ftrace-managed functions */
	bool available;	  /* functions present and kprobes, or fentry with BTF */
	char how[16];	  /* "fentry" or "kprobe" when available */
	char reason[256]; /* why not, when !available */
};

/* Fills *out. 0, or -EINVAL for a missing argument: an unreadable kallsyms is a reason,
 * not an error. */
int driver_probes__detect_xen(const struct driver_probe_env *env, struct xen_probe_support *out);

/*
 * For xen-blkfront disks where the probes cannot attach: one line on f saying so (and
 * why) and that the block-layer view is what follows. At most once per process, with
 * driver_probes__say; returns whether it printed.
 */
bool driver_probes__notice(const struct driver_probe_env *env, const struct device *dev, FILE *f);

/* The same line for why (a load or attach that failed); at most once per process. */
bool driver_probes__say(const char *why, FILE *f);

#endif /* BLKTRACE_BENCH_DRIVER_PROBES_H */
