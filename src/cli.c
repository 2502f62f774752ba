// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"

const char *argp_program_version = "blktrace-bench " BLKTRACE_BENCH_VERSION;
const char *argp_program_bug_address = "the project's issue tracker";

int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts " -1" and wraps it: only plain digits are numbers here. */
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE || v > max)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

struct unit {
	const char *suffix;
	uint64_t mult;
};

/* dd's conventions: K, KiB = 1024; KB = 1000 (likewise M, G, T). Case-insensitive. */
static const struct unit size_units[] = {
	{"", 1},
	{"b", 1},
	{"k", 1ULL << 10}, {"kib", 1ULL << 10}, {"kb", 1000ULL},
	{"m", 1ULL << 20}, {"mib", 1ULL << 20}, {"mb", 1000000ULL},
	{"g", 1ULL << 30}, {"gib", 1ULL << 30}, {"gb", 1000000000ULL},
	{"t", 1ULL << 40}, {"tib", 1ULL << 40}, {"tb", 1000000000000ULL},
};

int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	size_t i;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	for (i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++) {
		if (strcasecmp(end, size_units[i].suffix))
			continue;
		if (v > UINT64_MAX / size_units[i].mult)
			return -ERANGE;
		*out = v * size_units[i].mult;
		return 0;
	}
	return -EINVAL;
}

int parse_duration(const char *s, double *out)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"m", 60}, {"h", 3600}};
	char *end;
	double v;
	size_t i;

	if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	if (end == s)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix)) {
			if (v * units[i].mult > 1e9)
				return -ERANGE;
			*out = v * units[i].mult;
			return 0;
		}
	return -EINVAL;
}

enum {
	OPT_RAW_TP = 0x100,
	OPT_USAGE,
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
	{"verbose", 'v', NULL, 0, "Say more (libbpf's messages, map memory)", 0},
	{"raw-tp", OPT_RAW_TP, NULL, OPTION_HIDDEN, "Use the raw_tp programs even where tp_btf works",
	 0},
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
		/* trace takes "--json FILE"; info and compare "--json" alone (stdout). */
		if (!arg && trace && state->next < state->argc &&
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
	"Other commands: info DEV, compare A.json B.json (see COMMAND --help).";

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
