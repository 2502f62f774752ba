/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Reading sysfs (Documentation/admin-guide/sysfs-rules.rst) below one root, /sys or a
 * fixture tree: attributes as text or as strict numbers, links, directory listings.
 * Lookups resolve every link with realpath() and refuse a result outside the root, so a
 * fixture tree can never make the tool read the host's real /sys by accident.
 * Functions return 0 or a negative errno unless they say otherwise.
 */
#ifndef BLKTRACE_BENCH_SYSFS_H
#define BLKTRACE_BENCH_SYSFS_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* out = "dir/name"; -ENAMETOOLONG when it does not fit. */
int sysfs__join(char *out, size_t len, const char *dir, const char *name);
/* Is dir/name a directory (want_dir) or a regular file? */
bool sysfs__exists(const char *dir, const char *name, bool want_dir);
/* The last component of path. */
const char *sysfs__base_name(const char *path);

/* A whole small file, trailing whitespace removed; -EOVERFLOW (and "") when it does not fit. */
int sysfs__read_text(const char *path, char *buf, size_t len);
/* sysfs__read_text of dir/name. */
int sysfs__read_attr(const char *dir, const char *name, char *buf, size_t len);
/* Like sysfs__read_attr, but long values are cut to fit (paths, module parameters). */
int sysfs__read_attr_trunc(const char *dir, const char *name, char *out, size_t len);
/* A decimal attribute (parse.h's strict rules). */
int sysfs__read_u64(const char *dir, const char *name, uint64_t *out);
/* A number, or a bool parameter's Y/N as 1/0; -1 when missing or unreadable. */
int64_t sysfs__read_s64_or_neg1(const char *dir, const char *name);
/* The "dev" attribute: MAJ:MIN. */
int sysfs__read_devnum(const char *dir, unsigned int *maj, unsigned int *min);
/* The last component of where the link dir/name points: "vbd" for .../bus/xen/drivers/vbd. */
int sysfs__link_base(const char *dir, const char *name, char *out, size_t len);

/* Is path strictly below root (both canonical)? */
bool sysfs__under_root(const char *root, const char *path);
/* root/sub/key resolved into out (PATH_MAX): -ENOENT, or -EXDEV when it leaves root. */
int sysfs__lookup(const char *root, const char *sub, const char *key, char *out);

/*
 * The entries of dir but "." and "..", in name order: their number, or a negative errno
 * (*ents NULL). Free with sysfs__scan_free.
 */
int sysfs__scan(const char *dir, struct dirent ***ents);
void sysfs__scan_free(struct dirent **ents, int n);
/*
 * Up to max entry names of dir, in name order, into rows of width bytes starting at out;
 * returns how many were kept. A missing dir is an empty list (git keeps no empty dirs).
 */
unsigned int sysfs__list_names(const char *dir, char *out, size_t width, unsigned int max);
/* The number of entries of dir; 0 when it is missing. */
unsigned int sysfs__count_entries(const char *dir);

#endif /* BLKTRACE_BENCH_SYSFS_H */
