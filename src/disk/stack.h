/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The devices under a traced one: the layers of its stack. A dm or md device has its
 * disks in slaves/ (recursively: an LV on a crypt device on a disk); a loop device has a
 * backing file, whose file system lives on a disk. Each layer is traced with the top, so
 * the report can say what every layer made of the I/O above it.
 */
#ifndef BLKTRACE_BENCH_STACK_H
#define BLKTRACE_BENCH_STACK_H

#include <stddef.h>
#include "disk/device.h"

struct diag;

/* The most layers under one top (the tracer's device limit, minus the top). */
#define STACK_MAX_LAYERS 63
/* Deeper than any real stack (LV on crypt on RAID on a partition is 4). */
#define STACK_MAX_LEVELS 8

enum layer_link {
	LAYER_SLAVE,	    /* in the upper device's slaves/ */
	LAYER_BACKING_FILE, /* holds the file system of the upper loop device's backing file */
};

struct layer {
	struct device dev;
	int above;	    /* index of the layer it serves, -1: the top */
	unsigned int level; /* 1: right under the top */
	enum layer_link link;
	char role[160]; /* in words: "dm-crypt", "disk (virtio_blk), raid1 member", ... */
};

struct stack {
	struct layer *layers; /* breadth first: every layer after the one above it */
	size_t n;
	char note[256];	   /* what could not be followed, "" when everything was */
	char top_kind[96]; /* the top in words: "dm-linear (2 targets)", "md raid1", "loop" */
};

/*
 * The layers under TOP, read below sysfs_root. A backing file is followed with stat()
 * (its file system's device), only when sysfs_root is the real /sys. A disk reached
 * twice (a diamond, or two partitions of one disk) is listed once, as the whole disk
 * when the partitions differ. What cannot be followed goes to st->note. 0, or -ENOMEM
 * with d.
 */
int stack__discover(const char *sysfs_root, const struct device *top, struct stack *st,
		    struct diag *d);
void stack__free(struct stack *st);

#endif /* BLKTRACE_BENCH_STACK_H */
