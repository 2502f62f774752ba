// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Grouping runs into series and aggregating their metrics; see series.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/series.h"

/* sep, then "NAME=VALUE" of one job parameter; numbers exactly as they are. */
static int key_part(const struct job_param_def *def, const struct job_params *p, const char *sep,
		    char *buf, size_t len)
{
	const void *field = job_param__cfield(def, p);

	switch (def->type) {
	case JOB_PARAM_STRING:
		return snprintf(buf, len, "%s%s=%s", sep, def->name, (const char *)field);
	case JOB_PARAM_U64:
		return snprintf(buf, len, "%s%s=%llu", sep, def->name,
				(unsigned long long)*(const uint64_t *)field);
	case JOB_PARAM_UINT:
		return snprintf(buf, len, "%s%s=%u", sep, def->name, *(const unsigned int *)field);
	case JOB_PARAM_SECONDS:
		return snprintf(buf, len, "%s%s=%.17g", sep, def->name, *(const double *)field);
	case JOB_PARAM_BOOL:
		return snprintf(buf, len, "%s%s=%d", sep, def->name, *(const bool *)field);
	}
	return 0;
}

void series__key(const struct job_params *p, const char *label, char *buf, size_t len)
{
	size_t i, used = 0;
	int n;

	if (!p->rw[0]) {
		snprintf(buf, len, "label=%s", label);
		return;
	}
	buf[0] = '\0';
	for (i = 0; i < NR_JOB_PARAMS && used < len; i++) {
		n = key_part(&job_param_defs[i], p, i ? " " : "", buf + used, len - used);
		if (n < 0)
			return;
		used += n;
	}
	if (p->set_knob[0] && used < len)
		snprintf(buf + used, len - used, " %s=%s", p->set_knob, p->set_value);
}

void series__agg(const struct run_summary *runs, const size_t *idx, size_t n, enum metric_id id,
		 struct agg *out)
{
	double *x = calloc(n ? n : 1, sizeof(*x));
	size_t i, m = 0;

	memset(out, 0, sizeof(*out));
	if (!x)
		return;
	for (i = 0; i < n; i++)
		if (runs[idx[i]].has_metric[id])
			x[m++] = runs[idx[i]].metric[id];
	agg_compute(x, m, out);
	free(x);
}

struct keyed {
	char key[SERIES_KEY_MAX];
	size_t i;
};

static int by_key_then_index(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int by_first_run(const void *x, const void *y)
{
	const struct series *a = x, *b = y;

	return (a->first > b->first) - (a->first < b->first);
}

/*
 * Sorting the keys keeps grouping O(n log n) in the runs: a sweep over thousands of
 * distinct parameter sets is one result.
 */
int series__group(struct series_set *out, const struct run_summary *runs, size_t nr)
{
	struct keyed *k = calloc(nr ? nr : 1, sizeof(*k));
	size_t i, j, used = 0, m;

	memset(out, 0, sizeof(*out));
	out->series = calloc(nr ? nr : 1, sizeof(*out->series));
	out->storage = calloc(nr ? nr : 1, sizeof(*out->storage));
	if (!k || !out->series || !out->storage) {
		free(k);
		series__free(out);
		return -ENOMEM;
	}
	for (i = 0, m = 0; i < nr; i++) {
		if (runs[i].partial)
			continue;
		k[m].i = i;
		series__key(&runs[i].params, runs[i].label, k[m].key, sizeof(k[m].key));
		m++;
	}
	nr = m;
	qsort(k, nr, sizeof(*k), by_key_then_index);
	for (i = 0; i < nr; i = j) {
		struct series *s = &out->series[out->nr++];

		memcpy(s->key, k[i].key, sizeof(s->key));
		s->first = k[i].i;
		s->runs = out->storage + used;
		for (j = i; j < nr && !strcmp(k[j].key, s->key); j++)
			s->runs[s->nr_runs++] = k[j].i;
		used += s->nr_runs;
		for (m = 0; m < NR_METRICS; m++)
			series__agg(runs, s->runs, s->nr_runs, m, &s->metric[m]);
	}
	free(k);
	qsort(out->series, out->nr, sizeof(*out->series), by_first_run);
	return 0;
}

void series__free(struct series_set *ss)
{
	free(ss->series);
	free(ss->storage);
	memset(ss, 0, sizeof(*ss));
}
