// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Both sides of a Xen guest's disk, printed; see hypervisor_print.h. */
#include <stdint.h>
#include "base/fmt.h"
#include "base/text.h"
#include "output/hypervisor_print.h"

static const char *dev_name(const struct hv_side *s)
{
	const struct device *d = &s->res->device;

	return d->part_name[0] ? d->part_name : d->name;
}

static void row_u64(FILE *f, const char *what, uint64_t g, uint64_t h)
{
	fprintf(f, "  %-22s %14llu %14llu\n", what, (unsigned long long)g, (unsigned long long)h);
}

static void row_text(FILE *f, const char *what, const char *g, const char *h)
{
	fprintf(f, "  %-22s %14s %14s\n", what, g, h);
}

static void row_bytes(FILE *f, const char *what, double g, double h)
{
	char a[32], b[32];

	row_text(f, what, fmt__bytes(a, sizeof(a), g), fmt__bytes(b, sizeof(b), h));
}

static void row_ns(FILE *f, const char *what, const struct dist *g, const struct dist *h)
{
	char a[32] = "-", b[32] = "-";

	if (g->count)
		fmt__ns(a, sizeof(a), g->mean);
	if (h->count)
		fmt__ns(b, sizeof(b), h->mean);
	row_text(f, what, a, b);
}

/* "1.2 ms" or "-" for a part not known. */
static const char *ns_or_dash(char *buf, size_t len, double ns)
{
	if (ns < 0)
		return "-";
	return fmt__ns(buf, len, ns);
}

static void time_lines(FILE *f, const struct hv_link *l)
{
	const struct hv_time *t = &l->time;
	char a[32], b[32], c[32], d[32], e[32], g[32];

	fprintf(f,
		"\n  where a guest request's time went (means): %s in the guest's queue (G2D);\n",
		ns_or_dash(a, sizeof(a), t->guest_queue));
	if (t->backend < 0) {
		fprintf(f, "  the ring was not probed in the guest: the backend's share is not "
			   "known\n");
		return;
	}
	fprintf(f,
		"  %s from the ring to the backend's answer: dom0 queued %s, its %s took %s a "
		"request",
		ns_or_dash(b, sizeof(b), t->backend), ns_or_dash(c, sizeof(c), t->dom0_queue),
		dev_name(&l->host), ns_or_dash(d, sizeof(d), t->dom0_device));
	if (t->backend_rest >= 0)
		fprintf(f, ",\n  and blkback and the hypervisor the other %s",
			ns_or_dash(e, sizeof(e), t->backend_rest));
	else
		fprintf(f,
			"\n  (%.2f of them for each of the guest's: they overlap, the rest is not "
			"told apart)",
			l->split);
	fprintf(f, ";\n  %s more in the guest's driver (its device time, D2C, is %s)\n",
		ns_or_dash(g, sizeof(g), t->guest_completion),
		ns_or_dash(a, sizeof(a),
			   l->guest.s.lat[BLKIO_LAT_DEVICE].count
				   ? l->guest.s.lat[BLKIO_LAT_DEVICE].mean
				   : -1));
}

void hypervisor_print__text(FILE *f, const struct hv_link *l)
{
	const struct hv_side *g = &l->guest, *h = &l->host;
	const struct blkio_counters *gc = &g->b->c, *hc = &h->b->c;
	char who[160], a[32], b[32];

	fprintf(f, "%s in the guest (%s) and %s in dom0 (%s), which serves it as %s\n\n",
		dev_name(g), g->file, dev_name(h), h->file,
		device__xen_guest_text(&h->res->device.xen_guest, who, sizeof(who)));
	fprintf(f, "  %-22s %14s %14s\n", "", "guest", "dom0");
	row_u64(f, "runs", g->nr_runs, h->nr_runs);
	row_text(f, "seconds", fmt__num(a, sizeof(a), g->seconds),
		 fmt__num(b, sizeof(b), h->seconds));
	row_u64(f, "read requests", gc->requests[BLKIO_OP_READ], hc->requests[BLKIO_OP_READ]);
	row_bytes(f, "read bytes", gc->bytes[BLKIO_OP_READ], hc->bytes[BLKIO_OP_READ]);
	row_u64(f, "write requests", gc->requests[BLKIO_OP_WRITE], hc->requests[BLKIO_OP_WRITE]);
	row_bytes(f, "write bytes", gc->bytes[BLKIO_OP_WRITE], hc->bytes[BLKIO_OP_WRITE]);
	row_u64(f, "flushes", gc->requests[BLKIO_OP_FLUSH], hc->requests[BLKIO_OP_FLUSH]);
	row_bytes(f, "request size p50", g->s.size.p50, h->s.size.p50);
	row_bytes(f, "request size max", g->s.size.max, h->s.size.max);
	row_text(f, "segments p50", fmt__num(a, sizeof(a), g->s.segments.p50),
		 fmt__num(b, sizeof(b), h->s.segments.p50));
	row_text(f, "queue depth mean", fmt__num(a, sizeof(a), g->s.depth.mean),
		 fmt__num(b, sizeof(b), h->s.depth.mean));
	row_ns(f, "queue (G2D) mean", &g->s.lat[BLKIO_LAT_QUEUE], &h->s.lat[BLKIO_LAT_QUEUE]);
	row_ns(f, "device (D2C) mean", &g->s.lat[BLKIO_LAT_DEVICE], &h->s.lat[BLKIO_LAT_DEVICE]);
	fprintf(f,
		"\n  dom0 saw %.2fx the guest's bytes, in %.2f requests for each of the guest's\n",
		l->bytes_ratio, l->split);
	if (g->ring.present)
		fprintf(f,
			"  the ring: %llu requests (%llu indirect), %.1f slots in use on average, "
			"full "
			"%.1f%% of the time\n",
			(unsigned long long)g->ring.requests, (unsigned long long)g->ring.indirect,
			g->ring.occupancy.mean, 100 * g->ring.full_share);
	time_lines(f, l);
}

static json_t *jnum_or_null(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

static json_t *side_json(const struct hv_side *s)
{
	const struct blkio_counters *c = &s->b->c;
	json_t *o = json_pack(
		"{s:o, s:o, s:i, s:f, s:{s:I, s:I, s:I}, s:{s:I, s:I}, s:f, s:f, s:f}", "file",
		text__json(s->file), "device", text__json(dev_name(s)), "runs", (int)s->nr_runs,
		"seconds", s->seconds, "requests", "read", (json_int_t)c->requests[BLKIO_OP_READ],
		"write", (json_int_t)c->requests[BLKIO_OP_WRITE], "flush",
		(json_int_t)c->requests[BLKIO_OP_FLUSH], "bytes", "read",
		(json_int_t)c->bytes[BLKIO_OP_READ], "write", (json_int_t)c->bytes[BLKIO_OP_WRITE],
		"request_bytes_p50", s->s.size.p50, "segments_p50", s->s.segments.p50,
		"queue_depth_mean", s->s.depth.mean);

	if (!o)
		return NULL;
	json_object_set_new(o, "request_bytes_max", json_integer((json_int_t)s->s.size.max));
	json_object_set_new(o, "queue_ns_mean",
			    s->s.lat[BLKIO_LAT_QUEUE].count
				    ? json_real(s->s.lat[BLKIO_LAT_QUEUE].mean)
				    : json_null());
	json_object_set_new(o, "device_ns_mean",
			    s->s.lat[BLKIO_LAT_DEVICE].count
				    ? json_real(s->s.lat[BLKIO_LAT_DEVICE].mean)
				    : json_null());
	return o;
}

json_t *hypervisor_print__json(const struct hv_link *l)
{
	const struct xen_guest_disk *x = &l->host.res->device.xen_guest;
	const struct hv_time *t = &l->time;
	json_t *doc, *g = side_json(&l->guest), *h = side_json(&l->host);

	if (g && l->guest.ring.present)
		json_object_set_new(g, "xen_ring",
				    json_pack("{s:I, s:I, s:f, s:f}", "requests",
					      (json_int_t)l->guest.ring.requests, "indirect",
					      (json_int_t)l->guest.ring.indirect, "occupancy_mean",
					      l->guest.ring.occupancy.mean, "full_share",
					      l->guest.ring.full_share));
	if (h)
		json_object_set_new(h, "xen_guest",
				    json_pack("{s:I, s:I, s:o, s:o}", "domid", (json_int_t)x->domid,
					      "devid", (json_int_t)x->devid, "vdev",
					      text__json(x->vdev), "domain",
					      text__json(x->domain)));
	doc = json_pack("{s:s, s:o, s:o, s:f, s:f}", "kind", "xen_guest_and_dom0", "guest", g,
			"dom0", h, "split", l->split, "bytes_ratio", l->bytes_ratio);
	if (doc)
		json_object_set_new(doc, "time_ns",
				    json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "guest_queue",
					      jnum_or_null(t->guest_queue), "backend",
					      jnum_or_null(t->backend), "dom0_queue",
					      jnum_or_null(t->dom0_queue), "dom0_device",
					      jnum_or_null(t->dom0_device), "backend_rest",
					      jnum_or_null(t->backend_rest), "guest_driver",
					      jnum_or_null(t->guest_completion)));
	return doc;
}
