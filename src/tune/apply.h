/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * apply: the files of a tune result (apply_files.h) written below a root ("/", or
 * --root DIR), and taken away again by --undo, exactly those.
 *
 * A manifest, ROOT/var/lib/blktrace-bench/applied.json, holds every file apply wrote
 * with its content, and the directories it had to create. A file is replaced only when
 * the manifest says apply wrote it and it has not been edited since; anything else at
 * its path is refused before anything is written. --undo removes each file whose content
 * is still what apply wrote (an edited one stays, said so), then the directories apply
 * created when empty, then the manifest. --dry-run prints the files as diffs (diff -u)
 * and writes nothing. The manifest is written before the files it lists, so an apply
 * that dies half way leaves nothing --undo does not know about.
 */
#ifndef BLKTRACE_BENCH_APPLY_H
#define BLKTRACE_BENCH_APPLY_H

#include <stdbool.h>
#include <stdio.h>
#include "workload/boot_config.h"
#include "tune/tune_plan.h"

#define APPLY_MANIFEST_DIR "/var/lib/blktrace-bench"
#define APPLY_MANIFEST_NAME "applied.json"
#define APPLY_MANIFEST APPLY_MANIFEST_DIR "/" APPLY_MANIFEST_NAME

struct apply_opts {
	const char *root; /* "/" or --root DIR */
	bool dry_run;
	FILE *out;	    /* the files, diffs and next steps */
	const char *result; /* the result file, as named in the files' comments */
	bool check_cmdline; /* warn about a parameter /proc/cmdline sets already */
	/* The system's initramfs, rebuilt when a modprobe.d file changes (NULL: --root). */
	const struct boot_config_env *boot;
};

struct diag;

/*
 * Write (or print) plan's files. 0 (also when there is nothing to write); -EINVAL with
 * one line in d (bad input) for a refusal: a file apply did not write in the way, no
 * stable identity for a udev rule, a manifest that is not ours; another -errno with d.
 */
int apply__run(const struct tune_plan *plan, const struct apply_opts *o, struct diag *d);

/* Remove what apply wrote below o->root (or say what would go). 0, or -errno with d. */
int apply__undo(const struct apply_opts *o, struct diag *d);

#endif /* BLKTRACE_BENCH_APPLY_H */
