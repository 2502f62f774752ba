// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Counting blktrace records as blkparse does (its account_* functions): see
 * btrace_summary.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "result/btrace_summary.h"

const char *btrace_action_name(unsigned int act)
{
	static const char *const names[] = {
		[__BLK_TA_QUEUE] = "Q",		[__BLK_TA_BACKMERGE] = "M",
		[__BLK_TA_FRONTMERGE] = "F",	[__BLK_TA_GETRQ] = "G",
		[__BLK_TA_SLEEPRQ] = "S",	[__BLK_TA_REQUEUE] = "R",
		[__BLK_TA_ISSUE] = "D",		[__BLK_TA_COMPLETE] = "C",
		[__BLK_TA_PLUG] = "P",		[__BLK_TA_UNPLUG_IO] = "U",
		[__BLK_TA_UNPLUG_TIMER] = "UT", [__BLK_TA_INSERT] = "I",
		[__BLK_TA_SPLIT] = "X",		[__BLK_TA_BOUNCE] = "B",
		[__BLK_TA_REMAP] = "A",		[__BLK_TA_ABORT] = "K",
		[__BLK_TA_DRV_DATA] = "DD",
	};

	return act < sizeof(names) / sizeof(names[0]) && names[act] ? names[act] : "?";
}

static void count(struct btrace_counts *c, enum btrace_io io, int w, uint32_t bytes)
{
	c->n[io][w]++;
	c->kb[io][w] += bytes >> 10;
	c->b[io][w] += bytes & 1023;
}

/* One record of a file-system request into c, as blkparse's dump_trace_fs counts it. */
static void account(struct btrace_counts *c, const struct blk_io_trace *t)
{
	int w = (t->action & BLK_TC_ACT(BLK_TC_WRITE)) != 0;

	c->events++;
	if (t->action & BLK_TC_ACT(BLK_TC_PC))
		return;
	switch (t->action & 0xffff) {
	case __BLK_TA_QUEUE:
		count(c, BTRACE_IO_QUEUED, w, t->bytes);
		break;
	case __BLK_TA_BACKMERGE:
	case __BLK_TA_FRONTMERGE:
		count(c, BTRACE_IO_MERGED, w, t->bytes);
		break;
	case __BLK_TA_ISSUE:
		count(c, BTRACE_IO_DISPATCHED, w, t->bytes);
		break;
	case __BLK_TA_COMPLETE:
		count(c, BTRACE_IO_COMPLETED, w, t->bytes);
		break;
	case __BLK_TA_REQUEUE:
		/* blkparse takes a requeued request's bytes back from the dispatched ones. */
		c->requeued[w]++;
		c->kb[BTRACE_IO_DISPATCHED][w] -= t->bytes >> 10;
		c->b[BTRACE_IO_DISPATCHED][w] -= t->bytes & 1023;
		break;
	}
}

static int grow_cpus(struct btrace_set_summary *s, unsigned int cpu)
{
	struct btrace_counts *c;

	if (cpu >= BTRACE_MAX_CPUS)
		return -EINVAL;
	if (cpu < s->nr_cpus)
		return 0;
	c = realloc(s->cpu, (cpu + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + s->nr_cpus, 0, (cpu + 1 - s->nr_cpus) * sizeof(*c));
	s->cpu = c;
	s->nr_cpus = cpu + 1;
	return 0;
}

int btrace_summary__add(struct btrace_set_summary *s, const struct blk_io_trace *t)
{
	int err = grow_cpus(s, t->cpu);

	if (err)
		return err;
	if (t->action & BLK_TC_ACT(BLK_TC_NOTIFY)) {
		if (t->action == BLK_TN_PROCESS)
			s->processes++;
		return 0;
	}
	if (!s->total.events) {
		s->dev = t->device;
		s->first_ns = t->time;
	} else if (t->device != s->dev) {
		s->mixed_devs = true;
	}
	if (t->time < s->first_ns)
		s->first_ns = t->time;
	if (t->time > s->last_ns)
		s->last_ns = t->time;
	/* The cgroup flag (__BLK_TA_CGROUP) aside. */
	if ((t->action & 0xff) < BTRACE_NR_ACTIONS)
		s->actions[t->action & 0xff]++;
	account(&s->cpu[t->cpu], t);
	account(&s->total, t);
	return 0;
}

uint64_t btrace_counts__kib(const struct btrace_counts *c, enum btrace_io io, int write)
{
	return c->kb[io][write] + (c->b[io][write] >> 10);
}

uint64_t btrace_summary__skipped(const struct btrace_summary *s, char *buf, size_t len)
{
	uint64_t total = 0;
	size_t used = 0;
	unsigned int i;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < BTRACE_NR_ACTIONS; i++) {
		if (!s->skipped[i])
			continue;
		total += s->skipped[i];
		if (used < len)
			used += snprintf(buf + used, len - used, "%s%s %llu", used ? ", " : "",
					 btrace_action_name(i), (unsigned long long)s->skipped[i]);
	}
	return total;
}

void btrace_summary__free(struct btrace_summary *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_sets; i++)
		free(s->sets[i].cpu);
	free(s->sets);
	s->sets = NULL;
	s->nr_sets = 0;
}
