// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The tracer: probe, configure, load, attach, read. See tracer.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "blkio.skel.h"
#include "tracer.h"

/* Caps the slot table: 1M slots (8 MiB) covers 256 queues x 4096 tags. */
#define MAX_SLOTS (1U << 20)
/* Used when sysfs shows no mq/ (the device then issues no requests anyway). */
#define DEFAULT_TAGS 1024

struct tracer {
	struct blkio_bpf *skel;
	bool btf_flavour;
	int ncpus;
	__u64 max_epoch; /* the interval the BPF side keeps maxima for */
	bool snoop;
	void *buf;	 /* per-CPU read buffer, large enough for the largest value */
};

static int libbpf_verbose;

/*
 * libbpf speaks only with -v (warnings and info; -vv adds debug, the verifier's
 * log among it): without it, the caller reports a failure in one line.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (!libbpf_verbose || (level == LIBBPF_DEBUG && libbpf_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void set_err(const struct tracer_opts *opts, const char *fmt, ...)
{
	va_list ap;

	if (!opts->errbuf || !opts->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(opts->errbuf, opts->errlen, fmt, ap);
	va_end(ap);
}

/* Number of parameters of tracepoint NAME's BTF prototype, or -ENOENT. */
static int tp_nr_args(const struct btf *btf, const char *name)
{
	char tname[128];
	const struct btf_type *t;
	int id;

	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	t = btf__type_by_id(btf, t->type); /* pointer */
	if (!t || !btf_is_ptr(t))
		return -EINVAL;
	t = btf__type_by_id(btf, t->type); /* func proto */
	if (!t || !btf_is_func_proto(t))
		return -EINVAL;
	return btf_vlen(t);
}

struct prog_pair {
	const char *tp;
	struct bpf_program *btf_prog, *raw_prog;
	bool snoop_only;
};

static int choose_programs(struct tracer *t, const struct tracer_opts *opts)
{
	struct blkio_bpf *s = t->skel;
	struct prog_pair pairs[] = {
		{"block_rq_issue", s->progs.tp_btf_rq_issue, s->progs.raw_tp_rq_issue, false},
		{"block_rq_complete", s->progs.tp_btf_rq_complete, s->progs.raw_tp_rq_complete, false},
		{"block_rq_requeue", s->progs.tp_btf_rq_requeue, s->progs.raw_tp_rq_requeue, false},
		{"block_rq_merge", s->progs.tp_btf_rq_merge, s->progs.raw_tp_rq_merge, false},
		{"block_bio_backmerge", s->progs.tp_btf_bio_backmerge,
		 s->progs.raw_tp_bio_backmerge, false},
		{"block_bio_frontmerge", s->progs.tp_btf_bio_frontmerge,
		 s->progs.raw_tp_bio_frontmerge, false},
		{"block_split", s->progs.tp_btf_split, s->progs.raw_tp_split, false},
		/* Snoop mode only (below): who submitted a request. */
		{"block_rq_insert", s->progs.tp_btf_rq_insert, s->progs.raw_tp_rq_insert, true},
	};
	struct btf *vmlinux = btf__load_vmlinux_btf();
	const char *force = getenv("BLKTRACE_BENCH_RAW_TP");
	int n, err = 0;
	size_t i;

	if (!vmlinux) {
		set_err(opts, "kernel BTF (/sys/kernel/btf/vmlinux) is missing: CO-RE tracing "
			      "needs CONFIG_DEBUG_INFO_BTF=y");
		return -EOPNOTSUPP;
	}
	n = tp_nr_args(vmlinux, "block_rq_issue");
	if (n < 0) {
		set_err(opts, "tracepoint block_rq_issue not found in kernel BTF");
		err = -EOPNOTSUPP;
		goto cleanup;
	}
	/* Prototypes carry a leading void *__data: (data, q, rq) is the old form. */
	t->skel->rodata->old_args = n >= 3;
	t->btf_flavour = !opts->force_raw_tp && !(force && *force && strcmp(force, "0"));

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		bool exists = tp_nr_args(vmlinux, pairs[i].tp) >= 0 &&
			      (!pairs[i].snoop_only || opts->snoop_ring_bytes);

		bpf_program__set_autoload(pairs[i].btf_prog, exists && t->btf_flavour);
		bpf_program__set_autoload(pairs[i].raw_prog, exists && !t->btf_flavour);
	}
cleanup:
	btf__free(vmlinux);
	return err;
}

static int configure(struct tracer *t, const struct device *dev, size_t snoop_bytes)
{
	struct blkio_bpf *s = t->skel;
	unsigned int queues = dev->nr_hw_queues ? dev->nr_hw_queues : 1;
	unsigned int tags = dev->max_tags ? dev->max_tags : DEFAULT_TAGS;
	unsigned long long nr = (unsigned long long)queues * tags;
	int err;

	if (nr > MAX_SLOTS)
		nr = MAX_SLOTS;
	s->rodata->target_dev = BLKIO_DEV(dev->major, dev->minor);
	if (dev->part_name[0]) {
		s->rodata->part_start = dev->part_start;
		s->rodata->part_end = dev->part_start + dev->part_sectors;
	}
	s->rodata->tags_per_hwq = tags;
	s->rodata->one_hwq = queues == 1;
	s->rodata->nr_slots = nr;
	err = bpf_map__set_max_entries(s->maps.slots, nr);
	if (err || !snoop_bytes)
		return err;
	s->rodata->snoop = true;
	t->snoop = true;
	err = bpf_map__set_max_entries(s->maps.events, snoop_bytes);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.who_slots, nr);
	if (!err) /* requests waiting in a scheduler: nr_requests per hw queue at most */
		err = bpf_map__set_max_entries(s->maps.who, nr * 2 < 4096 ? 4096 : nr * 2);
	return err;
}

int tracer__open(const struct tracer_opts *opts, struct tracer **out)
{
	struct tracer *t;
	size_t bufsz;
	int err;

	*out = NULL;
	libbpf_verbose = opts->verbose;
	libbpf_set_print(libbpf_print);

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		err = t->ncpus ? t->ncpus : -EINVAL;
		set_err(opts, "cannot count possible CPUs");
		goto cleanup;
	}
	_Static_assert(sizeof(struct blkio_pcpu) % 8 == 0, "per-CPU values are 8-byte strided");
	bufsz = (size_t)t->ncpus * sizeof(struct blkio_pcpu);
	t->buf = malloc(bufsz);
	if (!t->buf) {
		err = -ENOMEM;
		goto cleanup;
	}

	t->skel = blkio_bpf__open();
	if (!t->skel) {
		err = -errno;
		set_err(opts, "cannot open the BPF object: %s", strerror(-err));
		goto cleanup;
	}
	err = choose_programs(t, opts);
	if (err)
		goto cleanup;
	err = configure(t, opts->dev, opts->snoop_ring_bytes);
	if (err) {
		set_err(opts, "cannot size the BPF maps: %s", strerror(-err));
		goto cleanup;
	}
	err = blkio_bpf__load(t->skel);
	if (err) {
		if (err == -EPERM || err == -EACCES)
			set_err(opts, "loading BPF programs needs root (CAP_BPF, CAP_PERFMON and "
				      "CAP_SYS_RESOURCE): %s", strerror(-err));
		else
			set_err(opts, "cannot load the BPF programs (%s flavour): %s; "
				      "rerun with -v for the verifier log",
				t->btf_flavour ? "tp_btf" : "raw_tp", strerror(-err));
		goto cleanup;
	}
	*out = t;
	return 0;
cleanup:
	tracer__close(t);
	return err;
}

int tracer__start(struct tracer *t)
{
	return blkio_bpf__attach(t->skel);
}

void tracer__detach(struct tracer *t)
{
	if (t)
		blkio_bpf__detach(t->skel);
}

int tracer__events_fd(const struct tracer *t)
{
	return t->snoop ? bpf_map__fd(t->skel->maps.events) : -1;
}

void tracer__close(struct tracer *t)
{
	if (!t)
		return;
	blkio_bpf__destroy(t->skel);
	free(t->buf);
	free(t);
}

const char *tracer__flavour(const struct tracer *t)
{
	return t->btf_flavour ? "tp_btf" : "raw_tp";
}

/* Read element KEY of a per-CPU array and add its __u64 words over all CPUs. */
static int sum_percpu(struct tracer *t, struct bpf_map *map, __u32 key, __u64 *out, size_t words)
{
	size_t stride = (bpf_map__value_size(map) + 7) / 8;
	__u64 *v = t->buf;
	int cpu, err;
	size_t i;

	err = bpf_map_lookup_elem(bpf_map__fd(map), &key, v);
	if (err)
		return -errno;
	memset(out, 0, words * sizeof(*out));
	for (cpu = 0; cpu < t->ncpus; cpu++)
		for (i = 0; i < words; i++)
			out[i] += v[cpu * stride + i];
	return 0;
}

#define WORDS(x) (sizeof(x) / sizeof(__u64))

static void add_words(__u64 *into, const __u64 *v, size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		into[i] += v[i];
}

/*
 * The `stats` value of every CPU in one read: counters and histograms summed, maxima
 * taken only from CPUs on the current epoch (the others saw nothing since the reset).
 */
static int read_stats(struct tracer *t, struct block_stats *out)
{
	const struct blkio_pcpu *v = t->buf;
	__u32 key = 0;
	int cpu;
	size_t i;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.stats), &key, t->buf))
		return -errno;
	memset(&out->c, 0, sizeof(out->c));
	memset(&out->max, 0, sizeof(out->max));
	memset(out->size, 0, sizeof(out->size));
	memset(out->count, 0, sizeof(out->count));
	for (cpu = 0; cpu < t->ncpus; cpu++, v++) {
		const __u64 *m = (const __u64 *)&v->max;
		__u64 *o = (__u64 *)&out->max;

		add_words((__u64 *)&out->c, (const __u64 *)&v->c, WORDS(v->c));
		add_words(&out->size[0][0], &v->size[0][0], WORDS(v->size));
		add_words(&out->count[0][0], &v->count[0][0], WORDS(v->count));
		if (v->max_epoch != t->max_epoch)
			continue;
		for (i = 0; i < WORDS(v->max); i++)
			if (m[i] > o[i])
				o[i] = m[i];
	}
	return 0;
}

int tracer__snapshot(struct tracer *t, struct block_stats *out)
{
	__u32 k;
	int err;

	_Static_assert(sizeof(out->size) == sizeof(((struct blkio_pcpu *)0)->size) &&
			       sizeof(out->count) == sizeof(((struct blkio_pcpu *)0)->count),
		       "block_stats mirrors blkio_pcpu");
	err = read_stats(t, out);
	for (k = 0; !err && k < BLKIO_NR_LATS; k++)
		err = sum_percpu(t, t->skel->maps.lat_hist, k, out->lat[k], HIST_LAT_BUCKETS);
	return err;
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

/* The kernel's own account of a map's memory: "memlock:" in /proc/self/fdinfo. */
static size_t map_memlock(int fd)
{
	char path[64], line[128];
	size_t bytes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %zu", &bytes) == 1)
			break;
	fclose(f);
	return bytes;
}

size_t tracer__map_bytes(const struct tracer *t)
{
	struct bpf_map *map;
	size_t total = 0;

	bpf_object__for_each_map(map, t->skel->obj)
		if (bpf_map__fd(map) >= 0)
			total += map_memlock(bpf_map__fd(map));
	return total;
}

int tracer__prog_stats(const struct tracer *t, unsigned long long *run_ns,
		       unsigned long long *run_cnt)
{
	struct bpf_program *prog;

	*run_ns = *run_cnt = 0;
	bpf_object__for_each_program(prog, t->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return -errno;
		*run_ns += info.run_time_ns;
		*run_cnt += info.run_cnt;
	}
	return 0;
}

void block_stats__delta(struct block_stats *out, const struct block_stats *after,
			const struct block_stats *before)
{
	const __u64 *a = (const __u64 *)after, *b = (const __u64 *)before;
	struct blkio_maxes max = after->max; /* out may be after itself */
	__u64 *o = (__u64 *)out;
	size_t i;

	_Static_assert(sizeof(*out) % sizeof(__u64) == 0, "block_stats must be all __u64");
	/* Every field is a __u64 counter except the maxima, which are per interval. */
	for (i = 0; i < sizeof(*out) / sizeof(__u64); i++)
		o[i] = a[i] - b[i];
	out->max = max;
}
