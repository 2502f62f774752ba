/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The files apply writes for a tune result, the way the system itself makes settings
 * persist: a udev rule for the disk's queue settings (matched by its stable identity,
 * disk_id.h, never by its kernel name), a modprobe.d line for a module parameter. Each
 * names the tool, the result it came from, what was measured, how to put it in force
 * now and how to undo it. The kernel command line is never written: its parameter is
 * printed with the file to edit (apply.c).
 */
#ifndef BLKTRACE_BENCH_APPLY_FILES_H
#define BLKTRACE_BENCH_APPLY_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include "tune/tune_plan.h"

#define APPLY_UDEV_DIR "/etc/udev/rules.d"
#define APPLY_MODPROBE_DIR "/etc/modprobe.d"
/* The names: PREFIX, then [A-Za-z0-9._-] (disk_id__slug's, a module's), then SUFFIX. */
#define APPLY_RULE_PREFIX "90-blktrace-bench-"
#define APPLY_RULE_SUFFIX ".rules"
#define APPLY_CONF_PREFIX "blktrace-bench-"
#define APPLY_CONF_SUFFIX ".conf"

struct apply_file {
	char path[PATH_MAX]; /* absolute, below the root: "/etc/udev/rules.d/..." */
	char match[320];     /* the rule's match of the disk's identity; "" for modprobe.d */
	char *content;	     /* malloc'd */
};

/* Is rel ("/etc/udev/rules.d/NAME") a path of a file apply writes, by its pattern? */
bool apply_files__ours(const char *rel);

struct diag;

/*
 * The files plan needs, in files[0..*nr): the udev rule when it changes queue settings,
 * the modprobe.d file when it changes a module parameter. result names the result file
 * in their comments. 0; -EINVAL with one line in d (bad input) when queue settings need
 * a rule but the disk has no stable identity; -ENOMEM. Free with apply_files__free.
 */
int apply_files__make(const struct tune_plan *plan, const char *result, struct apply_file files[2],
		      int *nr, struct diag *d);
void apply_files__free(struct apply_file *files, int nr);

/* "udevadm control --reload && udevadm trigger --action=change --sysname-match=xvda" */
void apply_files__udev_now(const struct tune_plan *plan, char *buf, size_t len);

#endif /* BLKTRACE_BENCH_APPLY_FILES_H */
