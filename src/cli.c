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
#include "cli.h"
#include "diag.h"
#include "workload.h"

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
	OPT_SYNC,
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
	OPT_BLKTRACE,
	OPT_LIMITS_FROM,
	OPT_VERSION = 'V',
	OPT_HELP = '?',
};

/* The one option table. Each command accepts the subset named in its mask. */
static const struct argp_option options[] = {
	{ "trace", 't', "DEV", 0, "Trace block device DEV: xvda, /dev/xvda, xvda1 or 202:0", 0 },
	{ "duration", 'd', "SEC", 0,
	  "Passive mode: stop after SEC (500ms, 10, 2m); default: Ctrl-C", 0 },
	{ "interval", 'i', "SEC", 0, "Passive mode: print a report every SEC", 0 },
	{ "json", 'j', "FILE", OPTION_ARG_OPTIONAL,
	  "Write the results as JSON to FILE ('-' or none: stdout)", 0 },
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
	{ "verbose", 'v', NULL, 0, "Say more (libbpf's messages, map memory)", 0 },
	{ "raw-tp", OPT_RAW_TP, NULL, OPTION_HIDDEN,
	  "Use the raw_tp programs even where tp_btf works", 0 },
	{ "fail-on-regression", OPT_FAIL_ON_REGRESSION, "PCT", 0,
	  "compare: exit 3 when a headline metric is significantly worse by more than PCT%", 0 },
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
	{ "sync", OPT_SYNC, NULL, 0, "O_DSYNC on every write (like oflag=dsync)", 1 },
	{ "fsync", OPT_FSYNC, NULL, 0, "fsync once at the end, inside the timed run (conv=fsync)",
	  1 },
	{ "fdatasync", OPT_FDATASYNC, NULL, 0, "fdatasync once at the end (conv=fdatasync)", 1 },
	{ "repeat", OPT_REPEAT, "N", 0, "Repetitions of every run (statistics over them)", 1 },
	{ "drop-caches", OPT_DROP_CACHES, NULL, 0, "Drop the page cache before each buffered read",
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
	{ "set", OPT_SET, "KNOB=V1,V2,...", 0,
	  "Sweep a queue setting (max_sectors_kb, read_ahead_kb, nr_requests, scheduler, "
	  "wbt_lat_usec, nomerges, rq_affinity); restored afterwards",
	  1 },
	{ "recommend", OPT_RECOMMEND, NULL, 0,
	  "After a --set sweep, name the best value and the smallest one as good", 1 },
	{ "state-dir", OPT_STATE_DIR, "DIR", 0,
	  "Where --set sweeps keep their per-disk lock and the original values (default "
	  "/run/blktrace-bench); also for restore",
	  1 },
	{ "brief", OPT_BRIEF, NULL, 0,
	  "Workload mode: print only the linked table (no per-run sections)", 1 },
	/* argp's own --help would print nothing under ARGP_NO_ERRS (see cli_parse). */
	{ "help", OPT_HELP, NULL, 0, "Give this help list", -1 },
	{ "usage", OPT_USAGE, NULL, 0, "Give a short usage message", -1 },
	{ "version", OPT_VERSION, NULL, 0, "Print the program version", -1 },
	{ 0 },
};

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

struct parse_state {
	const char *cmd;
	struct options *opts;
	struct captured *cap;
	bool done; /* help or version printed */
};

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
	{ OPT_DIRECT, offsetof(struct options, direct) },
	{ OPT_SYNC, offsetof(struct options, sync) },
	{ OPT_FSYNC, offsetof(struct options, fsync) },
	{ OPT_FDATASYNC, offsetof(struct options, fdatasync) },
	{ OPT_DROP_CACHES, offsetof(struct options, drop_caches) },
	{ OPT_RAW, offsetof(struct options, raw) },
	{ OPT_DESTRUCTIVE, offsetof(struct options, destructive) },
	{ OPT_OVERWRITE, offsetof(struct options, overwrite) },
	{ OPT_ANY_FS, offsetof(struct options, any_fs) },
	{ OPT_NO_FIXED_BUFS, offsetof(struct options, no_fixed_bufs) },
	{ OPT_HUGEPAGES, offsetof(struct options, hugepages) },
	{ OPT_RECOMMEND, offsetof(struct options, recommend) },
	{ OPT_WRAP, offsetof(struct options, wrap) },
	{ OPT_BRIEF, offsetof(struct options, brief) },
};

/* Options whose argument is kept as given (argv outlives the options). */
static const struct {
	int key;
	size_t offset;
} string_options[] = {
	{ 't', offsetof(struct options, trace) },
	{ OPT_FILE, offsetof(struct options, file) },
	{ OPT_SNOOP, offsetof(struct options, snoop) },
	{ OPT_SNOOP_TEXT, offsetof(struct options, snoop_text) },
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

/* trace takes "--json FILE"; info and compare "--json" alone (stdout). */
static void parse_json(struct argp_state *state, char *arg, bool trace, struct options *o)
{
	if (!arg && trace && state->next < state->argc &&
	    (state->argv[state->next][0] != '-' || !strcmp(state->argv[state->next], "-")))
		arg = state->argv[state->next++];
	o->json = arg ? arg : "-";
	o->json_flag = true;
}

static error_t parse_fail_on_regression(struct argp_state *state, const char *cmd, const char *arg,
					struct options *o)
{
	/* Digits and a dot, then an optional '%': strtod alone takes "inf" and "0x10". */
	size_t n = strspn(arg, "0123456789.");
	char *end;

	if (strcmp(cmd, "compare"))
		return usage_error(state, "--fail-on-regression is an option of compare");
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

	o->nr_bs = 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nr_bs == MAX_BS_LIST)
			return usage_error(state, "--bs: more than %d sizes", MAX_BS_LIST);
		err = parse_size(tok, &o->bs[o->nr_bs]);
		if (err || !o->bs[o->nr_bs] || o->bs[o->nr_bs] > WORKLOAD_MAX_BS)
			return usage_error(state, "--bs: invalid block size '%s' (1 to 1G)", tok);
		o->nr_bs++;
	}
	if (!o->nr_bs)
		return usage_error(state, "--bs: no size given");
	return 0;
}

/* --set KNOB=V1,V2,...; the values point into a copy kept in the options. */
static error_t parse_set(struct argp_state *state, const char *arg, struct options *o)
{
	char *copy = o->set_arg, *eq, *tok, *save;

	/*
	 * The copy outlives parsing: set_values point into it (argv stays intact).
	 * It lives in the options, so no exit path of any command can leak it.
	 */
	if (strlen(arg) >= sizeof(o->set_arg))
		return usage_error(state, "--set: longer than %zu bytes", sizeof(o->set_arg) - 1);
	strcpy(copy, arg);
	eq = strchr(copy, '=');
	if (!eq || eq == copy || (size_t)(eq - copy) >= sizeof(o->set_knob) || !eq[1])
		return usage_error(state, "--set: expected KNOB=V1,V2,... not '%s'", arg);
	snprintf(o->set_knob, sizeof(o->set_knob), "%.*s", (int)(eq - copy), copy);
	o->nr_set_values = 0;
	for (tok = strtok_r(eq + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nr_set_values == MAX_BS_LIST)
			return usage_error(state, "--set: more than %d values", MAX_BS_LIST);
		o->set_values[o->nr_set_values++] = tok;
	}
	if (!o->nr_set_values)
		return usage_error(state, "--set %s: no values", o->set_knob);
	return 0;
}

/* Tracing and output options, and compare's; ARGP_ERR_UNKNOWN for the others. */
static error_t parse_general(int key, char *arg, struct argp_state *state)
{
	struct parse_state *ps = state->input;
	struct options *o = ps->opts;
	bool trace = !strcmp(ps->cmd, "trace");

	switch (key) {
	case 'd':
		return parse_positive_duration(state, "duration", arg, &o->duration);
	case 'i':
		return parse_positive_duration(state, "interval", arg, &o->interval);
	case 'j':
		/* import writes a result file as trace does: --json FILE. */
		parse_json(state, arg, trace || !strcmp(ps->cmd, "import"), o);
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	case OPT_FAIL_ON_REGRESSION:
		return parse_fail_on_regression(state, ps->cmd, arg, o);
	case OPT_BLKTRACE:
		if (!trace)
			return usage_error(state, "--blktrace is an option of trace");
		if (!*arg)
			return usage_error(state, "--blktrace: empty directory name");
		o->blktrace = arg;
		return 0;
	case OPT_LIMITS_FROM:
		if (strcmp(ps->cmd, "import"))
			return usage_error(state, "--limits-from is an option of import");
		if (!*arg)
			return usage_error(state, "--limits-from: empty name");
		o->limits_from = arg;
		return 0;
	case OPT_STATE_DIR:
		if (!trace && strcmp(ps->cmd, "restore"))
			return usage_error(state, "--state-dir is an option of trace and restore");
		if (!*arg)
			return usage_error(state, "--state-dir: empty directory name");
		o->state_dir = arg;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
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
		o->rw = arg;
		return 0;
	case OPT_BS:
		return parse_bs_list(state, arg, o);
	case OPT_SIZE:
		err = parse_size(arg, &o->size);
		return err || !o->size ? bad_value(state, "size", arg, err, "size") : 0;
	case OPT_COUNT:
		err = parse_uint(arg, UINT64_MAX, &o->count);
		return err || !o->count ? bad_value(state, "count", arg, err, "count") : 0;
	case OPT_RUNTIME:
		return parse_positive_duration(state, "runtime", arg, &o->runtime);
	case OPT_ENGINE:
		if (strcmp(arg, "psync") && strcmp(arg, "io_uring"))
			return usage_error(state, "--engine: '%s' is not psync or io_uring", arg);
		o->engine = arg;
		return 0;
	case OPT_IODEPTH:
		return parse_count(state, "iodepth", arg, WORKLOAD_MAX_DEPTH, "depth (1 to 4096)",
				   &o->iodepth);
	case OPT_REPEAT:
		return parse_count(state, "repeat", arg, 10000, "count (1 to 10000)", &o->repeat);
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
		if (!strcmp(ps->cmd, "trace")) {
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
	error_t err = parse_simple(key, arg, ((struct parse_state *)state->input)->opts);

	if (err == ARGP_ERR_UNKNOWN)
		err = parse_general(key, arg, state);
	if (err == ARGP_ERR_UNKNOWN)
		err = parse_workload(key, arg, state);
	if (err == ARGP_ERR_UNKNOWN)
		err = parse_special(key, arg, state);
	return err;
}

/* How many words besides options each command takes, and what it says otherwise. */
static const struct {
	const char *cmd;
	int nr_positional;
	const char *usage;
} arities[] = {
	{ "info", 1, "info takes one disk: blktrace-bench info DEV [--json[=FILE]]" },
	{ "compare", 2,
	  "compare takes two result files: blktrace-bench compare A.json B.json "
	  "[--json] [--fail-on-regression PCT]" },
	{ "restore", 1, "restore takes one disk: blktrace-bench restore DEV [--state-dir DIR]" },
	{ "import", 1,
	  "import takes one trace: blktrace-bench import DIR|FILE [--json FILE] "
	  "[--limits-from DEV|FILE]" },
};

static int check_arity(const char *cmd, const struct options *o, struct diag *d)
{
	size_t i;

	for (i = 0; i < sizeof(arities) / sizeof(arities[0]); i++)
		if (!strcmp(cmd, arities[i].cmd) && o->nr_positional != arities[i].nr_positional)
			return diag__usage(d, "%s", arities[i].usage);
	return 0;
}

static const char trace_doc[] =
	"Trace what a block device does.\vModes:\n"
	"  blktrace-bench --trace DEV                 passive, until Ctrl-C or --duration\n"
	"  blktrace-bench --trace DEV -- CMD [ARG...]  while CMD runs; exits with its status\n"
	"  blktrace-bench --trace DEV --rw write --bs 1M --size 1G --fsync --repeat 5\n"
	"Other commands: info DEV, compare A.json B.json, restore DEV, import DIR|FILE\n"
	"(see COMMAND --help).";

int cli_parse(const char *cmd, int argc, char **argv, struct options *opts, struct diag *d)
{
	struct captured cap = {};
	struct parse_state ps = { .cmd = cmd, .opts = opts, .cap = &cap };
	struct argp argp = { options, parse_opt, NULL, trace_doc, NULL, NULL, NULL };
	int err;

	memset(opts, 0, sizeof(*opts));
	opts->argc = argc;
	opts->argv = argv;
	cap.errf = open_memstream(&cap.err, &cap.err_len);
	if (!cap.errf)
		return -ENOMEM;
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
		err = check_arity(cmd, opts, d);
	}
	free(cap.err);
	return err;
}
