// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The tune command: `blktrace-bench tune DEV --rw ... --bs ...` measures the runtime
 * queue settings that can matter for the disk and the workload (tune_knobs.c, tune.c)
 * on the real disk (tune_session.c), puts everything back, prints what it found
 * (tune_text.c) and saves a result file with the "tune" object (tune_json.c); --apply
 * then makes the recommendation persist (apply.c) from that file, as `apply` would.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "apply.h"
#include "cli.h"
#include "commands.h"
#include "report_json.h"
#include "result_doc.h"
#include "signals.h"
#include "text.h"
#include "tune_json.h"
#include "tune_knobs.h"
#include "tune_session.h"
#include "tune_text.h"

struct tune_cmd {
	struct options o;
	const struct env_config *cfg;
	struct loaded_result workload; /* --workload FILE */
	struct result res;
	struct tune t;
	struct tune_session s;
	struct outfile json;
	struct report rep;
	struct tune_outcome out;
	char err[4096];
};

static int usage(const char *msg)
{
	die_msg("%s", msg);
	return EXIT_USAGE;
}

/* What tune takes of the one option table; the rest is refused, not ignored. */
static int check_options(const struct options *o)
{
	if (o->nr_positional != 1)
		return usage("tune takes one disk: blktrace-bench tune DEV --rw MODE --bs SIZE "
			     "... [--knobs LIST] [--budget TIME] [--json FILE [--apply]]");
	if (o->trace || o->duration || o->interval || o->snoop || o->snoop_text || o->brief)
		return usage("--trace, --duration, --interval, --snoop, --snoop-text and --brief "
			     "are options of trace, not of tune");
	if (o->recommend)
		return usage("tune always recommends: --recommend is for trace's --set sweeps");
	if (o->workload && o->rw)
		return usage("--workload and --rw are alternatives: a saved workload, or one here");
	if (!o->workload && !o->rw)
		return usage("tune needs a workload: --rw MODE --bs SIZE ..., or --workload FILE");
	if (o->nr_bs > 1)
		return usage("tune takes one --bs: it tunes for one workload");
	if (o->repeat == 1 || o->repeat > TUNE_MAX_REPS)
		return usage("--repeat: tune starts with 2 to 10 repetitions a configuration");
	if (o->json && !strcmp(o->json, "-"))
		return usage("tune --json needs a file: apply and verify read it");
	if (o->apply && !o->json && !o->dry_run)
		return usage("--apply needs --json FILE: verify compares with the baseline saved "
			     "there");
	if ((o->dry_run || o->root) && !o->apply)
		return usage("--dry-run and --root are for --apply");
	return EXIT_OK;
}

/* --workload FILE: the job of the first run of the built-in workload in a saved result. */
static int take_workload(struct tune_cmd *c)
{
	struct options *o = &c->o;
	const struct job_params *p = NULL;
	size_t i;

	if (result_load__file(o->workload, &c->workload, c->err, sizeof(c->err)))
		return usage(c->err);
	for (i = 0; i < c->workload.nr_runs && !p; i++)
		if (c->workload.runs[i].params.rw[0])
			p = &c->workload.runs[i].params;
	if (!p)
		return usage("--workload: no run of the built-in workload in it to take");
	o->rw = p->rw;
	o->bs[0] = p->bs;
	o->nr_bs = 1;
	o->size = p->size;
	o->runtime = p->runtime;
	o->engine = p->engine;
	o->iodepth = p->iodepth;
	o->direct = p->direct;
	o->sync = p->sync;
	o->fsync = p->fsync;
	o->fdatasync = p->fdatasync;
	return EXIT_OK;
}

/* Map an error of the session or the tune to an exit status, saying it. */
static int failed(struct tune_cmd *c, int err)
{
	if (err == -EINTR) {
		die_msg("interrupted before the first run");
		return 128 + (stop_signal ? stop_signal : 2);
	}
	die_msg("%s", c->err[0] ? c->err : strerror(-err));
	return err == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
}

/* Everything up to the first run: the target, the lock, the knobs, their trials, BPF. */
static int prepare(struct tune_cmd *c)
{
	const struct options *o = &c->o;
	struct workload_env env = { .target = { .sysfs = c->cfg->sysfs_root },
				    .state = { .dir = o->state_dir } };
	struct tune_knob_req req = { .only = o->knobs,
				     .set_knob = o->nr_set_values ? o->set_knob : NULL,
				     .set_values = o->set_values,
				     .nr_set_values = o->nr_set_values };
	struct tracer_opts topts = { .force_raw_tp = o->raw_tp || c->cfg->force_raw_tp,
				     .verbose = o->verbose };
	struct job_params jp = { .bs = o->nr_bs ? o->bs[0] : 4096,
				 .direct = o->direct,
				 .iodepth = o->iodepth ? o->iodepth : 1 };
	int err;

	snprintf(jp.rw, sizeof(jp.rw), "%s", o->rw);
	err = tune_session__open(&c->s, o, &c->res.device, &c->res, &env, &stop_signal, c->err,
				 sizeof(c->err));
	if (err)
		return failed(c, err);
	err = tune_knobs__choose(&c->t, &c->res.device, &jp, &req, c->err, sizeof(c->err));
	if (!err)
		err = tune_session__arm(&c->s, &c->t, c->err, sizeof(c->err));
	if (!err && stop_signal)
		err = -EINTR;
	if (!err)
		err = tune_session__trace(&c->s, &topts, c->err, sizeof(c->err));
	if (!err) {
		size_t run;

		/* The warm-up is the budget's first run, and the first estimate of a run. */
		c->t.start_s = tune_session__now(NULL);
		err = tune_session__warm_up(&c->s, &run, c->err, sizeof(c->err));
		c->t.warm_up_run = err ? -1 : (long)run;
		c->t.longest_s = tune_session__now(NULL) - c->t.start_s;
	}
	if (err) {
		tune_session__close(&c->s);
		return failed(c, err);
	}
	if (o->verbose)
		fprintf(stderr, "blktrace-bench: tracing %s (%u:%u) with %s programs\n",
			c->res.device.name, c->res.device.major, c->res.device.minor,
			c->res.tracer_flavour);
	return EXIT_OK;
}

/* The result document: the report of every run, and the "tune" object. */
static json_t *build_doc(struct tune_cmd *c)
{
	const struct tune_point *base = &c->t.points[0];
	struct tune_workload w;
	struct disk_id id;
	char cwd[PATH_MAX] = "", note[256] = "";
	bool has_id;
	json_t *doc, *tune;

	if (report__build(&c->rep, &c->res, false))
		return NULL;
	tune_outcome__compute(&c->out, &c->t, &c->res.device,
			      base->n ? &c->rep.runs[base->run[0]].params : NULL, c->rep.runs);
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	tune_workload__from_options(&w, &c->o, cwd);
	has_id = !disk_id__of(&c->res.device, &id, note, sizeof(note));
	doc = report_json__doc(&c->rep);
	tune = doc ? tune_json__object(&c->t, &c->out, &w, &c->res.device, has_id ? &id : NULL,
				       note)
		   : NULL;
	if (!tune || json_object_set_new(doc, "tune", tune)) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* --apply: the plan read back from the document, through the loader apply uses. */
static int apply_now(struct tune_cmd *c, json_t *doc)
{
	struct apply_opts ao = { .root = c->o.root ? c->o.root : "/",
				 .dry_run = c->o.dry_run,
				 .out = stdout,
				 .result = c->o.json ? c->o.json : "(not saved)",
				 .check_cmdline = !c->o.root };
	struct loaded_result lr = {};
	struct tune_plan *plan = malloc(sizeof(*plan));
	char abs[PATH_MAX];
	int err = plan ? result_doc__load(doc, ao.result, &lr, c->err, sizeof(c->err)) : -ENOMEM;

	/* The files name the result by its absolute path: they outlive the shell. */
	if (c->o.json && realpath(c->o.json, abs))
		ao.result = abs;
	if (!err)
		err = tune_plan__read(&lr, ao.result, plan, c->err, sizeof(c->err));
	if (!err) {
		printf("\n");
		err = apply__run(plan, &ao, c->err, sizeof(c->err));
	}
	result_load__free(&lr);
	free(plan);
	if (err)
		return failed(c, err);
	return EXIT_OK;
}

static int report_tune(struct tune_cmd *c, int run_err)
{
	const struct tune_point *base = &c->t.points[0];
	json_t *doc = build_doc(c);
	int rc = EXIT_OK;

	if (!doc) {
		die_msg("out of memory");
		return EXIT_FAIL;
	}
	if (c->o.json && result_doc__write(&c->json, doc, c->err, sizeof(c->err))) {
		json_decref(doc);
		die_msg("%s", c->err);
		return EXIT_FAIL;
	}
	tune_text__print(stdout, &c->t, &c->out, c->res.device.name,
			 base->n ? c->rep.runs[base->run[0]].label : c->o.rw, c->o.json);
	if (run_err == -EINTR)
		rc = 128 + (stop_signal ? stop_signal : 2);
	else if (c->o.apply)
		rc = apply_now(c, doc);
	json_decref(doc);
	return finish_stdout() && rc == EXIT_OK ? EXIT_FAIL : rc;
}

static int run(struct tune_cmd *c)
{
	struct outfile_input in[2] = { { c->o.file, "the workload's --file" },
				       { c->o.workload, "the --workload file" } };
	const struct tune_ops ops = { tune_session__measure, tune_session__now, &c->s };
	int rc, err;

	if (c->o.json &&
	    outfile__open(&c->json, "--json", c->o.json, in, 2, c->err, sizeof(c->err)))
		return usage(c->err);
	rc = prepare(c);
	if (rc)
		return rc;
	err = tune__run(&c->t, &ops, &stop_signal, c->err, sizeof(c->err));
	if (tune_session__close(&c->s) && !err)
		err = -EIO;
	if (err && (err != -EINTR || !c->t.points[0].n))
		return failed(c, err);
	if (err)
		die_msg("interrupted: deciding on the runs so far");
	return report_tune(c, err);
}

int cmd_tune(int argc, char **argv, const struct env_config *cfg)
{
	struct tune_cmd *c = calloc(1, sizeof(*c));
	int err, rc;

	if (!c) {
		die_msg("out of memory");
		return EXIT_FAIL;
	}
	c->cfg = cfg;
	tune__init(&c->t);
	err = cli_parse("tune", argc, argv, &c->o);
	rc = err ? (err == -ECANCELED ? EXIT_OK : EXIT_USAGE) : check_options(&c->o);
	if (!err && !rc && c->o.workload)
		rc = take_workload(c);
	if (!err && !rc &&
	    device__resolve(cfg->sysfs_root, c->o.positional[0], &c->res.device, c->err,
			    sizeof(c->err)))
		rc = usage(c->err);
	if (!err && !rc) {
		c->res.has_device = true;
		c->t.min_reps = c->o.repeat ? c->o.repeat : TUNE_MIN_REPS;
		c->t.budget_s = c->o.budget ? c->o.budget : TUNE_BUDGET_S;
		snprintf(c->res.tool_version, sizeof(c->res.tool_version), "%s",
			 BLKTRACE_BENCH_VERSION);
		text__join(c->res.command_line, sizeof(c->res.command_line), argc, argv);
		host_info__read(&c->res.host);
		/* Before anything can change a setting, or be refused: see signals.h. */
		signals__catch();
		rc = run(c);
	}
	outfile__abort(&c->json);
	report__free(&c->rep);
	result__free(&c->res);
	result_load__free(&c->workload);
	free(c);
	return rc;
}
