// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Grouping runs into series and aggregating their metrics; see series.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "series.h"

void series__key(const struct job_params *p, const char *label, char *buf, size_t len)
{
	int n;

	if (!p->rw[0]) {
		snprintf(buf, len, "label=%s", label);
		return;
	}
	n = snprintf(buf, len,
		     "rw=%s bs=%llu size=%llu runtime=%.17g engine=%s iodepth=%u "
		     "direct=%d sync=%d fsync=%d fdatasync=%d",
		     p->rw, (unsigned long long)p->bs, (unsigned long long)p->size, p->runtime,
		     p->engine, p->iodepth, p->direct, p->sync, p->fsync, p->fdatasync);
	if (p->set_knob[0] && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " %s=%s", p->set_knob, p->set_value);
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
	for (i = 0; i < nr; i++) {
		k[i].i = i;
		series__key(&runs[i].params, runs[i].label, k[i].key, sizeof(k[i].key));
	}
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
