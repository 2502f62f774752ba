// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The xen-blkfront probes: choose the flavour, load, attach, read. See blkfront_probes.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "blkio.h" /* before the skeleton, which uses its types */
#include "blkfront.h"
#include "blkfront.skel.h"
#include "base/diag.h"
#include "trace/blkfront_probes.h"
#include "trace/bpf_load.h"
#include "trace/bpf_members.h"

struct blkfront_probes {
	struct blkfront_bpf *skel;
	bool fentry;
	int ncpus;
	unsigned int nr_devs;
	void *buf; /* one lookup: a value per CPU */
};

bool blkfront_probes__wanted(const struct device *const *devs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (devs[i]->xen.present)
			return true;
	return false;
}

/*
 * Autoload one set: the fentry programs, or the kprobe ones. blk_mq_complete_request is
 * the kernel's own, with BTF wherever the kernel has trampolines: fentry there even beside
 * kprobes, as a kprobe in an interrupt that lands while another of our kprobes runs is
 * skipped (5.10 counts nothing of it), and so would its completions be. Without
 * trampolines (arm64 before 6.4), the kprobe, and behind it the block layer's
 * block_rq_complete tracepoint, which a kprobe of ours does not hold off: it completes
 * what the kprobe was skipped for (~1 request in 100 on arm64 6.1 under Xen), later.
 */
static void choose(struct blkfront_bpf *s, bool fentry, bool trampolines)
{
	struct bpf_program *f[] = { s->progs.fentry_queue_rq,	 s->progs.fexit_queue_rq,
				    s->progs.fentry_setup_grant, s->progs.fentry_interrupt,
				    s->progs.fexit_interrupt,	 s->progs.fentry_copy_from_grant,
				    s->progs.fentry_complete };
	struct bpf_program *k[] = { s->progs.kprobe_queue_rq,	  s->progs.kretprobe_queue_rq,
				    s->progs.kprobe_setup_grant,  s->progs.kprobe_interrupt,
				    s->progs.kretprobe_interrupt, s->progs.kprobe_copy_from_grant,
				    s->progs.kprobe_complete };
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		bpf_program__set_autoload(f[i], fentry);
		bpf_program__set_autoload(k[i], !fentry);
	}
	bpf_program__set_autoload(s->progs.fentry_complete, fentry || trampolines);
	bpf_program__set_autoload(s->progs.kprobe_complete, !fentry && !trampolines);
	bpf_program__set_autoload(s->progs.raw_tp_complete, !fentry && !trampolines);
}

static int configure(struct blkfront_probes *p, const struct blkfront_probes_opts *o,
		     const struct xen_probe_support *sup, struct member_set *ms, char *why,
		     size_t len)
{
	struct blkfront_bpf *s = p->skel;
	struct diag d = {};
	int err;

	err = bpf_members__set(&s->rodata->filter, ms, o->devs, o->nr_devs, &d);
	if (err) {
		snprintf(why, len, "%s", d.msg);
		return err;
	}
	s->rodata->nr_devices = o->nr_devs;
	choose(s, p->fentry, sup->fentry);
	err = bpf_map__set_max_entries(s->maps.counts, o->nr_devs);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.full_since, o->nr_devs * BLKFRONT_MAX_RINGS);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.member_map, ms->map_entries);
	if (err)
		snprintf(why, len, "cannot size the BPF maps: %s", strerror(-err));
	return err;
}

/*
 * Open, configure and load the skeleton with the set chosen; 0, or -errno with why. The
 * member map filled after load.
 */
static int load(struct blkfront_probes *p, const struct blkfront_probes_opts *o,
		const struct xen_probe_support *sup, char *why, size_t len)
{
	struct member_set *ms = calloc(1, sizeof(*ms));
	int err;

	blkfront_bpf__destroy(p->skel);
	p->skel = ms ? blkfront_bpf__open() : NULL;
	if (!p->skel) {
		err = ms && errno ? -errno : -ENOMEM;
		snprintf(why, len, "%s", strerror(-err));
		free(ms);
		return err;
	}
	err = configure(p, o, sup, ms, why, len);
	if (err)
		goto out;
	err = blkfront_bpf__load(p->skel);
	if (!err)
		err = bpf_members__fill_map(ms, bpf_map__fd(p->skel->maps.member_map));
	if (err)
		snprintf(why, len, "the kernel refused the %s programs: %s",
			 p->fentry ? "fentry" : "kprobe", strerror(-err));
out:
	free(ms);
	return err;
}

int blkfront_probes__open(const struct blkfront_probes_opts *o, struct blkfront_probes **out,
			  char *why, size_t len)
{
	struct xen_probe_support sup;
	struct blkfront_probes *p;
	int err;

	*out = NULL;
	why[0] = '\0';
	err = driver_probes__detect_xen(o->env, &sup);
	if (err)
		return err;
	if (!sup.available) {
		snprintf(why, len, "%s", sup.reason);
		return -EOPNOTSUPP;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fentry = !strcmp(sup.how, "fentry") && !(o->force_kprobes && sup.kprobes);
	p->nr_devs = o->nr_devs;
	p->ncpus = libbpf_num_possible_cpus();
	p->buf = p->ncpus > 0 ? calloc(p->ncpus, sizeof(struct blkfront_counts)) : NULL;
	if (!p->buf) {
		err = p->ncpus > 0 ? -ENOMEM : p->ncpus ? p->ncpus : -EINVAL;
		snprintf(why, len, "%s", strerror(-err));
		goto out;
	}
	err = load(p, o, &sup, why, len);
	/* Kprobes beside a trampoline the kernel refuses (lockdown, an LSM): kprobes alone. */
	if (err && !p->fentry && sup.fentry) {
		sup.fentry = false;
		err = load(p, o, &sup, why, len);
	}
out:
	if (err) {
		blkfront_probes__close(p);
		return err;
	}
	*out = p;
	return 0;
}

int blkfront_probes__start(struct blkfront_probes *p)
{
	int err = blkfront_bpf__attach(p->skel);

	if (err)
		blkfront_bpf__detach(p->skel);
	return err;
}

void blkfront_probes__detach(struct blkfront_probes *p)
{
	blkfront_bpf__detach(p->skel);
}

int blkfront_probes__read(struct blkfront_probes *p, unsigned int device,
			  struct blkfront_counts *out)
{
	_Static_assert(sizeof(*out) % sizeof(__u64) == 0, "all __u64");
	if (device >= p->nr_devs)
		return -EINVAL;
	return bpf_load__sum_percpu(p->skel->maps.counts, device, p->ncpus, p->buf, (__u64 *)out,
				    sizeof(*out) / sizeof(__u64));
}

int blkfront_probes__skipped(const struct blkfront_probes *p, uint64_t *n)
{
	return bpf_load__skipped(p->skel->obj, n);
}

const char *blkfront_probes__how(const struct blkfront_probes *p)
{
	return p->fentry ? "fentry" : "kprobe";
}

void blkfront_probes__close(struct blkfront_probes *p)
{
	if (!p)
		return;
	blkfront_bpf__destroy(p->skel);
	free(p->buf);
	free(p);
}
