// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A guest's and dom0's traces of one disk, linked; see hypervisor.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/block_summary.h"
#include "analysis/hypervisor.h"
#include "trace/tracer.h"

/* The virtual device number in the frontend's node ("device/vbd/51712"); -1 unknown. */
static long long frontend_devid(const struct xen_blkfront *x)
{
	long long id;
	int end = 0;

	if (sscanf(x->frontend, "device/vbd/%lld%n", &id, &end) != 1 || x->frontend[end])
		return -1;
	return id;
}

int hv_link__pair(const struct result *a, const struct result *b, bool *guest_first, char *why,
		  size_t len)
{
	const struct result *guest, *host;
	long long devid;

	if (!a->has_device || !b->has_device)
		return 0;
	if (a->device.xen.present && b->device.xen_guest.present)
		*guest_first = true;
	else if (b->device.xen.present && a->device.xen_guest.present)
		*guest_first = false;
	else
		return 0;
	guest = *guest_first ? a : b;
	host = *guest_first ? b : a;
	devid = frontend_devid(&guest->device.xen);
	if (devid >= 0 && devid != host->device.xen_guest.devid) {
		snprintf(why, len,
			 "the guest's %s is virtual device %lld, but dom0's %s serves %lld (%s)",
			 guest->device.name, devid, host->device.name,
			 (long long)host->device.xen_guest.devid, host->device.xen_guest.vdev);
		return -EINVAL;
	}
	if (devid < 0 && host->device.xen_guest.vdev[0] &&
	    strcmp(host->device.xen_guest.vdev, guest->device.name)) {
		snprintf(why, len, "the guest traced %s, but dom0's %s serves %s",
			 guest->device.name, host->device.name, host->device.xen_guest.vdev);
		return -EINVAL;
	}
	return 1;
}

/* into += v, word by word (every field of block_stats is a counter; maxima taken). */
static void add_stats(struct block_stats *into, const struct block_stats *v)
{
	struct blkio_maxes max = into->max;
	const __u64 *x = (const __u64 *)v;
	__u64 *o = (__u64 *)into;
	size_t i;

	for (i = 0; i < sizeof(*into) / sizeof(__u64); i++)
		o[i] += x[i];
	into->max = max;
	blkio_maxes__merge(&into->max, &v->max); /* first_issue_inv: the earliest issue */
}

static int side(struct hv_side *s, const struct result *res, const char *file)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->res = res;
	s->file = file;
	s->b = calloc(1, sizeof(*s->b));
	if (!s->b)
		return -ENOMEM;
	for (i = 0; i < res->nr_runs; i++) {
		const struct run *r = &res->runs[i];

		if (!r->has_block || r->partial)
			continue;
		add_stats(s->b, &r->block[0]);
		s->seconds += r->seconds;
		s->nr_runs++;
	}
	block_summary__compute(s->b, &res->device.limits, &s->s);
	ring_summary__compute(&s->b->ring, res->ring_probes[0], s->seconds, &s->ring);
	return 0;
}

/* A dist's mean, or -1 without samples. */
static double mean_of(const struct dist *d)
{
	return d->count ? d->mean : -1;
}

/* One dom0 request per guest request, give or take a flush: the means add up. */
#define ONE_FOR_ONE(split) ((split) > 0.99 && (split) < 1.01)

static void where_time_went(const struct hv_link *l, struct hv_time *t)
{
	t->guest_queue = mean_of(&l->guest.s.lat[BLKIO_LAT_QUEUE]);
	t->backend = l->guest.ring.present ? mean_of(&l->guest.ring.backend) : -1;
	t->dom0_queue = mean_of(&l->host.s.lat[BLKIO_LAT_QUEUE]);
	t->dom0_device = mean_of(&l->host.s.lat[BLKIO_LAT_DEVICE]);
	t->backend_rest = -1;
	if (t->backend >= 0 && t->dom0_queue >= 0 && t->dom0_device >= 0 && ONE_FOR_ONE(l->split))
		t->backend_rest = t->backend - t->dom0_queue - t->dom0_device;
	t->guest_completion = -1;
	if (t->backend >= 0 && l->guest.s.lat[BLKIO_LAT_DEVICE].count)
		t->guest_completion = l->guest.s.lat[BLKIO_LAT_DEVICE].mean - t->backend;
}

int hv_link__build(struct hv_link *l, const struct result *guest, const char *guest_file,
		   const struct result *host, const char *host_file)
{
	memset(l, 0, sizeof(*l));
	if (side(&l->guest, guest, guest_file) || side(&l->host, host, host_file)) {
		hv_link__free(l);
		return -ENOMEM;
	}
	if (l->guest.s.data_requests)
		l->split = (double)l->host.s.data_requests / l->guest.s.data_requests;
	if (l->guest.s.bytes)
		l->bytes_ratio = (double)l->host.s.bytes / l->guest.s.bytes;
	where_time_went(l, &l->time);
	return 0;
}

void hv_link__free(struct hv_link *l)
{
	free(l->guest.b);
	free(l->host.b);
	l->guest.b = l->host.b = NULL;
}
