// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The trace command: passive (until Ctrl-C or --duration: trace_passive.c), command
 * mode (attach, run CMD (command.c), detach, report, exit with CMD's status) and
 * workload mode; the outputs opened first, the reports through report_out.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "workload/boot_sweep.h"
#include "blktrace/btrace_out.h"
#include "cli/cli.h"
#include "base/clock.h"
#include "cli/commands.h"
#include "cli/trace_passive.h"
#include "disk/driver_probes.h"
#include "disk/fleet.h"
#include "workload/command.h"
#include "workload/sweep.h"
#include "files/outfile.h"
#include "output/report_out.h"
#include "base/stop_signals.h"
#include "trace/snoop.h"
#include "base/text.h"
#include "trace/tracer.h"

/* The outputs of a trace, opened before anything is traced (open_outputs). */
struct trace_outputs {
	struct outfile json, snoop, html;
	struct btrace_out *blktrace; /* --blktrace DIR */
};

/* 4 MiB: at 72 bytes a record, ~58k requests, 0.4 s at 150k IOPS between two drains. */
#define SNOOP_RING_BYTES (4U << 20)

/* -v: what is traced and how, once counting has begun. */
static void say_tracing(const struct options *o, const struct result *res, size_t nr,
			struct tracer *t)
{
	char what[1024] = "";
	const char *how = "";
	size_t i, k, used = 0;

	if (!o->verbose)
		return;
	for (k = 0; k < nr && used < sizeof(what); k++, res++) {
		used += snprintf(what + used, sizeof(what) - used, "%s%s (%u:%u)", k ? ", " : "",
				 res->device.name, res->device.major, res->device.minor);
		for (i = 0; i < res->nr_layers && used < sizeof(what); i++)
			used += snprintf(
				what + used, sizeof(what) - used, "%s%s",
				i ? ", " : " and the layers under it: ", res->layers[i].dev.name);
	}
	if (tracer__counts_per_cpu(t))
		how = " (depth without lost completions, one-queue disks counted per CPU)";
	else if (tracer__walks_slots(t))
		how = " (depth without lost completions)";
	fprintf(stderr, "blktrace-bench: tracing %s with %s programs%s, %zu bytes of BPF maps\n",
		what, tracer__flavour(t), how, tracer__map_bytes(t));
}

/*
 * Each result's share of the files' summary: its device's set and its layers' (the
 * tracer's order); the losses are the whole trace's. The sets move out of sum, which is
 * freed. 0 or -ENOMEM.
 */
static int share_blktrace(struct result *res, size_t nr, struct btrace_summary *sum)
{
	size_t i, off = 0, n;
	int err = 0;

	for (i = 0; i < nr && !err; off += n, i++) {
		struct btrace_summary *s = calloc(1, sizeof(*s));

		n = 1 + res[i].nr_layers;
		if (s) {
			*s = *sum;
			s->sets = calloc(n, sizeof(*sum->sets));
		}
		if (!s || !s->sets) {
			free(s);
			err = -ENOMEM;
			break;
		}
		memcpy(s->sets, &sum->sets[off], n * sizeof(*sum->sets));
		memset(&sum->sets[off], 0, n * sizeof(*sum->sets));
		s->nr_sets = n;
		res[i].blktrace = s;
	}
	btrace_summary__free(sum);
	return err;
}

/* --blktrace: the files named, what they hold into the results, said as blktrace ends. */
static int commit_blktrace(const struct options *o, struct result *res, size_t nr,
			   struct trace_outputs *out, struct diag *d)
{
	struct btrace_summary sum = {};
	uint64_t events = 0;
	char skipped[256];
	size_t i;
	int err;

	err = btrace_out__commit(out->blktrace, &sum, d);
	if (err)
		return err;
	for (i = 0; i < sum.nr_sets; i++)
		events += sum.sets[i].total.events;
	fprintf(stderr, "blktrace-bench: %llu blktrace events in %s (%s.blktrace.*%s), %llu lost\n",
		(unsigned long long)events, o->blktrace, sum.nr_sets ? sum.sets[0].name : "",
		sum.nr_sets > 1 ? " and the others'" : "", (unsigned long long)sum.lost);
	if (sum.lost_notes)
		fprintf(stderr,
			"blktrace-bench: and %llu task names lost: blkparse shows those tasks' "
			"events without a name\n",
			(unsigned long long)sum.lost_notes);
	if (btrace_summary__skipped(&sum, skipped, sizeof(skipped)))
		fprintf(stderr,
			"blktrace-bench: the kernel skipped our programs for events (%s), of "
			"the traced disks or others: the files lack those of the traced ones\n",
			skipped);
	err = share_blktrace(res, nr, &sum);
	return err ? diag__fail(d, err, "out of memory") : 0;
}

/*
 * Detach, then drain the ring buffers, then free the maps: the report's own I/O must
 * not be traced, and the last records must not be lost.
 */
static int stop_tracing(struct tracer **t, struct snoop **sn, const struct options *o,
			const struct env_config *cfg, struct result *res, size_t nr,
			struct trace_outputs *out, struct diag *d)
{
	const struct device_env env = env_config__device(cfg);
	unsigned long long records = 0, lost = 0, late = 0;
	struct outfile *snoop_out = &out->snoop;
	size_t i, k;
	int err;

	tracer__detach(*t);
	btrace_out__detach(out->blktrace);
	/* In dom0, a guest that came while tracing: its disk named in the report. */
	for (k = 0; k < nr; k++)
		device__find_xen_guest(&env, &res[k].device);
	for (k = 0; k < nr; k++) /* the tracer's, in every result it traced for */
		res[k].has_skipped = !tracer__skipped(*t, &res[k].tracer_skipped);
	err = snoop__stop(*sn, &records, &late);
	*sn = NULL;
	tracer__close(*t);
	*t = NULL;
	if (o->blktrace) {
		int bt_err = commit_blktrace(o, res, nr, out, d);

		if (bt_err) {
			outfile__abort(snoop_out);
			return bt_err;
		}
	}
	if (!o->snoop)
		return 0;
	for (k = 0; k < nr; k++)
		for (i = 0; i < res[k].nr_runs; i++)
			if (res[k].runs[i].has_block)
				lost += res[k].runs[i].block->c.lost_records;
	if (err) {
		outfile__abort(snoop_out);
		return diag__fail(d, err, "cannot write --snoop %s: %s", o->snoop, strerror(-err));
	}
	err = outfile__commit(snoop_out, d);
	if (err)
		return err;
	fprintf(stderr, "blktrace-bench: %llu request records in %s, %llu lost", records, o->snoop,
		lost);
	if (late)
		fprintf(stderr, ", %llu without a depth (their records came late)", late);
	fputc('\n', stderr);
	return 0;
}

/* The reports, where the options ask for them (report_out.c). 0 or -errno with d. */
static int report(const struct options *o, const struct result *res, size_t nr,
		  struct trace_outputs *out, struct diag *d)
{
	return report_out__write(res, nr, &out->json, &out->html, o->wl.recommend, o->brief, d);
}

/*
 * The traced devices of the results in the tracers' order: each disk, then the layers
 * under it. cmd_trace checked that they fit, and that no disk is traced twice.
 */
static unsigned int trace_devices(struct result *res, size_t nr, const struct device **devs)
{
	size_t i, k;
	unsigned int n = 0;

	for (k = 0; k < nr; k++) {
		devs[n++] = &res[k].device;
		for (i = 0; i < res[k].nr_layers; i++)
			devs[n++] = &res[k].layers[i].dev;
	}
	return n;
}

/*
 * The output files, checked and created before anything is traced: not a device,
 * not the workload's file, not each other.
 */
static int open_outputs(const struct options *o, struct result *res, size_t nr,
			struct trace_outputs *out, struct diag *d)
{
	struct outfile_input in[4] = { { o->wl.rw ? o->wl.file : NULL, "the workload's --file" },
				       { o->json, "the --json output as well" },
				       { o->snoop, "the --snoop output as well" },
				       { o->html, "the --html output as well" } };
	const struct device *devs[BLKIO_MAX_DEVICES];
	int err = 0;

	if (o->snoop && !strcmp(o->snoop, "-"))
		return diag__usage(d,
				   "--snoop -: the records are binary; give a file (--snoop-text "
				   "reads it)");
	if (o->json && o->html && !strcmp(o->json, "-") && !strcmp(o->html, "-"))
		return diag__usage(d, "--json - and --html -: only one of them can go to stdout");
	if (o->json)
		err = outfile__open(&out->json, "--json", o->json, in, 1, d);
	if (!err && o->snoop)
		err = outfile__open(&out->snoop, "--snoop", o->snoop, in, 2, d);
	if (!err && o->html)
		err = outfile__open(&out->html, "--html", o->html, in, 3, d);
	if (!err && o->blktrace)
		err = btrace_out__open(&out->blktrace, o->blktrace, devs,
				       trace_devices(res, nr, devs), in, 4, d);
	return err;
}

/* --blktrace: the per-event programs beside the aggregate ones, same devices. */
static int start_blktrace(const struct options *o, const struct env_config *cfg,
			  const struct tracer_opts *topts, const struct tracer *t,
			  struct btrace_out *out, struct diag *d)
{
	struct btrace_opts bopts = {
		.devs = topts->devs,
		.nr_devs = topts->nr_devs,
		.force_raw_tp = o->raw_tp || cfg->force_raw_tp,
		.verbose = o->verbose,
		.notes = stderr,
		.tracer = t,
		.stall_every = cfg->stall_records,
	};

	return btrace_out__start(out, &bopts, d);
}

/* Whether xen-blkfront's rings are probed, in each result; a failed load said once. */
static void note_ring_probes(const struct tracer *t, struct result *res, size_t nr)
{
	const char *why, *how = tracer__ring_probes(t, &why);
	size_t k;

	for (k = 0; k < nr; k++) {
		snprintf(res[k].ring_probes, sizeof(res[k].ring_probes), "%s", how ? how : "");
		snprintf(res[k].ring_note, sizeof(res[k].ring_note), "%s", how ? "" : why);
	}
	if (!how)
		driver_probes__say(why, stderr);
}

/*
 * Attach: the tracer, the snoop writer and the --blktrace writer when asked. -EINTR: a
 * signal came first.
 */
static int start_tracing(const struct options *o, const struct env_config *cfg, struct result *res,
			 size_t nr, struct tracer **t, struct snoop **sn, struct trace_outputs *out,
			 struct diag *d)
{
	const struct driver_probe_env probes = { cfg->kallsyms, cfg->sysfs_root };
	const struct device *devs[BLKIO_MAX_DEVICES];
	struct tracer_opts topts = {};
	size_t k;
	int err;

	topts.xen_env = &probes;
	topts.force_kprobes = cfg->force_kprobes;
	topts.devs = devs;
	topts.nr_devs = trace_devices(res, nr, devs);
	topts.force_raw_tp = o->raw_tp || cfg->force_raw_tp;
	topts.lose_every = cfg->lose_completions;
	topts.exact_depth = o->exact_depth;
	topts.verbose = o->verbose;
	topts.notes = stderr;
	topts.snoop_ring_bytes = o->snoop ? SNOOP_RING_BYTES : 0;
	topts.blktrace_ring_bytes = o->blktrace ? btrace_out__ring_bytes() : 0;
	err = tracer__open(&topts, t, d);
	if (err)
		return err;
	for (k = 0; k < nr; k++)
		snprintf(res[k].tracer_flavour, sizeof(res[k].tracer_flavour), "%s",
			 tracer__flavour(*t));
	err = tracer__start(*t);
	if (err)
		return diag__fail(d, err, "cannot attach to the block tracepoints: %s",
				  strerror(-err));
	note_ring_probes(*t, res, nr);
	if (stop_signal) { /* a signal while loading: nothing ran, nothing to report */
		d->signal = stop_signal;
		return -EINTR;
	}
	if (o->snoop) {
		size_t nr_slots;
		int slots = tracer__slots_fd(*t, &nr_slots);

		err = snoop__start(tracer__events_fd(*t), slots, nr_slots, out->snoop.f, sn);
		if (err)
			return diag__fail(d, err, "cannot write --snoop %s: %s", o->snoop,
					  strerror(-err));
	}
	return o->blktrace ? start_blktrace(o, cfg, &topts, *t, out->blktrace, d) : 0;
}

/*
 * This boot's values of a sweep across reboots, measured as workload mode measures one:
 * the job without --set (nothing to write: the value is the boot's), each run labelled
 * with its value. 0, or -errno with d.
 */
static int measure_boot_values(const struct options *o, const struct env_config *cfg,
			       const struct workload_env *env, const struct boot_sweep *bs,
			       struct result *res, struct trace_outputs *out, struct diag *d)
{
	struct workload_spec plain;
	struct snoop *sn = NULL;
	struct tracer *t = NULL;
	struct sweep job;
	int i, err;

	workload_spec__copy(&plain, &o->wl);
	plain.nr_set_values = 0;
	err = sweep__prepare(&job, &plain, &res->device, env, &stop_signal, d);
	if (err)
		return err == -EINTR ? diag__fail(d, err, "interrupted before the first run") : err;
	err = start_tracing(o, cfg, res, 1, &t, &sn, out, d);
	if (!err)
		say_tracing(o, res, 1, t);
	for (i = 0; !err && i < bs->nr_now; i++)
		err = sweep__run_set(&job, t, res, bs->knob->name, bs->now[i], &stop_signal, d);
	sweep__close(&job);
	if (!err)
		err = stop_tracing(&t, &sn, o, cfg, res, 1, out, d);
	tracer__detach(t);
	snoop__stop(sn, NULL, NULL);
	tracer__close(t);
	if (err == -EINTR)
		d->signal = stop_signal;
	return err;
}

/*
 * A --set sweep of a setting that changes only across a reboot: started here, or resumed
 * (o->resume) after a reboot; the values in force measured, then the next set for the
 * next boot (EXIT_REBOOT, no report yet) or, after the last, the report of every boot's
 * runs.
 */
static int run_boot_sweep(const struct options *o, const struct env_config *cfg,
			  const struct workload_env *env, const struct boot_knob *knob,
			  struct result *res, struct trace_outputs *out, struct diag *d)
{
	struct boot_sweep_env benv;
	struct boot_sweep bs = { .dirfd = -1 };
	int err;

	boot_sweep__system(&benv, cfg->sysfs_root);
	if (o->resume) {
		err = boot_sweep__load(&bs, &benv, d);
		err = err ? err : boot_sweep__ready(&bs, &res->device, d);
		if (err <= 0) {
			boot_sweep__close(&bs);
			return err ? err : EXIT_REBOOT;
		}
		err = 0;
	} else {
		err = boot_sweep__begin(&bs, &benv, knob, o->wl.set_values, o->wl.nr_set_values,
					&res->device, o->argc, o->argv, d);
	}
	if (!err && bs.nr_now)
		err = measure_boot_values(o, cfg, env, &bs, res, out, d);
	if (!err)
		err = boot_sweep__step(&bs, res, d);
	boot_sweep__close(&bs);
	if (err)
		return err < 0 ? err : EXIT_REBOOT;
	return report(o, res, 1, out, d);
}

/*
 * Workload mode: everything that can be refused is refused before the BPF programs
 * attach (sweep__prepare); the swept value is back and the target closed before the
 * report is written. Interrupted, the runs so far are reported and the signal is the
 * outcome.
 */
static int run_workload(const struct options *o, const struct env_config *cfg,
			const struct workload_env *env, struct result *res,
			struct trace_outputs *out, struct diag *d)
{
	struct snoop *sn = NULL;
	struct tracer *t = NULL;
	struct sweep job;
	int err, ran;

	if (o->wl.nr_set_values && boot_knob__find(o->wl.set_knob))
		return run_boot_sweep(o, cfg, env, boot_knob__find(o->wl.set_knob), res, out, d);
	err = sweep__prepare(&job, &o->wl, &res->device, env, &stop_signal, d);
	if (err == -EINTR) {
		d->signal = stop_signal;
		return diag__fail(d, err, "interrupted before the first run");
	}
	if (err)
		return err;
	err = start_tracing(o, cfg, res, 1, &t, &sn, out, d);
	if (err)
		goto cleanup;
	say_tracing(o, res, 1, t);
	ran = sweep__run(&job, t, res, &stop_signal, d);
	sweep__close(&job);
	err = ran == -EINTR ? 0 : ran;
	if (err)
		goto cleanup;
	if (ran == -EINTR)
		diag__note(stderr, "interrupted: reporting the runs so far");
	err = stop_tracing(&t, &sn, o, cfg, res, 1, out, d);
	if (!err)
		err = report(o, res, 1, out, d);
	if (!err && ran == -EINTR) {
		d->signal = stop_signal;
		err = -EINTR;
	}
cleanup:
	sweep__close(&job);
	tracer__detach(t);
	snoop__stop(sn, NULL, NULL);
	tracer__close(t);
	return err;
}

/* Each result's run gets its slice of the devices' figures (one tracer, N results). */
static void share_out(struct result *res, size_t nr, const struct block_stats *all)
{
	size_t i, off = 0;

	for (i = 0; i < nr; off += 1 + res[i].nr_layers, i++)
		memcpy(trace__last_run(&res[i])->block, &all[off],
		       (1 + res[i].nr_layers) * sizeof(*all));
}

/* Command mode, the command ended with status: what it did, counted. 0 or -errno with d. */
static int count_command(struct tracer *t, const struct options *o, struct result *res, size_t nr,
			 struct block_stats *all, const struct block_stats *start, int status,
			 struct diag *d)
{
	size_t i;
	int err;

	for (i = 0; i < nr; i++) {
		trace__last_run(&res[i])->exit_status = status;
		trace__last_run(&res[i])->command = true;
		text__join(trace__last_run(&res[i])->label, sizeof(trace__last_run(&res[i])->label),
			   o->nr_command, o->command);
	}
	err = tracer__snapshot_all(t, all);
	if (err)
		return diag__fail(d, err, "cannot read the BPF maps: %s", strerror(-err));
	block_stats__delta_n(all, all, start, trace__nr_traced(res, nr));
	share_out(res, nr, all);
	return 0;
}

/* A run for every result (passive or command mode), labelled. 0 or -ENOMEM. */
static int add_runs(struct result *res, size_t nr, const char *label)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (!result__add_run(&res[i], true, false))
			return -ENOMEM;
		snprintf(trace__last_run(&res[i])->label, sizeof(trace__last_run(&res[i])->label),
			 "%s", label);
	}
	return 0;
}

/* Passive and command mode: 0, the command's exit status, or -errno with d. */
static int run_trace(const struct options *o, const struct env_config *cfg, struct result *res,
		     size_t nr, struct trace_outputs *out, struct diag *d)
{
	size_t i, n = trace__nr_traced(res, nr);
	struct block_stats *start = NULL, *all = NULL;
	struct snoop *sn = NULL;
	struct tracer *t = NULL;
	int err, status = 0;
	double t0, seconds = 0;

	err = start_tracing(o, cfg, res, nr, &t, &sn, out, d);
	if (err)
		goto cleanup;
	start = calloc(n, sizeof(*start));
	all = calloc(n, sizeof(*all));
	if (!start || !all || add_runs(res, nr, o->command ? "" : "passive")) {
		err = diag__fail(d, -ENOMEM, "out of memory");
		goto cleanup;
	}
	err = tracer__snapshot_all(t, start);
	if (!err)
		err = tracer__reset_max(t);
	if (err) {
		diag__fail(d, err, "cannot read the BPF maps: %s", strerror(-err));
		goto cleanup;
	}
	/* After the baseline: whoever waits for this line misses nothing it then does. */
	say_tracing(o, res, nr, t);
	t0 = clock__seconds(CLOCK_MONOTONIC);
	if (o->command) {
		status = command__run(o->command, &seconds);
		if (status < 0) {
			/* What a shell does: no report, the status says the command never ran. */
			diag__note(stderr, "cannot run '%s': %s", o->command[0], strerror(-status));
			status = EXIT_NOEXEC;
			goto cleanup;
		}
		err = count_command(t, o, res, nr, all, start, status, d);
	} else {
		err = trace_passive__run(t, o, cfg, res, nr, all, start, d);
		if (!err)
			share_out(res, nr, all);
		seconds = clock__seconds(CLOCK_MONOTONIC) - t0;
	}
	for (i = 0; i < nr; i++)
		trace__last_run(&res[i])->seconds = seconds;
	/* Detach before writing: the report's own I/O must not be traced. */
	if (!err)
		err = stop_tracing(&t, &sn, o, cfg, res, nr, out, d);
	if (!err)
		err = report(o, res, nr, out, d);
cleanup:
	tracer__detach(t);
	snoop__stop(sn, NULL, NULL);
	tracer__close(t);
	free(start);
	free(all);
	return err ? err : status;
}

/* The layers under the traced device, traced with it (a dm/md device, a loop device). */
static int find_stack(const struct env_config *cfg, struct result *res, struct diag *d)
{
	struct stack st;
	int err;

	err = stack__discover(cfg->sysfs_root, &res->device, &st, d);
	if (err)
		return err;
	snprintf(res->stack_note, sizeof(res->stack_note), "%s", st.note);
	snprintf(res->stack_top_kind, sizeof(res->stack_top_kind), "%s", st.top_kind);
	if (!st.n) {
		stack__free(&st);
		return 0;
	}
	res->layers = st.layers;
	res->nr_layers = st.n;
	return 0;
}

/* What cli.c cannot know of one option alone; it refuses options a mode does not use. */
static int check_modes(const struct options *o, struct diag *d)
{
	if (!o->trace)
		return diag__usage(d, "--trace DEV is required (try --help)");
	if (o->command && o->wl.rw)
		return diag__usage(d, "--rw runs the built-in workload: give it or a command, not "
				      "both");
	if (o->wl.rw && fleet__several(o->trace))
		return diag__usage(d,
				   "--rw runs the built-in workload on one disk: --trace %s names "
				   "several (trace them passively, or with -- CMD)",
				   o->trace);
	if (o->html && fleet__several(o->trace))
		return diag__usage(d,
				   "--html draws one disk's page: --trace %s names several (--json "
				   "keeps them all; report draws a page from one disk's document)",
				   o->trace);
	return 0;
}

/*
 * A sweep that died left settings changed: put them back (a sweep does so under its
 * lock, in sweep__prepare). What cannot be done is said, and the run goes on.
 */
static void recover_settings(const struct sweep_env *env, struct device *dev)
{
	struct diag d = {};
	int ret = sweep_state__recover_idle(env, dev, stderr, &d);

	if (ret < 0)
		diag__say(&d);
	else if (ret > 0)
		device__read_limits(dev);
}

/* Every traced device of the results, the tops and their layers, disk by disk apart. */
static int check_results(const struct result *res, size_t nr, struct diag *d)
{
	const struct device *devs[BLKIO_MAX_DEVICES];
	size_t i, k, n = trace__nr_traced(res, nr);

	if (n > BLKIO_MAX_DEVICES)
		return diag__usage_err(d, -E2BIG,
				       "--trace %s: %zu devices with the layers under them, at "
				       "most %d can be traced at once",
				       nr > 1 ? "list" : res->device.name, n, BLKIO_MAX_DEVICES);
	for (n = 0, k = 0; k < nr; k++) {
		devs[n++] = &res[k].device;
		for (i = 0; i < res[k].nr_layers; i++)
			devs[n++] = &res[k].layers[i].dev;
	}
	return fleet__check_disjoint(devs, n, d);
}

/*
 * The disks --trace names, a result each: one disk (with its stack), a list (each with
 * its stack), or all (each disk plainly: its layers are disks of the list already).
 */
static int make_results(const struct options *o, const struct env_config *cfg, struct result **out,
			size_t *nr, struct diag *d)
{
	const struct device_env env = env_config__device(cfg);
	struct fleet f = {};
	struct result *res;
	size_t i;
	int err;

	*out = NULL;
	*nr = 0;
	if (fleet__several(o->trace))
		err = fleet__resolve(cfg->sysfs_root, o->trace, BLKIO_MAX_DEVICES, true, &f, d);
	else
		err = (f.devs = malloc(sizeof(*f.devs)))
			      ? device__resolve_env(&env, o->trace, &f.devs[f.n++], d)
			      : diag__fail(d, -ENOMEM, "out of memory");
	if (!err && !f.n)
		err = diag__usage(d, "--trace all: no disk with a medium to trace");
	res = err ? NULL : calloc(f.n, sizeof(*res));
	if (!err && !res)
		err = diag__fail(d, -ENOMEM, "out of memory");
	for (i = 0; !err && i < f.n; i++) {
		res[i].device = f.devs[i];
		res[i].has_device = true;
		(*nr)++;
		if (!f.all)
			err = find_stack(cfg, &res[i], d);
	}
	*out = res;
	fleet__free(&f);
	return err ? err : check_results(res, *nr, d);
}

static void free_results(struct result *res, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		result__free(&res[i]);
	free(res);
}

/*
 * What every result of the invocation says about it, the notices about each disk, and
 * the settings a dead sweep left changed on any of them (and their layers: a sweep of
 * DEV:KNOB changes a layer) put back, unless this run sweeps.
 */
static void prepare_results(const struct options *o, const struct env_config *cfg,
			    const struct sweep_env *state, struct result *res, size_t nr)
{
	const struct driver_probe_env probes = { cfg->kallsyms, cfg->sysfs_root };
	size_t i, k;

	for (i = 0; i < nr; i++) {
		driver_probes__notice(&probes, &res[i].device, stderr);
		snprintf(res[i].tool_version, sizeof(res[i].tool_version), "%s",
			 BLKTRACE_BENCH_VERSION);
		text__join(res[i].command_line, sizeof(res[i].command_line), o->argc, o->argv);
		host_info__read(&res[i].host);
	}
	/* Before anything can change a setting, or be refused: see stop_signals.h. */
	stop_signals__catch();
	for (i = 0; !o->wl.nr_set_values && i < nr; i++) {
		recover_settings(state, &res[i].device);
		for (k = 0; k < res[i].nr_layers; k++)
			recover_settings(state, &res[i].layers[k].dev);
	}
}

int cmd_trace(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	struct trace_outputs out = {};
	struct workload_env env = {};
	struct result *res = NULL;
	size_t nr = 0;
	int err;

	if (o->snoop_text) {
		err = snoop__print_text(o->snoop_text, stdout, d);
		return err ? err : finish_stdout(d);
	}
	err = check_modes(o, d);
	if (!err)
		err = make_results(o, cfg, &res, &nr, d);
	if (err)
		goto cleanup;
	env.target.sysfs = cfg->sysfs_root;
	env.state.dir = o->state_dir;
	env.layers = res[0].layers; /* the workload runs on one disk (check_modes) */
	env.nr_layers = res[0].nr_layers;
	env.notes = stderr;
	prepare_results(o, cfg, &env.state, res, nr);
	/* Checked and created before anything runs; a Ctrl-C from here on removes them. */
	err = open_outputs(o, res, nr, &out, d);
	if (!err)
		err = o->wl.rw ? run_workload(o, cfg, &env, res, &out, d)
			       : run_trace(o, cfg, res, nr, &out, d);
	/* Whatever went wrong, no half file: the temporary files go (committed ones stay). */
	outfile__abort(&out.json);
	outfile__abort(&out.snoop);
	outfile__abort(&out.html);
	btrace_out__close(out.blktrace);
cleanup:
	free_results(res, nr);
	return err;
}
