// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The tracer: probe, configure, load, attach, read. See tracer.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "blkio.h" /* before the skeleton, which uses its types */
#include "blkio.skel.h"
#include "trace/blkfront_probes.h"
#include "trace/bpf_load.h"
#include "trace/bpf_members.h"
#include "base/clock.h"
#include "base/diag.h"
#include "base/histogram.h"
#include "trace/tracer.h"

/* The who map holds requests waiting in a scheduler (nr_requests per hw queue at most). */
#define WHO_MIN_ENTRIES 4096
/* Bios of bio-based devices in flight at once that the start-time table holds. */
#define BIO_TABLE 16384

struct tracer {
	struct blkio_bpf *skel;
	const struct tracer_opts *opts; /* while loading */
	bool btf_flavour;
	int ncpus;
	__u64 max_epoch; /* the interval the BPF side keeps maxima for */
	bool snoop;
	bool blktrace;
	bool walk; /* the issue program leaves lost completions out of the depth (bpf_loop) */
	bool pcpu; /* a disk of one queue counts its requests in flight per CPU, in `stats` */
	unsigned int nr_devs;
	void *buf;		      /* per-CPU read buffer, large enough for the largest value */
	struct blkio_pcpu *sum;	      /* a device's `stats` over all CPUs, before tracer__fold */
	struct blkfront_probes *ring; /* xen-blkfront's probes, when loaded */
	/* Each device's queues: its first element of the `queues` map, how many. */
	unsigned int dev_queue[BLKIO_MAX_DEVICES], dev_queues[BLKIO_MAX_DEVICES];
	/* Each device's depth is read on one issue in this many at high rates; 0: every issue. */
	unsigned int depth_every[BLKIO_MAX_DEVICES];
	/* A device counted per CPU (pcpu): its requests in flight at its last snapshot. */
	bool pcpu_dev[BLKIO_MAX_DEVICES];
	long long in_flight[BLKIO_MAX_DEVICES];
	char ring_why[256]; /* why not, for a xen-blkfront disk */
};

/*
 * bpf_loop (5.17) lets the issue program walk the slots for lost completions
 * (blkio.bpf.c, issue_depth); older kernels load the issue program without the walk.
 */
static bool has_bpf_loop(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_loop, NULL) == 1;
}

/*
 * bpf_map_lookup_percpu_elem (5.19) lets the walking issue program sum every CPU's counts,
 * so a disk of one queue counts its requests in flight per CPU (blkio.bpf.c, pcpu_depth).
 */
static bool has_percpu_lookup(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
				       BPF_FUNC_map_lookup_percpu_elem, NULL) == 1;
}

static void choose_programs(struct tracer *t, const struct btf *vmlinux, bool btf, bool bio)
{
	struct blkio_bpf *s = t->skel;
	bool snoop = t->opts->snoop_ring_bytes, loop = has_bpf_loop();
	const struct bpf_prog_choice c[] = {
		{ "block_rq_issue", BLKIO_TP_RQ_ISSUE, s->progs.tp_btf_rq_issue,
		  s->progs.raw_tp_rq_issue, !loop },
		{ "block_rq_issue", BLKIO_TP_RQ_ISSUE, s->progs.tp_btf_rq_issue_walk,
		  s->progs.raw_tp_rq_issue_walk, loop },
		{ "block_rq_complete", -1, s->progs.tp_btf_rq_complete, s->progs.raw_tp_rq_complete,
		  true },
		{ "block_rq_requeue", BLKIO_TP_RQ_REQUEUE, s->progs.tp_btf_rq_requeue,
		  s->progs.raw_tp_rq_requeue, true },
		{ "block_rq_merge", BLKIO_TP_RQ_MERGE, s->progs.tp_btf_rq_merge,
		  s->progs.raw_tp_rq_merge, true },
		{ "block_bio_backmerge", BLKIO_TP_BIO_BACKMERGE, s->progs.tp_btf_bio_backmerge,
		  s->progs.raw_tp_bio_backmerge, true },
		{ "block_bio_frontmerge", BLKIO_TP_BIO_FRONTMERGE, s->progs.tp_btf_bio_frontmerge,
		  s->progs.raw_tp_bio_frontmerge, true },
		{ "block_split", BLKIO_TP_SPLIT, s->progs.tp_btf_split, s->progs.raw_tp_split,
		  true },
		/* Snoop mode only: who submitted a request. */
		{ "block_rq_insert", BLKIO_TP_RQ_INSERT, s->progs.tp_btf_rq_insert,
		  s->progs.raw_tp_rq_insert, snoop },
		/* Bio-based devices only (a stack's top): every bio of every disk passes here. */
		{ "block_bio_queue", BLKIO_TP_BIO_QUEUE, s->progs.tp_btf_bio_queue,
		  s->progs.raw_tp_bio_queue, bio },
		{ "block_bio_complete", -1, s->progs.tp_btf_bio_complete,
		  s->progs.raw_tp_bio_complete, bio },
	};

	t->walk = loop;
	t->pcpu = loop && has_percpu_lookup();
	bpf_load__choose(vmlinux, c, sizeof(c) / sizeof(c[0]), btf, s->rodata->old_args);
}

/* Requests waiting from insert to issue, at most (a scheduler's queues of all members). */
#define BT_WAITING_MIN 1024
#define BT_WAITING_MAX 65536

/* --blktrace: D and C into its records; its maps sized (NR: the slot table's). */
static int configure_blktrace(struct tracer *t, unsigned int nr)
{
	struct blkio_bpf *s = t->skel;
	unsigned int waiting = 2 * nr;
	int err;

	waiting = waiting < BT_WAITING_MIN   ? BT_WAITING_MIN
		  : waiting > BT_WAITING_MAX ? BT_WAITING_MAX
					     : waiting;
	s->rodata->blktrace = true;
	t->blktrace = true;
	err = bpf_map__set_max_entries(s->maps.bt_events, t->opts->blktrace_ring_bytes);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.bt_slots, nr);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.bt_waiting, waiting);
	return err;
}

static int configure(struct tracer *t, struct member_set *ms, struct diag *d)
{
	const struct tracer_opts *opts = t->opts;
	size_t snoop_bytes = opts->snoop_ring_bytes;
	struct blkio_bpf *s = t->skel;
	unsigned int nr, k;
	int err;

	nr = ms->slots ? ms->slots : 1;
	s->rodata->any_bio_level = ms->any_bio;
	s->rodata->nr_devices = opts->nr_devs;
	s->rodata->one_hwq = ms->n == 1 && !ms->in_map && s->rodata->filter.members[0].hwqs == 1;
	s->rodata->nr_slots = nr;
	s->rodata->lose_every = opts->lose_every;
	s->rodata->exact_depth = opts->exact_depth;
	s->rodata->pcpu_inflight = t->pcpu;
	s->rodata->nr_cpus = t->ncpus;
	if (t->pcpu)
		bpf_members__sample_per_cpu(&s->rodata->filter, ms, t->ncpus);
	memcpy(t->dev_queue, ms->dev_queue, sizeof(t->dev_queue));
	memcpy(t->dev_queues, ms->dev_queues, sizeof(t->dev_queues));
	/*
	 * Sampled as blkio.bpf.c's depth_weight does, by the lines a read takes (a queue's
	 * two, or a CPU's one); a bio-based device counts every bio.
	 */
	for (k = 0; k < opts->nr_devs; k++) {
		t->pcpu_dev[k] = t->pcpu && ms->dev_queues[k] == 1 && !opts->devs[k]->bio_based;
		t->depth_every[k] =
			opts->exact_depth || opts->devs[k]->bio_based
				? 0
				: blkio_depth_sample(t->pcpu_dev[k] ? (unsigned int)t->ncpus
								    : ms->dev_queues[k]);
	}
	err = bpf_map__set_max_entries(s->maps.slots, nr);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.queues, ms->queues ? ms->queues : 1);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.stats, opts->nr_devs);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.lat_hist, opts->nr_devs * BLKIO_NR_LATS);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.hwq_depth, opts->nr_devs);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.member_map, ms->map_entries);
	if (!err && s->rodata->any_bio_level)
		err = bpf_map__set_max_entries(s->maps.bio_start, BIO_TABLE);
	if (!err && opts->blktrace_ring_bytes)
		err = configure_blktrace(t, nr);
	if (err || !snoop_bytes)
		goto out;
	s->rodata->snoop = true;
	t->snoop = true;
	/* The drain reads the slots for the records' depths (snoop.c): mapped, not looked up. */
	err = bpf_map__set_map_flags(s->maps.slots,
				     bpf_map__map_flags(s->maps.slots) | BPF_F_MMAPABLE);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.events, snoop_bytes);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.who_slots, nr);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.who,
					       nr * 2 < WHO_MIN_ENTRIES ? WHO_MIN_ENTRIES : nr * 2);
out:
	if (err)
		diag__fail(d, err, "cannot size the BPF maps: %s", strerror(-err));
	return err;
}

/* bpf_load__any's steps on our skeleton. */
static int open_skel(void *ctx, const struct bpf_object_open_opts *oo, struct bpf_load_skel *out)
{
	struct tracer *t = ctx;

	t->skel = blkio_bpf__open_opts(oo);
	if (!t->skel)
		return -errno;
	*out = (struct bpf_load_skel){ t->skel->obj, &t->skel->rodata->filter, t->skel->skeleton };
	return 0;
}

static int configure_skel(void *ctx, const struct btf *vmlinux, bool btf, struct member_set *ms,
			  struct diag *d)
{
	struct tracer *t = ctx;
	const struct btf_type *complete = bpf_load__tp_proto(vmlinux, "block_rq_complete");

	choose_programs(t, vmlinux, btf, ms->any_bio);
	/* --blktrace's C logs an errno: the tracepoint's blk_status_t since v5.11 or so. */
	t->skel->rodata->bt_complete_status =
		complete && bpf_load__param_is(vmlinux, complete, 2, "blk_status_t");
	return configure(t, ms, d);
}

static void destroy_skel(void *ctx)
{
	struct tracer *t = ctx;

	blkio_bpf__destroy(t->skel);
	t->skel = NULL;
}

static const struct bpf_load_ops load_ops = { open_skel, configure_skel, destroy_skel };

/* Not loading them is no failure of the trace: the block-layer view stands, ring_why says. */
static void open_ring_probes(struct tracer *t, const struct tracer_opts *opts)
{
	struct blkfront_probes_opts o = { opts->devs,	 opts->nr_devs, opts->xen_env,
					  opts->verbose, opts->notes,	opts->force_kprobes };

	if (!opts->xen_env || !blkfront_probes__wanted(opts->devs, opts->nr_devs))
		return;
	if (blkfront_probes__open(&o, &t->ring, t->ring_why, sizeof(t->ring_why)))
		t->ring = NULL;
}

int tracer__open(const struct tracer_opts *opts, struct tracer **out, struct diag *d)
{
	struct tracer *t;
	size_t bufsz;
	int err;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		err = diag__fail(d, t->ncpus ? t->ncpus : -EINVAL, "cannot count possible CPUs");
		goto cleanup;
	}
	_Static_assert(sizeof(struct blkio_pcpu) % 8 == 0, "per-CPU values are 8-byte strided");
	/* The same buffer takes the latency histograms' lookups (tracer__snapshot). */
	_Static_assert(sizeof(struct blkio_pcpu) >= sizeof(struct blkio_lat_hist) &&
			       sizeof(struct blkio_pcpu) >= sizeof(struct blkio_hwq_hist),
		       "the lookup buffer holds a latency or depth histogram per CPU");
	bufsz = (size_t)t->ncpus * sizeof(struct blkio_pcpu);
	t->buf = malloc(bufsz);
	t->sum = malloc(sizeof(*t->sum));
	if (!t->buf || !t->sum) {
		err = -ENOMEM;
		goto cleanup;
	}
	t->opts = opts;
	err = bpf_load__any(&load_ops, t,
			    &(struct bpf_load_args){ opts->devs, opts->nr_devs, opts->force_raw_tp,
						     opts->verbose, opts->notes },
			    &t->btf_flavour, d);
	t->opts = NULL;
	if (err)
		goto cleanup;
	t->nr_devs = opts->nr_devs;
	open_ring_probes(t, opts);
	*out = t;
	return 0;
cleanup:
	tracer__close(t);
	return err;
}

/*
 * Attach the loaded programs, the ones that end a request's life first: a request issued
 * while block_rq_issue is attached and block_rq_complete not yet would hold its slot and
 * the in-flight counts with a completion never seen. Issue comes last; then the time,
 * which tells a request issued before tracing from one never issued (trace_start_ns).
 */
int tracer__start(struct tracer *t)
{
	struct blkio_bpf *s = t->skel;
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} order[] = {
#define ATTACH(name)                                                                               \
	{ s->progs.tp_btf_##name, &s->links.tp_btf_##name },                                       \
		{ s->progs.raw_tp_##name, &s->links.raw_tp_##name }
		ATTACH(rq_complete), ATTACH(rq_requeue),    ATTACH(bio_complete),
		ATTACH(rq_merge),    ATTACH(bio_backmerge), ATTACH(bio_frontmerge),
		ATTACH(split),	     ATTACH(rq_insert),	    ATTACH(bio_queue),
		ATTACH(rq_issue),    ATTACH(rq_issue_walk),
#undef ATTACH
	};
	__u32 key = 0;
	__u64 ns;
	size_t i;
	int err;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!bpf_program__autoload(order[i].prog) || *order[i].link)
			continue;
		*order[i].link = bpf_program__attach(order[i].prog);
		if (!*order[i].link) {
			err = -errno;
			blkio_bpf__detach(s);
			return err;
		}
	}
	if (t->ring && (err = blkfront_probes__start(t->ring))) {
		snprintf(t->ring_why, sizeof(t->ring_why), "cannot attach to xen-blkfront: %s",
			 strerror(-err));
		blkfront_probes__close(t->ring);
		t->ring = NULL;
	}
	ns = clock__ns();
	if (bpf_map_update_elem(bpf_map__fd(s->maps.data_start), &key, &ns, BPF_ANY))
		return -errno;
	return 0;
}

void tracer__detach(struct tracer *t)
{
	if (!t)
		return;
	blkio_bpf__detach(t->skel);
	if (t->ring)
		blkfront_probes__detach(t->ring);
}

int tracer__events_fd(const struct tracer *t)
{
	return t->snoop ? bpf_map__fd(t->skel->maps.events) : -1;
}

int tracer__slots_fd(const struct tracer *t, size_t *nr)
{
	*nr = t->snoop ? bpf_map__max_entries(t->skel->maps.slots) : 0;
	return t->snoop ? bpf_map__fd(t->skel->maps.slots) : -1;
}

void tracer__close(struct tracer *t)
{
	if (!t)
		return;
	blkio_bpf__destroy(t->skel);
	blkfront_probes__close(t->ring);
	free(t->buf);
	free(t->sum);
	free(t);
}

bool tracer__walks_slots(const struct tracer *t)
{
	return t->walk;
}

bool tracer__counts_per_cpu(const struct tracer *t)
{
	return t->pcpu;
}

const char *tracer__ring_probes(const struct tracer *t, const char **why)
{
	*why = t->ring_why;
	return t->ring ? blkfront_probes__how(t->ring) : NULL;
}

const char *tracer__flavour(const struct tracer *t)
{
	return t->btf_flavour ? "tp_btf" : "raw_tp";
}

#define WORDS(x) (sizeof(x) / sizeof(__u64))

static void add_words(__u64 *into, const __u64 *v, size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		into[i] += v[i];
}

/*
 * The `stats` value of every CPU in one read, summed word by word; the maxima taken
 * only from CPUs on the current epoch (the others saw nothing since the reset).
 */
static int read_stats(struct tracer *t, __u32 key, struct blkio_pcpu *sum)
{
	const struct blkio_pcpu *v = t->buf;
	int cpu;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.stats), &key, t->buf))
		return -errno;
	memset(sum, 0, sizeof(*sum));
	for (cpu = 0; cpu < t->ncpus; cpu++, v++) {
		struct blkio_maxes max = sum->max;

		add_words((__u64 *)sum, (const __u64 *)v, WORDS(*v));
		sum->max = max;
		if (v->max_epoch == t->max_epoch)
			blkio_maxes__merge(&sum->max, &v->max);
	}
	return 0;
}

/* The sum of the values in the exact buckets of a count histogram (hist.h). */
static __u64 exact_count_sum(const __u64 *h)
{
	__u64 total = 0;
	size_t k;

	for (k = 1; k < HIST_COUNT_EXACT; k++)
		total += k * h[k];
	return total;
}

void tracer__fold(const struct blkio_pcpu *v, struct block_stats *out)
{
	const __u64 *rd = v->size[BLKIO_SIZE_READ], *wr = v->size[BLKIO_SIZE_WRITE];
	__u64 *seg_bytes = out->size[BLKIO_SIZE_SEGMENT];
	struct blkio_counters *c = &out->c;
	const struct blkio_rare *r = &v->r;
	__u64 single = 0;
	size_t k;

	memcpy(out->size, v->size, sizeof(out->size));
	memcpy(out->count, v->count, sizeof(out->count));
	/* One-segment data requests: in the read and write sizes, not in size_multi. */
	for (k = 0; k < HIST_SIZE_BUCKETS; k++) {
		__u64 one = rd[k] + wr[k] - v->size_multi[k];

		seg_bytes[k] += one;
		single += one;
	}
	out->count[BLKIO_COUNT_SEGMENTS][1] += single;

	memset(c, 0, sizeof(*c));
	/* What the programs count as is (bpf/blkio_counters.h); the rest from the histograms. */
#define FOLD_OP(field, ...) memcpy(c->field, r->field, sizeof(c->field));
#define FOLD(field, rare, ...) BLKIO_RARE_##rare(c->field = r->field;)
	BLKIO_OP_COUNTERS(FOLD_OP)
	BLKIO_COUNTERS(FOLD)
#undef FOLD
#undef FOLD_OP
	c->requests[BLKIO_OP_READ] += hist_total(rd, HIST_SIZE_BUCKETS);
	c->requests[BLKIO_OP_WRITE] += hist_total(wr, HIST_SIZE_BUCKETS);
	c->bytes[BLKIO_OP_READ] += v->rw_bytes[BLKIO_OP_READ];
	c->bytes[BLKIO_OP_WRITE] += v->rw_bytes[BLKIO_OP_WRITE];
	c->data_requests = hist_total(out->count[BLKIO_COUNT_SEGMENTS], HIST_COUNT_BUCKETS);
	c->sum_segments = r->big_segments_sum + exact_count_sum(out->count[BLKIO_COUNT_SEGMENTS]);
	c->sum_depth = r->big_depth_sum + exact_count_sum(out->count[BLKIO_COUNT_DEPTH]);
	c->sum_ns[BLKIO_LAT_QUEUE] = v->sum_queue_ns;
	c->sum_ns[BLKIO_LAT_DEVICE] = v->sum_device_ns;
	c->sum_ns[BLKIO_LAT_TOTAL] = v->sum_total_ns;
	for (k = 0; k < BLKIO_NR_LATS; k++)
		c->nr_ns[k] = hist_total(out->lat[k], HIST_LAT_BUCKETS);
	c->completed = c->nr_ns[BLKIO_LAT_DEVICE];
	out->max = v->max;
}

/*
 * The device's queues (several: their issues and maxima; one: nr only, the disk's own
 * figures are the queue's). The maximum only from a queue on the current epoch.
 */
/* Queue I of the device's (the `queues` map's value): 0, or -errno. */
static int read_queue(const struct tracer *t, unsigned int device, __u32 i, struct blkio_queue *q)
{
	__u32 key = t->dev_queue[device] + i;

	return bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.queues), &key, q) ? -errno : 0;
}

static int read_queues(const struct tracer *t, unsigned int device, struct hwq_stats *out)
{
	struct blkio_queue q;
	__u32 i;
	int err;

	memset(out, 0, sizeof(*out));
	out->nr = t->dev_queues[device];
	out->depth_every = t->depth_every[device];
	if (out->nr <= 1)
		return 0;
	for (i = 0; i < out->nr && i < BLOCK_HWQS_MAX; i++) {
		err = read_queue(t, device, i, &q);
		if (err)
			return err;
		out->issued[i] = q.issued;
		out->max_depth[i] = q.max_epoch == t->max_epoch ? q.max_depth : 0;
	}
	return bpf_load__sum_percpu(t->skel->maps.hwq_depth, device, t->ncpus, t->buf, out->depth,
				    HIST_COUNT_BUCKETS);
}

int tracer__snapshot(struct tracer *t, unsigned int device, struct block_stats *out)
{
	__u32 k;
	int err;

	if (device >= t->nr_devs)
		return -EINVAL;
	err = read_stats(t, device, t->sum);
	if (!err && t->pcpu_dev[device])
		t->in_flight[device] = t->sum->pc_issued - t->sum->pc_done - t->sum->pc_requeued;
	for (k = 0; !err && k < BLKIO_NR_LATS; k++)
		err = bpf_load__sum_percpu(t->skel->maps.lat_hist, device * BLKIO_NR_LATS + k,
					   t->ncpus, t->buf, out->lat[k], HIST_LAT_BUCKETS);
	if (!err)
		tracer__fold(t->sum, out);
	if (!err)
		err = read_queues(t, device, &out->hwq);
	memset(&out->ring, 0, sizeof(out->ring));
	if (!err && t->ring)
		err = blkfront_probes__read(t->ring, device, &out->ring);
	return err;
}

int tracer__snapshot_all(struct tracer *t, struct block_stats *out)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < t->nr_devs && !err; i++)
		err = tracer__snapshot(t, i, &out[i]);
	return err;
}

unsigned int tracer__nr_devices(const struct tracer *t)
{
	return t->nr_devs;
}

/*
 * The device's in-flight counts, summed over its queues: a lookup copies each queue's
 * value in one go, so a request issued and completed meanwhile may or may not count; a
 * queue's figure is never below 0. Only requests issued since attach take part (tracer.h).
 * A device counted per CPU: as of its last snapshot (the sum over every CPU's value).
 */
long long tracer__in_flight(const struct tracer *t, unsigned int device)
{
	long long sum = 0;
	struct blkio_queue q;
	__u32 i;

	if (device >= t->nr_devs)
		return 0;
	if (t->pcpu_dev[device])
		return t->in_flight[device] > 0 ? t->in_flight[device] : 0;
	for (i = 0; i < t->dev_queues[device]; i++)
		if (!read_queue(t, device, i, &q) && q.issued > q.done)
			sum += q.issued - q.done;
	return sum;
}

/* A new interval for the maxima: the BPF side clears a CPU's on its next event. */
int tracer__reset_max(struct tracer *t)
{
	__u64 epoch = t->max_epoch + 1;
	__u32 key = 0;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.data_epoch), &key, &epoch, BPF_ANY))
		return -errno;
	t->max_epoch = epoch;
	return 0;
}

size_t tracer__map_bytes(const struct tracer *t)
{
	return bpf_load__map_bytes(t->skel->obj);
}

int tracer__bt_maps(const struct tracer *t, struct tracer_bt_maps *out)
{
	const struct blkio_bpf *s = t->skel;

	if (!t->blktrace)
		return -ENOENT;
	*out = (struct tracer_bt_maps){ bpf_map__fd(s->maps.bt_events),
					bpf_map__fd(s->maps.bt_pcpu), bpf_map__fd(s->maps.bt_slots),
					bpf_map__fd(s->maps.bt_waiting),
					bpf_map__fd(s->maps.bt_state) };
	return 0;
}

/* The runs the kernel skipped of each program of PROGS (not loaded: none), added to *n. */
static int add_misses(struct bpf_program *const *progs, size_t nr, uint64_t *n)
{
	struct bpf_prog_info info;
	size_t i;
	int err;

	for (i = 0; i < nr; i++) {
		err = bpf_load__prog_info(progs[i], &info);
		if (err < 0)
			return err;
		*n += info.recursion_misses;
	}
	return 0;
}

int tracer__skipped_dc(const struct tracer *t, uint64_t *issue, uint64_t *complete)
{
	const struct blkio_bpf *s = t->skel;
	struct bpf_program *const d[] = { s->progs.tp_btf_rq_issue, s->progs.raw_tp_rq_issue,
					  s->progs.tp_btf_rq_issue_walk,
					  s->progs.raw_tp_rq_issue_walk };
	struct bpf_program *const c[] = { s->progs.tp_btf_rq_complete,
					  s->progs.raw_tp_rq_complete };
	int err;

	*issue = *complete = 0;
	err = add_misses(d, sizeof(d) / sizeof(d[0]), issue);
	return err ?: add_misses(c, sizeof(c) / sizeof(c[0]), complete);
}

int tracer__skipped(const struct tracer *t, uint64_t *n)
{
	int err;

	*n = 0;
	err = bpf_load__skipped(t->skel->obj, n);
	return !err && t->ring ? blkfront_probes__skipped(t->ring, n) : err;
}

void blkio_maxes__merge(struct blkio_maxes *into, const struct blkio_maxes *m)
{
	__u64 *a = (__u64 *)into;
	const __u64 *b = (const __u64 *)m;
	size_t i;

	for (i = 0; i < sizeof(*m) / sizeof(__u64); i++)
		if (b[i] > a[i])
			a[i] = b[i];
}

void block_stats__delta(struct block_stats *out, const struct block_stats *after,
			const struct block_stats *before)
{
	const __u64 *a = (const __u64 *)after, *b = (const __u64 *)before;
	struct blkio_maxes max = after->max; /* out may be after itself */
	__u64 nr_hwq = after->hwq.nr, every = after->hwq.depth_every, hwq_max[BLOCK_HWQS_MAX];
	__u64 *o = (__u64 *)out;
	size_t i;

	memcpy(hwq_max, after->hwq.max_depth, sizeof(hwq_max));

	_Static_assert(sizeof(*out) % sizeof(__u64) == 0, "block_stats must be all __u64");
	/* Every field is a __u64 counter except the maxima, which are per interval. */
	for (i = 0; i < sizeof(*out) / sizeof(__u64); i++)
		o[i] = a[i] - b[i];
	out->max = max;
	out->hwq.nr = nr_hwq;
	out->hwq.depth_every = every;
	memcpy(out->hwq.max_depth, hwq_max, sizeof(hwq_max));
}

void block_stats__delta_n(struct block_stats *out, const struct block_stats *after,
			  const struct block_stats *before, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		block_stats__delta(&out[i], &after[i], &before[i]);
}
