// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The tracer: probe, configure, load, attach, read. See tracer.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "blkio.h" /* before the skeleton, which uses its types */
#include "blkio.skel.h"
#include "diag.h"
#include "histogram.h"
#include "tracer.h"

/* Caps the slot table: 1M slots (8 MiB) covers 256 queues x 4096 tags. */
#define MAX_SLOTS (1U << 20)
/* Used when sysfs shows no mq/ (the device then issues no requests anyway). */
#define DEFAULT_TAGS 1024
/* The who map holds requests waiting in a scheduler (nr_requests per hw queue at most). */
#define WHO_MIN_ENTRIES 4096

struct tracer {
	struct blkio_bpf *skel;
	bool btf_flavour;
	int ncpus;
	__u64 max_epoch; /* the interval the BPF side keeps maxima for */
	bool snoop;
	bool walk; /* the issue program leaves lost completions out of the depth (bpf_loop) */
	unsigned int nr_devs;
	void *buf;		/* per-CPU read buffer, large enough for the largest value */
	struct blkio_pcpu *sum; /* a device's `stats` over all CPUs, before tracer__fold */
};

static int libbpf_verbose;

/*
 * The BTF prototype of tracepoint NAME (btf_trace_NAME: a pointer to a function whose
 * first parameter is the probe's void *__data), or NULL when the kernel has none.
 */
static const struct btf_type *tp_proto(const struct btf *btf, const char *name)
{
	char tname[128];
	const struct btf_type *t;
	int id;

	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	if (id < 0)
		return NULL;
	t = btf__type_by_id(btf, id);
	t = btf__type_by_id(btf, t->type); /* pointer */
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, t->type); /* func proto */
	return t && btf_is_func_proto(t) ? t : NULL;
}

/* Does the tracepoint still take the request_queue first (before v5.11)? */
static bool tp_takes_queue(const struct btf *btf, const struct btf_type *proto)
{
	const struct btf_param *p = btf_params(proto);
	const struct btf_type *t;

	if (btf_vlen(proto) < 2)
		return false;
	t = btf__type_by_id(btf, p[1].type);
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_struct(t) &&
	       !strcmp(btf__name_by_offset(btf, t->name_off), "request_queue");
}

struct prog_pair {
	const char *tp;
	int form; /* enum blkio_tp: where its argument form is noted; -1 none */
	struct bpf_program *btf_prog, *raw_prog;
	enum { ALWAYS, SNOOP_ONLY, BIO_ONLY, NO_LOOP, WITH_LOOP } when;
};

/*
 * bpf_loop (5.17) lets the issue program walk the slots for lost completions
 * (blkio.bpf.c, lost_in_flight); older kernels load the issue program without the walk.
 */
static bool has_bpf_loop(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_loop, NULL) == 1;
}

static int choose_programs(struct tracer *t, const struct tracer_opts *opts, struct diag *d)
{
	struct blkio_bpf *s = t->skel;
	struct prog_pair pairs[] = {
		{ "block_rq_issue", BLKIO_TP_RQ_ISSUE, s->progs.tp_btf_rq_issue,
		  s->progs.raw_tp_rq_issue, NO_LOOP },
		{ "block_rq_issue", BLKIO_TP_RQ_ISSUE, s->progs.tp_btf_rq_issue_walk,
		  s->progs.raw_tp_rq_issue_walk, WITH_LOOP },
		{ "block_rq_complete", -1, s->progs.tp_btf_rq_complete, s->progs.raw_tp_rq_complete,
		  ALWAYS },
		{ "block_rq_requeue", BLKIO_TP_RQ_REQUEUE, s->progs.tp_btf_rq_requeue,
		  s->progs.raw_tp_rq_requeue, ALWAYS },
		{ "block_rq_merge", BLKIO_TP_RQ_MERGE, s->progs.tp_btf_rq_merge,
		  s->progs.raw_tp_rq_merge, ALWAYS },
		{ "block_bio_backmerge", BLKIO_TP_BIO_BACKMERGE, s->progs.tp_btf_bio_backmerge,
		  s->progs.raw_tp_bio_backmerge, ALWAYS },
		{ "block_bio_frontmerge", BLKIO_TP_BIO_FRONTMERGE, s->progs.tp_btf_bio_frontmerge,
		  s->progs.raw_tp_bio_frontmerge, ALWAYS },
		{ "block_split", BLKIO_TP_SPLIT, s->progs.tp_btf_split, s->progs.raw_tp_split,
		  ALWAYS },
		/* Snoop mode only: who submitted a request. */
		{ "block_rq_insert", BLKIO_TP_RQ_INSERT, s->progs.tp_btf_rq_insert,
		  s->progs.raw_tp_rq_insert, SNOOP_ONLY },
		/* Bio-based devices only (a stack's top): every bio of every disk passes here. */
		{ "block_bio_queue", BLKIO_TP_BIO_QUEUE, s->progs.tp_btf_bio_queue,
		  s->progs.raw_tp_bio_queue, BIO_ONLY },
		{ "block_bio_complete", -1, s->progs.tp_btf_bio_complete,
		  s->progs.raw_tp_bio_complete, BIO_ONLY },
	};
	bool any_bio = false, loop = has_bpf_loop();
	struct btf *vmlinux = btf__load_vmlinux_btf();

	t->walk = loop;
	int err = 0;
	size_t i;

	if (!vmlinux)
		return diag__fail(d, -EOPNOTSUPP,
				  "kernel BTF (/sys/kernel/btf/vmlinux) is missing: "
				  "CO-RE tracing needs CONFIG_DEBUG_INFO_BTF=y");
	if (!tp_proto(vmlinux, "block_rq_issue")) {
		err = diag__fail(d, -EOPNOTSUPP,
				 "tracepoint block_rq_issue not found in kernel BTF");
		goto cleanup;
	}
	for (i = 0; i < opts->nr_devs; i++)
		any_bio |= opts->devs[i]->bio_based;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const struct btf_type *proto = tp_proto(vmlinux, pairs[i].tp);
		bool load = proto && (pairs[i].when == ALWAYS ||
				      (pairs[i].when == SNOOP_ONLY && opts->snoop_ring_bytes) ||
				      (pairs[i].when == BIO_ONLY && any_bio) ||
				      (pairs[i].when == NO_LOOP && !loop) ||
				      (pairs[i].when == WITH_LOOP && loop));

		/* Each tracepoint's own form: stable kernels took the change piecemeal. */
		if (proto && pairs[i].form >= 0)
			s->rodata->old_args[pairs[i].form] = tp_takes_queue(vmlinux, proto);
		bpf_program__set_autoload(pairs[i].btf_prog, load && t->btf_flavour);
		bpf_program__set_autoload(pairs[i].raw_prog, load && !t->btf_flavour);
	}
cleanup:
	btf__free(vmlinux);
	return err;
}

/*
 * The first BLKIO_DISK_NAME_BYTES of a kernel disk_name, as the BPF side reads them, and
 * the mask of the bytes that count (the name and its NUL: see disk_name_masks).
 */
void tracer__pack_name(const char *name, __u64 out[2], __u64 mask[2])
{
	char buf[BLKIO_DISK_NAME_BYTES] = {}, ones[BLKIO_DISK_NAME_BYTES] = {};
	size_t len = strnlen(name, sizeof(buf) - 1);

	memcpy(buf, name, len);
	memset(ones, 0xff, len + 1);
	memcpy(out, buf, sizeof(buf));
	memcpy(mask, ones, sizeof(ones));
}

static void pack_name(const char *name, volatile __u64 out[2], volatile __u64 mask[2])
{
	__u64 w[2], m[2];

	tracer__pack_name(name, w, m);
	out[0] = w[0];
	out[1] = w[1];
	mask[0] = m[0];
	mask[1] = m[1];
}

/* Bios of bio-based devices in flight at once that the start-time table holds. */
#define BIO_TABLE 16384

struct member_set {
	unsigned int n;	     /* members in the read-only arrays */
	unsigned int in_map; /* members beyond them, in member_map */
	unsigned int slots;  /* slot table entries so far */
	struct blkio_member over[BLKIO_MAX_DEVICES * (DEVICE_MAX_PATHS + 1)];
};

/*
 * Add one member disk counting for traced device IDX. A disk without a dev_t (an NVMe
 * path) is matched by name and must fit the arrays; others overflow into member_map.
 */
static int add_member(struct blkio_bpf *s, struct member_set *ms, unsigned int idx,
		      const struct device *dev, const char *name, bool hidden, unsigned int hwqs,
		      unsigned int tags, struct diag *d)
{
	struct blkio_member m = {
		.dev = hidden ? 0 : BLKIO_DEV(dev->major, dev->minor),
		.device = idx,
		.hwqs = hwqs,
		.tags = tags,
	};
	unsigned long long want = (unsigned long long)ms->slots + (unsigned long long)hwqs * tags;

	if (dev->bio_based)
		m.flags |= BLKIO_MEMBER_BIO;
	if (dev->part_name[0]) {
		m.part_start = dev->part_start;
		m.part_end = dev->part_start + dev->part_sectors;
	}
	if (hwqs && tags) { /* a disk that issues requests */
		if (want > MAX_SLOTS)
			return diag__fail(d, -E2BIG,
					  "%s: too many requests in flight to track "
					  "(%llu slots, at most %u)",
					  name, want, MAX_SLOTS);
		m.slot_base = ms->slots;
		ms->slots = want;
	}
	if (hidden && strlen(name) >= BLKIO_DISK_NAME_BYTES)
		return diag__fail(d, -ENAMETOOLONG,
				  "%s: the name of a disk without dev_t must be "
				  "shorter than %d characters to be traced",
				  name, BLKIO_DISK_NAME_BYTES);
	if (ms->n < BLKIO_MAX_DISKS) {
		s->rodata->members[ms->n] = m;
		if (hidden) {
			pack_name(name, s->rodata->disk_names[ms->n],
				  s->rodata->disk_name_masks[ms->n]);
			s->rodata->by_name = true;
		}
		ms->n++;
		return 0;
	}
	if (hidden)
		return diag__fail(d, -E2BIG,
				  "%s: too many disks without dev_t (NVMe paths) to "
				  "trace at once: at most %d members",
				  name, BLKIO_MAX_DISKS);
	ms->over[ms->in_map++] = m;
	return 0;
}

/*
 * The members the BPF filter matches, device by device: the disk (or the bio-based
 * device), or an NVMe multipath head (for its bio splits; it issues no requests) followed
 * by its path disks, matched by name since the kernel gives them no dev_t. Each member
 * has its own slots: (hw queue, tag) are unique per disk only.
 */
static int set_members(struct blkio_bpf *s, struct member_set *ms, const struct tracer_opts *opts,
		       struct diag *d)
{
	unsigned int k, i;
	int err = 0;

	if (!opts->nr_devs || opts->nr_devs > BLKIO_MAX_DEVICES)
		return diag__usage_err(d, -E2BIG, "cannot trace %u devices at once: at most %d",
				       opts->nr_devs, BLKIO_MAX_DEVICES);
	for (k = 0; k < opts->nr_devs && !err; k++) {
		const struct device *dev = opts->devs[k];
		/* Bio-based devices and multipath heads issue no requests: no slots. */
		bool rq_based = !dev->bio_based && !dev->nr_paths;
		unsigned int hwqs = !rq_based ? 0 : dev->nr_hw_queues ? dev->nr_hw_queues : 1;
		unsigned int tags = !rq_based ? 0 : dev->max_tags ? dev->max_tags : DEFAULT_TAGS;

		err = add_member(s, ms, k, dev, dev->name, dev->hidden, hwqs, tags, d);
		for (i = 0; i < dev->nr_paths && !err; i++)
			err = add_member(
				s, ms, k, dev, dev->paths[i].name, true,
				dev->paths[i].nr_hw_queues ? dev->paths[i].nr_hw_queues : 1,
				dev->paths[i].max_tags ? dev->paths[i].max_tags : DEFAULT_TAGS, d);
		if (dev->bio_based)
			s->rodata->any_bio_level = true;
	}
	s->rodata->nr_disks = ms->n;
	s->rodata->nr_devices = opts->nr_devs;
	s->rodata->use_member_map = ms->in_map > 0;
	return err;
}

/* Fill member_map with the members beyond the read-only arrays (after load). */
static int fill_member_map(struct tracer *t, const struct member_set *ms)
{
	unsigned int i;

	for (i = 0; i < ms->in_map; i++)
		if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.member_map), &ms->over[i].dev,
					&ms->over[i], BPF_NOEXIST))
			return -errno;
	return 0;
}

static int configure(struct tracer *t, struct member_set *ms, const struct tracer_opts *opts,
		     struct diag *d)
{
	size_t snoop_bytes = opts->snoop_ring_bytes;
	struct blkio_bpf *s = t->skel;
	unsigned int nr;
	int err;

	err = set_members(s, ms, opts, d);
	if (err)
		return err;
	nr = ms->slots ? ms->slots : 1;
	s->rodata->one_hwq = ms->n == 1 && !ms->in_map && s->rodata->members[0].hwqs == 1;
	s->rodata->nr_slots = nr;
	s->rodata->lose_every = opts->lose_every;
	err = bpf_map__set_max_entries(s->maps.slots, nr);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.stats, opts->nr_devs);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.lat_hist, opts->nr_devs * BLKIO_NR_LATS);
	if (!err && ms->in_map)
		err = bpf_map__set_max_entries(s->maps.member_map, ms->in_map);
	if (!err && s->rodata->any_bio_level)
		err = bpf_map__set_max_entries(s->maps.bio_start, BIO_TABLE);
	if (err || !snoop_bytes)
		goto out;
	s->rodata->snoop = true;
	t->snoop = true;
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

/*
 * Does this process hold what loading needs? CAP_BPF and CAP_PERFMON (v5.8), or
 * CAP_SYS_ADMIN, which covers both on every kernel. Only then is an EPERM a
 * matter of privileges rather than of the verifier.
 */
static bool has_bpf_caps(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
#define HAS_CAP(c) (data[(c) / 32].effective & (1u << ((c) % 32)))
	return HAS_CAP(CAP_SYS_ADMIN) || (HAS_CAP(CAP_BPF) && HAS_CAP(CAP_PERFMON));
#undef HAS_CAP
}

/* libbpf names the program it could not load: "prog 'NAME': BPF program load failed". */
static char failed_prog[64];

/*
 * libbpf speaks only with -v (warnings and info; -vv adds debug, the verifier's
 * log among it): without it, the caller reports a failure in one line. Either way
 * we note which program failed to load.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_WARN && strstr(fmt, "BPF program load failed")) {
		va_list copy;
		char line[256];

		va_copy(copy, args);
		vsnprintf(line, sizeof(line), fmt, copy);
		va_end(copy);
		if (sscanf(line, "prog '%63[^']'", failed_prog) != 1)
			failed_prog[0] = '\0';
	}
	if (!libbpf_verbose || (level == LIBBPF_DEBUG && libbpf_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* The last lines of the verifier's log, indented, for the error message. */
static void log_tail(const char *log, char *out, size_t len, int lines)
{
	const char *end = log + strlen(log), *p = end;
	size_t used = 0;

	while (p > log && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	end = p;
	while (p > log && lines > 0) {
		p--;
		if (*p == '\n')
			lines--;
	}
	if (*p == '\n')
		p++;
	out[0] = '\0';
	while (p < end && used + 8 < len) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		used += snprintf(out + used, len - used, "\n    %.*s", (int)n, p);
		p += n + (nl ? 1 : 0);
	}
}

/*
 * Open, configure and load one flavour. The verifier's log goes to a buffer of ours
 * (libbpf asks for it only after a failure), so a rejection can be reported precisely.
 */
static int load_flavour(struct tracer *t, const struct tracer_opts *opts, bool btf,
			struct tracer_load_failure *why, struct diag *d)
{
	/* libbpf's own default (BPF_LOG_BUF_SIZE); untouched pages cost nothing. */
	size_t log_size = UINT32_MAX >> 8;
	char *log = calloc(1, log_size);
	LIBBPF_OPTS(bpf_object_open_opts, oo, .kernel_log_buf = log, .kernel_log_size = log_size);
	struct member_set *ms = NULL;
	int err;

	if (!log)
		return -ENOMEM;
	t->skel = blkio_bpf__open_opts(&oo);
	if (!t->skel) {
		err = diag__fail(d, -errno, "cannot open the BPF object: %s", strerror(errno));
		goto cleanup;
	}
	t->btf_flavour = btf;
	ms = calloc(1, sizeof(*ms));
	err = ms ? choose_programs(t, opts, d) : diag__fail(d, -ENOMEM, "out of memory");
	if (!err)
		err = configure(t, ms, opts, d);
	if (err)
		goto cleanup;
	failed_prog[0] = '\0';
	err = blkio_bpf__load(t->skel);
	if (!err) {
		err = fill_member_map(t, ms);
		if (err)
			diag__fail(d, err, "cannot fill the member map: %s", strerror(-err));
	} else {
		why->err = err;
		snprintf(why->prog, sizeof(why->prog), "%s", failed_prog);
		log_tail(log, why->log_tail, sizeof(why->log_tail), 4);
		/* libbpf prints the log only into a buffer of its own: print ours. */
		if (opts->verbose && log[0])
			fprintf(stderr,
				"-- verifier log of %s (%s flavour) --\n%s-- end of log --\n",
				why->prog[0] ? why->prog : "a program", btf ? "tp_btf" : "raw_tp",
				log);
		blkio_bpf__destroy(t->skel);
		t->skel = NULL;
	}
cleanup:
	free(ms);
	free(log);
	return err;
}

void tracer__load_error(char *buf, size_t len, const struct tracer_load_failure f[2], bool has_caps,
			const char *release)
{
	static const char *const names[] = { "tp_btf", "raw_tp" };
	size_t used = 0;
	int i, first = f[0].err ? 0 : 1;

	if ((f[first].err == -EPERM || f[first].err == -EACCES) && !has_caps) {
		snprintf(buf, len,
			 "loading BPF programs needs root (CAP_BPF and CAP_PERFMON, or "
			 "CAP_SYS_ADMIN): %s",
			 strerror(-f[first].err));
		return;
	}
	used += snprintf(buf, len,
			 "the kernel (%s) refused the BPF programs; this is a bug, "
			 "please report it with the output of -vv",
			 release);
	for (i = 0; i < 2; i++) {
		if (!f[i].err || used >= len)
			continue;
		used += snprintf(buf + used, len - used, "\n  %s flavour: %s%s%s%s", names[i],
				 f[i].prog[0] ? "program " : "", f[i].prog,
				 f[i].prog[0] ? ": " : "", strerror(-f[i].err));
		if (used < len && f[i].log_tail[0])
			used += snprintf(buf + used, len - used, "; the verifier said:%s",
					 f[i].log_tail);
	}
}

/*
 * Probe, configure, load: tp_btf first where the kernel has it, then the raw_tp twins
 * when that fails for any reason (an older verifier may refuse one and take the other).
 */
static int load_any(struct tracer *t, const struct tracer_opts *opts, struct diag *d)
{
	struct tracer_load_failure fail[2] = {};
	bool want_btf = !opts->force_raw_tp;
	char msg[DIAG_MSG_MAX];
	struct utsname u = {};
	int err = -EINVAL, i;

	for (i = want_btf ? 0 : 1; i < 2; i++) {
		err = load_flavour(t, opts, i == 0, &fail[i], d);
		if (!err || !fail[i].err) /* loaded, or failed before loading: final */
			return err;
		if (i == 0 && opts->verbose)
			fprintf(stderr,
				"blktrace-bench: the tp_btf flavour failed to load (%s); "
				"trying raw_tp\n",
				strerror(-err));
	}
	uname(&u);
	tracer__load_error(msg, sizeof(msg), fail, has_bpf_caps(), u.release);
	return diag__fail(d, err, "%s", msg);
}

int tracer__open(const struct tracer_opts *opts, struct tracer **out, struct diag *d)
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
		err = diag__fail(d, t->ncpus ? t->ncpus : -EINVAL, "cannot count possible CPUs");
		goto cleanup;
	}
	_Static_assert(sizeof(struct blkio_pcpu) % 8 == 0, "per-CPU values are 8-byte strided");
	bufsz = (size_t)t->ncpus * sizeof(struct blkio_pcpu);
	t->buf = malloc(bufsz);
	t->sum = malloc(sizeof(*t->sum));
	if (!t->buf || !t->sum) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = load_any(t, opts, d);
	if (err)
		goto cleanup;
	t->nr_devs = opts->nr_devs;
	*out = t;
	return 0;
cleanup:
	tracer__close(t);
	return err;
}

/*
 * Attach the loaded programs, the ones that end a request's life first: a request issued
 * while block_rq_issue is attached and block_rq_complete not yet would hold its slot and
 * the in-flight counter with a completion never seen. Issue comes last; then the time,
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
	struct timespec now;
	__u32 key = 0;
	__u64 ns;
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!bpf_program__autoload(order[i].prog) || *order[i].link)
			continue;
		*order[i].link = bpf_program__attach(order[i].prog);
		if (!*order[i].link) {
			int err = -errno;

			blkio_bpf__detach(s);
			return err;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (__u64)now.tv_sec * 1000000000ULL + now.tv_nsec;
	if (bpf_map_update_elem(bpf_map__fd(s->maps.data_start), &key, &ns, BPF_ANY))
		return -errno;
	return 0;
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
	free(t->sum);
	free(t);
}

bool tracer__walks_slots(const struct tracer *t)
{
	return t->walk;
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
 * The `stats` value of every CPU in one read, summed word by word; the maxima taken
 * only from CPUs on the current epoch (the others saw nothing since the reset).
 */
static int read_stats(struct tracer *t, __u32 key, struct blkio_pcpu *sum)
{
	const struct blkio_pcpu *v = t->buf;
	int cpu;
	size_t i;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.stats), &key, t->buf))
		return -errno;
	memset(sum, 0, sizeof(*sum));
	for (cpu = 0; cpu < t->ncpus; cpu++, v++) {
		const __u64 *m = (const __u64 *)&v->max;
		__u64 *o = (__u64 *)&sum->max;
		struct blkio_maxes max = sum->max;

		add_words((__u64 *)sum, (const __u64 *)v, WORDS(*v));
		sum->max = max;
		if (v->max_epoch != t->max_epoch)
			continue;
		for (i = 0; i < WORDS(v->max); i++)
			if (m[i] > o[i])
				o[i] = m[i];
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
	for (k = 0; k < BLKIO_NR_OPS; k++) {
		c->requests[k] = r->requests[k];
		c->bytes[k] = r->bytes[k];
		c->merges_op[k] = r->merges_op[k];
	}
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
	c->untracked = r->untracked;
	c->unissued = r->unissued;
	c->lost_completions = r->lost_completions;
	c->slot_overflow = r->slot_overflow;
	c->depth_corrected = r->depth_corrected;
	c->merges = r->merges;
	c->rq_merges = r->rq_merges;
	c->splits = r->splits;
	c->requeues = r->requeues;
	c->errors = r->errors;
	c->lost_records = r->lost_records;
	c->ra_requests = r->ra_requests;
	c->ra_bytes = r->ra_bytes;
	out->max = v->max;
}

int tracer__snapshot(struct tracer *t, unsigned int device, struct block_stats *out)
{
	__u32 k;
	int err;

	if (device >= t->nr_devs)
		return -EINVAL;
	err = read_stats(t, device, t->sum);
	for (k = 0; !err && k < BLKIO_NR_LATS; k++)
		err = sum_percpu(t, t->skel->maps.lat_hist, device * BLKIO_NR_LATS + k, out->lat[k],
				 HIST_LAT_BUCKETS);
	if (!err)
		tracer__fold(t->sum, out);
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
 * The device's in-flight counter, from the mmapped .data section: a read the programs
 * never wait for. Only requests issued since attach take part (tracer.h).
 */
long long tracer__in_flight(const struct tracer *t, unsigned int device)
{
	if (device >= t->nr_devs || !t->skel->data_inflight)
		return 0;
	return __atomic_load_n(&t->skel->data_inflight->inflight[device].n, __ATOMIC_RELAXED);
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

void block_stats__delta_n(struct block_stats *out, const struct block_stats *after,
			  const struct block_stats *before, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		block_stats__delta(&out[i], &after[i], &before[i]);
}
