// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Measuring configurations of a real disk for tune and verify; see tune_session.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/clock.h"
#include "base/diag.h"
#include "analysis/summary.h"
#include "tune/tune_session.h"

static bool armed(const struct tune_session *s, int k)
{
	return s->knobs[k].name[0] != '\0';
}

int tune_session__open(struct tune_session *s, const struct workload_spec *w, struct device *dev,
		       struct result *res, const struct workload_env *env,
		       volatile sig_atomic_t *stop, struct diag *d)
{
	int ret;

	memset(s, 0, sizeof(*s));
	workload_spec__copy(&s->w, w);
	s->w.nr_set_values = 0;
	s->w.recommend = false;
	s->dev = dev;
	s->notes = env->notes;
	s->res = res;
	s->stop = stop;
	ret = sweep__prepare(&s->job, &s->w, dev, env, stop, d);
	if (ret)
		return ret;
	s->job_open = true;
	/* A busy disk is bad input (sweep_state.h), as for a --set sweep. */
	ret = sweep_state__lock(&env->state, dev, &s->state, d);
	if (!ret) {
		ret = sweep_state__recover(s->state, s->notes, d);
		if (ret > 0)
			ret = device__read_limits(dev);
	}
	if (ret < 0) {
		tune_session__close(s);
		return ret;
	}
	return 0;
}

/* Every armed knob back as found, in order; the names put back listed in said. */
static int restore_all(struct tune_session *s, char *said, size_t len)
{
	char now[TUNE_VALUE_MAX];
	size_t used = 0;
	int k, ret, first = 0;

	for (k = 0; k < TUNE_MAX_KNOBS; k++) {
		struct knob *kn = &s->knobs[k];

		if (!armed(s, k))
			continue;
		kn->changed = queue_setting__get(s->dev, kn->name, now, sizeof(now)) ||
			      strcmp(now, kn->original);
		ret = knob__restore(kn); /* says loudly what to write where if it fails */
		if (ret) {
			first = first ? first : ret;
			continue;
		}
		snprintf(s->now[k], sizeof(s->now[k]), "%s", kn->original);
		if (said && used < len)
			used += snprintf(said + used, len - used, " %s=%s", kn->name, kn->original);
	}
	return first;
}

/* A scheduler change resets nr_requests (and wbt): read what is in force after it. */
static void reread_after(struct tune_session *s, int from)
{
	int k;

	for (k = from + 1; k < TUNE_MAX_KNOBS; k++)
		if (armed(s, k) &&
		    queue_setting__get(s->dev, s->knobs[k].name, s->now[k], sizeof(s->now[k])))
			s->now[k][0] = '\0';
}

static int put_config(struct tune_session *s, const char *const *values, struct diag *d)
{
	int k, ret;

	for (k = 0; k < TUNE_MAX_KNOBS; k++) {
		struct knob *kn = &s->knobs[k];
		const char *want = values[k] ? values[k] : kn->original;

		if (!armed(s, k) || !strcmp(s->now[k], want))
			continue;
		kn->changed = true;
		ret = sweep_state__put(s->state, kn->name, want);
		if (ret)
			return diag__fail(d, ret, "cannot set %s=%s on %s: %s", kn->name, want,
					  s->dev->name, strerror(-ret));
		snprintf(s->now[k], sizeof(s->now[k]), "%s", want);
		if (!strcmp(kn->name, "scheduler"))
			reread_after(s, k);
	}
	return 0;
}

/* Try each value of knob k once; those the kernel refuses are dropped, said in notes. */
static void try_values(struct tune_session *s, struct tune_knob *kb, int k)
{
	const char *values[TUNE_MAX_KNOBS] = { NULL };
	int v, kept = 0, ret;

	for (v = 0; v < kb->nr_values; v++) {
		values[k] = kb->values[v];
		ret = put_config(s, values, NULL);
		if (ret) {
			diag__note(s->notes,
				   "%s=%s: the kernel refuses it on %s (%s): not measured",
				   kb->name, kb->values[v], s->dev->name, strerror(-ret));
			snprintf(s->now[k], sizeof(s->now[k]), "?"); /* unknown: put it again */
			continue;
		}
		if (kept != v)
			memcpy(kb->values[kept], kb->values[v], sizeof(kb->values[kept]));
		kept++;
	}
	kb->nr_values = kept;
	if (!kept)
		snprintf(kb->skipped, sizeof(kb->skipped), "the kernel refused every value");
}

int tune_session__arm(struct tune_session *s, struct tune *t, struct diag *d)
{
	bool sched = false;
	int k, ret;

	for (k = 0; k < t->nr_knobs; k++)
		sched |= !strcmp(t->knobs[k].name, "scheduler") && !t->knobs[k].skipped[0];
	for (k = 0; k < t->nr_knobs && k < TUNE_MAX_KNOBS; k++) {
		const char *name = t->knobs[k].name;
		bool reset =
			sched && (!strcmp(name, "nr_requests") || !strcmp(name, "wbt_lat_usec"));
		char now[TUNE_VALUE_MAX];

		if (!name[0] || (t->knobs[k].skipped[0] && !reset) ||
		    queue_setting__get(s->dev, name, now, sizeof(now)))
			continue;
		ret = knob__prepare(&s->knobs[k], s->dev, name, NULL, 0, d);
		s->knobs[k].notes = s->notes;
		if (ret)
			return ret;
		snprintf(s->now[k], sizeof(s->now[k]), "%s", s->knobs[k].original);
		s->knobs[k].state = s->state; /* its restore recorded too (knob__restore) */
		ret = sweep_state__save(s->state, name, s->knobs[k].original);
		if (ret)
			return diag__fail(d, ret, "cannot record the original %s=%s of %s: %s",
					  name, s->knobs[k].original, s->dev->name, strerror(-ret));
	}
	for (k = 0; k < t->nr_knobs && k < TUNE_MAX_KNOBS; k++)
		if (armed(s, k) && !t->knobs[k].skipped[0])
			try_values(s, &t->knobs[k], k);
	ret = restore_all(s, NULL, 0);
	return ret ? diag__fail(d, ret,
				"cannot put the settings of %s back after trying the values",
				s->dev->name)
		   : 0;
}

int tune_session__trace(struct tune_session *s, const struct tracer_opts *topts, struct diag *d)
{
	/* The disk alone: the settings tune changes are its own (see tune_session.h). */
	const struct device *devs[1] = { s->dev };
	struct tracer_opts o = *topts;
	int ret;

	o.devs = devs;
	o.nr_devs = 1;
	ret = tracer__open(&o, &s->tracer, d);
	if (ret)
		return ret;
	snprintf(s->res->tracer_flavour, sizeof(s->res->tracer_flavour), "%s",
		 tracer__flavour(s->tracer));
	ret = tracer__start(s->tracer);
	return ret ? diag__fail(d, ret, "cannot attach to the block tracepoints: %s",
				strerror(-ret))
		   : 0;
}

int tune_session__measure(void *ctx, const char *const *values, const char *knob, const char *value,
			  unsigned int rep, double *mbps, size_t *run, struct diag *d)
{
	struct tune_session *s = ctx;
	size_t before = s->res->nr_runs;
	struct app_summary a;
	int ret;

	ret = put_config(s, values, d);
	if (!ret)
		ret = sweep__run_one(&s->job, s->tracer, s->res, rep, knob, value, s->stop, d);
	if (ret) {
		/* A run cut short would weigh in its series: it goes. */
		while (s->res->nr_runs > before) {
			struct run *r = &s->res->runs[--s->res->nr_runs];

			free(r->block);
			free(r->layer_limits);
			free(r->app);
		}
		return ret;
	}
	app_summary__compute(s->res->runs[before].app, &a);
	*mbps = a.mb_per_s;
	*run = before;
	return 0;
}

int tune_session__warm_up(struct tune_session *s, size_t *run, struct diag *d)
{
	const char *values[TUNE_MAX_KNOBS] = { NULL };
	double mbps;

	return tune_session__measure(s, values, TUNE_WARM_UP_LABEL, "1", 0, &mbps, run, d);
}

double tune_session__now(void *ctx)
{
	(void)ctx;
	return clock__seconds(CLOCK_MONOTONIC);
}

int tune_session__close(struct tune_session *s)
{
	char said[256] = "";
	int ret = 0;

	tracer__detach(s->tracer);
	s->res->has_skipped = s->tracer && !tracer__skipped(s->tracer, &s->res->tracer_skipped);
	tracer__close(s->tracer);
	s->tracer = NULL;
	if (!s->restore_failed) {
		ret = restore_all(s, said, sizeof(said));
		if (!ret && said[0])
			diag__note(s->notes, "settings of %s as found:%s", s->dev->name, said);
		s->restore_failed = ret != 0;
		memset(s->knobs, 0, sizeof(s->knobs));
	}
	sweep_state__release(s->state, !ret && !s->restore_failed, s->notes);
	s->state = NULL;
	if (s->job_open)
		sweep__close(&s->job);
	s->job_open = false;
	return ret ? -EIO : 0;
}
