/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The sysfs model of a disk: what the user named, the whole disk behind it, its
 * driver and queue limits, read below the sysfs root the caller gives (/sys, or a
 * fixture tree in tests). Resolving and the disk itself: device_resolve.c; queue/ and mq/:
 * device_queue.c; what the driver adds: device_driver.c; what xenstore says of a
 * xen-blkfront disk: device_xen.c.
 */
#ifndef BLKTRACE_BENCH_DEVICE_H
#define BLKTRACE_BENCH_DEVICE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define DEVICE_NAME_MAX 64
/* Lists in struct device keep this many entries (lowest numbers/names); nr_* counts kept ones. */
#define DEVICE_MAX_PARTITIONS 64
#define DEVICE_MAX_STACK 16 /* slaves/ and holders/ */
#define DEVICE_MAX_PARAMS 32
/* BLKIF_MAX_SEGMENTS_PER_REQUEST: what fits in one ring slot without indirect descriptors. */
#define XEN_DIRECT_SEGMENTS 11
#define XEN_SEGMENT_BYTES 4096		 /* one grant page per segment */
#define XEN_DEFAULT_INDIRECT_SEGMENTS 32 /* the module's max_indirect_segments default */

/* Queue limits as sysfs shows them; -1 where the kernel does not have the file. */
struct queue_limits {
	int64_t max_sectors_kb;
	int64_t max_hw_sectors_kb;
	int64_t max_segments;
	int64_t max_segment_size;
	int64_t nr_requests;
	int64_t read_ahead_kb;
	int64_t logical_block_size;
	int64_t physical_block_size;
	int64_t wbt_lat_usec;
	int64_t nomerges;
	int64_t rotational;   /* 0 or 1 */
	char scheduler[32];   /* the active one, "none" when none, "" without the file */
	char write_cache[32]; /* "write back" / "write through", "" without the file */
};

/* Requests one page of the shared ring holds (__CONST_RING_SIZE(blkif, 4096)). */
#define XEN_RING_REQUESTS_PER_PAGE 32
/* XenbusState (xen/interface/io/xenbus.h) of a connected frontend or backend. */
#define XENBUS_STATE_CONNECTED 4

/* Why a xen-blkfront disk uses the segments it does (device_xen.c has the rules). */
enum xen_segments_reason {
	XEN_SEGMENTS_UNKNOWN = 0,  /* xenstore not read, or the module's value unknown */
	XEN_SEGMENTS_BACKEND_NONE, /* the backend offers no indirect descriptors (or <= 11) */
	XEN_SEGMENTS_MODULE_OFF,   /* max_indirect_segments <= 11 turns them off */
	XEN_SEGMENTS_BACKEND_CAPS, /* the module asks for more than the backend offers */
	XEN_SEGMENTS_MODULE_ASKS,  /* the module's value, within the backend's offer */
};

/*
 * The backend's offer: the nodes of its xenstore directory, read as xen-blkfront reads
 * them (an absent node is 0, multi-queue-max-queues 1); -1 where not read.
 */
struct xen_backend_offer {
	int64_t domid;		       /* the frontend's backend-id */
	int64_t state;		       /* XenbusState */
	int64_t max_indirect_segments; /* feature-max-indirect-segments; 0: none */
	int64_t persistent;	       /* feature-persistent */
	int64_t max_queues;	       /* multi-queue-max-queues */
	int64_t max_ring_page_order;   /* max-ring-page-order */
	int64_t flush_cache;	       /* feature-flush-cache */
	int64_t barrier;	       /* feature-barrier */
	int64_t discard;	       /* feature-discard */
};

struct xen_blkfront {
	bool present;
	int64_t max_indirect_segments; /* module parameter (max on 3.11..4.5); -1 unknown */
	bool param_is_old_name;	       /* the parameter is called "max" */
	int64_t segments;	       /* negotiated: queue/max_segments */
	bool indirect_descriptors;     /* segments > 11 */
	int64_t max_request_bytes;     /* segments x XEN_SEGMENT_BYTES */
	int64_t max_ring_page_order;
	int64_t max_queues;
	int64_t feature_persistent; /* -1 when the parameter is absent */
	bool backend_limited;	    /* the module asked for more segments than negotiated */

	/*
	 * From xenstore (device_xen.c), on a live system or from a fake: the frontend's
	 * node and the backend's offer, then what was negotiated by xen-blkfront's rules.
	 * -1 (and "", XEN_SEGMENTS_UNKNOWN) where it was not read.
	 */
	char xenstore_error[160]; /* why xenstore (or the backend's part) was not read */
	char frontend[64];	  /* the frontend's node: "device/vbd/51712" ("" not tried) */
	char backend_path[128];	  /* "/local/domain/0/backend/vbd/1/51712" (not saved) */
	int64_t frontend_state;	  /* XenbusState */
	bool backend_read;	  /* backend holds the offer */
	struct xen_backend_offer backend;
	int64_t segments_in_effect; /* 4 KiB segments a request may have, by the rules */
	enum xen_segments_reason segments_reason;
	int64_t queues;		   /* rings: the frontend's multi-queue-num-queues */
	int64_t ring_pages;	   /* per ring: 1 << the frontend's ring-page-order */
	int64_t ring_requests;	   /* per ring: XEN_RING_REQUESTS_PER_PAGE x ring_pages */
	int64_t persistent_grants; /* 1 when both sides use them */
	int64_t bounce_buffer;	   /* 1 when data is copied through granted pages */
	int64_t discard;	   /* 1 when the backend offers discard */
	char cache_flush[16];	   /* "flush", "barrier", "none"; "" unknown */
};

/*
 * In dom0: a disk xen-blkback serves to a guest as one of its virtual disks (sysfs
 * bus/xen-backend/devices/vbd-DOMID-DEVID names it in physical_device), with what
 * xenstore says of the guest; -1 and "" where not known.
 */
struct xen_guest_disk {
	bool present;
	int64_t domid;
	int64_t devid;		  /* the virtual device number the guest sees: 51712 */
	char vdev[16];		  /* its name there: the toolstack's "dev" node, "xvda" */
	char domain[64];	  /* the guest's name: /local/domain/DOMID/name */
	char backend[64];	  /* the backend's xenbus device: "vbd-3-51712" */
	char xenstore_error[160]; /* why the names were not read */
};

/*
 * virtio_blk module parameters (-1 absent), the depth the disk really has and the host's
 * segment limit (seg_max). The queue_depth parameter 0 means "the virtqueue's size"; what
 * the disk got is the tag count of its hardware queues.
 */
struct virtio_blk_info {
	bool present;
	int64_t queue_depth;	   /* in effect: nr_tags of a hardware queue, -1 unknown */
	int64_t queue_depth_param; /* the module parameter (0: the virtqueue size) */
	int64_t num_request_queues;
	int64_t poll_queues;
	int64_t host_max_segments; /* queue/max_segments */
};

/* nvme (PCI) module parameters, -1 absent; the queue count is device.nr_hw_queues. */
struct nvme_info {
	bool present;
	int64_t io_queue_depth;
	int64_t poll_queues;
	int64_t write_queues;
};

struct loop_info {
	bool present; /* bound to a backing file (loop/ exists) */
	char backing_file[256];
	int64_t dio; /* loop/dio: backing file opened O_DIRECT */
};

struct device_partition {
	char name[DEVICE_NAME_MAX];
	unsigned int major, minor;
	unsigned int number; /* the partition file */
	uint64_t start;	     /* sectors */
	uint64_t sectors;
	unsigned int nr_holders; /* e.g. a dm device on top of it */
};

struct module_param {
	char name[48];
	char value[80];
};

/*
 * A path of an NVMe multipath head (drivers/nvme/host/multipath.c): a hidden disk
 * nvme<S>c<C>n<N> on controller nvme<C>, where the head's requests are issued. Hidden
 * disks have no dev_t in sysfs and no device node; the tracer matches them by name.
 */
#define DEVICE_MAX_PATHS 7
struct device_path {
	char name[DEVICE_NAME_MAX];	  /* nvme1c1n1 */
	char controller[DEVICE_NAME_MAX]; /* nvme1 */
	char state[16];			  /* the controller's: live, connecting, ... ("" unknown) */
	unsigned int nr_hw_queues;
	unsigned int max_tags;
};

/* Which limit sets the largest request (bits, both when they agree). */
enum device_limit {
	DEVICE_LIMIT_NONE = 0,
	DEVICE_LIMIT_MAX_SECTORS = 1,  /* max_sectors_kb */
	DEVICE_LIMIT_MAX_SEGMENTS = 2, /* max_segments x max_segment_size */
};

struct device {
	char name[DEVICE_NAME_MAX];	 /* the whole disk, e.g. "xvda" */
	unsigned int major, minor;	 /* of the whole disk */
	char part_name[DEVICE_NAME_MAX]; /* "" unless the user named a partition */
	unsigned int part_major, part_minor;
	uint64_t part_start; /* sectors, on the whole disk */
	uint64_t part_sectors;
	uint64_t size_sectors;	      /* the whole disk */
	char driver[DEVICE_NAME_MAX]; /* e.g. "vbd", "virtio_blk", "loop", "" if unknown */
	char module[DEVICE_NAME_MAX]; /* e.g. "xen_blkfront", "loop" */
	struct queue_limits limits;
	unsigned int nr_hw_queues; /* mq/ entries (0 for bio-based devices) */
	unsigned int max_tags;	   /* largest mq/N/nr_tags */
	struct xen_blkfront xen;
	struct xen_guest_disk xen_guest; /* dom0: the guest disk it backs */
	char sysfs_path[512];		 /* resolved directory of the whole disk */
	bool hidden; /* no dev_t in sysfs (an NVMe path disk): major:minor 0:0 */

	/* An NVMe multipath head: its requests are issued on these disks, traced with it. */
	unsigned int nr_paths;
	struct device_path paths[DEVICE_MAX_PATHS];

	/* No mq/ and no real scheduler: dm, md, zram never issue requests themselves. */
	bool bio_based;
	char dm_name[128];	  /* dm/name, "" unless device-mapper */
	char md_level[32];	  /* md/level, "" unless md */
	int64_t scsi_queue_depth; /* device/queue_depth of SCSI disks, -1 otherwise */
	unsigned int nr_partitions;
	struct device_partition partitions[DEVICE_MAX_PARTITIONS]; /* by number */
	unsigned int nr_slaves; /* the disks underneath, traceable instead */
	char slaves[DEVICE_MAX_STACK][DEVICE_NAME_MAX];
	unsigned int nr_holders; /* devices stacked on the whole disk */
	char holders[DEVICE_MAX_STACK][DEVICE_NAME_MAX];
	unsigned int nr_module_params; /* <root>/module/<module>/parameters, by name */
	struct module_param module_params[DEVICE_MAX_PARAMS];
	struct virtio_blk_info virtio_blk;
	struct nvme_info nvme;
	struct loop_info loop;
};

struct diag;

/* Where a disk's model is read from. */
struct device_env {
	const char *sysfs_root; /* "/sys", or a fixture tree */
	/*
	 * xenstore, for xen-blkfront disks: a file of `xenstore-ls -f` lines (a fake), or
	 * NULL: libxenstore where sysfs_root is /sys, nothing below a fixture tree.
	 */
	const char *xenstore;
};

/*
 * Resolve "xvda", "/dev/xvda", "xvda1" or "202:0" below env->sysfs_root and read the
 * disk's model (and, for xen-blkfront, what xenstore says of it: a failure there is
 * noted in xen.xenstore_error, never returned). Returns 0, or a negative errno with the
 * reason in d: bad input for a name that is invalid or resolves to no disk (-ENOENT) or
 * outside the root (-EXDEV), a runtime failure for sysfs that cannot be read.
 */
int device__resolve_env(const struct device_env *env, const char *spec, struct device *dev,
			struct diag *d);
/* device__resolve_env with sysfs_root and no fake xenstore. */
/*
 * dom0: whether xen-blkback serves dev to a guest now, when it did not when dev was
 * resolved (a trace started before the guest): device.xen_guest filled, or left as it was.
 */
void device__find_xen_guest(const struct device_env *env, struct device *dev);
int device__resolve(const char *sysfs_root, const char *spec, struct device *dev, struct diag *d);

/* Re-read the queue limits (they may have been changed since resolve). */
int device__read_limits(struct device *dev);

/* Read one attribute of the whole disk's directory (e.g. "diskseq"), without trailing newline. */
int device__disk_attr(const struct device *dev, const char *attr, char *buf, size_t len);

/*
 * The active scheduler of a queue/scheduler text: "none [mq-deadline] kyber" ->
 * "mq-deadline"; an mq queue before 4.11 shows just "none"; "" when none is marked.
 */
void device__active_scheduler(const char *text, char *out, size_t len);

/* Read/write one queue/ attribute of the whole disk; values without trailing newline. */
int device__queue_get(const struct device *dev, const char *attr, char *buf, size_t len);
int device__queue_set(const struct device *dev, const char *attr, const char *value);

/*
 * The largest request the queue accepts: max_sectors_kb, or max_segments full segments of
 * max_segment_size when smaller. Bytes, -1 when neither is known; *limits gets the
 * enum device_limit bits of the limit(s) that set it (may be NULL).
 */
int64_t device__max_request_bytes(const struct device *dev, unsigned int *limits);

/* enum device_limit bits as text: "max_sectors_kb", "max_segments", both joined by "+", "". */
const char *device__limit_name(unsigned int limits);

/*
 * What follows from the segments a xen-blkfront disk has (queue/max_segments) and, when
 * param >= 0, the module parameter it was given (raised to 11 as the module does): a run
 * of a sweep across reboots has its own.
 */
void device__xen_in_force(struct xen_blkfront *x, int64_t segments, int64_t param);

/*
 * xen-blkfront's boot (or modprobe) parameter for the segments it asks for:
 * "xen_blkfront.max_indirect_segments", "xen_blkfront.max" on 3.11..4.5.
 */
/*
 * dom0: "xvda of domU \"web1\" (domid 3)" for a disk xen-blkback serves to a guest, the
 * name left out where xenstore did not say it; "" otherwise. Returns buf.
 */
const char *device__xen_guest_text(const struct xen_guest_disk *g, char *buf, size_t len);
const char *device__xen_param_name(const struct xen_blkfront *x);
/* That parameter set to segments, into buf: "xen_blkfront.max_indirect_segments=32". */
const char *device__xen_boot_parameter(const struct xen_blkfront *x, int64_t segments, char *buf,
				       size_t len);
/* The same for /etc/modprobe.d: "options xen_blkfront max_indirect_segments=32". */
const char *device__xen_modprobe_line(const struct xen_blkfront *x, int64_t segments, char *buf,
				      size_t len);

/*
 * Why the disk has the segments it has, into buf: "the backend offers no indirect
 * descriptors (as XCP-ng's tapdisk does)", "the backend caps the 512 asked at 256", ...;
 * "" when xenstore was not read.
 */
const char *device__xen_segments_why(const struct xen_blkfront *x, char *buf, size_t len);
/* enum xen_segments_reason as the JSON names it: "backend_offers_none", ...; NULL unknown. */
const char *device__xen_reason_name(enum xen_segments_reason r);
/* The reason of a name device__xen_reason_name gives; XEN_SEGMENTS_UNKNOWN for others. */
enum xen_segments_reason device__xen_reason_of(const char *name);
/* XenbusState as Xen names it: "Connected"; "" for a number it does not know. */
const char *device__xenbus_state_name(int64_t state);
/*
 * The most segments any guest parameter can get on this disk: the backend's offer, or 11
 * when it offers no more (no indirect descriptors); -1 when xenstore was not read.
 */
int64_t device__xen_segments_cap(const struct xen_blkfront *x);

#endif /* BLKTRACE_BENCH_DEVICE_H */
