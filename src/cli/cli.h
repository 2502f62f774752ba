/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Command-line model: one option table (cli.c) shared by every command, so a
 * flag means the same thing everywhere; each command takes, and its --help lists, the
 * options of its modes. Values go through the strict parsers of
 * parse.h: "abc", "12Q", "-1" and overflow are refused.
 */
#ifndef BLKTRACE_BENCH_CLI_H
#define BLKTRACE_BENCH_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/parse.h" /* the strict parsers the options go through */
#include "workload/spec.h"

struct options {
	int argc; /* the command line as given: trace records it */
	char **argv;
	const char *trace;  /* --trace DEV */
	double duration;    /* --duration SEC, 0 = until Ctrl-C */
	double interval;    /* --interval SEC, 0 = no periodic reports */
	const char *json;   /* --json FILE, "-" = stdout */
	const char *html;   /* trace, compare: --html FILE, "-" = stdout */
	const char *output; /* report: -o FILE, default stdout */
	bool json_flag;	    /* info/compare: --json without a file */
	int verbose;	    /* -v */
	bool raw_tp;	    /* hidden: force the raw_tp programs */
	bool exact_depth;   /* --exact-depth: the queue depth at every issue */
	char **command;	    /* after "--": the command to run, NULL-terminated */
	int nr_command;
	const char *positional[4]; /* info DEV, compare A B, report RESULT, import DIR|FILE... */
	int nr_positional;
	/* compare --fail-on-regression PCT: exit 3 when a headline metric is this much worse */
	double fail_on_regression;
	bool fail_on_regression_set;

	/* Built-in workload (--rw selects it), and a --set sweep of a queue setting. */
	struct workload_spec wl;
	const char *state_dir; /* --state-dir DIR: sweep locks and state (default /run/...) */

	bool brief;		/* workload mode: only the linked table, findings, recommendation */
	const char *snoop;	/* --snoop FILE: one record per request */
	const char *snoop_text; /* --snoop-text FILE: print such a file */

	/* tune, apply, verify */
	const char *knobs;    /* tune --knobs LIST: the settings to tune */
	double budget;	      /* tune --budget SEC; 0: the default */
	const char *workload; /* tune --workload FILE: the job of a saved result */
	bool apply;	      /* tune --apply: persist the recommendation */
	bool dry_run;	      /* apply: print the files and diffs, write nothing */
	bool undo;	      /* apply --undo: remove what apply wrote */
	const char *root;     /* apply --root DIR: write below DIR, not / */
	bool abort;	      /* resume --abort: give up the sweep across reboots */
	bool resume;	      /* not an option: trace, run by resume for the sweep's next step */
	/* serve: where /metrics listens, where the textfile collector's file goes. */
	const char *listen;   /* --listen ADDR:PORT */
	const char *textfile; /* --textfile DIR */
	/* --blktrace DIR: blktrace's files, one per CPU; import --limits-from DEV|FILE. */
	const char *blktrace;
	const char *limits_from; /* the limits the findings weigh */
};

struct diag;

/*
 * The command's name ("trace", "info", ...: commands.h's table) selects which options
 * are legal, what its --help lists and how many words it takes. 0; 1 when --help,
 * --usage or --version was printed and there is nothing else to do; or a negative errno
 * with the refusal in d (bad input).
 */
int cli_parse(const char *cmd, int argc, char **argv, struct options *opts, struct diag *d);

/* The long name of the table's i-th option, NULL past the last (for the tests). */
const char *cli_option_name(size_t i);

#endif /* BLKTRACE_BENCH_CLI_H */
