// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The "blktrace" object of a result (--blktrace, import): what the files hold, in the
 * words of blkparse's summary, so that the two can be held side by side. It only prints:
 * the counts come from btrace_summary.c.
 */
#include "output/report_json_blktrace.h"
#include "base/text.h"

/* blkparse's lines, each a count and its KiB: "Reads Queued: N, KKiB". */
static const struct {
	const char *count, *kib;
	enum btrace_io io;
	int write;
} io_names[] = {
	{ "reads_queued", "read_queued_kib", BTRACE_IO_QUEUED, 0 },
	{ "writes_queued", "write_queued_kib", BTRACE_IO_QUEUED, 1 },
	{ "read_dispatches", "read_dispatch_kib", BTRACE_IO_DISPATCHED, 0 },
	{ "write_dispatches", "write_dispatch_kib", BTRACE_IO_DISPATCHED, 1 },
	{ "reads_completed", "read_completed_kib", BTRACE_IO_COMPLETED, 0 },
	{ "writes_completed", "write_completed_kib", BTRACE_IO_COMPLETED, 1 },
	{ "read_merges", "read_merge_kib", BTRACE_IO_MERGED, 0 },
	{ "write_merges", "write_merge_kib", BTRACE_IO_MERGED, 1 },
};

static json_t *counts_json(const struct btrace_counts *c)
{
	json_t *o = json_pack("{s:o, s:o, s:o}", "events", jint(c->events), "reads_requeued",
			      jint(c->requeued[0]), "writes_requeued", jint(c->requeued[1]));
	size_t i;

	for (i = 0; o && i < sizeof(io_names) / sizeof(io_names[0]); i++) {
		json_object_set_new(o, io_names[i].count,
				    jint(c->n[io_names[i].io][io_names[i].write]));
		json_object_set_new(o, io_names[i].kib,
				    jint(btrace_counts__kib(c, io_names[i].io, io_names[i].write)));
	}
	return o;
}

/* Counts by action letter, those that are not 0. */
static json_t *actions_json(const uint64_t *n)
{
	json_t *o = json_object();
	unsigned int i;

	for (i = 0; o && i < BTRACE_NR_ACTIONS; i++)
		if (n[i])
			json_object_set_new(o, btrace_action_name(i), jint(n[i]));
	return o;
}

static json_t *set_json(const struct btrace_set_summary *s)
{
	json_t *o, *cpus = json_array();
	char dev[32];
	unsigned int i;

	for (i = 0; cpus && i < s->nr_cpus; i++) {
		json_t *c = counts_json(&s->cpu[i]);

		if (c)
			json_object_set_new(c, "cpu", json_integer(i));
		json_array_append_new(cpus, c);
	}
	snprintf(dev, sizeof(dev), "%u:%u", s->dev >> 20, s->dev & 0xfffff);
	o = json_pack("{s:o, s:s, s:b, s:o, s:o, s:f, s:o, s:o, s:o}", "name", text__json(s->name),
		      "device", dev, "mixed_devices", s->mixed_devs, "events",
		      jint(s->total.events), "processes", jint(s->processes), "seconds",
		      s->total.events ? (s->last_ns - s->first_ns) / 1e9 : 0.0, "actions",
		      actions_json(s->actions), "total", counts_json(&s->total), "cpus", cpus);
	return o;
}

json_t *report_json__blktrace(const struct btrace_summary *s)
{
	json_t *sets = json_array();
	size_t i;

	for (i = 0; sets && i < s->nr_sets; i++)
		json_array_append_new(sets, set_json(&s->sets[i]));
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "where", text__json(s->where), "lost",
			 s->has_lost ? jint(s->lost) : json_null(), "lost_notes",
			 s->has_lost ? jint(s->lost_notes) : json_null(), "late",
			 s->has_lost ? jint(s->late) : json_null(), "skipped_runs_by_action",
			 s->has_lost ? actions_json(s->skipped) : json_null(), "sets", sets);
}
