// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The trace command: passive (until Ctrl-C or --duration) and command mode
 * (attach, run CMD, detach, report, exit with CMD's status).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cli.h"
#include "commands.h"
#include "driver_probes.h"
#include "sweep.h"
#include "outfile.h"
#include "report_json.h"
#include "report_text.h"
#include "signals.h"
#include "snoop.h"
#include "text.h"
#include "tracer.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9)};

	nanosleep(&ts, NULL); /* EINTR is how Ctrl-C ends passive mode */
}

/*
 * Run argv to completion; returns its exit status as a shell reports it
 * (128 + signal when killed), or -errno when it could not be started.
 * A CLOEXEC pipe carries execvp's errno back: EOF means the exec worked.
 */
static int run_command(char **argv)
{
	int pipefd[2], status, child_err = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (pid == 0) {
		/* exec resets our handlers to the defaults (a HUP nohup ignores stays so). */
		close(pipefd[0]);
		execvp(argv[0], argv);
		child_err = errno;
		/* Should this write fail, the parent sees EOF and exit status 127. */
		if (write(pipefd[1], &child_err, sizeof(child_err)) != sizeof(child_err))
			child_err = 0;
		_exit(EXIT_NOEXEC);
	}
	close(pipefd[1]);
	do
		n = read(pipefd[0], &child_err, sizeof(child_err));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);

	for (;;) {
		/*
		 * Forward a signal sent to us alone; the command decides what to do. Not
		 * SIGPIPE: that one is about our own output, not the command's.
		 */
		if (stop_signal) {
			if (stop_signal != SIGPIPE)
				kill(pid, stop_signal);
			stop_signal = 0;
		}
		if (waitpid(pid, &status, 0) == pid)
			break;
		if (errno != EINTR)
			return -errno;
	}
	if (n == sizeof(child_err) && child_err)
		return -child_err;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void merge_max(struct blkio_maxes *into, const struct blkio_maxes *m)
{
	__u64 *a = (__u64 *)into;
	const __u64 *b = (const __u64 *)m;
	size_t i;

	for (i = 0; i < sizeof(*m) / sizeof(__u64); i++)
		if (b[i] > a[i])
			a[i] = b[i];
}

/* Passive mode: until Ctrl-C/SIGTERM or the duration; interval reports on the way. */
static int run_passive(struct tracer *t, const struct options *o, struct result *res,
		       struct block_stats *total, const struct block_stats *start)
{
	struct block_stats *prev = NULL, *cur = NULL, *delta = NULL;
	struct blkio_maxes all_max = {};
	double t0 = now_s(), next = o->interval ? t0 + o->interval : 0, last = t0;
	unsigned int nr = 0;
	int err = 0;

	prev = malloc(sizeof(*prev));
	cur = malloc(sizeof(*cur));
	delta = malloc(sizeof(*delta));
	if (!prev || !cur || !delta) {
		err = -ENOMEM;
		goto cleanup;
	}
	*prev = *start;
	while (!stop_signal) {
		double now = now_s(), wake = o->duration ? t0 + o->duration : now + 3600;

		if (o->duration && now >= t0 + o->duration)
			break;
		if (next && next < wake)
			wake = next;
		if (wake > now)
			sleep_s(wake - now);
		if (!next || now_s() < next || stop_signal)
			continue;
		/* One interval report, on stdout unless JSON goes there. */
		err = tracer__snapshot(t, cur);
		if (err)
			goto cleanup;
		block_stats__delta(delta, cur, prev);
		merge_max(&all_max, &cur->max);
		tracer__reset_max(t);
		now = now_s();
		nr++;
		/* What it really covered: from the last snapshot to this one, late or not. */
		if (!o->json || strcmp(o->json, "-")) {
			struct run r = {.seconds = now - last, .has_block = true, .block = delta};

			snprintf(r.label, sizeof(r.label), "interval %u (%.2f-%.2f s)", nr, last - t0,
				 now - t0);
			report_text__interval(stdout, res, &r);
			fputc('\n', stdout);
			fflush(stdout);
		}
		*prev = *cur;
		last = now;
		/* A wakeup later than a whole interval folds the missed ones into this one. */
		while (next <= now)
			next += o->interval;
	}
	err = tracer__snapshot(t, cur);
	if (err)
		goto cleanup;
	block_stats__delta(total, cur, start);
	merge_max(&total->max, &all_max);
cleanup:
	free(prev);
	free(cur);
	free(delta);
	return err;
}

/* 4 MiB: at 72 bytes a record, ~58k requests, 0.4 s at 150k IOPS between two drains. */
#define SNOOP_RING_BYTES (4U << 20)

/* -v: what is traced and how, once counting has begun. */
static void say_tracing(const struct options *o, const struct result *res, struct tracer *t)
{
	if (o->verbose)
		fprintf(stderr, "blktrace-bench: tracing %s (%u:%u) with %s programs, %zu bytes of "
				"BPF maps\n", res->device.name, res->device.major, res->device.minor,
			tracer__flavour(t), tracer__map_bytes(t));
}

/*
 * Detach, then drain the snoop ring buffer, then free the maps: the report's own
 * I/O must not be traced, and the last records must not be lost.
 */
static int stop_tracing(struct tracer **t, struct snoop **sn, const struct options *o,
			const struct result *res, struct outfile *snoop_out)
{
	unsigned long long records = 0, lost = 0;
	char msg[512];
	size_t i;
	int err;

	tracer__detach(*t);
	err = snoop__stop(*sn, &records);
	*sn = NULL;
	tracer__close(*t);
	*t = NULL;
	if (!o->snoop)
		return 0;
	for (i = 0; i < res->nr_runs; i++)
		if (res->runs[i].has_block)
			lost += res->runs[i].block->c.lost_events;
	if (err) {
		outfile__abort(snoop_out);
		die_msg("cannot write --snoop %s: %s", o->snoop, strerror(-err));
		return err;
	}
	err = outfile__commit(snoop_out, msg, sizeof(msg));
	if (err) {
		die_msg("%s", msg);
		return err;
	}
	fprintf(stderr, "blktrace-bench: %llu request records in %s, %llu lost\n", records, o->snoop,
		lost);
	return 0;
}

/* Text on stdout (unless the JSON goes there), JSON where asked. */
static int report(const struct options *o, const struct result *res, struct outfile *json)
{
	struct report rep;
	char msg[512];
	json_t *doc;
	int err;

	/* Everything derived, once, before either printer runs. */
	if (report__build(&rep, res, o->recommend)) {
		outfile__abort(json);
		die_msg("out of memory");
		return EXIT_FAIL;
	}
	if (!o->json || strcmp(o->json, "-"))
		report_text__print(stdout, &rep, o->brief);
	if (o->json) {
		doc = report_json__doc(&rep);
		err = doc ? outfile__write_json(json, doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10))
			  : -ENOMEM;
		json_decref(doc);
		if (err) {
			outfile__abort(json);
			report__free(&rep);
			die_msg("cannot write --json %s: %s", strcmp(o->json, "-") ? o->json :
				"to stdout", strerror(-err));
			return EXIT_FAIL;
		}
		if (outfile__commit(json, msg, sizeof(msg))) {
			die_msg("%s", msg);
			report__free(&rep);
			return EXIT_FAIL;
		}
	}
	report__free(&rep);
	return finish_stdout() ? EXIT_FAIL : EXIT_OK;
}

/*
 * The output files, checked and created before anything is traced: not a device,
 * not the workload's file, not each other.
 */
static int open_outputs(const struct options *o, struct outfile *json, struct outfile *snoop)
{
	struct outfile_input in[2] = {{o->rw ? o->file : NULL, "the workload's --file"},
				      {o->json, "the --json output as well"}};
	char msg[512];
	int err = 0;

	if (o->snoop && !strcmp(o->snoop, "-")) {
		die_msg("--snoop -: the records are binary; give a file (--snoop-text reads it)");
		return EXIT_USAGE;
	}
	if (o->json)
		err = outfile__open(json, "--json", o->json, in, 1, msg, sizeof(msg));
	if (!err && o->snoop)
		err = outfile__open(snoop, "--snoop", o->snoop, in, 2, msg, sizeof(msg));
	if (!err)
		return EXIT_OK;
	die_msg("%s", msg);
	return err == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
}

/* Attach: the tracer, and the snoop writer when asked. 0, or EXIT_FAIL after saying why. */
static int start_tracing(const struct options *o, const struct env_config *cfg,
			 struct result *res, struct tracer **t, struct snoop **sn,
			 struct outfile *snoop_out)
{
	struct tracer_opts topts = {};
	char err_msg[4096] = ""; /* room for the verifier's last lines */
	int err;

	topts.dev = &res->device;
	topts.force_raw_tp = o->raw_tp || cfg->force_raw_tp;
	topts.verbose = o->verbose;
	topts.snoop_ring_bytes = o->snoop ? SNOOP_RING_BYTES : 0;
	topts.errbuf = err_msg;
	topts.errlen = sizeof(err_msg);
	err = tracer__open(&topts, t);
	if (err) {
		die_msg("%s", err_msg[0] ? err_msg : strerror(-err));
		return EXIT_FAIL;
	}
	snprintf(res->tracer_flavour, sizeof(res->tracer_flavour), "%s", tracer__flavour(*t));
	err = tracer__start(*t);
	if (err) {
		die_msg("cannot attach to the block tracepoints: %s", strerror(-err));
		return EXIT_FAIL;
	}
	if (stop_signal) /* a signal while loading: nothing ran, nothing to report */
		return 128 + stop_signal;
	if (o->snoop) {
		err = snoop__start(tracer__events_fd(*t), snoop_out->f, sn);
		if (err) {
			die_msg("cannot write --snoop %s: %s", o->snoop, strerror(-err));
			return EXIT_FAIL;
		}
	}
	return 0;
}

/* The exit status of an interrupted workload, as a shell reports a death by that signal. */
static int interrupted_rc(void)
{
	return 128 + (stop_signal ? stop_signal : SIGINT);
}

/*
 * Workload mode: everything that can be refused is refused before the BPF programs
 * attach (sweep__prepare); the swept value is back and the target closed before the
 * report is written.
 */
static int run_workload(const struct options *o, const struct env_config *cfg,
			const struct workload_env *env, struct result *res, struct outfile *json,
			struct outfile *snoop_out)
{
	struct snoop *sn = NULL;
	struct tracer *t = NULL;
	struct sweep job;
	char err_msg[512] = "";
	int err, rc = EXIT_FAIL;

	err = sweep__prepare(&job, o, &res->device, env, &stop_signal, err_msg, sizeof(err_msg));
	if (err == -EINTR) {
		die_msg("interrupted before the first run");
		return interrupted_rc();
	}
	if (err) {
		die_msg("%s", err_msg[0] ? err_msg : strerror(-err));
		return err == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	rc = start_tracing(o, cfg, res, &t, &sn, snoop_out);
	if (rc)
		goto cleanup;
	rc = EXIT_FAIL;
	say_tracing(o, res, t);
	err = sweep__run(&job, t, res, &stop_signal, err_msg, sizeof(err_msg));
	sweep__close(&job);
	if (err && err != -EINTR) {
		die_msg("%s", err_msg[0] ? err_msg : strerror(-err));
		rc = err == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
		goto cleanup;
	}
	if (err == -EINTR)
		die_msg("interrupted: reporting the runs so far");
	if (stop_tracing(&t, &sn, o, res, snoop_out))
		goto cleanup;
	rc = report(o, res, json);
	if (rc == EXIT_OK && err == -EINTR)
		rc = interrupted_rc();
cleanup:
	sweep__close(&job);
	tracer__detach(t);
	snoop__stop(sn, NULL);
	tracer__close(t);
	return rc;
}

/* Passive and command mode. */
static int run_trace(const struct options *o, const struct env_config *cfg, struct result *res,
		     struct outfile *json, struct outfile *snoop_out)
{
	struct block_stats *start = NULL;
	struct snoop *sn = NULL;
	struct tracer *t = NULL;
	struct run *run;
	int err, rc = EXIT_FAIL;
	double t0;

	rc = start_tracing(o, cfg, res, &t, &sn, snoop_out);
	if (rc)
		goto cleanup;
	rc = EXIT_FAIL;
	start = malloc(sizeof(*start));
	run = result__add_run(res, true, false);
	if (!start || !run) {
		die_msg("out of memory");
		goto cleanup;
	}
	err = tracer__snapshot(t, start);
	if (!err)
		err = tracer__reset_max(t);
	if (err) {
		die_msg("cannot read the BPF maps: %s", strerror(-err));
		goto cleanup;
	}
	/* After the baseline: whoever waits for this line misses nothing it then does. */
	say_tracing(o, res, t);
	t0 = now_s();
	if (o->command) {
		int status = run_command(o->command);

		if (status < 0) {
			die_msg("cannot run '%s': %s", o->command[0], strerror(-status));
			rc = EXIT_NOEXEC;
			goto cleanup;
		}
		run->exit_status = status;
		text__join(run->label, sizeof(run->label), o->nr_command, o->command);
		err = tracer__snapshot(t, run->block);
		if (!err)
			block_stats__delta(run->block, run->block, start);
	} else {
		snprintf(run->label, sizeof(run->label), "passive");
		err = run_passive(t, o, res, run->block, start);
	}
	run->seconds = now_s() - t0;
	if (err) {
		die_msg("cannot read the BPF maps: %s", strerror(-err));
		goto cleanup;
	}
	/* Detach before writing: the report's own I/O must not be traced. */
	if (stop_tracing(&t, &sn, o, res, snoop_out))
		goto cleanup;
	rc = report(o, res, json);
	if (rc == EXIT_OK && o->command)
		rc = run->exit_status;
cleanup:
	tracer__detach(t);
	snoop__stop(sn, NULL);
	tracer__close(t);
	free(start);
	return rc;
}

static int check_modes(const struct options *o)
{
	if (!o->trace) {
		die_msg("--trace DEV is required (try --help)");
		return EXIT_USAGE;
	}
	if ((o->command || o->rw) && (o->duration || o->interval)) {
		die_msg("--duration and --interval are for passive mode, not with a workload");
		return EXIT_USAGE;
	}
	if (o->command && o->rw) {
		die_msg("--rw runs the built-in workload: give it or a command, not both");
		return EXIT_USAGE;
	}
	if (!o->rw && o->nr_set_values) {
		die_msg("--set sweeps the built-in workload: it needs --rw");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cmd_trace(int argc, char **argv, const struct env_config *cfg)
{
	const struct driver_probe_env probes = { cfg->kallsyms, cfg->sysfs_root };
	struct outfile json_out = {}, snoop_out = {};
	struct workload_env env = {};
	struct result res = {};
	struct options o;
	char err_msg[512];
	int err, rc;

	err = cli_parse("trace", argc, argv, &o);
	if (err)
		return err == -ECANCELED ? EXIT_OK : EXIT_USAGE;
	if (o.snoop_text) {
		err = snoop__print_text(o.snoop_text, stdout, err_msg, sizeof(err_msg));
		if (err)
			die_msg("%s", err_msg);
		return err ? (err == -EINVAL ? EXIT_USAGE : EXIT_FAIL) :
			     (finish_stdout() ? EXIT_FAIL : EXIT_OK);
	}
	rc = check_modes(&o);
	if (rc)
		return rc;
	err = device__resolve(cfg->sysfs_root, o.trace, &res.device, err_msg, sizeof(err_msg));
	if (err) {
		die_msg("%s", err_msg);
		return EXIT_USAGE;
	}
	res.has_device = true;
	driver_probes__notice(&probes, &res.device, stderr);
	snprintf(res.tool_version, sizeof(res.tool_version), "%s", BLKTRACE_BENCH_VERSION);
	text__join(res.command_line, sizeof(res.command_line), argc, argv);
	host_info__read(&res.host);
	env.target.sysfs = cfg->sysfs_root;
	env.state.dir = o.state_dir;
	/* Before anything can change a setting, or be refused: see signals.h. */
	signals__catch();
	/* A sweep that died left settings changed: put them back (a sweep does so under
	 * its lock, in sweep__prepare). */
	if (!o.nr_set_values) {
		err = sweep_state__recover_idle(&env.state, &res.device, stderr, err_msg,
						sizeof(err_msg));
		if (err < 0)
			die_msg("%s", err_msg);
		else if (err > 0)
			device__read_limits(&res.device);
	}
	/* Checked and created before anything runs; a Ctrl-C from here on removes them. */
	rc = open_outputs(&o, &json_out, &snoop_out);
	if (rc == EXIT_OK)
		rc = o.rw ? run_workload(&o, cfg, &env, &res, &json_out, &snoop_out) :
			    run_trace(&o, cfg, &res, &json_out, &snoop_out);
	/* Whatever went wrong, no half file: the temporary files go (committed ones stay). */
	outfile__abort(&json_out);
	outfile__abort(&snoop_out);
	result__free(&res);
	return rc;
}
