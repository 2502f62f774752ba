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

#define MAX_BS_LIST 32

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
	char **command;	    /* after "--": the command to run, NULL-terminated */
	int nr_command;
	const char *positional[4]; /* info DEV, compare A B, report RESULT, import DIR|FILE... */
	int nr_positional;
	/* compare --fail-on-regression PCT: exit 3 when a headline metric is this much worse */
	double fail_on_regression;
	bool fail_on_regression_set;

	/* Built-in workload (--rw selects it). */
	const char *rw;		  /* read, write, randread, randwrite */
	uint64_t bs[MAX_BS_LIST]; /* --bs list: one set of runs per size */
	int nr_bs;
	uint64_t size;	    /* bytes per run, 0 = not given */
	uint64_t count;	    /* --count N blocks, 0 = not given */
	double runtime;	    /* seconds, 0 = none */
	const char *engine; /* psync (default), io_uring */
	unsigned int iodepth;
	bool direct, sync, fsync, fdatasync;
	unsigned int repeat; /* repetitions of every run, >= 1 */
	bool drop_caches;
	const char *file; /* --file PATH */
	bool raw, destructive, overwrite, any_fs;
	bool no_fixed_bufs;    /* io_uring: leave the buffers unregistered, as fio does */
	bool hugepages;	       /* buffers in transparent huge pages */
	bool wrap;	       /* --size may exceed the disk or file: go round it again */
	const char *state_dir; /* --state-dir DIR: sweep locks and state (default /run/...) */

	/* --set KNOB=V1,V2,...: a sweep of a runtime queue setting, restored afterwards. */
	char set_knob[48];
	char set_arg[1024]; /* a copy of the values, which set_values point into */
	char *set_values[MAX_BS_LIST];
	int nr_set_values;
	bool recommend;
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
 * The modes a command runs in, which decide the options it takes (cli.c's option_modes).
 * trace has four, known once its options are read: passive, command (a command to run),
 * workload (--rw) and --snoop-text; every other command one of its own (commands.c).
 */
enum cli_mode {
	M_PASSIVE = 1 << 0,
	M_COMMAND = 1 << 1,
	M_WORKLOAD = 1 << 2,
	M_SNOOP_TEXT = 1 << 3,
	M_INFO = 1 << 4,
	M_COMPARE = 1 << 5,
	M_REPORT = 1 << 6,
	M_RESTORE = 1 << 7,
	M_TUNE = 1 << 8,
	M_APPLY = 1 << 9,
	M_VERIFY = 1 << 10,
	M_SERVE = 1 << 11,
	M_IMPORT = 1 << 12,
	M_RESUME = 1 << 13,
	M_TRACING = M_PASSIVE | M_COMMAND | M_WORKLOAD,
	M_LOADS_BPF = M_TRACING | M_TUNE | M_VERIFY | M_SERVE,
	M_ALL = (1 << 14) - 1,
};

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
