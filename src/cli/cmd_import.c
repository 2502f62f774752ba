// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The import command: blktrace files (ours, from --blktrace, or the kernel's, from
 * `blktrace -d DEV`, taken where blktrace runs) into a result: the report with its
 * histograms and findings, its JSON, a file compare takes. The events become block
 * statistics in btrace_stats.c; the disk's limits, for the findings, come from
 * --limits-from (a disk here, or a saved info --json), else are unknown.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "blktrace/btrace_read.h"
#include "blktrace/btrace_stats.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "store/device_load.h"
#include "output/report_out.h"
#include "base/text.h"

/* What the trace holds: the events counted and summed up, and its name. */
struct imported {
	struct btrace_summary sum; /* one set */
	struct block_stats *b;	   /* the run's */
	double seconds;
	bool bio_based;
};

static int read_all(struct btrace_reader *r, struct btrace_stats *st,
		    struct btrace_set_summary *set, struct diag *d)
{
	struct btrace_record rec;
	char left[PATH_MAX + 160];
	unsigned int i;
	int ret, err;

	while ((ret = btrace_read__next(r, &rec, d)) > 0) {
		err = btrace_summary__add(set, &rec.t);
		if (!err)
			err = btrace_stats__add(st, &rec);
		if (err == -EOVERFLOW)
			return diag__usage(d,
					   "%s: more than %u bios and requests in flight at once "
					   "(a trace that lost its completions?): import holds %u "
					   "at most",
					   btrace_read__where(r), BTRACE_STATS_MAX_IN_FLIGHT,
					   BTRACE_STATS_MAX_IN_FLIGHT);
		if (err)
			return diag__fail(d, err, "%s", strerror(-err));
	}
	for (i = 0; !ret && btrace_read__left_out(r, i, left, sizeof(left)); i++)
		diag__note(stderr, "left out, as blkparse leaves them out: %s", left);
	return ret;
}

static int read_trace(struct btrace_reader *r, const char *path, struct imported *im,
		      struct diag *d)
{
	struct btrace_stats *st = NULL;
	struct btrace_set_summary *set;
	int err;

	im->sum.sets = set = calloc(1, sizeof(*set));
	if (!set || btrace_stats__new(&st)) {
		free(st);
		return diag__fail(d, -ENOMEM, "out of memory");
	}
	im->sum.nr_sets = 1;
	snprintf(set->name, sizeof(set->name), "%s", btrace_read__name(r));
	snprintf(im->sum.where, sizeof(im->sum.where), "%s", btrace_read__where(r));
	err = btrace_read__start(r, d);
	if (!err)
		err = read_all(r, st, set, d);
	if (!err && !set->total.events)
		err = diag__usage(d, "%s: no events in the trace", path);
	if (!err)
		btrace_stats__result(st, im->b, &im->seconds, &im->bio_based);
	btrace_stats__free(st);
	return err;
}

/* The disk: as --limits-from describes it, else what the trace says (no limits). */
static int trace_device(const struct options *o, const struct env_config *cfg,
			const struct imported *im, struct device *dev, struct diag *d)
{
	const struct btrace_set_summary *set = &im->sum.sets[0];
	const struct device_env env = env_config__device(cfg);
	struct stat st;
	int err = 0;

	if (o->limits_from && !stat(o->limits_from, &st) && S_ISREG(st.st_mode))
		err = device_load__file(o->limits_from, dev, d);
	else if (o->limits_from)
		err = device__resolve_env(&env, o->limits_from, dev, d);
	else
		device_load__named(set->name, set->dev >> 20, set->dev & 0xfffff, dev);
	if (err)
		return err;
	dev->bio_based |= im->bio_based;
	return 0;
}

static int build(const struct options *o, const struct env_config *cfg, struct btrace_reader *r,
		 struct imported *im, struct result *res, struct diag *d)
{
	struct run *run = result__add_run(res, true, false);
	int err;

	if (!run)
		return diag__fail(d, -ENOMEM, "out of memory");
	im->b = run->block;
	err = read_trace(r, o->positional[0], im, d);
	if (!err)
		err = trace_device(o, cfg, im, &res->device, d);
	if (err)
		return err;
	res->has_device = true;
	res->lat_from_queue = true;
	snprintf(res->tool_version, sizeof(res->tool_version), "%s", BLKTRACE_BENCH_VERSION);
	text__join(res->command_line, sizeof(res->command_line), o->argc, o->argv);
	snprintf(run->label, sizeof(run->label), "import %s", im->sum.sets[0].name);
	run->seconds = im->seconds;
	/* blktrace records no segment counts: no finding may weigh them. */
	run->has_limits = true;
	run->limits = res->device.limits;
	run->limits.max_segments = -1;
	run->limits.max_segment_size = -1;
	res->blktrace = malloc(sizeof(*res->blktrace));
	if (!res->blktrace)
		return diag__fail(d, -ENOMEM, "out of memory");
	*res->blktrace = im->sum;
	memset(&im->sum, 0, sizeof(im->sum));
	return 0;
}

/*
 * --json, checked against every input before anything is read: the path given, each
 * file of the set it names (NAME.blktrace.N: writing over one would lose the trace),
 * --limits-from.
 */
static int open_json(const struct options *o, const struct btrace_reader *r, struct outfile *json,
		     struct diag *d)
{
	struct outfile_input *in;
	unsigned int n = 0;
	int err;

	if (btrace_read__of_set(r, o->json))
		return diag__usage(d,
				   "refusing to write --json %s: it is, or would be, a file of "
				   "the trace %s",
				   o->json, btrace_read__where(r));
	while (btrace_read__file(r, n))
		n++;
	in = calloc(n + 2, sizeof(*in));
	if (!in)
		return diag__fail(d, -ENOMEM, "out of memory");
	in[0] = (struct outfile_input){ o->positional[0], "the trace" };
	in[1] = (struct outfile_input){ o->limits_from, "--limits-from" };
	for (n = 0; btrace_read__file(r, n); n++)
		in[n + 2] =
			(struct outfile_input){ btrace_read__file(r, n), "a file of the trace" };
	err = outfile__open(json, "--json", o->json, in, n + 2, d);
	free(in);
	return err;
}

int cmd_import(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	struct btrace_reader *r = NULL;
	struct imported im = {};
	struct outfile json = {};
	struct result res = {};
	const struct btrace_set_summary *set;
	int err;

	err = btrace_read__resolve(o->positional[0], &r, d);
	if (!err && o->json)
		err = open_json(o, r, &json, d);
	if (!err)
		err = build(o, cfg, r, &im, &res, d);
	if (!err) {
		set = &res.blktrace->sets[0];
		fprintf(stderr, "blktrace-bench: %llu events of %s on %u CPU%s from %s\n",
			(unsigned long long)set->total.events, set->name, set->nr_cpus,
			set->nr_cpus == 1 ? "" : "s", res.blktrace->where);
		if (!o->limits_from)
			fprintf(stderr, "blktrace-bench: no queue limits, no findings: "
					"--limits-from DEV|FILE gives them\n");
		err = report_out__write(&res, 1, &json, NULL, false, false, d);
	}
	outfile__abort(&json);
	btrace_read__close(r);
	btrace_summary__free(&im.sum);
	result__free(&res);
	return err;
}
