// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The text printer of a tune; it only prints what tune.c and tune_outcome.c computed. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/fmt.h"
#include "tune/tune_text.h"

static void print_knobs(FILE *f, const struct tune *t)
{
	int k, v;

	for (k = 0; k < t->nr_knobs; k++) {
		const struct tune_knob *kb = &t->knobs[k];

		if (kb->skipped[0]) {
			fprintf(f, "  %-16s not tuned: %s\n", kb->name, kb->skipped);
			continue;
		}
		fprintf(f, "  %-16s %s, then", kb->name, kb->original);
		for (v = 0; v < kb->nr_values; v++)
			fprintf(f, " %s", kb->values[v]);
		fputc('\n', f);
	}
}

static const char *point_name(char *buf, size_t len, const struct tune *t,
			      const struct tune_point *p)
{
	if (p->knob == TUNE_BASELINE)
		snprintf(buf, len, "baseline (as found)");
	else if (p->knob == TUNE_COMBINATION)
		snprintf(buf, len, "%s", p->value);
	else
		snprintf(buf, len, "%s=%s", t->knobs[p->knob].name, p->value);
	return buf;
}

static void print_points(FILE *f, const struct tune *t, const struct tune_outcome *o)
{
	char name[TUNE_CONFIG_MAX + 32], size[32], vs[64];
	int i;

	fprintf(f, "\n%-40s %20s %3s %26s %10s\n", "configuration", "app MB/s (95% CI)", "n",
		"vs baseline", "req p50");
	for (i = 0; i < t->nr_points; i++) {
		const struct tune_point *p = &t->points[i];
		const struct metric_cmp *c = &p->vs_baseline;

		/* A phase: its own baseline, then what was measured beside it. */
		if (i && p->base < 0)
			fputc('\n', f);
		if (p->base < 0 || c->verdict == VERDICT_UNKNOWN)
			snprintf(vs, sizeof(vs), "%s", p->base < 0 ? "" : "-");
		else
			snprintf(vs, sizeof(vs), "%+.1f%% p=%.2g %s", 100 * c->change, c->p,
				 compare__verdict_name(c->verdict));
		if (isnan(o->point_req_p50[i]))
			snprintf(size, sizeof(size), "-");
		else
			fmt__size(size, sizeof(size), o->point_req_p50[i]);
		fprintf(f, "%-40.40s %10.1f +-%7.1f %3zu %26s %10s%s\n",
			point_name(name, sizeof(name), t, p), p->agg.mean, p->agg.ci95, p->agg.n,
			vs, size, i == t->final && p->base >= 0 ? "  <- recommended" : "");
	}
}

static void print_recommendation(FILE *f, const struct tune_outcome *o, const char *disk,
				 const char *saved_as)
{
	char a[32], b[32];
	int i;

	fprintf(f, "\nrecommendation for %s:", disk);
	if (!o->nr_settings)
		fprintf(f, " keep the runtime settings as they are");
	for (i = 0; i < o->nr_settings; i++)
		fprintf(f, "%s %s=%s (was %s)", i ? "," : "", o->settings[i].name,
			o->settings[i].to, o->settings[i].from);
	fputc('\n', f);
	if (o->nr_settings) {
		fprintf(f, "  %.1f -> %.1f MB/s (%+.1f%%, p = %.2g)", o->base_mbps, o->final_mbps,
			100 * o->change, o->p);
		if (!isnan(o->base_req_p50) && !isnan(o->final_req_p50))
			fprintf(f, ", requests %s -> %s at the median",
				fmt__size(a, sizeof(a), o->base_req_p50),
				fmt__size(b, sizeof(b), o->final_req_p50));
		fputc('\n', f);
	}
	if (o->xen[0])
		fprintf(f, "  xen-blkfront: %s\n", o->xen);
	if (o->has_module)
		fprintf(f, "  module parameter: %s (boot), %s (modprobe.d)\n",
			o->module.boot_parameter, o->module.modprobe);
	if ((o->nr_settings || o->has_module) && saved_as)
		fprintf(f, "  to make it persist: blktrace-bench apply %s [--dry-run]\n", saved_as);
	else if (o->nr_settings || o->has_module)
		fprintf(f, "  not saved: give --json FILE to apply and verify it later\n");
}

void tune_text__print(FILE *f, const struct tune *t, const struct tune_outcome *o, const char *disk,
		      const char *workload, const char *saved_as)
{
	int k;

	fprintf(f, "tune %s: %s; %u to %u repetitions a configuration, budget %.0f s\n", disk,
		workload, t->min_reps, t->max_reps, t->budget_s);
	if (t->warm_up_run >= 0)
		fprintf(f, "  (one warm-up run first, counted nowhere)\n");
	print_knobs(f, t);
	print_points(f, t, o);
	fputc('\n', f);
	for (k = 0; k < t->nr_knobs; k++)
		if (!t->knobs[k].skipped[0] && t->knobs[k].reason[0])
			fprintf(f, "%s%s\n", t->knobs[k].reason,
				t->knobs[k].measured ? "" : " (not measured in full)");
	if (t->combination >= 0 && t->final != t->combination)
		fprintf(f, "%s: significantly worse than the best knob alone\n",
			t->points[t->combination].value);
	print_recommendation(f, o, disk, saved_as);
	if (t->note[0])
		fprintf(f, "note: %s\n", t->note);
	fprintf(f, "%u runs in %.1f s\n", t->nr_runs, t->elapsed_s);
}
