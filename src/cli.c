// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The one option table (argp) of every command and its parser into struct options,
 * refusing what the command does not take. Values go through parse.h's strict parsers.
 */
#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

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
	OPT_KNOBS,
	OPT_BUDGET,
	OPT_WORKLOAD,
	OPT_APPLY,
	OPT_DRY_RUN,
	OPT_UNDO,
	OPT_ROOT,
	OPT_VERSION = 'V',
	OPT_HELP = '?',
};

/* The one option table. Each command accepts the subset named in its mask. */
static const struct argp_option options[] = {
	{"trace", 't', "DEV", 0, "Trace block device DEV: xvda, /dev/xvda, xvda1 or 202:0", 0},
	{"duration", 'd', "SEC", 0, "Passive mode: stop after SEC (500ms, 10, 2m); default: Ctrl-C",
	 0},
	{"interval", 'i', "SEC", 0, "Passive mode: print a report every SEC", 0},
	{"json", 'j', "FILE", OPTION_ARG_OPTIONAL,
	 "Write the results as JSON to FILE ('-' or none: stdout)", 0},
	{"snoop", OPT_SNOOP, "FILE", 0,
	 "Also write one binary record per request to FILE (see --snoop-text)", 0},
	{"snoop-text", OPT_SNOOP_TEXT, "FILE", 0, "Print a --snoop FILE as text, one line per request",
	 0},
	{"verbose", 'v', NULL, 0, "Say more (libbpf's messages, map memory)", 0},
	{"raw-tp", OPT_RAW_TP, NULL, OPTION_HIDDEN, "Use the raw_tp programs even where tp_btf works",
	 0},
	{"fail-on-regression", OPT_FAIL_ON_REGRESSION, "PCT", 0,
	 "compare: exit 3 when a headline metric is significantly worse by more than PCT%", 0},
	{NULL, 0, NULL, 0, "Built-in workload (traced; --rw selects it):", 1},
	{"rw", OPT_RW, "MODE", 0, "read, write, randread or randwrite", 1},
	{"bs", OPT_BS, "SIZE[,SIZE...]", 0, "Block size; a list sweeps (512, 4k, 1M, 1MB = 10^6)",
	 1},
	{"size", OPT_SIZE, "SIZE", 0, "Bytes per run (reads: default the whole file or disk)", 1},
	{"count", OPT_COUNT, "N", 0, "Blocks per run, instead of --size", 1},
	{"runtime", OPT_RUNTIME, "SEC", 0, "Stop a run after SEC (with --size: wrap until then)", 1},
	{"wrap", OPT_WRAP, NULL, 0,
	 "Allow --size larger than the disk or the file being read: go round it again", 1},
	{"engine", OPT_ENGINE, "NAME", 0, "psync (default, one I/O at a time, like dd) or io_uring",
	 1},
	{"iodepth", OPT_IODEPTH, "N", 0, "I/Os in flight for io_uring (default 1)", 1},
	{"no-fixed-bufs", OPT_NO_FIXED_BUFS, NULL, 0,
	 "io_uring: do not register the buffers (fio's default; registering them pins their "
	 "pages once instead of on every I/O)", 1},
	{"hugepages", OPT_HUGEPAGES, NULL, 0,
	 "Buffers in transparent huge pages: physically contiguous, so requests are shaped by "
	 "the disk's limits, not by where 4 KiB pages happen to lie (fio: iomem=mmaphuge)", 1},
	{"direct", OPT_DIRECT, NULL, 0, "O_DIRECT (like oflag=direct)", 1},
	{"sync", OPT_SYNC, NULL, 0, "O_DSYNC on every write (like oflag=dsync)", 1},
	{"fsync", OPT_FSYNC, NULL, 0, "fsync once at the end, inside the timed run (conv=fsync)", 1},
	{"fdatasync", OPT_FDATASYNC, NULL, 0, "fdatasync once at the end (conv=fdatasync)", 1},
	{"repeat", OPT_REPEAT, "N", 0, "Repetitions of every run (statistics over them)", 1},
	{"drop-caches", OPT_DROP_CACHES, NULL, 0, "Drop the page cache before each buffered read",
	 1},
	{"file", OPT_FILE, "PATH", 0,
	 "Target file (default: a new file in the current directory, removed afterwards)", 1},
	{"overwrite", OPT_OVERWRITE, NULL, 0, "Allow writing into an existing --file", 1},
	{"any-fs", OPT_ANY_FS, NULL, 0,
	 "Run even when the file's filesystem is not on the traced disk", 1},
	{"raw", OPT_RAW, NULL, 0, "Use the traced disk itself (reads; writes need --destructive)", 1},
	{"destructive", OPT_DESTRUCTIVE, NULL, 0,
	 "Allow writes to a disk (--raw, or a --file that is one); refused anyway while it is "
	 "mounted, swap, held, backing a loop device, or partitioned", 1},
	{"set", OPT_SET, "KNOB=V1,V2,...", 0,
	 "Sweep a queue setting (max_sectors_kb, read_ahead_kb, nr_requests, scheduler, "
	 "wbt_lat_usec, nomerges, rq_affinity); restored afterwards", 1},
	{"recommend", OPT_RECOMMEND, NULL, 0,
	 "After a --set sweep, name the best value and the smallest one as good", 1},
	{"state-dir", OPT_STATE_DIR, "DIR", 0,
	 "Where --set sweeps keep their per-disk lock and the original values (default "
	 "/run/blktrace-bench); also for restore", 1},
	{"brief", OPT_BRIEF, NULL, 0, "Workload mode: print only the linked table (no per-run "
	 "sections)", 1},
	{NULL, 0, NULL, 0, "Tuning (tune DEV, apply RESULT, verify RESULT):", 2},
	{"knobs", OPT_KNOBS, "LIST", 0,
	 "tune: the settings to tune, e.g. max_sectors_kb,scheduler (default: each one that "
	 "can matter for the disk and the workload)", 2},
	{"budget", OPT_BUDGET, "TIME", 0, "tune: at most this long in all (default 5m)", 2},
	{"workload", OPT_WORKLOAD, "FILE", 0,
	 "tune: the workload of a saved result (its runs' --rw, --bs, --size...)", 2},
	{"apply", OPT_APPLY, NULL, 0,
	 "tune: make the recommendation persist, as the apply command does", 2},
	{"dry-run", OPT_DRY_RUN, NULL, 0, "apply: print the files and their diffs, write nothing",
	 2},
	{"undo", OPT_UNDO, NULL, 0, "apply: remove exactly the files apply wrote", 2},
	{"root", OPT_ROOT, "DIR", 0, "apply: write below DIR instead of / (an image, a test)", 2},
	/* argp's own --help would print nothing under ARGP_NO_ERRS (see cli_parse). */
	{"help", OPT_HELP, NULL, 0, "Give this help list", -1},
	{"usage", OPT_USAGE, NULL, 0, "Give a short usage message", -1},
	{"version", OPT_VERSION, NULL, 0, "Print the program version", -1},
	{0},
};

/*
 * argp prints errors as two lines ("...\nTry `--help'...") and exits 64; we want
 * one line and exit 2. So argp runs with ARGP_NO_ERRS | ARGP_NO_EXIT | ARGP_NO_HELP,
 * parse_opt writes errors into a memory stream of which cli_parse prints the first
 * line, and handles --help, --usage and --version itself.
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



/* Is cmd one of the space-separated words of list? */
static bool cmd_in(const char *cmd, const char *list)
{
	size_t n = strlen(cmd);

	for (; *list; list += strcspn(list, " "), list += strspn(list, " "))
		if (!strncmp(list, cmd, n) && (list[n] == ' ' || !list[n]))
			return true;
	return false;
}

/* The options of tune, apply and verify, each refused by the other commands. */
static error_t parse_tuning(struct parse_state *ps, struct argp_state *state, int key, char *arg)
{
	struct options *o = ps->opts;
	static const struct {
		int key;
		const char *name, *cmds, *says;
	} owner[] = {
		{OPT_KNOBS, "knobs", "tune", "tune"},
		{OPT_BUDGET, "budget", "tune", "tune"},
		{OPT_WORKLOAD, "workload", "tune", "tune"},
		{OPT_APPLY, "apply", "tune", "tune"},
		{OPT_DRY_RUN, "dry-run", "apply tune", "apply and tune"},
		{OPT_UNDO, "undo", "apply", "apply"},
		{OPT_ROOT, "root", "apply tune", "apply and tune"},
	};
	size_t i;
	int err;

	for (i = 0; i < sizeof(owner) / sizeof(owner[0]); i++)
		if (owner[i].key == key && !cmd_in(ps->cmd, owner[i].cmds))
			return usage_error(state, "--%s is an option of %s", owner[i].name,
					   owner[i].says);
	switch (key) {
	case OPT_KNOBS:
		o->knobs = arg;
		break;
	case OPT_BUDGET:
		err = parse_duration(arg, &o->budget);
		if (err || o->budget <= 0)
			return bad_value(state, "budget", arg, err, "duration");
		break;
	case OPT_WORKLOAD:
		o->workload = arg;
		break;
	case OPT_APPLY:
		o->apply = true;
		break;
	case OPT_DRY_RUN:
		o->dry_run = true;
		break;
	case OPT_UNDO:
		o->undo = true;
		break;
	case OPT_ROOT:
		if (!*arg)
			return usage_error(state, "--root: empty directory name");
		o->root = arg;
		break;
	}
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct parse_state *ps = state->input;
	struct options *o = ps->opts;
	bool trace = !strcmp(ps->cmd, "trace");
	int err;

	switch (key) {
	case 't':
		o->trace = arg;
		break;
	case 'd':
		err = parse_duration(arg, &o->duration);
		if (err || o->duration <= 0)
			return bad_value(state, "duration", arg, err, "duration");
		break;
	case 'i':
		err = parse_duration(arg, &o->interval);
		if (err || o->interval <= 0)
			return bad_value(state, "interval", arg, err, "duration");
		break;
	case 'j':
		/* trace, tune and verify take "--json FILE"; info and compare "--json" alone. */
		if (!arg && cmd_in(ps->cmd, "trace tune verify") && state->next < state->argc &&
		    (state->argv[state->next][0] != '-' || !strcmp(state->argv[state->next], "-")))
			arg = state->argv[state->next++];
		o->json = arg ? arg : "-";
		o->json_flag = true;
		break;
	case 'v':
		o->verbose++;
		break;
	case OPT_RAW_TP:
		o->raw_tp = true;
		break;
	case OPT_FAIL_ON_REGRESSION: {
		/* Digits and a dot, then an optional '%': strtod alone takes "inf" and "0x10". */
		size_t n = strspn(arg, "0123456789.");
		char *end;

		if (!cmd_in(ps->cmd, "compare verify"))
			return usage_error(state, "--fail-on-regression is an option of compare "
						  "and verify");
		o->fail_on_regression = strtod(arg, &end);
		if (!n || end != arg + n || (arg[n] && strcmp(arg + n, "%")) ||
		    !isfinite(o->fail_on_regression))
			return usage_error(state, "--fail-on-regression: invalid percentage '%s'",
					   arg);
		o->fail_on_regression_set = true;
		break;
	}
	case OPT_RW:
		if (strcmp(arg, "read") && strcmp(arg, "write") && strcmp(arg, "randread") &&
		    strcmp(arg, "randwrite"))
			return usage_error(state, "--rw: '%s' is not read, write, randread or "
						  "randwrite", arg);
		o->rw = arg;
		break;
	case OPT_BS: {
		char *list = strdupa(arg), *tok, *save; /* strtok_r must not cut argv */

		o->nr_bs = 0;
		for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (o->nr_bs == MAX_BS_LIST)
				return usage_error(state, "--bs: more than %d sizes", MAX_BS_LIST);
			err = parse_size(tok, &o->bs[o->nr_bs]);
			if (err || !o->bs[o->nr_bs] || o->bs[o->nr_bs] > (1ULL << 30))
				return usage_error(state, "--bs: invalid block size '%s' (1 to 1G)",
						   tok);
			o->nr_bs++;
		}
		if (!o->nr_bs)
			return usage_error(state, "--bs: no size given");
		break;
	}
	case OPT_SIZE:
		err = parse_size(arg, &o->size);
		if (err || !o->size)
			return bad_value(state, "size", arg, err, "size");
		break;
	case OPT_COUNT:
		err = parse_uint(arg, UINT64_MAX, &o->count);
		if (err || !o->count)
			return bad_value(state, "count", arg, err, "count");
		break;
	case OPT_RUNTIME:
		err = parse_duration(arg, &o->runtime);
		if (err || o->runtime <= 0)
			return bad_value(state, "runtime", arg, err, "duration");
		break;
	case OPT_ENGINE:
		if (strcmp(arg, "psync") && strcmp(arg, "io_uring"))
			return usage_error(state, "--engine: '%s' is not psync or io_uring", arg);
		o->engine = arg;
		break;
	case OPT_IODEPTH: {
		uint64_t v;

		err = parse_uint(arg, 4096, &v);
		if (err || !v)
			return bad_value(state, "iodepth", arg, err, "depth (1 to 4096)");
		o->iodepth = v;
		break;
	}
	case OPT_REPEAT: {
		uint64_t v;

		err = parse_uint(arg, 10000, &v);
		if (err || !v)
			return bad_value(state, "repeat", arg, err, "count (1 to 10000)");
		o->repeat = v;
		break;
	}
	case OPT_DIRECT:
		o->direct = true;
		break;
	case OPT_SYNC:
		o->sync = true;
		break;
	case OPT_FSYNC:
		o->fsync = true;
		break;
	case OPT_FDATASYNC:
		o->fdatasync = true;
		break;
	case OPT_DROP_CACHES:
		o->drop_caches = true;
		break;
	case OPT_FILE:
		o->file = arg;
		break;
	case OPT_RAW:
		o->raw = true;
		break;
	case OPT_DESTRUCTIVE:
		o->destructive = true;
		break;
	case OPT_OVERWRITE:
		o->overwrite = true;
		break;
	case OPT_ANY_FS:
		o->any_fs = true;
		break;
	case OPT_NO_FIXED_BUFS:
		o->no_fixed_bufs = true;
		break;
	case OPT_HUGEPAGES:
		o->hugepages = true;
		break;
	case OPT_SET: {
		char *copy = o->set_arg, *eq, *tok, *save;

		/*
		 * The copy outlives parsing: set_values point into it (argv stays intact).
		 * It lives in the options, so no exit path of any command can leak it.
		 */
		if (strlen(arg) >= sizeof(o->set_arg))
			return usage_error(state, "--set: longer than %zu bytes",
					   sizeof(o->set_arg) - 1);
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
		break;
	}
	case OPT_RECOMMEND:
		o->recommend = true;
		break;
	case OPT_WRAP:
		o->wrap = true;
		break;
	case OPT_STATE_DIR:
		if (!cmd_in(ps->cmd, "trace restore tune verify"))
			return usage_error(state, "--state-dir is an option of trace, restore, tune "
						  "and verify");
		if (!*arg)
			return usage_error(state, "--state-dir: empty directory name");
		o->state_dir = arg;
		break;
	case OPT_BRIEF:
		o->brief = true;
		break;
	case OPT_SNOOP:
		o->snoop = arg;
		break;
	case OPT_SNOOP_TEXT:
		o->snoop_text = arg;
		break;
	case OPT_KNOBS:
	case OPT_BUDGET:
	case OPT_WORKLOAD:
	case OPT_APPLY:
	case OPT_DRY_RUN:
	case OPT_UNDO:
	case OPT_ROOT:
		return parse_tuning(ps, state, key, arg);
	case OPT_HELP:
	case OPT_USAGE:
		argp_help(state->root_argp, stdout, key == OPT_HELP ? ARGP_HELP_STD_HELP :
				ARGP_HELP_USAGE, state->name);
		ps->done = true;
		break;
	case OPT_VERSION:
		printf("%s\n", argp_program_version);
		ps->done = true;
		break;
	case ARGP_KEY_ARG:
		if (trace) {
			/* The first word that is not an option starts the command. */
			o->command = &state->argv[state->next - 1];
			o->nr_command = state->argc - state->next + 1;
			state->next = state->argc;
			break;
		}
		if (o->nr_positional >= (int)(sizeof(o->positional) / sizeof(o->positional[0])))
			return usage_error(state, "too many arguments: '%s'", arg);
		o->positional[o->nr_positional++] = arg;
		break;
	case ARGP_KEY_ERROR:
		/* An error argp found itself (it printed nothing): name the word. */
		fflush(ps->cap->errf);
		if (!ps->cap->err_len && state->next > 0)
			usage_error(state, "unknown option or missing value: '%s'",
				    state->argv[state->next - 1]);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const char trace_doc[] =
	"Trace what a block device does.\v"
	"Modes:\n"
	"  blktrace-bench --trace DEV                 passive, until Ctrl-C or --duration\n"
	"  blktrace-bench --trace DEV -- CMD [ARG...]  while CMD runs; exits with its status\n"
	"  blktrace-bench --trace DEV --rw write --bs 1M --size 1G --fsync --repeat 5\n"
	"Other commands: info DEV, compare A.json B.json, restore DEV, tune DEV, apply "
	"RESULT.json, verify RESULT.json (see COMMAND --help).";

int cli_parse(const char *cmd, int argc, char **argv, struct options *opts)
{
	struct captured cap = {};
	struct parse_state ps = {.cmd = cmd, .opts = opts, .cap = &cap};
	struct argp argp = {options, parse_opt, NULL, trace_doc, NULL, NULL, NULL};
	int err;

	memset(opts, 0, sizeof(*opts));
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
		fprintf(stderr, "%s\n", cap.err);
		err = err ? err : EINVAL;
	} else if (!err && ps.done) {
		err = ECANCELED; /* help or version printed: nothing else to do */
	}
	free(cap.err);
	return err ? -err : 0;
}

bool cli_has_other(const struct options *o, void (*allowed)(struct options *o))
{
	static const struct options none;
	struct options rest;

	/* cli_parse zeroed the whole struct first: what is set is what was given. */
	memcpy(&rest, o, sizeof(rest));
	allowed(&rest);
	memset(rest.positional, 0, sizeof(rest.positional));
	rest.nr_positional = 0;
	return memcmp(&rest, &none, sizeof(rest)) != 0;
}
