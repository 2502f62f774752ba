// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Whether a tune's recommendation is in force and held; see verify.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/diag.h"
#include "base/fmt.h"
#include "disk/knob.h"
#include "tune/verify.h"

static void check_module(const struct tune_plan *plan, const struct device *d,
			 struct verify_setting *s)
{
	const struct tune_module_param *m = &plan->out.module;
	const struct xen_blkfront *x = &d->xen;

	snprintf(s->name, sizeof(s->name), "%s.%s", m->module, m->name);
	snprintf(s->want, sizeof(s->want), "%lld", (long long)m->value);
	snprintf(s->now, sizeof(s->now), "?");
	if (!x->present) {
		snprintf(s->note, sizeof(s->note), "%s is not an xen-blkfront disk", d->name);
		return;
	}
	if (x->max_indirect_segments >= 0)
		snprintf(s->now, sizeof(s->now), "%lld", (long long)x->max_indirect_segments);
	if (x->max_indirect_segments != m->value) {
		snprintf(s->note, sizeof(s->note),
			 "boot with %s, or apply's modprobe.d file "
			 "and a reboot",
			 m->boot_parameter);
		return;
	}
	s->in_force = x->segments >= m->value;
	if (!s->in_force)
		snprintf(s->note, sizeof(s->note),
			 "the guest asks for %lld segments, the backend "
			 "grants %lld (feature-max-indirect-segments)",
			 (long long)m->value, (long long)x->segments);
}

void verify__check(const struct tune_plan *plan, const struct device *d, struct verify_check *c)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->in_force = true;
	for (i = 0; i < plan->out.nr_settings; i++) {
		const struct tune_setting *t = &plan->out.settings[i];
		struct verify_setting *s = &c->s[c->nr++];

		snprintf(s->name, sizeof(s->name), "%s", t->name);
		snprintf(s->want, sizeof(s->want), "%s", t->to);
		if (queue_setting__get(d, t->name, s->now, sizeof(s->now)))
			snprintf(s->now, sizeof(s->now), "?");
		s->in_force = !strcmp(s->now, s->want);
		if (!s->in_force)
			snprintf(s->note, sizeof(s->note),
				 "the udev rule of apply sets it at boot, "
				 "or now with udevadm trigger");
		c->in_force &= s->in_force;
	}
	if (plan->out.has_module) {
		check_module(plan, d, &c->s[c->nr]);
		c->in_force &= c->s[c->nr++].in_force;
	}
}

/* The matched pair's metric id, or NULL. */
static const struct metric_result *metric_of(const struct comparison *c, enum metric_id id)
{
	size_t k;

	for (k = 0; c->nr_sets && k < c->sets[0].nr_m; k++)
		if (c->sets[0].m[k].id == id)
			return &c->sets[0].m[k];
	return NULL;
}

static double series_mean(const struct series_set *ss, size_t i, enum metric_id id)
{
	return i < ss->nr && ss->series[i].metric[id].n ? ss->series[i].metric[id].mean : NAN;
}

static void figures(const struct comparison *c, struct verify_outcome *out)
{
	const struct metric_result *m = metric_of(c, METRIC_APP_MB_PER_S);
	size_t a = c->nr_sets ? c->sets[0].a : 0, b = c->nr_sets ? c->sets[0].b : 0;

	out->base_mbps = series_mean(&c->sa, a, METRIC_APP_MB_PER_S);
	out->now_mbps = series_mean(&c->sb, b, METRIC_APP_MB_PER_S);
	out->base_req_p50 = series_mean(&c->sa, a, METRIC_REQ_BYTES_P50);
	out->now_req_p50 = series_mean(&c->sb, b, METRIC_REQ_BYTES_P50);
	out->change = m ? m->cmp.change : NAN;
	out->p = m ? m->cmp.p : NAN;
}

static void not_in_force(const struct verify_check *chk, struct verify_outcome *out)
{
	int i, n = 0, first = -1;

	for (i = 0; i < chk->nr; i++)
		if (!chk->s[i].in_force && n++ == 0)
			first = i;
	out->verdict = VERIFY_NOT_IN_FORCE;
	snprintf(out->text, sizeof(out->text), "the change did not hold: %s is %s, not %s%s",
		 chk->s[first].name, chk->s[first].now, chk->s[first].want,
		 n > 1 ? ", and more settings are not as recommended" : "");
}

void verify__nothing(const struct tune_plan *plan, struct verify_outcome *out)
{
	memset(out, 0, sizeof(*out));
	out->verdict = VERIFY_NOTHING;
	out->base_mbps = out->now_mbps = out->change = out->p = NAN;
	out->base_req_p50 = out->now_req_p50 = NAN;
	snprintf(out->text, sizeof(out->text),
		 "nothing to verify: %.256s recommended no change, every setting of %s as found",
		 plan->result[0] ? plan->result : "the result", plan->disk);
}

/*
 * Only a module parameter was recommended: tune could not try it (it takes a reboot), so
 * it predicted no throughput, only the requests the segments allow. The requests are the
 * test; the throughput is said, and a significant loss still fails (verify__judge).
 */
static void module_verdict(const struct tune_plan *plan, struct verify_outcome *out,
			   const char *now, const char *was)
{
	const struct tune_module_param *mp = &plan->out.module;

	if (out->now_req_p50 > out->base_req_p50) {
		out->verdict = VERIFY_HELD;
		snprintf(out->text, sizeof(out->text),
			 "the change held: requests now %s (were %s) with %s.%s=%lld; "
			 "throughput %+.1f%% (p = %.2g)",
			 now, was, mp->module, mp->name, (long long)mp->value, 100 * out->change,
			 out->p);
	} else {
		out->verdict = VERIFY_NO_GAIN;
		snprintf(out->text, sizeof(out->text),
			 "%s.%s=%lld is in force but requests did not grow: now %s (were %s)",
			 mp->module, mp->name, (long long)mp->value, now, was);
	}
}

void verify__judge(const struct tune_plan *plan, const struct verify_check *chk,
		   const struct comparison *c, double fail_pct, struct verify_outcome *out)
{
	const struct metric_result *m = metric_of(c, METRIC_APP_MB_PER_S);
	bool changed = plan->out.nr_settings || plan->out.has_module;
	char now[32] = "?", was[32] = "?";

	memset(out, 0, sizeof(*out));
	figures(c, out);
	if (!isnan(out->now_req_p50))
		fmt__size(now, sizeof(now), out->now_req_p50);
	if (!isnan(out->base_req_p50))
		fmt__size(was, sizeof(was), out->base_req_p50);
	/* A difference without a change is drift: nothing of this tool's to judge. */
	if (!changed) {
		verify__nothing(plan, out);
		return;
	}
	if (!chk->in_force) {
		not_in_force(chk, out);
		return;
	}
	if (isnan(fail_pct) ? m && m->cmp.verdict == VERDICT_WORSE
			    : compare__regressions(c, fail_pct, stderr) > 0) {
		out->verdict = VERIFY_WORSE;
		snprintf(out->text, sizeof(out->text),
			 "the change did not hold: worse than the "
			 "baseline: %+.1f%% throughput (p = %.2g), requests now %s (were %s)",
			 100 * out->change, out->p, now, was);
	} else if (!plan->out.nr_settings) {
		module_verdict(plan, out, now, was);
	} else if (m && m->cmp.verdict == VERDICT_BETTER) {
		out->verdict = VERIFY_HELD;
		snprintf(out->text, sizeof(out->text),
			 "the change held: %+.1f%% throughput "
			 "(%.1f -> %.1f MB/s, p = %.2g), requests now %s (were %s)",
			 100 * out->change, out->base_mbps, out->now_mbps, out->p, now, was);
	} else {
		out->verdict = VERIFY_NO_GAIN;
		snprintf(out->text, sizeof(out->text),
			 "the settings are in force but the gain "
			 "did not show: %+.1f%% throughput (p = %.2g; tune measured %+.1f%%), "
			 "requests now %s (were %s)",
			 100 * out->change, out->p, 100 * plan->out.change, now, was);
	}
}

int verify__exit_code(enum verify_verdict v)
{
	switch (v) {
	case VERIFY_HELD:
	case VERIFY_NOTHING:
		return EXIT_OK;
	case VERIFY_WORSE:
		return EXIT_REGRESSION;
	default:
		return EXIT_NOT_HELD;
	}
}

const char *verify__verdict_name(enum verify_verdict v)
{
	static const char *const names[] = {
		[VERIFY_HELD] = "held",
		[VERIFY_NOTHING] = "nothing",
		[VERIFY_NOT_IN_FORCE] = "not_in_force",
		[VERIFY_NO_GAIN] = "no_gain",
		[VERIFY_WORSE] = "worse",
	};

	return names[v];
}
