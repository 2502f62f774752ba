// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The tune command: `blktrace-bench tune DEV --rw ... --bs ...` measures the runtime
 * queue settings that can matter for the disk and the workload (tune_knobs.c, tune.c)
 * on the real disk (tune_session.c), puts everything back, prints what it found
 * (tune_text.c) and saves a result file with the "tune" object (tune_json.c); --apply
 * then makes the recommendation persist (apply.c) from that file, as `apply` would.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tune/apply.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "output/report_json.h"
#include "output/result_doc.h"
#include "base/stop_signals.h"
#include "base/text.h"
#include "tune/tune_json.h"
#include "tune/tune_knobs.h"
#include "tune/tune_session.h"
#include "tune/tune_text.h"

struct tune_cmd {
	struct options o; /* the command line's, the workload taken from --workload */
	const struct env_config *cfg;
	struct loaded_result workload; /* --workload FILE */
	struct result res;
	struct tune t;
	struct tune_session s;
	struct outfile json;
	struct report rep;
	struct tune_outcome out;
};

/* What the options ask of tune beyond what cli.c checks. */
static int check_options(const struct options *o, struct diag *d)
{
	if (o->workload && o->wl.rw)
		return diag__usage(d, "--workload and --rw are alternatives: a saved workload, "
				      "or one here");
	if (!o->workload && !o->wl.rw)
		return diag__usage(d, "tune needs a workload: --rw MODE --bs SIZE ..., or "
				      "--workload FILE");
	if (o->wl.nr_bs > 1)
		return diag__usage(d, "tune takes one --bs: it tunes for one workload");
	if (o->wl.repeat == 1 || o->wl.repeat > TUNE_MAX_REPS)
		return diag__usage(d,
				   "--repeat: tune starts with 2 to %d repetitions a "
				   "configuration",
				   TUNE_MAX_REPS);
	if (o->json && !strcmp(o->json, "-"))
		return diag__usage(d, "tune --json needs a file: apply and verify read it");
	if (o->apply && !o->json && !o->dry_run)
		return diag__usage(d, "--apply needs --json FILE: verify compares with the "
				      "baseline saved there");
	if ((o->dry_run || o->root) && !o->apply)
		return diag__usage(d, "--dry-run and --root are for --apply");
	return 0;
}

/* --workload FILE: the job of the first run of the built-in workload in a saved result. */
static int take_workload(struct tune_cmd *c, struct diag *d)
{
	struct options *o = &c->o;
	const struct job_params *p = NULL;
	size_t i;
	int ret = result_load__file(o->workload, &c->workload, d);

	if (ret)
		return ret;
	for (i = 0; i < c->workload.nr_runs && !p; i++)
		if (c->workload.runs[i].params.rw[0])
			p = &c->workload.runs[i].params;
	if (!p)
		return diag__usage(d,
				   "--workload %s: no run of the built-in workload in it to take",
				   o->workload);
	tune_plan__job_spec(p, &o->wl);
	return 0;
}

/* An interruption before anything was measured: nothing to report, the signal says why. */
static int interrupted(struct diag *d)
{
	d->signal = stop_signal;
	return diag__fail(d, -EINTR, "interrupted before the first run");
}

/* The knobs, their trials, BPF, and the warm-up run (the budget's first, timed). */
static int arm_and_warm_up(struct tune_cmd *c, struct diag *d)
{
	const struct options *o = &c->o;
	struct tune_knob_req req = { .only = o->knobs,
				     .set_knob = o->wl.nr_set_values ? o->wl.set_knob : NULL,
				     .set_values = o->wl.set_values,
				     .nr_set_values = o->wl.nr_set_values };
	struct tracer_opts topts = { .force_raw_tp = o->raw_tp || c->cfg->force_raw_tp,
				     .exact_depth = o->exact_depth,
				     .verbose = o->verbose,
				     .notes = stderr };
	struct job_params jp = { .bs = o->wl.nr_bs ? o->wl.bs[0] : 4096,
				 .direct = o->wl.direct,
				 .iodepth = o->wl.iodepth ? o->wl.iodepth : 1 };
	size_t run;
	int err;

	snprintf(jp.rw, sizeof(jp.rw), "%s", o->wl.rw);
	err = tune_knobs__choose(&c->t, &c->res.device, &jp, &req, d);
	if (!err)
		err = tune_session__arm(&c->s, &c->t, d);
	if (!err && stop_signal)
		return interrupted(d);
	if (!err)
		err = tune_session__trace(&c->s, &topts, d);
	if (err)
		return err;
	/* The warm-up is the budget's first run, and the first estimate of a run. */
	c->t.start_s = tune_session__now(NULL);
	err = tune_session__warm_up(&c->s, &run, d);
	c->t.warm_up_run = err ? -1 : (long)run;
	c->t.longest_s = tune_session__now(NULL) - c->t.start_s;
	return err == -EINTR ? interrupted(d) : err;
}

/* Everything up to the first run that counts: the target, the lock, the knobs, BPF. */
static int prepare(struct tune_cmd *c, struct diag *d)
{
	const struct options *o = &c->o;
	struct workload_env env = { .target = { .sysfs = c->cfg->sysfs_root },
				    .state = { .dir = o->state_dir },
				    .notes = stderr };
	int err = tune_session__open(&c->s, &o->wl, &c->res.device, &c->res, &env, &stop_signal, d);

	if (err == -EINTR)
		return interrupted(d);
	if (err)
		return err;
	err = arm_and_warm_up(c, d);
	if (err) {
		tune_session__close(&c->s);
		return err;
	}
	if (o->verbose)
		diag__note(stderr, "tracing %s (%u:%u) with %s programs", c->res.device.name,
			   c->res.device.major, c->res.device.minor, c->res.tracer_flavour);
	return 0;
}

/* The result document: the report of every run, and the "tune" object. */
static json_t *build_doc(struct tune_cmd *c)
{
	const struct tune_point *base = &c->t.points[0];
	struct tune_workload w;
	struct disk_id id;
	struct diag no_id = {};
	char cwd[PATH_MAX] = "";
	bool has_id;
	json_t *doc, *tune;

	if (report__build(&c->rep, &c->res, false))
		return NULL;
	tune_outcome__compute(&c->out, &c->t, &c->res.device,
			      base->n ? &c->rep.runs[base->run[0]].params : NULL, c->rep.runs);
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	tune_workload__from_spec(&w, &c->o.wl, cwd);
	/* No identity is no failure of tune: the document says why, apply refuses then. */
	has_id = !disk_id__of(&c->res.device, &id, &no_id);
	doc = report_json__doc(&c->rep);
	tune = doc ? tune_json__object(&c->t, &c->out, &w, &c->res.device, has_id ? &id : NULL,
				       no_id.msg)
		   : NULL;
	if (!tune || json_object_set_new(doc, "tune", tune)) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* --apply: the plan read back from the document, through the loader apply uses. */
static int apply_now(struct tune_cmd *c, json_t *doc, struct diag *d)
{
	struct boot_config_env boot;
	struct apply_opts ao = { .root = c->o.root ? c->o.root : "/",
				 .dry_run = c->o.dry_run,
				 .out = stdout,
				 .result = c->o.json ? c->o.json : "(not saved)",
				 .check_cmdline = !c->o.root,
				 .boot = c->o.root && strcmp(c->o.root, "/") ? NULL : &boot };
	struct loaded_result lr = {};
	struct tune_plan *plan = malloc(sizeof(*plan));
	char abs[PATH_MAX];
	int err;

	boot_config__system(&boot, c->cfg->sysfs_root);
	if (!plan)
		return diag__fail(d, -ENOMEM, "out of memory");
	/* The files name the result by its absolute path: they outlive the shell. */
	if (c->o.json && realpath(c->o.json, abs))
		ao.result = abs;
	err = result_doc__load(doc, ao.result, &lr, d);
	if (!err)
		err = tune_plan__read(&lr, ao.result, plan, d);
	if (!err) {
		printf("\n");
		err = apply__run(plan, &ao, d);
	}
	result_load__free(&lr);
	free(plan);
	return err;
}

/* The result saved, the text printed, --apply; an interrupted tune ends with its signal. */
static int report_tune(struct tune_cmd *c, int run_err, struct diag *d)
{
	const struct tune_point *base = &c->t.points[0];
	json_t *doc = build_doc(c);
	int err = 0;

	if (!doc)
		return diag__fail(d, -ENOMEM, "out of memory");
	if (c->o.json)
		err = result_doc__write(&c->json, doc, d);
	if (!err)
		tune_text__print(stdout, &c->t, &c->out, c->res.device.name,
				 base->n ? c->rep.runs[base->run[0]].label : c->o.wl.rw, c->o.json);
	if (!err && run_err != -EINTR && c->o.apply)
		err = apply_now(c, doc, d);
	json_decref(doc);
	if (!err)
		err = finish_stdout(d);
	if (!err && run_err == -EINTR) {
		d->signal = stop_signal;
		err = -EINTR;
	}
	return err;
}

static int run(struct tune_cmd *c, struct diag *d)
{
	struct outfile_input in[2] = { { c->o.wl.file, "the workload's --file" },
				       { c->o.workload, "the --workload file" } };
	const struct tune_ops ops = { tune_session__measure, tune_session__now, &c->s };
	int err = 0;

	if (c->o.json)
		err = outfile__open(&c->json, "--json", c->o.json, in, 2, d);
	if (!err)
		err = prepare(c, d);
	if (err)
		return err;
	err = tune__run(&c->t, &ops, &stop_signal, d);
	if (tune_session__close(&c->s) && !err)
		err = diag__fail(d, -EIO, "the settings of %s could not all be put back",
				 c->res.device.name);
	if (err == -EINTR && !c->t.points[0].n)
		return interrupted(d);
	if (err && err != -EINTR)
		return err;
	if (err)
		diag__note(stderr, "interrupted: deciding on the runs so far");
	return report_tune(c, err, d);
}

/* The run's identity in its result, the defaults, and the signals caught: then run. */
static int tune_disk(struct tune_cmd *c, struct diag *d)
{
	const struct device_env env = env_config__device(c->cfg);
	int err = device__resolve_env(&env, c->o.positional[0], &c->res.device, d);

	if (err)
		return err;
	c->res.has_device = true;
	c->t.min_reps = c->o.wl.repeat ? c->o.wl.repeat : TUNE_MIN_REPS;
	c->t.budget_s = c->o.budget ? c->o.budget : TUNE_BUDGET_S;
	snprintf(c->res.tool_version, sizeof(c->res.tool_version), "%s", BLKTRACE_BENCH_VERSION);
	text__join(c->res.command_line, sizeof(c->res.command_line), c->o.argc, c->o.argv);
	host_info__read(&c->res.host);
	/* Before anything can change a setting, or be refused: see stop_signals.h. */
	stop_signals__catch();
	err = run(c, d);
	/* Whatever went wrong, no half file: the temporary file goes (a committed one stays). */
	outfile__abort(&c->json);
	return err;
}

int cmd_tune(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	struct tune_cmd *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return diag__fail(d, -ENOMEM, "out of memory");
	c->o = *o;
	c->cfg = cfg;
	tune__init(&c->t);
	err = check_options(o, d);
	if (!err && o->workload)
		err = take_workload(c, d);
	if (!err)
		err = tune_disk(c, d);
	report__free(&c->rep);
	result__free(&c->res);
	result_load__free(&c->workload);
	free(c);
	return err;
}
