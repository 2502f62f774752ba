// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What xenstore says of a xen-blkfront disk: the frontend's node (the xenbus device's
 * nodename, device/vbd/51712), the backend's offer in the directory that node's
 * `backend` names, and what xen-blkfront made of both (drivers/block/xen-blkfront.c, 6.x:
 * xlblk_init, talk_to_blkback, negotiate_mq, blkfront_gather_backend_features):
 *   segments   min(max_indirect_segments, the backend's feature-max-indirect-segments),
 *              and 11 or less (a backend without the node offers 0) turns indirect
 *              descriptors off: 11 segments, BLKIF_MAX_SEGMENTS_PER_REQUEST. Since v4.10
 *              (commit 3b4f18843e51) the module raises its own parameter to 11 at load,
 *              so 0 reads back 11.
 *   queues     min(multi-queue-max-queues, max_queues): the frontend writes it as its
 *              multi-queue-num-queues, when more than 1.
 *   ring       1 << min(max_ring_page_order, max-ring-page-order) pages: the frontend's
 *              ring-page-order, when more than one page; 32 requests a page.
 *   persistent both sides: the frontend writes its feature_persistent as its own
 *              feature-persistent (a parameter since v5.10, commit 74a852479c68), and
 *              uses the grants when the backend's feature-persistent is 1 too.
 *   bounce     data copied through granted pages: with persistent grants always, and
 *              since v5.19 (commit 2400617da7ee) for a backend not trusted too (the
 *              module's `trusted`, the frontend's `trusted` node).
 *   flush      feature-flush-cache, else feature-barrier; discard: feature-discard.
 * Reading xenstore never fails the disk: what could not be read is said in
 * xen.xenstore_error, and the sysfs view stays.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "disk/device_read.h"
#include "base/parse.h"
#include "base/sysfs.h"
#include "base/text.h"
#include "disk/xen_store.h"

void device_xen__unknown(struct xen_blkfront *x)
{
	struct xen_backend_offer *b = &x->backend;

	x->xenstore_error[0] = x->frontend[0] = x->backend_path[0] = x->cache_flush[0] = '\0';
	x->frontend_state = -1;
	x->backend_read = false;
	b->domid = b->state = b->max_indirect_segments = b->persistent = b->max_queues = -1;
	b->max_ring_page_order = b->flush_cache = b->barrier = b->discard = -1;
	x->segments_in_effect = x->queues = x->ring_pages = x->ring_requests = -1;
	x->persistent_grants = x->bounce_buffer = x->discard = -1;
	x->segments_reason = XEN_SEGMENTS_UNKNOWN;
}

/* A xenstore path as Xen allows them ([a-zA-Z0-9-/_@]), absolute or not as asked. */
static bool valid_path(const char *p, bool absolute)
{
	if (!*p || (*p == '/') != absolute)
		return false;
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-/_@", *p))
			return false;
	return true;
}

/* The xenbus device's nodename (device/vbd/51712), or its name vbd-51712 spelt so. */
static int frontend_node(const struct device *dev, char *out, size_t len)
{
	char dir[PATH_MAX], link[64];
	unsigned int vdev;
	int end = 0;

	if (!sysfs__join(dir, sizeof(dir), dev->sysfs_path, "device") &&
	    !sysfs__read_attr(dir, "nodename", out, len) && valid_path(out, false))
		return 0;
	if (!sysfs__link_base(dev->sysfs_path, "device", link, sizeof(link)) &&
	    sscanf(link, "vbd-%u%n", &vdev, &end) == 1 && !link[end]) {
		snprintf(out, len, "device/vbd/%u", vdev);
		return 0;
	}
	out[0] = '\0';
	return -ENOENT;
}

/* One node of a directory, read once; the first failure but absence is kept. */
struct reader {
	struct xen_store *xs;
	const char *dir;
	int err;
	char at[320]; /* the node that failed */
};

static int node(struct reader *r, const char *name, char *buf, size_t len)
{
	char path[320];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	ret = xen_store__read(r->xs, path, buf, len);
	if (ret && ret != -ENOENT && !r->err) {
		r->err = ret;
		snprintf(r->at, sizeof(r->at), "%s", path);
	}
	return ret;
}

/* An unsigned number as xenbus_read_unsigned reads it: absent is dflt; -1 unreadable. */
static int64_t node_num(struct reader *r, const char *name, int64_t dflt)
{
	char buf[32];
	uint64_t v;
	int ret = node(r, name, buf, sizeof(buf));

	if (ret == -ENOENT)
		return dflt;
	return ret || parse_uint(buf, INT64_MAX, &v) ? -1 : (int64_t)v;
}

static void say(struct xen_blkfront *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct xen_blkfront *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->xenstore_error, sizeof(x->xenstore_error), fmt, ap);
	va_end(ap);
}

/* The frontend's nodes; false (and why) when its backend is not known. */
static bool read_frontend(struct reader *r, struct xen_blkfront *x, int64_t *persistent,
			  int64_t *trusted)
{
	int64_t order;
	int ret;

	ret = node(r, "backend", x->backend_path, sizeof(x->backend_path));
	if (ret == -ENOENT)
		say(x, "xenstore has no %s/backend", r->dir);
	else if (ret)
		say(x, "%s: %s", r->at, strerror(-ret));
	else if (!valid_path(x->backend_path, true))
		say(x, "%s/backend is no xenstore path", r->dir);
	if (x->xenstore_error[0]) {
		x->backend_path[0] = '\0';
		return false;
	}
	x->backend.domid = node_num(r, "backend-id", -1);
	x->frontend_state = node_num(r, "state", -1);
	x->queues = node_num(r, "multi-queue-num-queues", 1);
	order = node_num(r, "ring-page-order", 0);
	if (order >= 0 && order <= 16) {
		x->ring_pages = (int64_t)1 << order;
		x->ring_requests = XEN_RING_REQUESTS_PER_PAGE * x->ring_pages;
	}
	/* What blkback reads of the frontend, with its defaults. */
	*persistent = node_num(r, "feature-persistent", 0);
	*trusted = node_num(r, "trusted", 1);
	return true;
}

static void read_backend(struct reader *r, struct xen_blkfront *x)
{
	struct xen_backend_offer *b = &x->backend;

	/* Every backend writes its state: without one, the directory is not readable. */
	b->state = node_num(r, "state", -1);
	if (b->state < 0) {
		if (r->err)
			say(x, "%s: %s", r->at, strerror(-r->err));
		else
			say(x, "%s has no state: gone, or hidden from this domain", r->dir);
		return;
	}
	b->max_indirect_segments = node_num(r, "feature-max-indirect-segments", 0);
	b->persistent = node_num(r, "feature-persistent", 0);
	b->max_queues = node_num(r, "multi-queue-max-queues", 1);
	b->max_ring_page_order = node_num(r, "max-ring-page-order", 0);
	b->flush_cache = node_num(r, "feature-flush-cache", 0);
	b->barrier = node_num(r, "feature-barrier", 0);
	b->discard = node_num(r, "feature-discard", 0);
	x->backend_read = true;
	if (r->err)
		say(x, "%s: %s", r->at, strerror(-r->err));
}

/* A Y/N or numeric parameter of the disk's module; -1 when it has none. */
static int64_t module_flag(const struct device *dev, const char *name)
{
	unsigned int i;
	uint64_t v;

	for (i = 0; i < dev->nr_module_params; i++) {
		const char *s = dev->module_params[i].value;

		if (strcmp(dev->module_params[i].name, name))
			continue;
		if (!strcmp(s, "Y") || !strcmp(s, "N"))
			return *s == 'Y';
		return parse_uint(s, INT64_MAX, &v) ? -1 : (int64_t)v;
	}
	return -1;
}

static void negotiate_segments(struct xen_blkfront *x)
{
	int64_t offer = x->backend.max_indirect_segments, want = x->max_indirect_segments;

	if (!x->backend_read || offer < 0)
		return;
	if (offer <= XEN_DIRECT_SEGMENTS)
		x->segments_reason = XEN_SEGMENTS_BACKEND_NONE;
	else if (want < 0) /* a kernel without the parameter, before v3.11: unknown */
		return;
	else if (want <= XEN_DIRECT_SEGMENTS)
		x->segments_reason = XEN_SEGMENTS_MODULE_OFF;
	else if (want > offer)
		x->segments_reason = XEN_SEGMENTS_BACKEND_CAPS;
	else
		x->segments_reason = XEN_SEGMENTS_MODULE_ASKS;
	if (x->segments_reason == XEN_SEGMENTS_BACKEND_CAPS)
		x->segments_in_effect = offer;
	else if (x->segments_reason == XEN_SEGMENTS_MODULE_ASKS)
		x->segments_in_effect = want;
	else
		x->segments_in_effect = XEN_DIRECT_SEGMENTS;
}

void device__xen_in_force(struct xen_blkfront *x, int64_t segments, int64_t param)
{
	if (param >= 0)
		x->max_indirect_segments =
			param < XEN_DIRECT_SEGMENTS ? XEN_DIRECT_SEGMENTS : param;
	x->segments = segments;
	x->indirect_descriptors = segments > XEN_DIRECT_SEGMENTS;
	if (segments < 0 ||
	    __builtin_mul_overflow(segments, XEN_SEGMENT_BYTES, &x->max_request_bytes))
		x->max_request_bytes = -1;
	x->backend_limited = segments >= 0 && x->max_indirect_segments > segments;
	/* The backend's offer stays; what follows from it and the parameter is this one's. */
	if (param >= 0)
		negotiate_segments(x);
}

/* blkfront_gather_backend_features: feature-flush-cache wins over feature-barrier. */
static const char *flush_kind(const struct xen_backend_offer *b)
{
	if (b->flush_cache)
		return "flush";
	return b->barrier ? "barrier" : "none";
}

/* What the frontend made of the offer, from the frontend's own feature-persistent, trusted. */
static void negotiate(const struct device *dev, struct xen_blkfront *x, int64_t persistent,
		      int64_t trusted)
{
	const struct xen_backend_offer *b = &x->backend;
	int64_t trusted_param = module_flag(dev, "trusted");

	negotiate_segments(x);
	if (!x->backend_read)
		return;
	if (persistent >= 0 && b->persistent >= 0)
		x->persistent_grants = persistent && b->persistent;
	/* No `trusted` parameter: a kernel before 2400617da7ee, which bounces for nothing else. */
	if (x->persistent_grants >= 0)
		x->bounce_buffer = x->persistent_grants ||
				   (trusted_param >= 0 && (!trusted_param || !trusted));
	if (b->flush_cache >= 0 && b->barrier >= 0)
		snprintf(x->cache_flush, sizeof(x->cache_flush), "%s", flush_kind(b));
	x->discard = b->discard < 0 ? -1 : b->discard != 0;
}

void device_xen__read(struct device *dev, const char *file)
{
	struct xen_blkfront *x = &dev->xen;
	struct reader fr = {}, br = {};
	int64_t persistent = -1, trusted = -1;
	char why[160];

	if (frontend_node(dev, x->frontend, sizeof(x->frontend))) {
		say(x, "%s has no xenbus node (device/nodename)", dev->name);
		return;
	}
	if (xen_store__open(file, &fr.xs, why, sizeof(why))) {
		say(x, "%s", why);
		return;
	}
	fr.dir = x->frontend;
	if (read_frontend(&fr, x, &persistent, &trusted)) {
		br.xs = fr.xs;
		br.dir = x->backend_path;
		read_backend(&br, x);
		negotiate(dev, x, persistent, trusted);
	}
	if (fr.err && !x->xenstore_error[0])
		say(x, "%s: %s", fr.at, strerror(-fr.err));
	xen_store__close(fr.xs);
}

/* The name Linux gives virtual device number devid in a guest: xvd + letters (51712: xvda). */
static void vdev_name(int64_t devid, char *out, size_t len)
{
	unsigned int disk;
	char letters[8];
	int i = sizeof(letters) - 1;

	out[0] = '\0';
	if (devid & (1 << 28))
		disk = (devid & ((1 << 28) - 1)) >> 8; /* extended: xvd, 256 minors each */
	else if ((devid >> 8) == 202)
		disk = (devid & 0xff) >> 4;
	else
		return;
	letters[i] = '\0';
	do {
		letters[--i] = 'a' + disk % 26;
		disk = disk / 26;
	} while (disk-- > 0 && i > 0);
	snprintf(out, len, "xvd%s", letters + i);
}

/* Is the backend in dir (bus/xen-backend/devices/vbd-D-N) serving major:minor? */
static bool backs(const char *dir, unsigned int major, unsigned int minor)
{
	char buf[32];
	unsigned int maj, min;
	int end = 0;

	return !sysfs__read_attr(dir, "physical_device", buf, sizeof(buf)) &&
	       sscanf(buf, "%x:%x%n", &maj, &min, &end) == 2 && !buf[end] && maj == major &&
	       min == minor;
}

void device_xen__find_guest(const char *root, struct device *dev)
{
	struct xen_guest_disk *g = &dev->xen_guest;
	unsigned int major = dev->part_name[0] ? dev->part_major : dev->major;
	unsigned int minor = dev->part_name[0] ? dev->part_minor : dev->minor;
	char devices[PATH_MAX], dir[PATH_MAX];
	struct dirent **ents = NULL;
	long long domid, devid;
	int n, i, end;

	memset(g, 0, sizeof(*g));
	g->domid = g->devid = -1;
	if (sysfs__join(devices, sizeof(devices), root, "bus/xen-backend/devices") ||
	    (n = sysfs__scan(devices, &ents)) <= 0)
		return;
	for (i = 0; i < n && !g->present; i++) {
		end = 0;
		if (sscanf(ents[i]->d_name, "vbd-%lld-%lld%n", &domid, &devid, &end) != 2 ||
		    ents[i]->d_name[end] ||
		    sysfs__join(dir, sizeof(dir), devices, ents[i]->d_name) ||
		    !backs(dir, major, minor))
			continue;
		g->present = true;
		g->domid = domid;
		g->devid = devid;
		text__copy(g->backend, sizeof(g->backend), ents[i]->d_name);
		vdev_name(devid, g->vdev, sizeof(g->vdev));
	}
	sysfs__scan_free(ents, n);
}

const char *device__xen_guest_text(const struct xen_guest_disk *g, char *buf, size_t len)
{
	if (!g->present) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	snprintf(buf, len, "%s of domU%s%s%s (domid %lld)", g->vdev[0] ? g->vdev : "a disk",
		 g->domain[0] ? " \"" : "", g->domain, g->domain[0] ? "\"" : "",
		 (long long)g->domid);
	return buf;
}

void device_xen__read_guest(struct device *dev, const char *file)
{
	struct xen_guest_disk *g = &dev->xen_guest;
	struct xen_store *xs = NULL;
	char path[160], vdev[sizeof(g->vdev)], why[160];
	int ret;

	if (!g->present)
		return;
	ret = xen_store__open(file, &xs, why, sizeof(why));
	if (ret) {
		snprintf(g->xenstore_error, sizeof(g->xenstore_error), "%s", why);
		return;
	}
	/* The toolstack's name for the disk ("dev"), and the guest's ("name"). */
	snprintf(path, sizeof(path), "backend/vbd/%lld/%lld/dev", (long long)g->domid,
		 (long long)g->devid);
	ret = xen_store__read(xs, path, vdev, sizeof(vdev));
	if (!ret && valid_path(vdev, false))
		snprintf(g->vdev, sizeof(g->vdev), "%s", vdev);
	else if (ret != -ENOENT && ret)
		snprintf(g->xenstore_error, sizeof(g->xenstore_error), "%.100s: %s", path,
			 strerror(-ret));
	snprintf(path, sizeof(path), "/local/domain/%lld/name", (long long)g->domid);
	ret = xen_store__read(xs, path, g->domain, sizeof(g->domain));
	if (ret) {
		g->domain[0] = '\0';
		if (!g->xenstore_error[0])
			snprintf(g->xenstore_error, sizeof(g->xenstore_error), "%.100s: %s", path,
				 strerror(-ret));
	}
	xen_store__close(xs);
}

static const char *const reason_names[] = {
	[XEN_SEGMENTS_BACKEND_NONE] = "backend_offers_none",
	[XEN_SEGMENTS_MODULE_OFF] = "module_turns_off",
	[XEN_SEGMENTS_BACKEND_CAPS] = "backend_caps",
	[XEN_SEGMENTS_MODULE_ASKS] = "module_asks",
};

const char *device__xen_param_name(const struct xen_blkfront *x)
{
	return x->param_is_old_name ? "xen_blkfront.max" : "xen_blkfront.max_indirect_segments";
}

const char *device__xen_boot_parameter(const struct xen_blkfront *x, int64_t segments, char *buf,
				       size_t len)
{
	snprintf(buf, len, "%s=%lld", device__xen_param_name(x), (long long)segments);
	return buf;
}

const char *device__xen_modprobe_line(const struct xen_blkfront *x, int64_t segments, char *buf,
				      size_t len)
{
	const char *name = device__xen_param_name(x), *dot = strchr(name, '.');

	snprintf(buf, len, "options %.*s %s=%lld", (int)(dot - name), name, dot + 1,
		 (long long)segments);
	return buf;
}

const char *device__xen_reason_name(enum xen_segments_reason r)
{
	return r > 0 && r < sizeof(reason_names) / sizeof(reason_names[0]) ? reason_names[r] : NULL;
}

enum xen_segments_reason device__xen_reason_of(const char *name)
{
	size_t i;

	for (i = 1; name && i < sizeof(reason_names) / sizeof(reason_names[0]); i++)
		if (!strcmp(name, reason_names[i]))
			return i;
	return XEN_SEGMENTS_UNKNOWN;
}

const char *device__xenbus_state_name(int64_t state)
{
	static const char *const names[] = { "Unknown",	    "Initialising",  "InitWait",
					     "Initialised", "Connected",     "Closing",
					     "Closed",	    "Reconfiguring", "Reconfigured" };

	return state >= 0 && state < (int64_t)(sizeof(names) / sizeof(names[0])) ? names[state]
										 : "";
}

int64_t device__xen_segments_cap(const struct xen_blkfront *x)
{
	int64_t offer = x->backend.max_indirect_segments;

	if (!x->backend_read || offer < 0)
		return -1;
	return offer > XEN_DIRECT_SEGMENTS ? offer : XEN_DIRECT_SEGMENTS;
}

const char *device__xen_segments_why(const struct xen_blkfront *x, char *buf, size_t len)
{
	const char *param = device__xen_param_name(x) + strlen("xen_blkfront.");
	long long offer = x->backend.max_indirect_segments, want = x->max_indirect_segments;

	switch (x->segments_reason) {
	case XEN_SEGMENTS_BACKEND_NONE:
		if (offer == 0)
			snprintf(buf, len,
				 "the backend offers no indirect descriptors (as "
				 "XCP-ng's tapdisk does)");
		else
			snprintf(buf, len,
				 "the backend offers %lld indirect segments, too few to use them",
				 offer);
		break;
	case XEN_SEGMENTS_MODULE_OFF:
		snprintf(buf, len,
			 "%s=%lld turns indirect descriptors off (as any value up to 11 does; "
			 "the backend offers %lld)",
			 param, want, offer);
		break;
	case XEN_SEGMENTS_BACKEND_CAPS:
		snprintf(buf, len, "the backend caps the %lld asked at %lld", want, offer);
		break;
	case XEN_SEGMENTS_MODULE_ASKS:
		snprintf(buf, len, "%s=%lld, within the %lld the backend offers", param, want,
			 offer);
		break;
	default:
		buf[0] = '\0';
	}
	return buf;
}
