// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "recommend.h"
#include "series.h"

#define METRIC "app.mb_per_s"

/* The knob is the one params key beyond the job's own. */
static const char *knob_of(json_t *params)
{
	static const char *const job_keys[] = {"rw", "bs", "size", "runtime", "engine", "iodepth",
					       "direct", "sync", "fsync", "fdatasync"};
	const char *key;
	json_t *v;
	size_t i;

	json_object_foreach(params, key, v) {
		for (i = 0; i < sizeof(job_keys) / sizeof(job_keys[0]); i++)
			if (!strcmp(key, job_keys[i]))
				break;
		if (i == sizeof(job_keys) / sizeof(job_keys[0]))
			return key;
	}
	return NULL;
}

static char *workload_key(json_t *params, const char *knob)
{
	json_t *copy = json_deep_copy(params);
	char *key;

	json_object_del(copy, knob);
	key = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(copy);
	return key;
}

static void agg_from(json_t *series, struct agg *a)
{
	json_t *m = json_object_get(json_object_get(series, "metrics"), METRIC);

	memset(a, 0, sizeof(*a));
	a->n = json_integer_value(json_object_get(m, "n"));
	a->mean = json_number_value(json_object_get(m, "mean"));
	a->stddev = json_number_value(json_object_get(m, "stddev"));
	a->ci95 = json_number_value(json_object_get(m, "ci95"));
}

/* Numeric values sort as numbers; others (schedulers) keep the order given. */
static double order_of(const char *v, size_t pos)
{
	char *end;
	double d = v ? strtod(v, &end) : 0;

	return !v || *end || end == v ? (double)pos : d;
}

static json_t *one_workload(json_t *series, size_t *idx, size_t n, const char *knob,
			    const struct device *dev)
{
	size_t i, best = idx[0], small = SIZE_MAX;
	double small_order = 0;
	struct agg a, b;
	json_t *ev = json_array(), *out;
	bool judged = true;

	agg_from(json_array_get(series, best), &b);
	for (i = 1; i < n; i++) {
		agg_from(json_array_get(series, idx[i]), &a);
		if (a.mean > b.mean) {
			best = idx[i];
			b = a;
		}
	}
	for (i = 0; i < n; i++) {
		json_t *s = json_array_get(series, idx[i]);
		const char *val = json_string_value(
			json_object_get(json_object_get(s, "params"), knob));
		double t, df, p = idx[i] == best ? 1 : NAN;

		agg_from(s, &a);
		if (idx[i] != best && welch_t_test(&a, &b, &t, &df, &p))
			judged = false;
		json_array_append_new(ev, json_pack("{s:s, s:f, s:f, s:I, s:o}", "value",
						    val ? val : "", "mb_per_s", a.mean, "ci95",
						    a.ci95, "n", (json_int_t)a.n, "p_value_vs_best",
						    isnan(p) ? json_null() : json_real(p)));
		if (!isnan(p) && p >= 0.05 && (small == SIZE_MAX || order_of(val, i) < small_order)) {
			small = idx[i];
			small_order = order_of(val, i);
		}
	}
	out = json_pack("{s:s, s:s?, s:O?, s:o, s:b}", "knob", knob, "workload",
			json_string_value(json_object_get(json_array_get(series, best), "label")),
			"best", json_object_get(json_object_get(json_array_get(series, best),
								 "params"), knob),
			"evidence", ev, "judged", judged);
	if (judged && small != SIZE_MAX)
		json_object_set(out, "smallest_equivalent",
				json_object_get(json_object_get(json_array_get(series, small),
								"params"), knob));
	if (dev->xen.present && !strcmp(knob, "max_sectors_kb")) {
		json_t *v = json_object_get(out, judged && small != SIZE_MAX ?
							 "smallest_equivalent" : "best");
		long kb = strtol(json_string_value(v) ?: "0", NULL, 10);
		char line[96];

		/* One 4 KiB grant per segment: the request size needs kb / 4 segments. */
		snprintf(line, sizeof(line), "%s=%ld",
			 dev->xen.param_is_old_name ? "xen_blkfront.max" :
						      "xen_blkfront.max_indirect_segments",
			 (kb + 3) / 4);
		json_object_set_new(out, "boot_parameter", json_string(line));
	}
	return out;
}

json_t *recommend_json(json_t *series, const struct device *dev)
{
	size_t n = json_array_size(series), i, j, m, *idx = calloc(n ? n : 1, sizeof(*idx));
	bool *done = calloc(n ? n : 1, sizeof(*done));
	json_t *out = json_array();

	for (i = 0; idx && done && out && i < n; i++) {
		json_t *params = json_object_get(json_array_get(series, i), "params");
		const char *knob = params ? knob_of(params) : NULL;
		char *key;

		if (done[i] || !knob)
			continue;
		key = workload_key(params, knob);
		for (m = 0, j = i; key && j < n; j++) {
			json_t *pj = json_object_get(json_array_get(series, j), "params");
			char *kj = !done[j] && pj && json_object_get(pj, knob) ?
					   workload_key(pj, knob) : NULL;

			if (kj && !strcmp(kj, key)) {
				idx[m++] = j;
				done[j] = true;
			}
			free(kj);
		}
		free(key);
		if (m)
			json_array_append_new(out, one_workload(series, idx, m, knob, dev));
	}
	free(idx);
	free(done);
	if (out && !json_array_size(out)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

void recommend_text(FILE *f, json_t *rec)
{
	json_t *r, *e;
	size_t i, k;

	json_array_foreach(rec, i, r) {
		const char *knob = json_string_value(json_object_get(r, "knob"));
		const char *best = json_string_value(json_object_get(r, "best"));
		const char *small = json_string_value(json_object_get(r, "smallest_equivalent"));
		const char *boot = json_string_value(json_object_get(r, "boot_parameter"));

		fprintf(f, "\nrecommendation (%s): best throughput with %s=%s", knob, knob, best);
		if (!json_is_true(json_object_get(r, "judged")))
			fprintf(f, "; cannot judge significance with one repetition (use --repeat)");
		else if (small && strcmp(small, best))
			fprintf(f, "; %s=%s is statistically as good (p >= 0.05)", knob, small);
		else if (small)
			fprintf(f, "; every smaller value is significantly worse");
		fputc('\n', f);
		json_array_foreach(json_object_get(r, "evidence"), k, e) {
			json_t *p = json_object_get(e, "p_value_vs_best");
			char pv[32] = "-";

			if (json_is_number(p))
				snprintf(pv, sizeof(pv), "%.4f", json_number_value(p));
			fprintf(f, "  %s=%-10s %10.1f MB/s +- %-8.1f n=%lld  p vs best %s\n", knob,
				json_string_value(json_object_get(e, "value")),
				json_number_value(json_object_get(e, "mb_per_s")),
				json_number_value(json_object_get(e, "ci95")),
				(long long)json_integer_value(json_object_get(e, "n")), pv);
		}
		if (boot)
			fprintf(f, "  for xen-blkfront: boot with %s\n", boot);
	}
}
