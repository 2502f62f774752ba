// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The verify command: `blktrace-bench verify RESULT.json` after apply (and the reboot):
 * finds the tuned disk by its stable identity, checks that the recommended settings are
 * in force (verify.c), reruns exactly the saved workload (tune_session.c, nothing
 * changed) as many times as tune began each configuration with, and more while the 95%
 * intervals overlap (10 at most, as tune adds them), compares the rerun with the baseline
 * as compare does (compare.c) and says whether the change held, with compare's exit codes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "output/compare_text.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "output/report_json.h"
#include "output/result_doc.h"
#include "base/stop_signals.h"
#include "base/text.h"
#include "tune/tune_session.h"
#include "tune/verify.h"

struct verify_cmd {
	const struct options *o;
	struct workload_spec job; /* the saved workload */
	const struct env_config *cfg;
	/* base: the saved baseline's runs; rerun: this run's, the warm-up left out */
	struct loaded_result saved, base, now, rerun;
	struct tune_plan plan;
	struct result res; /* the rerun */
	struct tune_session s;
	struct outfile json;
	struct verify_check chk;
	struct verify_outcome out;
	struct comparison cmp;
	struct report rep;
};

/* The saved result, its plan, and the disk it names, by its identity. */
static int find_disk(struct verify_cmd *c, struct diag *d)
{
	const char *file = c->o->positional[0];
	int err = result_load__file(file, &c->saved, d);

	if (!err)
		err = tune_plan__read(&c->saved, file, &c->plan, d);
	if (err)
		return err;
	if (!c->plan.has_id) {
		diag__note(stderr, "%s by its kernel name: %s", c->plan.disk, c->plan.id_note);
		return device__resolve(c->cfg->sysfs_root, c->plan.disk, &c->res.device, d);
	}
	err = disk_id__find(c->cfg->sysfs_root, &c->plan.id, &c->res.device);
	if (err == -ENOENT)
		return diag__usage_err(d, err, "no disk here has the %s %s (%s, when tuned)",
				       c->plan.id.what, c->plan.id.value, c->plan.disk);
	if (err)
		return diag__fail(d, err, "cannot look for the disk %s: %s", c->plan.disk,
				  strerror(-err));
	return 0;
}

static void print_check(const struct verify_cmd *c)
{
	int i;

	printf("verify %s", c->res.device.name);
	if (c->plan.has_id)
		printf(" (%s %s)", c->plan.id.what, c->plan.id.value);
	printf(" against %s\n", c->plan.result);
	for (i = 0; i < c->chk.nr; i++) {
		const struct verify_setting *s = &c->chk.s[i];

		if (s->in_force)
			printf("  %-36s %-8s in force\n", s->name, s->now);
		else
			printf("  %-36s %-8s NOT the recommended %s: %s\n", s->name, s->now,
			       s->want, s->note);
	}
	if (!c->chk.nr)
		printf("  (the recommendation kept every setting as found)\n");
}

/* The saved workload's options: its job, target and buffers; permissions from here. */
static int job_options(struct verify_cmd *c, struct diag *d)
{
	tune_plan__spec(&c->plan, &c->job);
	c->job.destructive = c->o->wl.destructive;
	c->job.overwrite = c->o->wl.overwrite;
	/* A new file goes where tune made its own: on the same filesystem. */
	if (c->plan.w.target == TUNE_TARGET_NEW_FILE && chdir(c->plan.w.path))
		return diag__usage_err(d, -errno,
				       "cannot run in %.1024s, where tune made its file: %s",
				       c->plan.w.path, strerror(errno));
	return 0;
}

/* The runs of the workload alone in from: those without a setting (the warm-up has one). */
static int jobs_of(const struct loaded_result *from, struct loaded_result *to)
{
	size_t i;

	to->header = from->header;
	to->has_runs = true;
	to->runs = calloc(from->nr_runs ? from->nr_runs : 1, sizeof(*to->runs));
	if (!to->runs)
		return -ENOMEM;
	for (i = 0; i < from->nr_runs; i++)
		if (from->runs[i].params.rw[0] && !from->runs[i].params.set_knob[0])
			to->runs[to->nr_runs++] = from->runs[i];
	return 0;
}

/* app.mb_per_s of the saved baseline's runs. */
static void baseline_mbps(const struct verify_cmd *c, struct agg *out)
{
	double x[4 * TUNE_MAX_REPS];
	size_t i, n = 0;

	for (i = 0; i < c->base.nr_runs && n < sizeof(x) / sizeof(x[0]); i++)
		if (c->base.runs[i].has_metric[METRIC_APP_MB_PER_S])
			x[n++] = c->base.runs[i].metric[METRIC_APP_MB_PER_S];
	agg_compute(x, n, out);
}

/* As many runs as tune began with, and more while the intervals overlap. */
static int measure(struct verify_cmd *c, struct diag *d)
{
	const char *values[TUNE_MAX_KNOBS] = { NULL };
	double mbps[TUNE_MAX_REPS];
	struct agg base, now = { 0 };
	unsigned int rep;
	size_t run;
	int err = 0;

	baseline_mbps(c, &base);
	for (rep = 0;
	     !err && rep < TUNE_MAX_REPS && (rep < c->plan.min_reps || agg_overlap(&base, &now));
	     rep++) {
		err = tune_session__measure(&c->s, values, NULL, NULL, rep, &mbps[rep], &run, d);
		agg_compute(mbps, rep + 1, &now);
	}
	return err;
}

/* The workload as tune ran it, on the disk as it is now: a warm-up, then the runs. */
static int rerun(struct verify_cmd *c, struct diag *d)
{
	struct workload_env env = { .target = { .sysfs = c->cfg->sysfs_root },
				    .state = { .dir = c->o->state_dir },
				    .notes = stderr };
	struct tracer_opts topts = { .force_raw_tp = c->o->raw_tp || c->cfg->force_raw_tp,
				     .exact_depth = c->o->exact_depth,
				     .verbose = c->o->verbose,
				     .notes = stderr };
	size_t run;
	int err;

	err = tune_session__open(&c->s, &c->job, &c->res.device, &c->res, &env, &stop_signal, d);
	if (err)
		goto out;
	err = tune_session__trace(&c->s, &topts, d);
	if (!err) /* as tune did before its baseline */
		err = tune_session__warm_up(&c->s, &run, d);
	if (!err && c->o->verbose)
		diag__note(stderr, "tracing %s (%u:%u) with %s programs", c->res.device.name,
			   c->res.device.major, c->res.device.minor, c->res.tracer_flavour);
	if (!err)
		err = measure(c, d);
	if (tune_session__close(&c->s) && !err)
		err = diag__fail(d, -EIO, "the settings of %s could not all be put back",
				 c->res.device.name);
out:
	if (err == -EINTR) {
		d->signal = stop_signal;
		diag__fail(d, err, "interrupted");
	}
	return err;
}

static json_t *verify_json(const struct verify_cmd *c)
{
	const struct verify_outcome *v = &c->out;
	json_t *settings = json_array();
	int i;

	for (i = 0; settings && i < c->chk.nr; i++)
		json_array_append_new(settings,
				      json_pack("{s:s, s:s, s:s, s:b, s:o}", "name",
						c->chk.s[i].name, "want", c->chk.s[i].want, "now",
						c->chk.s[i].now, "in_force", c->chk.s[i].in_force,
						"note", text__json(c->chk.s[i].note)));
	return json_pack("{s:o, s:s, s:o, s:o, s:f, s:f, s:o, s:o, s:o, s:o}", "result",
			 text__json(c->plan.result), "verdict", verify__verdict_name(v->verdict),
			 "text", text__json(v->text), "settings", settings, "baseline_mb_per_s",
			 v->base_mbps, "mb_per_s", v->now_mbps, "change",
			 isfinite(v->change) ? json_real(v->change) : json_null(), "p",
			 isfinite(v->p) ? json_real(v->p) : json_null(),
			 "baseline_request_bytes_p50",
			 isfinite(v->base_req_p50) ? json_real(v->base_req_p50) : json_null(),
			 "request_bytes_p50",
			 isfinite(v->now_req_p50) ? json_real(v->now_req_p50) : json_null());
}

/* The rerun as a result document, read back as compare reads files, and compared. */
static int compare_rerun(struct verify_cmd *c, json_t **doc, struct diag *d)
{
	int err;

	if (report__build(&c->rep, &c->res, false) || !(*doc = report_json__doc(&c->rep)))
		return diag__fail(d, -ENOMEM, "out of memory");
	err = result_doc__load(*doc, "this run", &c->now, d);
	if (!err && (jobs_of(&c->now, &c->rerun) ||
		     compare__build(&c->cmp, &c->base, &c->rerun, c->plan.result, "this run")))
		err = diag__fail(d, -ENOMEM, "out of memory");
	return err;
}

/* Runs of lr (what) that saw no request on the disk: then no verdict, said why. */
static int reached_disk(const struct loaded_result *lr, const char *what, const char *disk,
			struct diag *d)
{
	size_t i, none = 0;

	for (i = 0; i < lr->nr_runs; i++)
		none += !lr->runs[i].has_metric[METRIC_REQUESTS] ||
			lr->runs[i].metric[METRIC_REQUESTS] == 0;
	if (!none)
		return 0;
	/* Their throughput is the page cache's, or another disk's: it says nothing here. */
	return diag__fail(d, -ENODATA,
			  "%s saw no requests on %s in %zu of %zu runs: what they measured is "
			  "not the disk (the page cache?); no verdict",
			  what, disk, none, lr->nr_runs);
}

/* Compare the rerun with the baseline, say the verdict, save the rerun when asked. */
static int judge(struct verify_cmd *c, struct diag *d)
{
	json_t *doc = NULL;
	int err = compare_rerun(c, &doc, d);

	if (!err)
		err = reached_disk(&c->base, "the baseline", c->plan.disk, d);
	if (!err)
		err = reached_disk(&c->rerun, "this run", c->res.device.name, d);

	if (!err) {
		putchar('\n');
		compare_text__print(stdout, &c->cmp);
		verify__judge(&c->plan, &c->chk, &c->cmp,
			      c->o->fail_on_regression_set ? c->o->fail_on_regression : NAN,
			      &c->out);
		printf("\n%s\n", c->out.text);
	}
	if (!err && c->o->json) {
		err = json_object_set_new(doc, "verify", verify_json(c))
			      ? diag__fail(d, -ENOMEM, "out of memory")
			      : result_doc__write(&c->json, doc, d);
	}
	json_decref(doc);
	if (!err)
		err = finish_stdout(d);
	return err ? err : verify__exit_code(c->out.verdict);
}

static int run(struct verify_cmd *c, struct diag *d)
{
	struct outfile_input in[1] = { { c->o->positional[0], "the result verified" } };
	int err = find_disk(c, d);

	if (err)
		return err;
	verify__check(&c->plan, &c->res.device, &c->chk);
	print_check(c);
	/* Nothing recommended, or not in force: the verdict without a rerun. */
	if (!c->chk.in_force || (!c->plan.out.nr_settings && !c->plan.out.has_module)) {
		verify__judge(&c->plan, &c->chk, &c->cmp, NAN, &c->out);
		printf("%s\n", c->out.text);
		if (c->o->json)
			diag__note(stderr, "nothing rerun: --json %s not written", c->o->json);
		err = finish_stdout(d);
		return err ? err : verify__exit_code(c->out.verdict);
	}
	if (c->o->json)
		err = outfile__open(&c->json, "--json", c->o->json, in, 1, d);
	if (!err)
		err = job_options(c, d);
	if (!err && jobs_of(&c->saved, &c->base))
		err = diag__fail(d, -ENOMEM, "out of memory");
	if (err)
		return err;
	c->res.has_device = true;
	snprintf(c->res.tool_version, sizeof(c->res.tool_version), "%s", BLKTRACE_BENCH_VERSION);
	text__join(c->res.command_line, sizeof(c->res.command_line), c->o->argc, c->o->argv);
	host_info__read(&c->res.host);
	stop_signals__catch();
	err = rerun(c, d);
	return err ? err : judge(c, d);
}

int cmd_verify(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	struct verify_cmd *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return diag__fail(d, -ENOMEM, "out of memory");
	c->o = o;
	c->cfg = cfg;
	ret = run(c, d);
	/* Whatever went wrong, no half file: the temporary file goes (a committed one stays). */
	outfile__abort(&c->json);
	compare__free(&c->cmp);
	report__free(&c->rep);
	result__free(&c->res);
	free(c->base.runs);
	free(c->rerun.runs);
	result_load__free(&c->now);
	result_load__free(&c->saved);
	free(c);
	return ret;
}
