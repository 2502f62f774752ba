// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The one option table (argp) of every command and its parser into struct options,
 * refusing what the command does not take. Values go through parse.h's strict parsers.
 */
#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/command_table.h"
#include "base/diag.h"
#include "serve/http_metrics.h"
#include "workload/workload.h"

const char *argp_program_version = "blktrace-bench " BLKTRACE_BENCH_VERSION;
const char *argp_program_bug_address = "the project's issue tracker";

enum {
	OPT_RAW_TP = 0x100,
	OPT_USAGE,
	OPT_FAIL_ON_REGRESSION,
	OPT_RW,
	OPT_BS,
	OPT_SIZE,
	OPT_COUNT,
	OPT_RUNTIME,
	OPT_ENGINE,
	OPT_IODEPTH,
	OPT_DIRECT,
	OPT_DSYNC,
	OPT_FSYNC,
	OPT_FDATASYNC,
	OPT_REPEAT,
	OPT_DROP_CACHES,
	OPT_FILE,
	OPT_RAW,
	OPT_DESTRUCTIVE,
	OPT_OVERWRITE,
	OPT_ANY_FS,
	OPT_NO_FIXED_BUFS,
	OPT_HUGEPAGES,
	OPT_SET,
	OPT_RECOMMEND,
	OPT_BRIEF,
	OPT_SNOOP,
	OPT_SNOOP_TEXT,
	OPT_WRAP,
	OPT_STATE_DIR,
	OPT_HTML,
	OPT_KNOBS,
	OPT_BUDGET,
	OPT_WORKLOAD,
	OPT_APPLY,
	OPT_DRY_RUN,
	OPT_UNDO,
	OPT_ROOT,
	OPT_LISTEN,
	OPT_TEXTFILE,
	OPT_BLKTRACE,
	OPT_LIMITS_FROM,
	OPT_ABORT,
	OPT_EXACT_DEPTH,
	OPT_RENAMED = 0x200, /* and on: renamed[]'s */
	OPT_VERSION = 'V',
	OPT_HELP = '?',
};

/* The one option table. Each command, and each mode of trace, takes the subset that
 * option_modes names (below): the others are refused. */
static const struct argp_option options[] = {
	{ "trace", 't', "DEV", 0,
	  "Trace block device DEV: xvda, /dev/xvda, xvda1 or 202:0; several at once: "
	  "xvda,xvdb or all",
	  0 },
	{ "duration", 'd', "SEC", 0,
	  "Passive mode: stop after SEC (500ms, 10, 2m); default: Ctrl-C", 0 },
	{ "interval", 'i', "SEC", 0, "Passive mode: print a report every SEC", 0 },
	{ "json", 'j', "FILE", OPTION_ARG_OPTIONAL,
	  "Write the results as JSON to FILE ('-' or none: stdout)", 0 },
	{ "html", OPT_HTML, "FILE", 0,
	  "Write the report as one self-contained HTML page with charts to FILE ('-': "
	  "stdout); trace and compare (also), report (its output)",
	  0 },
	{ "output", 'o', "FILE", 0, "report: the same as --html (default: stdout)", 0 },
	{ "snoop", OPT_SNOOP, "FILE", 0,
	  "Also write one binary record per request to FILE (see --snoop-text)", 0 },
	{ "snoop-text", OPT_SNOOP_TEXT, "FILE", 0,
	  "Print a --snoop FILE as text, one line per request", 0 },
	{ "blktrace", OPT_BLKTRACE, "DIR", 0,
	  "Also write every event in blktrace's format, one file per CPU (DIR/DEV.blktrace.CPU), "
	  "for blkparse, btt, iowatcher and btrecord",
	  0 },
	{ "limits-from", OPT_LIMITS_FROM, "DEV|FILE", 0,
	  "import: the queue limits the findings weigh, from a disk or a saved info --json", 0 },
	{ "exact-depth", OPT_EXACT_DEPTH, NULL, 0,
	  "Read the queue depth at every issue, not at 1 in 16 per CPU (costs a cache line "
	  "moved between CPUs per I/O)",
	  0 },
	{ "verbose", 'v', NULL, 0, "Say more (libbpf's messages, map memory)", 0 },
	{ "raw-tp", OPT_RAW_TP, NULL, OPTION_HIDDEN,
	  "Use the raw_tp programs even where tp_btf works", 0 },
	{ "fail-on-regression", OPT_FAIL_ON_REGRESSION, "PCT", 0,
	  "compare: exit 3 when a headline metric is significantly worse by more than PCT%", 0 },
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0,
	  "serve: where /metrics listens (default " HTTP_DEFAULT_LISTEN ")", 0 },
	{ "textfile", OPT_TEXTFILE, "DIR", 0,
	  "serve: write DIR/blktrace_bench.prom every --interval, for node_exporter's textfile "
	  "collector",
	  0 },
	{ NULL, 0, NULL, 0, "Built-in workload (traced; --rw selects it):", 1 },
	{ "rw", OPT_RW, "MODE", 0, "read, write, randread or randwrite", 1 },
	{ "bs", OPT_BS, "SIZE[,SIZE...]", 0, "Block size; a list sweeps (512, 4k, 1M, 1MB = 10^6)",
	  1 },
	{ "size", OPT_SIZE, "SIZE", 0, "Bytes per run (reads: default the whole file or disk)", 1 },
	{ "count", OPT_COUNT, "N", 0, "Blocks per run, instead of --size", 1 },
	{ "runtime", OPT_RUNTIME, "SEC", 0, "Stop a run after SEC (with --size: wrap until then)",
	  1 },
	{ "wrap", OPT_WRAP, NULL, 0,
	  "Allow --size larger than the disk or the file being read: go round it again", 1 },
	{ "engine", OPT_ENGINE, "NAME", 0,
	  "psync (default, one I/O at a time, like dd) or io_uring", 1 },
	{ "iodepth", OPT_IODEPTH, "N", 0, "I/Os in flight for io_uring (default 1)", 1 },
	{ "no-fixed-bufs", OPT_NO_FIXED_BUFS, NULL, 0,
	  "io_uring: do not register the buffers (fio's default; registering them pins their "
	  "pages once instead of on every I/O)",
	  1 },
	{ "hugepages", OPT_HUGEPAGES, NULL, 0,
	  "Buffers in transparent huge pages: physically contiguous, so requests are shaped by "
	  "the disk's limits, not by where 4 KiB pages happen to lie (fio: iomem=mmaphuge)",
	  1 },
	{ "direct", OPT_DIRECT, NULL, 0, "O_DIRECT (like oflag=direct)", 1 },
	{ "dsync", OPT_DSYNC, NULL, 0,
	  "O_DSYNC on every write (like oflag=dsync; not fio's sync=1, which is O_SYNC)", 1 },
	{ "fsync", OPT_FSYNC, NULL, 0, "fsync once at the end, inside the timed run (conv=fsync)",
	  1 },
	{ "fdatasync", OPT_FDATASYNC, NULL, 0, "fdatasync once at the end (conv=fdatasync)", 1 },
	{ "repeat", OPT_REPEAT, "N", 0, "Repetitions of every run (statistics over them)", 1 },
	{ "drop-caches", OPT_DROP_CACHES, NULL, 0,
	  "Drop the whole machine's page cache (every file's, not only the target's) before "
	  "each buffered read",
	  1 },
	{ "file", OPT_FILE, "PATH", 0,
	  "Target file (default: a new file in the current directory, removed afterwards)", 1 },
	{ "overwrite", OPT_OVERWRITE, NULL, 0, "Allow writing into an existing --file", 1 },
	{ "any-fs", OPT_ANY_FS, NULL, 0,
	  "Run even when the file's filesystem is not on the traced disk", 1 },
	{ "raw", OPT_RAW, NULL, 0, "Use the traced disk itself (reads; writes need --destructive)",
	  1 },
	{ "destructive", OPT_DESTRUCTIVE, NULL, 0,
	  "Allow writes to a disk (--raw, or a --file that is one); refused anyway while it is "
	  "mounted, swap, held, backing a loop device, or partitioned",
	  1 },
	{ "set", OPT_SET, "[DEV:]KNOB=V1,V2,...", 0,
	  "Sweep a queue setting (max_sectors_kb, read_ahead_kb, nr_requests, scheduler, "
	  "wbt_lat_usec, nomerges, rq_affinity) of the traced device, or of DEV in its "
	  "stack; restored afterwards. xen_blkfront.max_indirect_segments changes only "
	  "across a reboot: one value a boot (see resume)",
	  1 },
	{ "recommend", OPT_RECOMMEND, NULL, 0,
	  "After a --set sweep, name the best value and those as good (for sizes, the smallest)",
	  1 },
	{ "state-dir", OPT_STATE_DIR, "DIR", 0,
	  "Where --set sweeps keep their per-disk lock and the original values (default "
	  "/run/blktrace-bench); also for restore",
	  1 },
	{ "brief", OPT_BRIEF, NULL, 0,
	  "Workload mode: print only the linked table (no per-run sections)", 1 },
	{ NULL, 0, NULL, 0, "Tuning (tune DEV, apply RESULT, verify RESULT):", 2 },
	{ "knobs", OPT_KNOBS, "LIST", 0,
	  "tune: the settings to tune, e.g. max_sectors_kb,scheduler (default: each one that "
	  "can matter for the disk and the workload)",
	  2 },
	{ "budget", OPT_BUDGET, "TIME", 0, "tune: at most this long in all (default 5m)", 2 },
	{ "workload", OPT_WORKLOAD, "FILE", 0,
	  "tune: the workload of a saved result (its runs' --rw, --bs, --size...)", 2 },
	{ "apply", OPT_APPLY, NULL, 0, "tune: make the recommendation persist, as apply does", 2 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "apply: print the files and their diffs, write nothing",
	  2 },
	{ "undo", OPT_UNDO, NULL, 0, "apply: remove exactly the files apply wrote", 2 },
	{ "root", OPT_ROOT, "DIR", 0, "apply: write below DIR instead of / (an image, a test)", 2 },
	{ "abort", OPT_ABORT, NULL, 0,
	  "resume: give up the sweep across reboots, its original setting back for the next "
	  "boot",
	  2 },
	/* argp's own --help would print nothing under ARGP_NO_ERRS (see cli_parse). */
	{ "help", OPT_HELP, NULL, 0, "Give this help list", -1 },
	{ "usage", OPT_USAGE, NULL, 0, "Give a short usage message", -1 },
	{ "version", OPT_VERSION, NULL, 0, "Print the program version", -1 },
	{ 0 },
};

/* Options renamed, still known by the old name: refused, naming the new one. */
static const struct {
	const char *old, *now, *why;
} renamed[] = {
	{ "sync", "dsync", "O_DSYNC on every write; fio's sync=1 is O_SYNC" },
};

#define NR_RENAMED (sizeof(renamed) / sizeof(renamed[0]))

/*
 * argp prints errors as two lines ("...\nTry `--help'...") and exits 64; we want
 * one line and exit 2. So argp runs with ARGP_NO_ERRS | ARGP_NO_EXIT | ARGP_NO_HELP,
 * parse_opt writes errors into a memory stream of which cli_parse keeps the first
 * line as the diag, and handles --help, --usage and --version itself.
 */
struct captured {
	char *err;
	size_t err_len;
	FILE *errf;
};

#define NR_OPTIONS (sizeof(options) / sizeof(options[0]))

struct parse_state {
	const struct command *cmd;
	struct options *opts;
	struct captured *cap;
	bool done;			/* help or version printed */
	unsigned char seen[NR_OPTIONS]; /* per entry of options[]: given on the command line */
};

const char *cli_option_name(size_t i)
{
	size_t k, n = 0;

	for (k = 0; k < NR_OPTIONS; k++)
		if (options[k].name && n++ == i)
			return options[k].name;
	return NULL;
}

/* The entry of options[] for key; NR_OPTIONS for the keys argp makes up. */
static size_t option_index(int key)
{
	size_t i;

	for (i = 0; key && i < NR_OPTIONS; i++)
		if (options[i].key == key && options[i].name)
			return i;
	return NR_OPTIONS;
}

static error_t usage_error(struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static error_t usage_error(struct argp_state *state, const char *fmt, ...)
{
	struct parse_state *ps = state->input;
	va_list ap;

	fprintf(ps->cap->errf, "%s: ", state->name);
	va_start(ap, fmt);
	vfprintf(ps->cap->errf, fmt, ap);
	va_end(ap);
	fputc('\n', ps->cap->errf);
	return EINVAL;
}

static error_t bad_value(struct argp_state *state, const char *opt, const char *arg, int err,
			 const char *what)
{
	return usage_error(state, "--%s: %s %s '%s'", opt,
			   err == -ERANGE ? "out-of-range" : "invalid", what, arg);
}

/* Options that only switch something on: the field each sets. */
static const struct {
	int key;
	size_t offset;
} flag_options[] = {
	{ OPT_RAW_TP, offsetof(struct options, raw_tp) },
	{ OPT_EXACT_DEPTH, offsetof(struct options, exact_depth) },
	{ OPT_DIRECT, offsetof(struct options, wl.direct) },
	{ OPT_DSYNC, offsetof(struct options, wl.sync) },
	{ OPT_FSYNC, offsetof(struct options, wl.fsync) },
	{ OPT_FDATASYNC, offsetof(struct options, wl.fdatasync) },
	{ OPT_DROP_CACHES, offsetof(struct options, wl.drop_caches) },
	{ OPT_RAW, offsetof(struct options, wl.raw) },
	{ OPT_DESTRUCTIVE, offsetof(struct options, wl.destructive) },
	{ OPT_OVERWRITE, offsetof(struct options, wl.overwrite) },
	{ OPT_ANY_FS, offsetof(struct options, wl.any_fs) },
	{ OPT_NO_FIXED_BUFS, offsetof(struct options, wl.no_fixed_bufs) },
	{ OPT_HUGEPAGES, offsetof(struct options, wl.hugepages) },
	{ OPT_RECOMMEND, offsetof(struct options, wl.recommend) },
	{ OPT_WRAP, offsetof(struct options, wl.wrap) },
	{ OPT_BRIEF, offsetof(struct options, brief) },
	{ OPT_APPLY, offsetof(struct options, apply) },
	{ OPT_DRY_RUN, offsetof(struct options, dry_run) },
	{ OPT_UNDO, offsetof(struct options, undo) },
	{ OPT_ABORT, offsetof(struct options, abort) },
};

/* Options whose argument is kept as given (argv outlives the options). */
static const struct {
	int key;
	size_t offset;
} string_options[] = {
	{ 't', offsetof(struct options, trace) },
	{ OPT_FILE, offsetof(struct options, wl.file) },
	{ OPT_SNOOP, offsetof(struct options, snoop) },
	{ OPT_SNOOP_TEXT, offsetof(struct options, snoop_text) },
	{ OPT_KNOBS, offsetof(struct options, knobs) },
	{ OPT_WORKLOAD, offsetof(struct options, workload) },
};

/* A flag or a kept string: 0 when key is one, else ARGP_ERR_UNKNOWN. */
static error_t parse_simple(int key, char *arg, struct options *o)
{
	size_t i;

	for (i = 0; i < sizeof(flag_options) / sizeof(flag_options[0]); i++)
		if (flag_options[i].key == key) {
			*(bool *)((char *)o + flag_options[i].offset) = true;
			return 0;
		}
	for (i = 0; i < sizeof(string_options) / sizeof(string_options[0]); i++)
		if (string_options[i].key == key) {
			*(const char **)((char *)o + string_options[i].offset) = arg;
			return 0;
		}
	return ARGP_ERR_UNKNOWN;
}

/* A count from 1 to max (--iodepth, --repeat). */
static error_t parse_count(struct argp_state *state, const char *opt, const char *arg, uint64_t max,
			   const char *what, unsigned int *out)
{
	uint64_t v;
	int err = parse_uint(arg, max, &v);

	if (err || !v)
		return bad_value(state, opt, arg, err, what);
	*out = v;
	return 0;
}

/* A duration above 0 (--duration, --interval, --runtime). */
static error_t parse_positive_duration(struct argp_state *state, const char *opt, const char *arg,
				       double *out)
{
	int err = parse_duration(arg, out);

	if (err || *out <= 0)
		return bad_value(state, opt, arg, err, "duration");
	return 0;
}

/*
 * --interval has a floor: a report takes milliseconds to make, serve's textfile is
 * fsynced and read by a scraper every 15 s or so. Below it the loops would do nothing
 * but report (and keep every report in memory).
 */
#define INTERVAL_FLOOR_REPORTS 0.01
#define INTERVAL_FLOOR_TEXTFILE 1.0

static error_t parse_interval(struct argp_state *state, const char *arg, const struct command *c,
			      struct options *o)
{
	bool serve = c->modes == M_SERVE;
	error_t err = parse_positive_duration(state, "interval", arg, &o->interval);

	if (err)
		return err;
	if (o->interval < (serve ? INTERVAL_FLOOR_TEXTFILE : INTERVAL_FLOOR_REPORTS))
		return usage_error(state, "--interval %s: below the floor of %s (%s)", arg,
				   serve ? "1s" : "10ms",
				   serve ? "the textfile is written once per interval"
					 : "one report per interval");
	return 0;
}

/*
 * trace, tune, verify and import take "--json FILE"; info and compare "--json" alone
 * (stdout).
 */
static void parse_json(struct argp_state *state, char *arg, const struct command *c,
		       struct options *o)
{
	bool takes_file = c->modes & (M_TRACING | M_TUNE | M_VERIFY | M_IMPORT);

	if (!arg && takes_file && state->next < state->argc &&
	    (state->argv[state->next][0] != '-' || !strcmp(state->argv[state->next], "-")))
		arg = state->argv[state->next++];
	o->json = arg ? arg : "-";
	o->json_flag = true;
}

static error_t parse_fail_on_regression(struct argp_state *state, const char *arg,
					struct options *o)
{
	/* Digits and a dot, then an optional '%': strtod alone takes "inf" and "0x10". */
	size_t n = strspn(arg, "0123456789.");
	char *end;

	o->fail_on_regression = strtod(arg, &end);
	if (!n || end != arg + n || (arg[n] && strcmp(arg + n, "%")) ||
	    !isfinite(o->fail_on_regression))
		return usage_error(state, "--fail-on-regression: invalid percentage '%s'", arg);
	o->fail_on_regression_set = true;
	return 0;
}

/* --bs SIZE[,SIZE...]: one set of runs per size. */
static error_t parse_bs_list(struct argp_state *state, const char *arg, struct options *o)
{
	char *list = strdupa(arg), *tok, *save; /* strtok_r must not cut argv */
	int err;

	o->wl.nr_bs = 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->wl.nr_bs == MAX_BS_LIST)
			return usage_error(state, "--bs: more than %d sizes", MAX_BS_LIST);
		err = parse_size(tok, &o->wl.bs[o->wl.nr_bs]);
		if (err || !o->wl.bs[o->wl.nr_bs] || o->wl.bs[o->wl.nr_bs] > WORKLOAD_MAX_BS)
			return usage_error(state, "--bs: invalid block size '%s' (1 to 1G)", tok);
		o->wl.nr_bs++;
	}
	if (!o->wl.nr_bs)
		return usage_error(state, "--bs: no size given");
	return 0;
}

/* --set KNOB=V1,V2,...; the values point into a copy kept in the options. */
static error_t parse_set(struct argp_state *state, const char *arg, struct options *o)
{
	char *copy = o->wl.set_arg, *eq, *tok, *save;

	/*
	 * The copy outlives parsing: set_values point into it (argv stays intact).
	 * It lives in the options, so no exit path of any command can leak it.
	 */
	if (strlen(arg) >= sizeof(o->wl.set_arg))
		return usage_error(state, "--set: longer than %zu bytes",
				   sizeof(o->wl.set_arg) - 1);
	strcpy(copy, arg);
	eq = strchr(copy, '=');
	if (!eq || eq == copy || (size_t)(eq - copy) >= sizeof(o->wl.set_knob) || !eq[1])
		return usage_error(state, "--set: expected KNOB=V1,V2,... not '%s'", arg);
	snprintf(o->wl.set_knob, sizeof(o->wl.set_knob), "%.*s", (int)(eq - copy), copy);
	o->wl.nr_set_values = 0;
	for (tok = strtok_r(eq + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->wl.nr_set_values == MAX_BS_LIST)
			return usage_error(state, "--set: more than %d values", MAX_BS_LIST);
		o->wl.set_values[o->wl.nr_set_values++] = tok;
	}
	if (!o->wl.nr_set_values)
		return usage_error(state, "--set %s: no values", o->wl.set_knob);
	return 0;
}

/* Options that name a place, kept as given but never empty: the field each sets. */
static const struct {
	int key;
	const char *name, *what;
	size_t offset;
} named_options[] = {
	{ OPT_LISTEN, "listen", "value", offsetof(struct options, listen) },
	{ OPT_TEXTFILE, "textfile", "value", offsetof(struct options, textfile) },
	{ OPT_STATE_DIR, "state-dir", "directory name", offsetof(struct options, state_dir) },
	{ OPT_ROOT, "root", "directory name", offsetof(struct options, root) },
	{ OPT_BLKTRACE, "blktrace", "directory name", offsetof(struct options, blktrace) },
	{ OPT_LIMITS_FROM, "limits-from", "name", offsetof(struct options, limits_from) },
};

/* One of named_options: 0, a refusal of an empty one, or ARGP_ERR_UNKNOWN. */
static error_t parse_named(int key, char *arg, struct argp_state *state)
{
	struct options *o = ((struct parse_state *)state->input)->opts;
	size_t i;

	for (i = 0; i < sizeof(named_options) / sizeof(named_options[0]); i++) {
		if (named_options[i].key != key)
			continue;
		if (!*arg)
			return usage_error(state, "--%s: empty %s", named_options[i].name,
					   named_options[i].what);
		*(const char **)((char *)o + named_options[i].offset) = arg;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

/* Tracing and output options, compare's and tune's; ARGP_ERR_UNKNOWN for the others. */
static error_t parse_general(int key, char *arg, struct argp_state *state)
{
	struct parse_state *ps = state->input;
	struct options *o = ps->opts;

	switch (key) {
	case 'd':
		return parse_positive_duration(state, "duration", arg, &o->duration);
	case 'i':
		return parse_interval(state, arg, ps->cmd, o);
	case 'j':
		parse_json(state, arg, ps->cmd, o);
		return 0;
	case OPT_HTML:
		o->html = arg;
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	case OPT_FAIL_ON_REGRESSION:
		return parse_fail_on_regression(state, arg, o);
	case OPT_BUDGET:
		return parse_positive_duration(state, "budget", arg, &o->budget);
	}
	return parse_named(key, arg, state);
}

/* The built-in workload's options with a value; ARGP_ERR_UNKNOWN for the others. */
static error_t parse_workload(int key, char *arg, struct argp_state *state)
{
	struct options *o = ((struct parse_state *)state->input)->opts;
	int err;

	switch (key) {
	case OPT_RW:
		if (strcmp(arg, "read") && strcmp(arg, "write") && strcmp(arg, "randread") &&
		    strcmp(arg, "randwrite"))
			return usage_error(
				state, "--rw: '%s' is not read, write, randread or randwrite", arg);
		o->wl.rw = arg;
		return 0;
	case OPT_BS:
		return parse_bs_list(state, arg, o);
	case OPT_SIZE:
		err = parse_size(arg, &o->wl.size);
		return err || !o->wl.size ? bad_value(state, "size", arg, err, "size") : 0;
	case OPT_COUNT:
		err = parse_uint(arg, UINT64_MAX, &o->wl.count);
		return err || !o->wl.count ? bad_value(state, "count", arg, err, "count") : 0;
	case OPT_RUNTIME:
		return parse_positive_duration(state, "runtime", arg, &o->wl.runtime);
	case OPT_ENGINE:
		if (strcmp(arg, "psync") && strcmp(arg, "io_uring"))
			return usage_error(state, "--engine: '%s' is not psync or io_uring", arg);
		o->wl.engine = arg;
		return 0;
	case OPT_IODEPTH:
		return parse_count(state, "iodepth", arg, WORKLOAD_MAX_DEPTH, "depth (1 to 4096)",
				   &o->wl.iodepth);
	case OPT_REPEAT:
		return parse_count(state, "repeat", arg, 10000, "count (1 to 10000)",
				   &o->wl.repeat);
	case OPT_SET:
		return parse_set(state, arg, o);
	}
	return ARGP_ERR_UNKNOWN;
}

/* --help, --usage, --version, the words that are no option, and argp's own errors. */
static error_t parse_special(int key, char *arg, struct argp_state *state)
{
	struct parse_state *ps = state->input;
	struct options *o = ps->opts;

	switch (key) {
	case OPT_HELP:
	case OPT_USAGE:
		argp_help(state->root_argp, stdout,
			  key == OPT_HELP ? ARGP_HELP_STD_HELP : ARGP_HELP_USAGE, state->name);
		ps->done = true;
		return 0;
	case OPT_VERSION:
		printf("%s\n", argp_program_version);
		ps->done = true;
		return 0;
	case ARGP_KEY_ARG:
		if (ps->cmd->arity < 0) {
			/* The first word that is not an option starts the command. */
			o->command = &state->argv[state->next - 1];
			o->nr_command = state->argc - state->next + 1;
			state->next = state->argc;
			return 0;
		}
		if (o->nr_positional >= (int)(sizeof(o->positional) / sizeof(o->positional[0])))
			return usage_error(state, "too many arguments: '%s'", arg);
		o->positional[o->nr_positional++] = arg;
		return 0;
	case ARGP_KEY_ERROR:
		/* An error argp found itself (it printed nothing): name the word. */
		fflush(ps->cap->errf);
		if (!ps->cap->err_len && state->next > 0)
			usage_error(state, "unknown option or missing value: '%s'",
				    state->argv[state->next - 1]);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct parse_state *ps = state->input;
	size_t i = option_index(key);
	error_t err;

	if (key >= OPT_RENAMED && key < OPT_RENAMED + (int)NR_RENAMED)
		return usage_error(state, "--%s is now --%s (%s)", renamed[key - OPT_RENAMED].old,
				   renamed[key - OPT_RENAMED].now, renamed[key - OPT_RENAMED].why);
	/* A second value would silently win over the first: --trace a --trace b. */
	if (i < NR_OPTIONS && ps->seen[i]++ && key != 'v')
		return usage_error(state, "--%s given twice: give it once", options[i].name);
	err = parse_simple(key, arg, ps->opts);
	if (err == ARGP_ERR_UNKNOWN)
		err = parse_general(key, arg, state);
	if (err == ARGP_ERR_UNKNOWN)
		err = parse_workload(key, arg, state);
	if (err == ARGP_ERR_UNKNOWN)
		err = parse_special(key, arg, state);
	return err;
}

/*
 * Which options each command, and each mode of trace, takes: an option a command or mode
 * would ignore is refused, naming what it is for, and left out of the command's --help.
 * The mode of trace is known once every option is read: --snoop-text, the built-in
 * workload (--rw), a command, or passive.
 */
#define WORKLOAD_USE "it belongs to the built-in workload (--rw, or tune's)"

static const struct {
	int key;
	unsigned int modes;
	const char *use; /* what it is for, said when it is refused */
} option_modes[] = {
	{ 't', M_TRACING | M_SERVE,
	  "it names the disk to trace (info, restore and tune take it as a word)" },
	{ 'd', M_PASSIVE | M_SERVE,
	  "it ends passive mode (--trace DEV, without --rw or a command)" },
	{ 'i', M_PASSIVE | M_SERVE, "it prints passive mode's reports every SEC" },
	{ 'j', M_TRACING | M_INFO | M_COMPARE | M_TUNE | M_VERIFY | M_IMPORT,
	  "it is the report of trace, info, compare, tune, verify and import" },
	{ OPT_HTML, M_TRACING | M_COMPARE | M_REPORT,
	  "it is the page of trace, compare and report" },
	{ 'o', M_REPORT, "it is report's page (trace and compare take --html FILE)" },
	{ OPT_SNOOP, M_TRACING, "it records the requests a trace sees" },
	{ OPT_SNOOP_TEXT, M_SNOOP_TEXT, "it prints a --snoop file and nothing else" },
	{ OPT_BLKTRACE, M_TRACING, "it writes the events a trace sees in blktrace's format" },
	{ OPT_LIMITS_FROM, M_IMPORT, "it is import's: the traced disk's limits" },
	{ 'v', M_LOADS_BPF, "it shows what loading the BPF programs of a trace says" },
	{ OPT_RAW_TP, M_LOADS_BPF, "it picks the BPF programs of a trace" },
	{ OPT_EXACT_DEPTH, M_LOADS_BPF, "it sets how a trace reads the queue depth" },
	{ OPT_FAIL_ON_REGRESSION, M_COMPARE | M_VERIFY, "it is compare's and verify's" },
	{ OPT_STATE_DIR, M_TRACING | M_RESTORE | M_TUNE | M_VERIFY,
	  "it is where --set sweeps keep their lock and state (trace, restore, tune, verify)" },
	{ OPT_LISTEN, M_SERVE, "it is where serve's /metrics listens" },
	{ OPT_TEXTFILE, M_SERVE, "it is serve's textfile output" },
	{ OPT_BS, M_WORKLOAD | M_TUNE, "it is the built-in workload's block size (--rw)" },
	{ OPT_REPEAT, M_WORKLOAD | M_TUNE, "it repeats the built-in workload's runs (--rw)" },
	{ OPT_SET, M_WORKLOAD | M_TUNE,
	  "it sweeps a setting over the built-in workload's runs (--rw)" },
	{ OPT_RECOMMEND, M_WORKLOAD, "it chooses among the values of a --set sweep (--rw)" },
	{ OPT_DROP_CACHES, M_WORKLOAD | M_TUNE,
	  "it drops the page cache before the built-in workload's buffered reads (--rw)" },
	{ OPT_BRIEF, M_WORKLOAD, "it shortens the built-in workload's report (--rw)" },
	{ OPT_OVERWRITE, M_WORKLOAD | M_TUNE | M_VERIFY, WORKLOAD_USE },
	{ OPT_DESTRUCTIVE, M_WORKLOAD | M_TUNE | M_VERIFY, WORKLOAD_USE },
	{ OPT_KNOBS, M_TUNE, "it is tune's" },
	{ OPT_BUDGET, M_TUNE, "it is tune's" },
	{ OPT_WORKLOAD, M_TUNE, "it is tune's" },
	{ OPT_APPLY, M_TUNE, "it is tune's (apply is a command of its own)" },
	{ OPT_DRY_RUN, M_APPLY | M_TUNE, "it is apply's and tune's" },
	{ OPT_UNDO, M_APPLY, "it is apply's" },
	{ OPT_ROOT, M_APPLY | M_TUNE, "it is apply's and tune's" },
	{ OPT_ABORT, M_RESUME, "it is resume's" },
	{ OPT_HELP, M_ALL, NULL },
	{ OPT_USAGE, M_ALL, NULL },
	{ OPT_VERSION, M_ALL, NULL },
};

/* The modes an option is for; every other option of the table is the workload's. */
static unsigned int modes_of(int key, const char **use)
{
	size_t i;

	for (i = 0; i < sizeof(option_modes) / sizeof(option_modes[0]); i++)
		if (option_modes[i].key == key) {
			*use = option_modes[i].use;
			return option_modes[i].modes;
		}
	*use = WORKLOAD_USE;
	return M_WORKLOAD | M_TUNE;
}

static unsigned int mode_of(const struct command *c, const struct options *o)
{
	if (!(c->modes & M_TRACING))
		return c->modes;
	if (o->snoop_text)
		return M_SNOOP_TEXT;
	return o->wl.rw ? M_WORKLOAD : o->command ? M_COMMAND : M_PASSIVE;
}

/* How a refusal names the mode: trace's modes have no word of their own. */
static void mode_name(unsigned int mode, char *buf, size_t size)
{
	static const char *const trace_modes[] = { "in passive mode", "in command mode",
						   "in workload mode", "with --snoop-text" };
	const struct command *c;
	size_t i;

	for (i = 0; i < sizeof(trace_modes) / sizeof(trace_modes[0]); i++)
		if (mode == 1u << i) {
			snprintf(buf, size, "%s", trace_modes[i]);
			return;
		}
	for (i = 0; (c = commands__at(i)); i++)
		if (c->modes == mode)
			snprintf(buf, size, "by %s", c->name);
}

/* Every option given is one the command, in its mode, uses. */
static int check_modes(const struct parse_state *ps, const struct command *c, struct diag *d)
{
	unsigned int mode = mode_of(c, ps->opts);
	const char *use;
	char name[32] = "";
	size_t i;

	for (i = 0; i < NR_OPTIONS; i++) {
		if (!ps->seen[i] || (modes_of(options[i].key, &use) & mode))
			continue;
		mode_name(mode, name, sizeof(name));
		return diag__usage(d, "--%s is not used %s: %s", options[i].name, name, use);
	}
	return 0;
}

/* The words besides options: as many as the command takes. */
static int check_arity(const struct command *c, const struct options *o, struct diag *d)
{
	/* apply --undo needs no result: it reads its own manifest. */
	int want = c->arity - (c->modes == M_APPLY && o->undo);
	char *alt, args[64];

	if (c->arity < 0 || o->nr_positional == want)
		return 0;
	snprintf(args, sizeof(args), "%s", c->args);
	alt = strchr(args, '\n');
	if (alt)
		*alt = '\0';
	return diag__usage(d, "%s takes %s: blktrace-bench %s %s%s(see blktrace-bench %s --help)",
			   c->name, c->words, c->name, args, *args ? " " : "", c->name);
}

static const char trace_modes_doc[] =
	"Modes:\n"
	"  --trace DEV                  passive, until Ctrl-C or --duration\n"
	"  --trace DEV -- CMD [ARG...]  while CMD runs; exits with its status\n"
	"  --trace DEV --rw write --bs 1M --size 1G --fsync --repeat 5\n"
	"  --trace xvda,xvdb -- CMD     several disks (or all), a report each\n";

/* --help's text after the options: trace's modes, then every command (the default's). */
static char *help_doc(const struct command *c)
{
	const struct command *e;
	char *doc = NULL, *alt;
	size_t len = 0, i;
	FILE *f = open_memstream(&doc, &len);

	if (!f)
		return NULL;
	fprintf(f, "%s.", c->doc);
	if (c == commands__at(0)) {
		fprintf(f, "\v%sCommands (COMMAND --help for each):\n", trace_modes_doc);
		for (i = 0; (e = commands__at(i)); i++) {
			char words[64];

			snprintf(words, sizeof(words), "%s %s", e->name, e->args);
			while ((alt = strchr(words, '\n')))
				*alt = '|';
			fprintf(f, "  %-30s%s\n", words, e->doc);
		}
	}
	if (fclose(f)) {
		free(doc);
		return NULL;
	}
	return doc;
}

/*
 * The command's argp options: the table's, those the command does not take hidden (still
 * parsed, to be refused by name), the headers of groups left empty dropped, and the
 * renamed options hidden at the end.
 */
static void command_options(const struct command *c, struct argp_option *out)
{
	const struct argp_option *o;
	const char *use;
	size_t n = 0, i;

	for (o = options; o->name || o->doc; o++) {
		out[n] = *o;
		if (!o->name) {
			for (i = 1; o[i].name && !(modes_of(o[i].key, &use) & c->modes); i++)
				;
			n += o[i].name && o[i].group == o->group;
			continue;
		}
		if (!(modes_of(o->key, &use) & c->modes))
			out[n].flags |= OPTION_HIDDEN;
		n++;
	}
	for (i = 0; i < NR_RENAMED; i++)
		out[n++] = (struct argp_option){ .name = renamed[i].old,
						 .key = OPT_RENAMED + i,
						 .flags = OPTION_HIDDEN };
	out[n] = (struct argp_option){ 0 };
}

int cli_parse(const char *cmd, int argc, char **argv, struct options *opts, struct diag *d)
{
	const struct command *c = commands__find(cmd);
	struct argp_option argp_options[NR_OPTIONS + NR_RENAMED];
	struct captured cap = {};
	struct parse_state ps = { .cmd = c, .opts = opts, .cap = &cap };
	struct argp argp = { argp_options, parse_opt, NULL, NULL, NULL, NULL, NULL };
	char *doc;
	int err;

	memset(opts, 0, sizeof(*opts));
	opts->argc = argc;
	opts->argv = argv;
	if (!c)
		return diag__usage(d, "unknown command '%s' (try --help)", cmd);
	command_options(c, argp_options);
	argp.args_doc = c->args;
	argp.doc = doc = help_doc(c);
	cap.errf = open_memstream(&cap.err, &cap.err_len);
	if (!doc || !cap.errf) {
		free(doc);
		if (cap.errf)
			fclose(cap.errf);
		free(cap.err);
		return diag__fail(d, -ENOMEM, "%s", strerror(ENOMEM));
	}
	err = argp_parse(&argp, argc, argv,
			 ARGP_IN_ORDER | ARGP_NO_EXIT | ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &ps);
	fclose(cap.errf);
	if (cap.err_len) {
		char *nl = strchr(cap.err, '\n');

		if (nl)
			*nl = '\0';
		/* argp's line names the program itself: "blktrace-bench info: ..." */
		err = diag__usage(d, "%s", cap.err);
		if (d)
			d->named = true;
	} else if (err == ENOMEM) {
		err = diag__fail(d, -err, "%s", strerror(err));
	} else if (err) {
		err = diag__usage_err(d, -err, "%s", strerror(err));
	} else if (ps.done) {
		err = 1; /* help or version printed: nothing else to do */
	} else {
		err = check_modes(&ps, c, d);
		if (!err)
			err = check_arity(c, opts, d);
	}
	free(cap.err);
	free(doc);
	return err;
}
