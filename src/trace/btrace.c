// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The per-event tracer: probe, configure, load, attach. See btrace.h; the steps it
 * shares with the aggregate tracer are bpf_load.c's and bpf_members.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "blkio.h" /* before the skeleton, which uses their types */
#include "blktrace.h"
#include "blktrace.skel.h"
#include "trace/bpf_load.h"
#include "trace/bpf_members.h"
#include "trace/btrace.h"
#include "trace/tracer.h"
#include "result/btrace_summary.h"
#include "base/diag.h"

struct btrace {
	struct blktrace_bpf *skel;
	const struct tracer *tracer; /* its maps are ours; until detached */
	uint64_t skipped_dc[2];	     /* its issue and completion programs' skipped runs */
	int ncpus;
	struct btrace_pcpu *pcpu; /* a read of the per-CPU state: ncpus values */
	unsigned int stall_every; /* btrace_opts' */
};

#define NR_TPS 10

/*
 * Every tracepoint the kernel's blktrace logs for a disk but issue and completion (the
 * aggregate's programs log those: bpf/blktrace_rec.bpf.h), its two programs and the
 * action they log: one table for loading and for reading what the kernel skipped.
 */
static void programs(const struct blktrace_bpf *s, struct bpf_prog_choice c[NR_TPS],
		     unsigned int act[NR_TPS])
{
	/* Tracepoint, where its argument form is noted, program, wanted, action. */
#define PROG(tp, form, prog, want, act)                                                            \
	{                                                                                          \
		{ tp, form, s->progs.tp_btf_##prog, s->progs.raw_tp_##prog, want }, act            \
	}
	const struct {
		struct bpf_prog_choice c;
		unsigned int act;
	} t[NR_TPS] = {
		PROG("block_bio_queue", BLKIO_TP_BIO_QUEUE, queue, true, __BLK_TA_QUEUE),
		PROG("block_getrq", BLKIO_TP_GETRQ, getrq, true, __BLK_TA_GETRQ),
		PROG("block_rq_insert", BLKIO_TP_RQ_INSERT, insert, true, __BLK_TA_INSERT),
		PROG("block_rq_requeue", BLKIO_TP_RQ_REQUEUE, requeue, true, __BLK_TA_REQUEUE),
		PROG("block_rq_merge", BLKIO_TP_RQ_MERGE, rq_merge, true, __BLK_TA_BACKMERGE),
		PROG("block_bio_backmerge", BLKIO_TP_BIO_BACKMERGE, backmerge, true,
		     __BLK_TA_BACKMERGE),
		PROG("block_bio_frontmerge", BLKIO_TP_BIO_FRONTMERGE, frontmerge, true,
		     __BLK_TA_FRONTMERGE),
		PROG("block_split", BLKIO_TP_SPLIT, split, true, __BLK_TA_SPLIT),
		PROG("block_bio_remap", BLKIO_TP_BIO_REMAP, remap, true, __BLK_TA_REMAP),
		/*
		 * A bio-based device (dm, md) completes bios, not requests; a request-based
		 * disk, the bios no request took (the kernel traces no others).
		 */
		PROG("block_bio_complete", -1, bio_complete, true, __BLK_TA_COMPLETE),
	};
#undef PROG
	unsigned int i;

	for (i = 0; i < NR_TPS; i++) {
		c[i] = t[i].c;
		act[i] = t[i].act;
	}
}

static void choose_programs(struct btrace *b, const struct btf *vmlinux, bool btf)
{
	struct blktrace_bpf *s = b->skel;
	struct bpf_prog_choice c[NR_TPS];
	unsigned int act[NR_TPS];

	programs(s, c, act);
	bpf_load__choose(vmlinux, c, NR_TPS, btf, s->rodata->old_args);
}

/* bpf_load__any's steps on our skeleton. */
static int open_skel(void *ctx, const struct bpf_object_open_opts *oo, struct bpf_load_skel *out)
{
	struct btrace *b = ctx;

	b->skel = blktrace_bpf__open_opts(oo);
	if (!b->skel)
		return -errno;
	*out = (struct bpf_load_skel){ b->skel->obj, &b->skel->rodata->filter, b->skel->skeleton };
	return 0;
}

static int configure_skel(void *ctx, const struct btf *vmlinux, bool btf, struct member_set *ms,
			  struct diag *d)
{
	struct btrace *b = ctx;
	struct blktrace_bpf *s = b->skel;
	struct tracer_bt_maps fds;
	int err;

	choose_programs(b, vmlinux, btf);
	/* The slot table is the aggregate's (tracer.c): the same members, the same plan. */
	s->rodata->one_hwq = ms->n == 1 && !ms->in_map && s->rodata->filter.members[0].hwqs == 1;
	s->rodata->nr_slots = ms->slots ? ms->slots : 1;
	s->rodata->bt_stall_every = b->stall_every;
	err = bpf_map__set_max_entries(s->maps.member_map, ms->map_entries);
	if (err)
		return diag__fail(d, err, "cannot size the BPF maps: %s", strerror(-err));
	/* The records' maps are the aggregate's, whose programs log D and C into them. */
	err = tracer__bt_maps(b->tracer, &fds);
	if (!err)
		err = bpf_map__reuse_fd(s->maps.bt_events, fds.events);
	if (!err)
		err = bpf_map__reuse_fd(s->maps.bt_pcpu, fds.pcpu);
	if (!err)
		err = bpf_map__reuse_fd(s->maps.bt_slots, fds.slots);
	if (!err)
		err = bpf_map__reuse_fd(s->maps.bt_waiting, fds.waiting);
	if (!err)
		err = bpf_map__reuse_fd(s->maps.bt_state, fds.state);
	return err ? diag__fail(d, err, "cannot share the aggregate's BPF maps: %s", strerror(-err))
		   : 0;
}

static void destroy_skel(void *ctx)
{
	struct btrace *b = ctx;

	blktrace_bpf__destroy(b->skel);
	b->skel = NULL;
}

static const struct bpf_load_ops load_ops = { open_skel, configure_skel, destroy_skel };

int btrace__open(const struct btrace_opts *opts, struct btrace **out, struct diag *d)
{
	struct btrace *b = calloc(1, sizeof(*b));
	bool btf_flavour;
	int err;

	*out = NULL;
	if (!b)
		return diag__fail(d, -ENOMEM, "out of memory");
	b->tracer = opts->tracer;
	b->stall_every = opts->stall_every;
	b->ncpus = libbpf_num_possible_cpus();
	err = b->ncpus > 0 ? -ENOMEM : b->ncpus ?: -EINVAL;
	b->pcpu = b->ncpus > 0 ? calloc(b->ncpus, sizeof(*b->pcpu)) : NULL;
	if (!b->pcpu) {
		free(b);
		return diag__fail(d, err, "cannot read the CPUs' state: %s", strerror(-err));
	}
	err = bpf_load__any(&load_ops, b,
			    &(struct bpf_load_args){ opts->devs, opts->nr_devs, opts->force_raw_tp,
						     opts->verbose, opts->notes },
			    &btf_flavour, d);
	if (err) {
		btrace__close(b);
		return err;
	}
	*out = b;
	return 0;
}

int btrace__start(struct btrace *b)
{
	__u32 on = BT_ON;
	__s64 yes = 1;
	int err = blktrace_bpf__attach(b->skel);

	/* The aggregate's issue and completion programs log from now on. */
	if (!err && bpf_map_update_elem(bpf_map__fd(b->skel->maps.bt_state), &on, &yes, 0))
		err = -errno;
	return err;
}

void btrace__detach(struct btrace *b)
{
	if (!b || !b->skel)
		return;
	blktrace_bpf__detach(b->skel);
	/* The aggregate's programs, detached before ours, skipped D and C for us. */
	if (b->tracer && tracer__skipped_dc(b->tracer, &b->skipped_dc[0], &b->skipped_dc[1]))
		b->skipped_dc[0] = b->skipped_dc[1] = 0;
	b->tracer = NULL;
}

void btrace__close(struct btrace *b)
{
	if (!b)
		return;
	blktrace_bpf__destroy(b->skel);
	free(b->pcpu);
	free(b);
}

int btrace__events_fd(const struct btrace *b)
{
	return bpf_map__fd(b->skel->maps.bt_events);
}

/* Every CPU's state into b->pcpu. 0 or -errno. */
static int read_pcpu(struct btrace *b)
{
	__u32 zero = 0;

	/* The map's values are 8-byte aligned; struct btrace_pcpu's size is a multiple of 8. */
	_Static_assert(sizeof(struct btrace_pcpu) % 8 == 0, "per-CPU values are 8-aligned");
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.bt_pcpu), &zero, b->pcpu))
		return -errno;
	return 0;
}

int btrace__counts(struct btrace *b, uint32_t opened[BTRACE_EPOCHS],
		   uint32_t dropped[BTRACE_EPOCHS], uint64_t *lost)
{
	int err = read_pcpu(b), cpu, i;

	if (err)
		return err;
	memset(opened, 0, BTRACE_EPOCHS * sizeof(*opened));
	memset(dropped, 0, BTRACE_EPOCHS * sizeof(*dropped));
	*lost = 0;
	for (cpu = 0; cpu < b->ncpus; cpu++) {
		const struct btrace_pcpu *p = &b->pcpu[cpu];

		for (i = 0; i < BTRACE_EPOCHS; i++) {
			opened[i] += p->opened[i];
			dropped[i] += p->dropped[i];
		}
		*lost += p->lost;
	}
	return 0;
}

bool btrace__cpu_idle(const struct btrace *b, int cpu)
{
	return cpu >= 0 && cpu < b->ncpus && !b->pcpu[cpu].busy;
}

/* The records waiting in the CPUs' caches, as last read: all, or begun before BEFORE. */
static int walk_cache(const struct btrace *b, bool all, uint32_t before, btrace_rec_fn fn,
		      void *ctx)
{
	int cpu, i, err = 0;

	for (cpu = 0; cpu < b->ncpus && !err; cpu++)
		for (i = 0; i < BTRACE_CACHE && !err; i++) {
			const struct btrace_entry *e = &b->pcpu[cpu].cache[i];

			if (e->key && e->r.steps && (all || (int32_t)(e->r.epoch - before) < 0))
				err = fn(ctx, &e->r);
		}
	return err;
}

int btrace__cached(const struct btrace *b, uint32_t before, btrace_rec_fn fn, void *ctx)
{
	return walk_cache(b, false, before, fn, ctx);
}

int btrace__lost(struct btrace *b, uint64_t *lost, uint64_t *notes_lost)
{
	uint32_t opened[BTRACE_EPOCHS], dropped[BTRACE_EPOCHS];
	int err = btrace__counts(b, opened, dropped, lost), cpu;

	*notes_lost = 0;
	for (cpu = 0; !err && cpu < b->ncpus; cpu++)
		*notes_lost += b->pcpu[cpu].notes_lost;
	return err;
}

int btrace__held(struct btrace *b, btrace_rec_fn fn, void *ctx)
{
	int slots_fd = bpf_map__fd(b->skel->maps.bt_slots),
	    fd = bpf_map__fd(b->skel->maps.bt_waiting);
	__u32 nr = bpf_map__max_entries(b->skel->maps.bt_slots), i;
	struct btrace_rec r;
	__u64 key, next;
	int err = read_pcpu(b);
	void *prev = NULL;

	if (!err)
		err = walk_cache(b, true, 0, fn, ctx);
	while (!err && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, &r) && r.steps)
			err = fn(ctx, &r);
	}
	for (i = 0; i < nr && !err; i++)
		if (!bpf_map_lookup_elem(slots_fd, &i, &r) && r.steps)
			err = fn(ctx, &r);
	return err;
}

/* The runs the kernel skipped of one program (none if it is not loaded), added to *n. */
static int add_skipped(const struct bpf_program *prog, uint64_t *n)
{
	struct bpf_prog_info info;
	int err = bpf_load__prog_info(prog, &info);

	*n += info.recursion_misses;
	return err < 0 ? err : 0;
}

int btrace__skipped(struct btrace *b, uint64_t skipped[BTRACE_NR_ACTIONS])
{
	struct bpf_prog_choice c[NR_TPS];
	unsigned int act[NR_TPS], i;
	int err = 0;

	memset(skipped, 0, BTRACE_NR_ACTIONS * sizeof(*skipped));
	skipped[__BLK_TA_ISSUE] = b->skipped_dc[0];
	skipped[__BLK_TA_COMPLETE] = b->skipped_dc[1];
	programs(b->skel, c, act);
	for (i = 0; i < NR_TPS && !err; i++) {
		err = add_skipped(c[i].btf_prog, &skipped[act[i]]);
		if (!err)
			err = add_skipped(c[i].raw_prog, &skipped[act[i]]);
	}
	return err;
}
