/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Where a setting of the next boot lives (boot_knob.h's knobs): the kernel command line,
 * the modprobe.d files modprobe reads, and the initramfs, which carries its own copy of
 * /etc/modprobe.d (Debian's initramfs-tools and dracut both copy it) and loads the
 * modules the root file system needs from it, so an option for such a module counts only
 * once the initramfs is rebuilt. The tool's own file is one modprobe.d file, written
 * whole, removed only while it still holds what the tool wrote.
 */
#ifndef BLKTRACE_BENCH_BOOT_CONFIG_H
#define BLKTRACE_BENCH_BOOT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "disk/boot_knob.h"

/* The system's paths; boot_config__system() has the real ones, tests their own. */
struct boot_config_env {
	const char *sysfs_root;		   /* /sys: the parameter's name in force */
	const char *cmdline;		   /* /proc/cmdline */
	const char *const *modprobe_dirs;  /* the directories modprobe reads, NULL-terminated */
	const char *conf_dir;		   /* where the tool's file goes: /etc/modprobe.d */
	const char *const *initramfs_cmds; /* candidates, "PATH ARGS" each; NULL-terminated */
	const char *kernel_release;	   /* for update-initramfs -k: uname -r */
};

/* The tool's own file in conf_dir. */
#define BOOT_CONFIG_FILE "blktrace-bench-sweep.conf"

void boot_config__system(struct boot_config_env *env, const char *sysfs_root);

/*
 * Another setting of k the next boot would apply: on the kernel command line, or in a
 * modprobe.d file other than the tool's. 1 with where ("the kernel command line", the
 * file's path) and the value set, 0 when there is none, -errno when a place cannot be
 * read.
 */
int boot_config__other_setting(const struct boot_config_env *env, const struct boot_knob *k,
			       char *where, size_t where_len, char *value, size_t value_len);

struct diag;

/* Write the tool's file: k = v at the next boot. 0, or -errno with one line in d. */
int boot_config__write(const struct boot_config_env *env, const struct boot_knob *k, int64_t v,
		       struct diag *d);

/*
 * Remove the tool's file when it is the tool's (its first line says so): 1 removed, 0 there
 * was none, -errno with one line in d (also when someone else's file has its name).
 */
int boot_config__remove(const struct boot_config_env *env, struct diag *d);

/*
 * Rebuild the initramfs of this kernel, so that it carries the modprobe.d files: the first
 * candidate that exists is run, its output on stderr. 1 with the command in how, 0 when no
 * candidate exists (how says so), -errno with one line in d when it failed.
 */
int boot_config__update_initramfs(const struct boot_config_env *env, char *how, size_t len,
				  struct diag *d);

#endif /* BLKTRACE_BENCH_BOOT_CONFIG_H */
