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
#include "btrace_out.h"
#include "cli.h"
#include "commands.h"
#include "driver_probes.h"
#include "sweep.h"
#include "outfile.h"
#include "report_out.h"
#include "report_text.h"
#include "snoop.h"
#include "text.h"
#include "tracer.h"

static volatile sig_atomic_t stop_signal;

/* The files a trace writes, opened before anything is traced (open_outputs). */
struct trace_outputs {
	struct outfile json, snoop;
	struct btrace_out *blktrace; /* --blktrace DIR */
};

static void on_signal(int sig)
{
	stop_signal = sig;
}

/*
 * Every catchable signal whose default is to end the process ends us the orderly way
 * instead: the runs so far reported, a swept setting restored, the target closed. A
 * dropped SSH session (HUP), a stray kill -USR1 or an alarm must not leave a knob
 * changed. INT and QUIT are caught even when the shell started us ignoring them (a
 * background job), as INT always was. No SA_RESTART: a signal must interrupt our
 * sleeps and waits.
 */
static const int stop_signals[] = {
	SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE,
};

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		/* Under nohup a hangup must not end us: it cannot kill us either. */
		if (stop_signals[i] == SIGHUP && !sigaction(SIGHUP, NULL, &old) &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(stop_signals[i], &sa, NULL);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9) };

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
	size_t i, n = tracer__nr_devices(t);
	struct block_stats *prev = calloc(n, sizeof(*prev)), *cur = calloc(n, sizeof(*cur));
	struct block_stats *delta = calloc(n, sizeof(*delta));
	struct blkio_maxes *all_max = calloc(n, sizeof(*all_max));
	double t0 = now_s(), next = o->interval ? t0 + o->interval : 0, last = t0;
	unsigned int nr = 0;
	int err = 0;

	if (!prev || !cur || !delta || !all_max) {
		err = -ENOMEM;
		goto cleanup;
	}
	memcpy(prev, start, n * sizeof(*prev));
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
		err = tracer__snapshot_all(t, cur);
		if (err)
			goto cleanup;
		block_stats__delta_n(delta, cur, prev, n);
		for (i = 0; i < n; i++)
			merge_max(&all_max[i], &cur[i].max);
		tracer__reset_max(t);
		now = now_s();
		nr++;
		/* What it really covered: from the last snapshot to this one, late or not. */
		if (!o->json || strcmp(o->json, "-")) {
			struct run r = { .seconds = now - last, .has_block = true, .block = delta };

			snprintf(r.label, sizeof(r.label), "interval %u (%.2f-%.2f s)", nr,
				 last - t0, now - t0);
			report_text__interval(stdout, res, &r);
			fputc('\n', stdout);
			fflush(stdout);
		}
		memcpy(prev, cur, n * sizeof(*prev));
		last = now;
		/*
		 * The next report a whole interval after this one: a late wakeup makes an
		 * interval longer, never the next one shorter (and folds missed ones in).
		 */
		next = now + o->interval;
	}
	err = tracer__snapshot_all(t, cur);
	if (err)
		goto cleanup;
	block_stats__delta_n(total, cur, start, n);
	for (i = 0; i < n; i++)
		merge_max(&total[i].max, &all_max[i]);
cleanup:
	free(all_max);
	free(prev);
	free(cur);
	free(delta);
	return err;
}

/* 4 MiB: at 72 bytes a record, ~58k requests, 0.4 s at 150k IOPS between two drains. */
#define SNOOP_RING_BYTES (4U << 20)
/* 16 MiB: ~5 records of 80 bytes per request, ~40k requests between two drains. */
#define BTRACE_RING_BYTES (16U << 20)

/* -v: what is traced and how, once counting has begun. */
static void say_tracing(const struct options *o, const struct result *res, struct tracer *t)
{
	char under[512] = "";
	size_t i, used = 0;

	if (!o->verbose)
		return;
	for (i = 0; i < res->nr_layers && used < sizeof(under); i++)
		used += snprintf(under + used, sizeof(under) - used, "%s%s",
				 i ? ", " : " and the layers under it: ", res->layers[i].dev.name);
	fprintf(stderr,
		"blktrace-bench: tracing %s (%u:%u)%s with %s programs, %zu bytes of BPF "
		"maps\n",
		res->device.name, res->device.major, res->device.minor, under, tracer__flavour(t),
		tracer__map_bytes(t));
}

/* --blktrace: the files named, and what they hold into the result. */
static int commit_blktrace(const struct options *o, struct result *res, struct trace_outputs *out,
			   struct diag *d)
{
	struct btrace_summary *sum = calloc(1, sizeof(*sum));
	uint64_t events = 0;
	char skipped[256];
	size_t i;
	int err;

	if (!sum)
		return diag__fail(d, -ENOMEM, "out of memory");
	err = btrace_out__commit(out->blktrace, sum, d);
	if (err) {
		free(sum);
		return err;
	}
	res->blktrace = sum;
	for (i = 0; i < sum->nr_sets; i++)
		events += sum->sets[i].total.events;
	/* As blktrace ends: what was written, and what was dropped. */
	fprintf(stderr, "blktrace-bench: %llu blktrace events in %s (%s.blktrace.*%s), %llu lost\n",
		(unsigned long long)events, o->blktrace, sum->nr_sets ? sum->sets[0].name : "",
		sum->nr_sets > 1 ? " and the layers'" : "", (unsigned long long)sum->lost);
	if (btrace_summary__skipped(sum, skipped, sizeof(skipped)))
		fprintf(stderr,
			"blktrace-bench: the kernel skipped our programs for events (%s), of "
			"this disk or another: the files lack those of this one\n",
			skipped);
	return 0;
}

/*
 * Detach, then drain the snoop ring buffer, then free the maps: the report's own
 * I/O must not be traced, and the last records must not be lost.
 */
static int stop_tracing(struct tracer **t, struct snoop **sn, const struct options *o,
			struct result *res, struct trace_outputs *out, struct diag *d)
{
	unsigned long long records = 0, lost = 0;
	size_t i;
	int err;

	tracer__detach(*t);
	btrace_out__detach(out->blktrace);
	err = snoop__stop(*sn, &records);
	*sn = NULL;
	tracer__close(*t);
	*t = NULL;
	if (o->blktrace) {
		int bt_err = commit_blktrace(o, res, out, d);

		if (bt_err) {
			outfile__abort(&out->snoop);
			return bt_err;
		}
	}
	if (!o->snoop)
		return 0;
	for (i = 0; i < res->nr_runs; i++)
		if (res->runs[i].has_block)
			lost += res->runs[i].block->c.lost_events;
	if (err) {
		outfile__abort(&out->snoop);
		return diag__fail(d, err, "cannot write --snoop %s: %s", o->snoop, strerror(-err));
	}
	err = outfile__commit(&out->snoop, d);
	if (err)
		return err;
	fprintf(stderr, "blktrace-bench: %llu request records in %s, %llu lost\n", records,
		o->snoop, lost);
	return 0;
}

/* Text on stdout (unless the JSON goes there), JSON where asked. */
static int report(const struct options *o, const struct result *res, struct outfile *json,
		  struct diag *d)
{
	return report_out__write(res, o->json, json, o->recommend, o->brief, d);
}

/* The traced devices in the tracers' order: the device, then the layers under it. */
static unsigned int trace_devices(struct result *res, const struct device **devs)
{
	size_t i;

	devs[0] = &res->device;
	for (i = 0; i < res->nr_layers; i++)
		devs[1 + i] = &res->layers[i].dev;
	return 1 + res->nr_layers;
}

/*
 * The output files, checked and created before anything is traced: not a device,
 * not the workload's file, not each other.
 */
static int open_outputs(const struct options *o, struct result *res, struct trace_outputs *out,
			struct diag *d)
{
	struct outfile_input in[3] = { { o->rw ? o->file : NULL, "the workload's --file" },
				       { o->json, "the --json output as well" },
				       { o->snoop, "the --snoop output as well" } };
	const struct device *devs[1 + STACK_MAX_LAYERS];
	int err = 0;

	if (o->snoop && !strcmp(o->snoop, "-"))
		return diag__usage(d,
				   "--snoop -: the records are binary; give a file (--snoop-text "
				   "reads it)");
	if (o->json)
		err = outfile__open(&out->json, "--json", o->json, in, 1, d);
	if (!err && o->snoop)
		err = outfile__open(&out->snoop, "--snoop", o->snoop, in, 2, d);
	if (!err && o->blktrace)
		err = btrace_out__open(&out->blktrace, o->blktrace, devs, trace_devices(res, devs),
				       in, 3, d);
	return err;
}

/* --blktrace: the per-event programs beside the aggregate ones, same devices. */
static int start_blktrace(const struct options *o, const struct env_config *cfg,
			  const struct tracer_opts *topts, struct btrace_out *out, struct diag *d)
{
	struct btrace_opts bopts = {
		.devs = topts->devs,
		.nr_devs = topts->nr_devs,
		.force_raw_tp = o->raw_tp || cfg->force_raw_tp,
		.verbose = o->verbose,
		.ring_bytes = BTRACE_RING_BYTES,
	};

	return btrace_out__start(out, &bopts, d);
}

/* Attach: the tracer, and the snoop writer when asked. -EINTR: a signal came first. */
static int start_tracing(const struct options *o, const struct env_config *cfg, struct result *res,
			 struct tracer **t, struct snoop **sn, struct trace_outputs *out,
			 struct diag *d)
{
	const struct device *devs[1 + STACK_MAX_LAYERS];
	struct tracer_opts topts = {};
	int err;

	topts.devs = devs;
	topts.nr_devs = trace_devices(res, devs);
	topts.force_raw_tp = o->raw_tp || cfg->force_raw_tp;
	topts.verbose = o->verbose;
	topts.snoop_ring_bytes = o->snoop ? SNOOP_RING_BYTES : 0;
	err = tracer__open(&topts, t, d);
	if (err)
		return err;
	snprintf(res->tracer_flavour, sizeof(res->tracer_flavour), "%s", tracer__flavour(*t));
	err = tracer__start(*t);
	if (err)
		return diag__fail(d, err, "cannot attach to the block tracepoints: %s",
				  strerror(-err));
	if (stop_signal) { /* a signal while loading: nothing ran, nothing to report */
		d->signal = stop_signal;
		return -EINTR;
	}
	if (o->snoop) {
		err = snoop__start(tracer__events_fd(*t), out->snoop.f, sn);
		if (err)
			return diag__fail(d, err, "cannot write --snoop %s: %s", o->snoop,
					  strerror(-err));
	}
	return o->blktrace ? start_blktrace(o, cfg, &topts, out->blktrace, d) : 0;
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

	err = sweep__prepare(&job, o, &res->device, env, &stop_signal, d);
	if (err == -EINTR) {
		d->signal = stop_signal;
		return diag__fail(d, err, "interrupted before the first run");
	}
	if (err)
		return err;
	err = start_tracing(o, cfg, res, &t, &sn, out, d);
	if (err)
		goto cleanup;
	say_tracing(o, res, t);
	ran = sweep__run(&job, t, res, &stop_signal, d);
	sweep__close(&job);
	err = ran == -EINTR ? 0 : ran;
	if (err)
		goto cleanup;
	if (ran == -EINTR)
		die_msg("interrupted: reporting the runs so far");
	err = stop_tracing(&t, &sn, o, res, out, d);
	if (!err)
		err = report(o, res, &out->json, d);
	if (!err && ran == -EINTR) {
		d->signal = stop_signal;
		err = -EINTR;
	}
cleanup:
	sweep__close(&job);
	tracer__detach(t);
	snoop__stop(sn, NULL);
	tracer__close(t);
	return err;
}

/* Command mode, the command ended with status: what it did, counted. 0 or -errno with d. */
static int count_command(struct tracer *t, const struct options *o, const struct result *res,
			 struct run *run, const struct block_stats *start, int status,
			 struct diag *d)
{
	int err;

	run->exit_status = status;
	text__join(run->label, sizeof(run->label), o->nr_command, o->command);
	err = tracer__snapshot_all(t, run->block);
	if (err)
		return diag__fail(d, err, "cannot read the BPF maps: %s", strerror(-err));
	block_stats__delta_n(run->block, run->block, start, 1 + res->nr_layers);
	return 0;
}

/* Passive and command mode: 0, the command's exit status, or -errno with d. */
static int run_trace(const struct options *o, const struct env_config *cfg, struct result *res,
		     struct trace_outputs *out, struct diag *d)
{
	struct block_stats *start = NULL;
	struct snoop *sn = NULL;
	struct tracer *t = NULL;
	struct run *run;
	int err, status = 0;
	double t0;

	err = start_tracing(o, cfg, res, &t, &sn, out, d);
	if (err)
		goto cleanup;
	start = calloc(1 + res->nr_layers, sizeof(*start));
	run = result__add_run(res, true, false);
	if (!start || !run) {
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
	say_tracing(o, res, t);
	t0 = now_s();
	if (o->command) {
		status = run_command(o->command);
		if (status < 0) {
			/* What a shell does: no report, the status says the command never ran. */
			die_msg("cannot run '%s': %s", o->command[0], strerror(-status));
			status = EXIT_NOEXEC;
			goto cleanup;
		}
		err = count_command(t, o, res, run, start, status, d);
	} else {
		snprintf(run->label, sizeof(run->label), "passive");
		err = run_passive(t, o, res, run->block, start);
		if (err)
			diag__fail(d, err, "cannot read the BPF maps: %s", strerror(-err));
	}
	run->seconds = now_s() - t0;
	/* Detach before writing: the report's own I/O must not be traced. */
	if (!err)
		err = stop_tracing(&t, &sn, o, res, out, d);
	if (!err)
		err = report(o, res, &out->json, d);
cleanup:
	tracer__detach(t);
	snoop__stop(sn, NULL);
	tracer__close(t);
	free(start);
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

static int check_modes(const struct options *o, struct diag *d)
{
	if (!o->trace)
		return diag__usage(d, "--trace DEV is required (try --help)");
	if ((o->command || o->rw) && (o->duration || o->interval))
		return diag__usage(d, "--duration and --interval are for passive mode, not with a "
				      "workload");
	if (o->command && o->rw)
		return diag__usage(d, "--rw runs the built-in workload: give it or a command, not "
				      "both");
	if (!o->rw && o->nr_set_values)
		return diag__usage(d, "--set sweeps the built-in workload: it needs --rw");
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

int cmd_trace(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	const struct driver_probe_env probes = { cfg->kallsyms, cfg->sysfs_root };
	struct trace_outputs out = {};
	struct workload_env env = {};
	struct result res = {};
	int err;

	if (o->snoop_text) {
		err = snoop__print_text(o->snoop_text, stdout, d);
		return err ? err : finish_stdout(d);
	}
	err = check_modes(o, d);
	if (!err)
		err = device__resolve(cfg->sysfs_root, o->trace, &res.device, d);
	if (err)
		return err;
	res.has_device = true;
	err = find_stack(cfg, &res, d);
	if (err)
		return err;
	driver_probes__notice(&probes, &res.device, stderr);
	snprintf(res.tool_version, sizeof(res.tool_version), "%s", BLKTRACE_BENCH_VERSION);
	text__join(res.command_line, sizeof(res.command_line), o->argc, o->argv);
	host_info__read(&res.host);
	env.target.sysfs = cfg->sysfs_root;
	env.state.dir = o->state_dir;
	/* Before anything can change a setting, or be refused: see catch_signals. */
	catch_signals();
	if (!o->nr_set_values)
		recover_settings(&env.state, &res.device);
	/* Checked and created before anything runs; a Ctrl-C from here on removes them. */
	err = open_outputs(o, &res, &out, d);
	if (!err)
		err = o->rw ? run_workload(o, cfg, &env, &res, &out, d)
			    : run_trace(o, cfg, &res, &out, d);
	/* Whatever went wrong, no half file: the temporary files go (committed ones stay). */
	outfile__abort(&out.json);
	outfile__abort(&out.snoop);
	btrace_out__close(out.blktrace);
	result__free(&res);
	return err;
}
