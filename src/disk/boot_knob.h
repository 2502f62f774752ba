/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Settings that change only when their module loads, which for the driver of a disk in use
 * means across a reboot: module parameters a guest cannot change at run time, such as
 * xen_blkfront.max_indirect_segments (a disk negotiates its segments with the backend once,
 * when it connects; a reloaded module does not reconnect it). One table; each knob says
 * where its value in force shows, and how the module turns a value it is given into the
 * one it uses. Where a value comes from (the kernel command line, a modprobe.d file) is
 * boot_config.h's.
 */
#ifndef BLKTRACE_BENCH_BOOT_KNOB_H
#define BLKTRACE_BENCH_BOOT_KNOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct boot_knob {
	const char *name;      /* as --set names it: "xen_blkfront.max_indirect_segments" */
	const char *module;    /* "xen_blkfront" */
	const char *param;     /* "max_indirect_segments" */
	const char *old_param; /* its name in older kernels ("max" in 3.11 to 4.5), or NULL */
	const char *driver;    /* the disks it shapes: their driver ("vbd") */
	int64_t min, max;      /* the values the module accepts */
	int64_t floor;	       /* the module raises a smaller value to it at load */
	const char *unit;      /* "segments" */
};

/* The knob called name, or NULL. */
const struct boot_knob *boot_knob__find(const char *name);

struct diag;

/* value as a number the knob accepts: 0, or -EINVAL with one line in d (bad input). */
int boot_knob__parse(const struct boot_knob *k, const char *value, int64_t *out, struct diag *d);

/* What the module uses when given v: the value it reads back once loaded. */
int64_t boot_knob__effective(const struct boot_knob *k, int64_t v);

/*
 * The value in force: <sysfs_root>/module/MODULE/parameters/PARAM (or its old name). 0,
 * -ENOENT when the module is not loaded (nothing in force), another -errno otherwise.
 */
int boot_knob__read(const struct boot_knob *k, const char *sysfs_root, int64_t *out);

/*
 * Is the module built into the kernel? Then no modprobe.d file reaches it: only the kernel
 * command line does. A loaded module has initstate; a built-in one has none.
 */
bool boot_knob__builtin(const struct boot_knob *k, const char *sysfs_root);

/* "options MODULE PARAM=V": the modprobe.d line that sets it (the old name where in use). */
int boot_knob__modprobe_line(const struct boot_knob *k, const char *sysfs_root, int64_t v,
			     char *buf, size_t len);

#endif /* BLKTRACE_BENCH_BOOT_KNOB_H */
