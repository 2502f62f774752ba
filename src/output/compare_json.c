// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The JSON printer of a comparison (compare --json): {"a", "b", "device_changes",
 * "unmatched", "sets", "metrics", "summary"}, as doc/guide.md ("compare") describes. It only prints
 * what compare.c computed.
 */
#include <math.h>
#include "output/compare_json.h"
#include "output/report_json.h"
#include "base/text.h"

/* The metrics shown as "what moved underneath", in their order. */
static const enum metric_id underneath_ids[] = {
	METRIC_REQ_BYTES_P50, METRIC_REQ_BYTES_MEAN, METRIC_SEGMENTS_P50,
	METRIC_SEGMENTS_MEAN, METRIC_LIMIT_SECTORS,  METRIC_LIMIT_SEGMENTS,
};

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *label_json(const struct run_summary *r)
{
	return r->label[0] ? text__json(r->label) : json_null();
}

static json_t *params_json(const struct run_summary *r)
{
	return r->params.rw[0] ? report_json__params(&r->params) : json_null();
}

static json_t *idx_json(const struct series *s)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < s->nr_runs; i++)
		json_array_append_new(a, json_integer((json_int_t)s->runs[i]));
	return a;
}

static json_t *unmatched_json(const struct series_set *ss, const bool *matched,
			      const struct run_summary *runs)
{
	json_t *out = json_array();
	size_t i;

	for (i = 0; out && i < ss->nr; i++) {
		const struct run_summary *first = &runs[ss->series[i].first];

		if (matched[i])
			continue;
		json_array_append_new(out, json_pack("{s:o, s:o, s:I}", "label", label_json(first),
						     "params", params_json(first), "runs",
						     (json_int_t)ss->series[i].nr_runs));
	}
	return out;
}

static json_t *metric_json(const struct comparison *c, const struct set_comparison *sc,
			   const struct metric_result *m)
{
	const struct agg *ga = &c->sa.series[sc->a].metric[m->id];
	const struct agg *gb = &c->sb.series[sc->b].metric[m->id];
	const struct metric_cmp *mc = &m->cmp;
	json_t *o =
		json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:b, s:b, s:I, s:I, s:o, s:o}", "name",
			  metric_defs[m->id].name, "a", jnum(ga->mean), "b", jnum(gb->mean),
			  "change", jnum(mc->change), "p_value", jnum(mc->p), "verdict",
			  compare__verdict_name(mc->verdict), "significant", mc->significant,
			  "headline", metric_defs[m->id].headline, "n_a", (json_int_t)ga->n, "n_b",
			  (json_int_t)gb->n, "ci95_a", jnum(ga->ci95), "ci95_b", jnum(gb->ci95));

	if (o)
		json_object_set_new(o, "p_adjusted", jnum(mc->p_adj));
	if (o && mc->verdict == VERDICT_UNKNOWN)
		json_object_set_new(o, "reason",
				    json_string(compare__unknown_reason(ga->n, gb->n)));
	return o;
}

static json_t *underneath_json(const struct series *sa, const struct series *sb)
{
	json_t *o = json_object();
	size_t k;

	for (k = 0; o && k < sizeof(underneath_ids) / sizeof(underneath_ids[0]); k++) {
		const struct agg *ga = &sa->metric[underneath_ids[k]];
		const struct agg *gb = &sb->metric[underneath_ids[k]];

		if (!ga->n && !gb->n)
			continue;
		json_object_set_new(o, metric_defs[underneath_ids[k]].name,
				    json_pack("{s:o, s:o}", "a",
					      ga->n ? jnum(ga->mean) : json_null(), "b",
					      gb->n ? jnum(gb->mean) : json_null()));
	}
	return o;
}

/* One side's value of a change as JSON (null when absent); NULL on ENOMEM. */
static json_t *value_json(const struct value *v)
{
	switch (v->kind) {
	case VALUE_NULL:
		return json_null();
	case VALUE_BOOL:
		return json_boolean(v->b);
	case VALUE_INT:
		return json_integer(v->i);
	case VALUE_REAL:
		return json_real(v->r);
	case VALUE_STRING:
		return text__json(v->s);
	case VALUE_JSON:
		break;
	}
	return json_loads(v->s, JSON_DECODE_ANY, NULL);
}

/* [{"name", "a", "b"}] */
static json_t *changes_json(const struct changes *c)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < c->n; i++)
		json_array_append_new(
			a, json_pack("{s:o, s:o, s:o}", "name", text__json(c->v[i].name), "a",
				     value_json(&c->v[i].a), "b", value_json(&c->v[i].b)));
	return a;
}

/* One pair, its metrics appended to flat as well (with "set": the label). */
static json_t *set_json(const struct comparison *c, const struct set_comparison *sc, json_t *flat)
{
	const struct series *sa = &c->sa.series[sc->a], *sb = &c->sb.series[sc->b];
	const struct run_summary *fa = &c->a->runs[sa->first], *fb = &c->b->runs[sb->first];
	json_t *o, *metrics = json_array();
	size_t k;

	o = json_pack("{s:o, s:o, s:{s:o, s:o}}", "label", label_json(fa), "params",
		      params_json(fa), "runs", "a", idx_json(sa), "b", idx_json(sb));
	if (!o || !metrics) {
		json_decref(o);
		json_decref(metrics);
		return NULL;
	}
	if (!sc->by_params) {
		json_object_set_new(o, "matched_by", json_string("the only set in each file"));
		json_object_set_new(o, "label_b", label_json(fb));
		json_object_set_new(o, "params_b", params_json(fb));
		json_object_set_new(o, "param_changes", changes_json(&sc->param_changes));
	} else {
		json_object_set_new(o, "matched_by", json_string("parameters"));
	}
	for (k = 0; k < sc->nr_m; k++) {
		json_t *m = metric_json(c, sc, &sc->m[k]), *fm = m ? json_copy(m) : NULL;

		if (fm) {
			json_object_set_new(fm, "set", label_json(fa));
			json_array_append_new(flat, fm);
		}
		json_array_append_new(metrics, m);
	}
	json_object_set_new(o, "metrics", metrics);
	json_object_set_new(o, "underneath", underneath_json(sa, sb));
	return o;
}

json_t *compare_json__doc(const struct comparison *c)
{
	json_t *doc, *sets = json_array(), *flat = json_array(), *summary = json_object();
	size_t i;

	doc = json_pack("{s:o, s:o, s:o, s:{s:o, s:o}}", "a", text__json(c->name_a), "b",
			text__json(c->name_b), "device_changes", changes_json(&c->device_changes),
			"unmatched", "a", unmatched_json(&c->sa, c->matched_a, c->a->runs), "b",
			unmatched_json(&c->sb, c->matched_b, c->b->runs));
	if (!doc || !sets || !flat || !summary)
		goto fail;
	for (i = 0; i < c->nr_sets; i++)
		json_array_append_new(sets, set_json(c, &c->sets[i], flat));
	for (i = 0; i < NR_VERDICTS; i++)
		json_object_set_new(summary, compare__verdict_name(i),
				    json_integer((json_int_t)c->counts[i]));
	json_object_set_new(summary, "sets", json_integer((json_int_t)c->nr_sets));
	/* The test every verdict comes from (compare.h). */
	json_object_set_new(doc, "test",
			    json_pack("{s:s, s:s, s:[s, s], s:f, s:f}", "test", "welch",
				      "correction", "holm", "families", "headline", "other",
				      "alpha", STATS_ALPHA, "min_effect", COMPARE_MIN_EFFECT));
	json_object_set_new(doc, "sets", sets);
	json_object_set_new(doc, "metrics", flat);
	json_object_set_new(doc, "summary", summary);
	return doc;
fail:
	json_decref(doc);
	json_decref(sets);
	json_decref(flat);
	json_decref(summary);
	return NULL;
}
