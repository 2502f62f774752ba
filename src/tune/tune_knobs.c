// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Which settings tune measures, and with which values; see tune_knobs.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "base/fmt.h"
#include "disk/knob.h"
#include "base/parse.h"
#include "tune/tune_knobs.h"

#define SKIP(kb, fmt, ...) snprintf((kb)->skipped, sizeof((kb)->skipped), fmt, ##__VA_ARGS__)

/* What a knob's candidates are drawn from. */
struct ctx {
	const struct device *d;
	const struct job_params *p;
	struct tune_knob *kb;
	int64_t cur; /* the value in force, as a number (-1: not one) */
};

static bool buffered(const struct ctx *c)
{
	return !c->p->direct;
}

static bool writes(const struct ctx *c)
{
	return strstr(c->p->rw, "write") != NULL;
}

/* Add value v unless it is the original or there already. */
static void add(struct tune_knob *kb, const char *v)
{
	int i;

	if (!strcmp(v, kb->original) || kb->nr_values == TUNE_MAX_VALUES)
		return;
	for (i = 0; i < kb->nr_values; i++)
		if (!strcmp(kb->values[i], v))
			return;
	snprintf(kb->values[kb->nr_values++], TUNE_VALUE_MAX, "%s", v);
}

static void add_num(struct tune_knob *kb, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	add(kb, buf);
}

static void max_sectors(struct ctx *c)
{
	int64_t hw = c->d->limits.max_hw_sectors_kb, kb_io = (c->p->bs + 1023) / 1024, v;
	char size[32];

	if (hw <= 0)
		hw = c->cur;
	if (!buffered(c) && kb_io <= 64 && kb_io <= c->cur) {
		SKIP(c->kb, "direct I/O of %s stays below every value",
		     fmt__size(size, sizeof(size), (double)c->p->bs));
		return;
	}
	for (v = 64; v < hw; v *= 2)
		if (buffered(c) || v < 2 * kb_io)
			add_num(c->kb, v);
	if (buffered(c) || hw < 2 * kb_io)
		add_num(c->kb, hw);
	if (!c->kb->nr_values)
		SKIP(c->kb, "no other value up to max_hw_sectors_kb=%lld", (long long)hw);
}

static void read_ahead(struct ctx *c)
{
	static const int64_t steps[] = { 0, 128, 512, 2048, 8192 };
	size_t i;

	if (!buffered(c) || writes(c)) {
		SKIP(c->kb, "%s",
		     buffered(c) ? "writes do not read ahead" : "direct I/O does not read ahead");
		return;
	}
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		add_num(c->kb, steps[i]);
}

static void scheduler(struct ctx *c)
{
	char list[256], *tok, *save;

	if (device__queue_get(c->d, "scheduler", list, sizeof(list)))
		return;
	for (tok = strtok_r(list, " []", &save); tok; tok = strtok_r(NULL, " []", &save))
		add(c->kb, tok);
	if (!c->kb->nr_values)
		SKIP(c->kb, "no other scheduler is offered");
}

static void nr_requests(struct ctx *c)
{
	if (c->p->iodepth <= 1 && !(writes(c) && buffered(c))) {
		SKIP(c->kb, "one I/O in flight at a time: the queue never fills");
		return;
	}
	if (c->cur / 4 >= 4)
		add_num(c->kb, c->cur / 4);
	if (c->cur / 2 >= 4)
		add_num(c->kb, c->cur / 2);
	/* Without a scheduler the queue is the driver's tags: the kernel refuses more. */
	if (strcmp(c->d->limits.scheduler, "none") || !c->d->max_tags ||
	    c->cur * 2 <= (int64_t)c->d->max_tags)
		add_num(c->kb, c->cur * 2);
	if (strcmp(c->d->limits.scheduler, "none") || !c->d->max_tags ||
	    c->cur * 4 <= (int64_t)c->d->max_tags)
		add_num(c->kb, c->cur * 4);
}

static void wbt(struct ctx *c)
{
	if (!writes(c) || !buffered(c))
		SKIP(c->kb, "writeback throttling slows buffered writes only");
	else if (c->cur == 0)
		SKIP(c->kb, "writeback throttling is off already");
	else
		add(c->kb, "0");
}

static void zero_to_two(struct ctx *c)
{
	add(c->kb, "0");
	add(c->kb, "1");
	add(c->kb, "2");
}

/* In tuning order: the scheduler before nr_requests, which a scheduler change resets. */
static const struct {
	const char *name;
	bool by_default;
	void (*candidates)(struct ctx *c);
} table[TUNE_MAX_KNOBS] = {
	{ "max_sectors_kb", true, max_sectors }, { "read_ahead_kb", true, read_ahead },
	{ "scheduler", true, scheduler },	 { "nr_requests", true, nr_requests },
	{ "wbt_lat_usec", true, wbt },		 { "nomerges", false, zero_to_two },
	{ "rq_affinity", false, zero_to_two },
};

static int find(const char *name, size_t len)
{
	int i;

	for (i = 0; i < TUNE_MAX_KNOBS; i++)
		if (strlen(table[i].name) == len && !strncmp(table[i].name, name, len))
			return i;
	return -1;
}

/* --knobs: which of the table, each checked. */
static int parse_only(const char *list, bool *named, struct diag *d)
{
	const char *s = list;
	size_t len;
	int i;

	while (*s) {
		len = strcspn(s, ",");
		i = find(s, len);
		if (i < 0)
			return diag__usage(
				d,
				"--knobs: '%.*s' is not a setting tune changes "
				"(max_sectors_kb, read_ahead_kb, scheduler, nr_requests, "
				"wbt_lat_usec, nomerges, rq_affinity)",
				(int)len, s);
		named[i] = true;
		s += len + (s[len] == ',');
	}
	for (i = 0; i < TUNE_MAX_KNOBS; i++)
		if (named[i])
			return 0;
	return diag__usage(d, "--knobs: no setting named");
}

/* --set's values for its knob, checked as a --set sweep checks them. */
static int pinned_values(struct tune_knob *kb, const struct device *dev,
			 const struct tune_knob_req *req, struct diag *d)
{
	struct knob k;
	int v, ret;

	ret = knob__prepare(&k, dev, kb->name, req->set_values, req->nr_set_values, d);
	if (ret)
		return ret;
	for (v = 0; v < req->nr_set_values; v++)
		add(kb, req->set_values[v]);
	if (!kb->nr_values)
		SKIP(kb, "--set gave only the value in force");
	return 0;
}

static int choose_one(struct tune *t, int i, const struct device *dev, const struct job_params *p,
		      const struct tune_knob_req *req, bool wanted, struct diag *d)
{
	struct tune_knob *kb = &t->knobs[i];
	struct ctx c = { .d = dev, .p = p, .kb = kb, .cur = -1 };
	char *values[TUNE_MAX_VALUES];
	struct knob check;
	int v;

	snprintf(kb->name, sizeof(kb->name), "%s", table[i].name);
	if (queue_setting__get(dev, kb->name, kb->original, sizeof(kb->original))) {
		SKIP(kb, "%s has no queue/%s", dev->name, table[i].name);
		return 0;
	}
	if (!wanted && req->only)
		SKIP(kb, "not in --knobs");
	else if (!wanted && req->set_knob)
		SKIP(kb, "--set tunes %s alone", req->set_knob);
	else if (!wanted)
		SKIP(kb, "tuned only when --knobs names it");
	if (!wanted)
		return 0;
	if (req->set_knob && !strcmp(req->set_knob, kb->name))
		return pinned_values(kb, dev, req, d);
	if (parse_int(kb->original, &c.cur))
		c.cur = -1;
	table[i].candidates(&c);
	/* Checked as --set values are (bounds, the scheduler list): a failure is a bug here. */
	for (v = 0; v < kb->nr_values; v++)
		values[v] = kb->values[v];
	return knob__prepare(&check, dev, kb->name, values, kb->nr_values, d);
}

/* Why each knob is left out, in one line. */
static int nothing_to_tune(const struct tune *t, const struct device *dev, struct diag *d)
{
	char why[DIAG_MSG_MAX];
	size_t used = 0;
	int i;

	why[0] = '\0';
	for (i = 0; i < TUNE_MAX_KNOBS && used < sizeof(why); i++)
		used += snprintf(why + used, sizeof(why) - used, "%s %s: %s", i ? ";" : "",
				 t->knobs[i].name, t->knobs[i].skipped);
	return diag__usage(d, "nothing to tune on %s for this workload:%s", dev->name, why);
}

int tune_knobs__choose(struct tune *t, const struct device *dev, const struct job_params *p,
		       const struct tune_knob_req *req, struct diag *d)
{
	bool named[TUNE_MAX_KNOBS] = { false };
	int i, ret, tuned = 0;

	if (req->only && (ret = parse_only(req->only, named, d)))
		return ret;
	if (req->set_knob) {
		i = find(req->set_knob, strlen(req->set_knob));
		if (i < 0)
			return diag__usage(d, "--set %s: not a setting tune changes",
					   req->set_knob);
		if (req->only && !named[i])
			return diag__usage(d, "--set names %s, which --knobs leaves out",
					   req->set_knob);
		if (!req->only)
			named[i] = true; /* --set alone: that knob only */
	}
	t->nr_knobs = TUNE_MAX_KNOBS;
	for (i = 0; i < TUNE_MAX_KNOBS; i++) {
		bool wanted = req->only || req->set_knob ? named[i] : table[i].by_default;

		ret = choose_one(t, i, dev, p, req, wanted, d);
		if (ret)
			return ret;
		tuned += !t->knobs[i].skipped[0];
	}
	return tuned ? 0 : nothing_to_tune(t, dev, d);
}
