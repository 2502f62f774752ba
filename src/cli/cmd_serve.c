// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The serve command: the disks --trace names (default all) traced for as long as it runs,
 * exported to Prometheus on /metrics (--listen), to node_exporter's textfile collector
 * (--textfile DIR), or both. Disks that come and go are picked up (exporter.h), SIGHUP
 * reads them again at once. A stop signal (SIGTERM from systemd, Ctrl-C) is how a
 * service ends: exit 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netdb.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "base/clock.h"
#include "cli/commands.h"
#include "serve/exporter.h"
#include "serve/http_metrics.h"
#include "files/outfile.h"
#include "base/stop_signals.h"

/* How often the set of disks is looked at; the textfile's default period. */
#define SERVE_WATCH_SECONDS 1.0
#define SERVE_TEXTFILE_SECONDS 15.0
/* Scrapes this close together share one reading of the maps. */
#define SERVE_FRESH_SECONDS 0.2
#define TEXTFILE_NAME "blktrace_bench.prom"

/* --textfile DIR, opened once: every write goes there, whatever becomes of the path. */
struct textfile {
	int dirfd;	 /* -1: none */
	char path[4096]; /* DIR/blktrace_bench.prom, for messages */
};

/* What serve's options mean together (cli.c refuses the options serve does not take). */
static int check_serve_options(const struct options *o, struct diag *d)
{
	if (o->interval && !o->textfile)
		return diag__usage(d, "--interval: serve writes --textfile every SEC; without it "
				      "Prometheus decides how often (its scrape_interval)");
	return 0;
}

/*
 * Open DIR itself (a symbolic link is not followed: a user who can swap it for another
 * would steer where root writes) and check it on the descriptor. Bad input for what is
 * no directory, a link, or one every user may write to without the sticky bit.
 */
static int textfile_open(const char *dir, struct textfile *tf, struct diag *d)
{
	struct stat st;
	int err;

	tf->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tf->dirfd < 0) {
		err = -errno;
		if (err == -ELOOP || (err == -ENOTDIR && !lstat(dir, &st) && S_ISLNK(st.st_mode)))
			return diag__usage(d,
					   "--textfile %s: a symbolic link: name the directory "
					   "itself",
					   dir);
		if (err == -ENOTDIR)
			return diag__usage(d, "--textfile %s: not a directory", dir);
		return diag__fail(d, err, "--textfile %s: %s", dir, strerror(-err));
	}
	if (fstat(tf->dirfd, &st))
		return diag__fail(d, -errno, "--textfile %s: %s", dir, strerror(errno));
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
		return diag__usage(d,
				   "--textfile %s: every user may write to it (mode %04o): another "
				   "could replace what serve writes there",
				   dir, (unsigned int)(st.st_mode & 07777));
	if ((size_t)snprintf(tf->path, sizeof(tf->path), "%s/%s", dir, TEXTFILE_NAME) >=
	    sizeof(tf->path))
		return diag__usage(d, "--textfile %s: path too long", dir);
	return 0;
}

/* The exposition in the 0.0.4 format, replacing the file atomically (outfile.h). */
static int write_textfile(struct exporter *e, const struct textfile *tf, struct diag *d)
{
	struct outfile of = {};
	struct exposition *x = NULL;
	int err;

	err = outfile__open_at(&of, "--textfile", tf->dirfd, TEXTFILE_NAME, tf->path, d);
	if (!err) {
		err = exporter__render(e, OM_TEXT_0_0_4, &x);
		if (err)
			diag__fail(d, err, "cannot read the BPF maps: %s", strerror(-err));
	}
	if (!err && fwrite(x->text, 1, x->len, of.f) != x->len)
		err = diag__fail(d, -EIO, "cannot write --textfile %s: %s", tf->path,
				 strerror(EIO));
	if (!err)
		err = outfile__commit(&of, d);
	outfile__abort(&of);
	exposition__put(x);
	return err;
}

/* A failure the service gets past: said once, not again until it changes. */
static void say_once(const struct diag *d, char *last, size_t len)
{
	if (!strcmp(last, d->msg))
		return;
	diag__say(d);
	snprintf(last, len, "%s", d->msg);
}

/* What the loop wakes for: the disk watch, the textfile, the end of --duration. */
struct serve_clock {
	double t0, end, next_watch, next_file, period;
};

static double next_wake(const struct serve_clock *c, bool textfile)
{
	double wake = c->next_watch;

	if (textfile && c->next_file < wake)
		wake = c->next_file;
	if (c->end && c->end < wake)
		wake = c->end;
	return wake;
}

/*
 * Until a stop signal or --duration: watch the disks (at once after a SIGHUP), cut slow
 * HTTP clients, write the textfile when due. A failed reload is said each time it is
 * tried (exporter.h spaces the tries out).
 */
static int serve_loop(const struct options *o, struct exporter *e, struct http_metrics *h,
		      const struct textfile *tf)
{
	struct serve_clock c = { .t0 = clock__now() };
	char last[DIAG_MSG_MAX] = "";
	struct timespec ts;

	c.end = o->duration ? c.t0 + o->duration : 0;
	c.next_watch = c.t0 + SERVE_WATCH_SECONDS;
	c.next_file = c.t0;
	c.period = o->interval ? o->interval : SERVE_TEXTFILE_SECONDS;
	while (!stop_signal) {
		double now = clock__now(), wake;
		struct diag d = {};

		if (c.end && now >= c.end)
			break;
		if (reread_signal) {
			reread_signal = 0;
			fprintf(stderr, "blktrace-bench: SIGHUP: reading the disks again\n");
			exporter__rescan(e);
			c.next_watch = now;
		}
		if (tf && now >= c.next_file) {
			if (write_textfile(e, tf, &d))
				say_once(&d, last, sizeof(last));
			c.next_file = clock__next(c.next_file, now, c.period);
		}
		if (now >= c.next_watch) {
			if (exporter__refresh(e, stderr, &d) < 0)
				diag__say(&d);
			http_metrics__sweep(h);
			/* Hundreds of disks: a look at sysfs takes a while; 2% of a CPU at most. */
			c.next_watch = clock__paced(exporter__watch_cpu(e), clock__now(),
						    SERVE_WATCH_SECONDS);
		}
		wake = next_wake(&c, tf != NULL);
		now = clock__now();
		if (wake > now) {
			ts.tv_sec = (time_t)(wake - now);
			ts.tv_nsec = (long)((wake - now - ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL); /* a signal ends it early */
		}
	}
	return 0;
}

/* "serving http://127.0.0.1:9469/metrics and DIR/blktrace_bench.prom, tracing a, b" */
static void say_serving(const struct http_listen *l, const struct http_metrics *h,
			const char *textfile, struct exporter *e)
{
	char host[128] = "", url[192] = "", devs[1024];

	if (h) {
		getnameinfo((const struct sockaddr *)&l->addr, l->len, host, sizeof(host), NULL, 0,
			    NI_NUMERICHOST);
		snprintf(url, sizeof(url),
			 strchr(host, ':') ? "http://[%s]:%u/metrics" : "http://%s:%u/metrics",
			 host, http_metrics__port(h));
		if (!http_metrics__loopback(l))
			fprintf(stderr,
				"blktrace-bench: warning: --listen %s: not a loopback address: "
				"/metrics answers every host that can reach this one, without TLS "
				"or authentication\n",
				host);
	}
	fprintf(stderr, "blktrace-bench: serving %s%s%s, tracing %s\n", url,
		h && textfile ? " and " : "", textfile ? textfile : "",
		exporter__describe(e, devs, sizeof(devs))[0] ? devs : "no disk yet");
}

int cmd_serve(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	struct exporter_opts eo = { .sysfs_root = cfg->sysfs_root,
				    .kallsyms = cfg->kallsyms,
				    .spec = o->trace ? o->trace : "all",
				    .force_raw_tp = o->raw_tp || cfg->force_raw_tp,
				    .exact_depth = o->exact_depth,
				    .verbose = o->verbose,
				    .notes = stderr,
				    .fresh_seconds = SERVE_FRESH_SECONDS };
	const char *listen = o->listen ? o->listen : o->textfile ? NULL : HTTP_DEFAULT_LISTEN;
	struct textfile tf = { .dirfd = -1 };
	struct http_metrics *h = NULL;
	struct exporter *e = NULL;
	struct http_listen l;
	int err;

	err = check_serve_options(o, d);
	if (!err && listen)
		err = http_metrics__parse_listen(listen, &l, d);
	if (!err && o->textfile)
		err = textfile_open(o->textfile, &tf, d);
	if (!err) {
		stop_signals__catch_service();
		err = exporter__open(&eo, &e, d);
	}
	if (!err && listen)
		err = http_metrics__start(&l, e, o->verbose ? stderr : NULL, &h, d);
	/* The first file at once: a directory it cannot be written in fails now, exit 1. */
	if (!err && o->textfile)
		err = write_textfile(e, &tf, d);
	if (!err) {
		say_serving(&l, h, o->textfile ? tf.path : NULL, e);
		err = serve_loop(o, e, h, o->textfile ? &tf : NULL);
	}
	http_metrics__stop(h);
	exporter__close(e);
	if (tf.dirfd >= 0)
		close(tf.dirfd);
	return err;
}
