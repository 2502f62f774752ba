// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "series.h"

const struct metric_def metric_defs[] = {
	{"app.mb_per_s", +1, true},
	{"app.iops", +1, true},
	{"app.latency_ns.mean", -1, false},
	{"app.latency_ns.p99", -1, true},
	{"block.request_bytes.mean", +1, false},
	{"block.request_bytes.p50", +1, false},
	{"block.segments.mean", 0, false},
	{"block.segment_bytes.mean", +1, false},
	{"block.queue_depth.mean", 0, false},
	{"block.queue_depth.max", 0, false},
	{"block.device_ns.p50", -1, false},
	{"block.device_ns.p99", -1, false},
	{"block.queue_ns.p99", -1, false},
	{"block.total_ns.mean", -1, false},
	{"block.requests", 0, false},
	{"block.merges_per_request", 0, false},
	{"block.device_bytes_per_app_byte", 0, false},
	{"block.limit_bound.max_sectors", 0, false},
	{"block.limit_bound.max_segments", 0, false},
};
const size_t nr_metric_defs = sizeof(metric_defs) / sizeof(metric_defs[0]);

int json_path_number(json_t *obj, const char *path, double *out)
{
	const char *p = path;
	char key[64];

	while (obj && *p) {
		size_t len = strcspn(p, ".");

		if (len >= sizeof(key))
			return -ENOENT;
		memcpy(key, p, len);
		key[len] = '\0';
		obj = json_object_get(obj, key);
		p += len + (p[len] == '.');
	}
	if (!obj || !json_is_number(obj))
		return -ENOENT;
	*out = json_number_value(obj);
	return 0;
}

char *run_group_key(json_t *run)
{
	json_t *params = json_object_get(run, "params");

	if (params && json_is_object(params))
		return json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
	return strdup(json_string_value(json_object_get(run, "label")) ?: "");
}

void series_agg(json_t *runs, const size_t *idx, size_t n, const char *path, struct agg *out)
{
	double *x = calloc(n ? n : 1, sizeof(*x));
	size_t i, m = 0;

	memset(out, 0, sizeof(*out));
	if (!x)
		return;
	for (i = 0; i < n; i++)
		if (!json_path_number(json_array_get(runs, idx[i]), path, &x[m]))
			m++;
	agg_compute(x, m, out);
	free(x);
}

static json_t *agg_json(const struct agg *a)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f}", "n", (json_int_t)a->n, "mean", a->mean,
			 "stddev", a->stddev, "min", a->min, "max", a->max, "ci95", a->ci95);
}

json_t *series_json(json_t *runs)
{
	size_t nr = json_array_size(runs), i, j, n, *idx = calloc(nr ? nr : 1, sizeof(*idx));
	bool *done = calloc(nr ? nr : 1, sizeof(*done));
	json_t *out = json_array();

	if (!idx || !done || !out)
		goto fail;
	for (i = 0; i < nr; i++) {
		json_t *s, *ri, *metrics;
		char *key;
		size_t k;

		if (done[i])
			continue;
		key = run_group_key(json_array_get(runs, i));
		if (!key)
			goto fail;
		for (n = 0, j = i; j < nr; j++) {
			char *kj = done[j] ? NULL : run_group_key(json_array_get(runs, j));

			if (kj && !strcmp(kj, key)) {
				idx[n++] = j;
				done[j] = true;
			}
			free(kj);
		}
		free(key);
		ri = json_array();
		metrics = json_object();
		for (k = 0; k < n; k++)
			json_array_append_new(ri, json_integer((json_int_t)idx[k]));
		for (k = 0; k < nr_metric_defs; k++) {
			struct agg a;

			series_agg(runs, idx, n, metric_defs[k].path, &a);
			if (a.n)
				json_object_set_new(metrics, metric_defs[k].path, agg_json(&a));
		}
		s = json_pack("{s:O?, s:O?, s:o, s:o}", "label",
			      json_object_get(json_array_get(runs, i), "label"), "params",
			      json_object_get(json_array_get(runs, i), "params"), "runs", ri,
			      "metrics", metrics);
		json_array_append_new(out, s);
	}
	free(idx);
	free(done);
	return out;
fail:
	free(idx);
	free(done);
	json_decref(out);
	return NULL;
}
