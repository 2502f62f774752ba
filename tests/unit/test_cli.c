// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The option table: what each command accepts and refuses, and what it makes of it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <string.h>
#include "cli/cli.h"
#include "base/diag.h"

static void test_cli_trace_command(void **state)
{
	/* argv as a command line reads: clang-format would tabulate it. */
	// clang-format off
	char *argv[] = { "blktrace-bench", "--trace", "loop0", "--json", "out.json", "--", "dd",
			 "if=/dev/zero", "-x", NULL };
	// clang-format on
	struct options o;
	struct diag d = {};

	(void)state;
	assert_int_equal(cli_parse("trace", 9, argv, &o, &d), 0);
	assert_string_equal(o.trace, "loop0");
	assert_string_equal(o.json, "out.json");
	assert_int_equal(o.nr_command, 3);
	assert_string_equal(o.command[0], "dd");
	assert_string_equal(o.command[2], "-x");
	assert_null(o.command[3]);
}

static void test_cli_command_without_dashes(void **state)
{
	/* The first non-option word starts the command; its own options stay its own. */
	char *argv[] = { "blktrace-bench", "-t", "xvda", "dd", "-v", NULL };
	struct options o;
	struct diag d = {};

	(void)state;
	assert_int_equal(cli_parse("trace", 5, argv, &o, &d), 0);
	assert_string_equal(o.trace, "xvda");
	assert_int_equal(o.verbose, 0);
	assert_int_equal(o.nr_command, 2);
	assert_string_equal(o.command[1], "-v");
}

static void test_cli_info_json_flag(void **state)
{
	char *argv[] = { "info", "--json", "loop0", NULL };
	struct options o;
	struct diag d = {};

	(void)state;
	assert_int_equal(cli_parse("info", 3, argv, &o, &d), 0);
	assert_string_equal(o.json, "-");
	assert_int_equal(o.nr_positional, 1);
	assert_string_equal(o.positional[0], "loop0");
}

static void test_cli_passive(void **state)
{
	char *argv[] = {
		"blktrace-bench", "--trace=202:0", "--duration", "1.5s", "-i", "500ms", NULL
	};
	struct options o;
	struct diag d = {};

	(void)state;
	assert_int_equal(cli_parse("trace", 6, argv, &o, &d), 0);
	assert_string_equal(o.trace, "202:0");
	assert_true(o.duration == 1.5);
	assert_true(o.interval == 0.5);
	assert_null(o.command);
}

static void test_cli_wrap_and_state_dir(void **state)
{
	char *trace[] = { "blktrace-bench", "--trace",	   "loop0",   "--rw", "read",
			  "--wrap",	    "--state-dir", "/tmp/st", NULL };
	char *restore[] = { "restore", "loop0", "--state-dir=/tmp/st", NULL };
	char *info[] = { "info", "loop0", "--state-dir", "/tmp/st", NULL };
	char *empty[] = { "restore", "loop0", "--state-dir=", NULL };
	struct options o;
	struct diag d = {};

	(void)state;
	assert_int_equal(cli_parse("trace", 8, trace, &o, &d), 0);
	assert_true(o.wl.wrap);
	assert_string_equal(o.state_dir, "/tmp/st");
	assert_int_equal(cli_parse("restore", 3, restore, &o, &d), 0);
	assert_string_equal(o.positional[0], "loop0");
	assert_string_equal(o.state_dir, "/tmp/st");
	assert_false(o.wl.wrap);
	/* An option the command would ignore is refused, as bad input in argp's words. */
	assert_int_equal(cli_parse("info", 4, info, &o, &d), -EINVAL);
	assert_string_equal(d.msg, "--state-dir is not used by info: it is where --set sweeps "
				   "keep their lock and state (trace, restore, tune, verify)");
	assert_true(d.usage);
	assert_int_equal(cli_parse("restore", 3, empty, &o, &d), -EINVAL);
	assert_string_equal(d.msg, "restore: --state-dir: empty directory name");
}

/* tune, apply and verify: their own options, refused elsewhere; only theirs taken. */
static void test_cli_tuning(void **state)
{
	// clang-format off
	char *tune[] = { "tune", "loop0", "--rw", "read", "--bs", "1M", "--knobs",
			 "max_sectors_kb,scheduler", "--budget", "2m", "--json", "t.json", "--apply",
			 "--dry-run", "--root", "/tmp/r", NULL };
	char *tune_trace[] = { "tune", "loop0", "--trace", "loop0", NULL };
	char *trace_knobs[] = { "blktrace-bench", "--trace", "loop0", "--knobs", "nomerges", NULL };
	char *undo[] = { "apply", "--undo", "--root", "/tmp/r", NULL };
	char *undo_file[] = { "apply", "--undo", "t.json", NULL };
	char *apply_json[] = { "apply", "t.json", "--json", NULL };
	char *verify[] = { "verify", "t.json", "--json", "v.json", "--fail-on-regression", "5",
			   "--destructive", NULL };
	char *verify_rw[] = { "verify", "t.json", "--rw", "read", NULL };
	char *budget[] = { "tune", "loop0", "--budget", "0", NULL };
	// clang-format on
	struct options o;
	struct diag d = {};

	(void)state;
	assert_int_equal(cli_parse("tune", 16, tune, &o, &d), 0);
	assert_string_equal(o.positional[0], "loop0");
	assert_string_equal(o.knobs, "max_sectors_kb,scheduler");
	assert_true(o.budget == 120);
	assert_string_equal(o.json, "t.json"); /* tune's --json takes the next word */
	assert_true(o.apply && o.dry_run);
	assert_string_equal(o.root, "/tmp/r");
	assert_int_equal(cli_parse("tune", 4, tune_trace, &o, &d), -EINVAL);
	assert_string_equal(d.msg, "--trace is not used by tune: it names the disk to trace (info, "
				   "restore and tune take it as a word)");
	assert_int_equal(cli_parse("trace", 5, trace_knobs, &o, &d), -EINVAL);
	assert_string_equal(d.msg, "--knobs is not used in passive mode: it is tune's");
	/* apply --undo takes no result; apply takes one. */
	assert_int_equal(cli_parse("apply", 4, undo, &o, &d), 0);
	assert_true(o.undo);
	assert_int_equal(o.nr_positional, 0);
	assert_int_equal(cli_parse("apply", 3, undo_file, &o, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "apply takes a tune result, or --undo"));
	assert_false(d.named);
	assert_int_equal(cli_parse("apply", 3, apply_json, &o, &d), -EINVAL);
	assert_string_equal(d.msg, "--json is not used by apply: it is the report of trace, info, "
				   "compare, tune, verify and import");
	assert_int_equal(cli_parse("verify", 7, verify, &o, &d), 0);
	assert_string_equal(o.json, "v.json");
	assert_true(o.fail_on_regression_set && o.fail_on_regression == 5);
	assert_true(o.wl.destructive);
	assert_int_equal(cli_parse("verify", 4, verify_rw, &o, &d), -EINVAL);
	assert_string_equal(d.msg,
			    "--rw is not used by verify: it belongs to the built-in workload "
			    "(--rw, or tune's)");
	assert_int_equal(cli_parse("tune", 4, budget, &o, &d), -EINVAL);
	assert_string_equal(d.msg, "tune: --budget: invalid duration '0'");
}

/*
 * --set keeps its values in the options: nothing to free on any path (LeakSanitizer
 * found the strdup of the old parser never freed; this test under build/san would
 * report it). Given twice, refused (the second would win in silence); too long too.
 */
static void test_cli_set(void **state)
{
	char arg[2048];
	// clang-format off
	char *argv[] = { "blktrace-bench", "--trace", "loop0", "--rw", "write", "--set",
			 "nr_requests=4,8", "--set", "max_sectors_kb=44,128,1024", NULL };
	// clang-format on
	struct options o;
	struct diag d = {};

	(void)state;
	assert_int_equal(cli_parse("trace", 9, argv, &o, &d), -EINVAL);
	assert_string_equal(d.msg, "blktrace-bench: --set given twice: give it once");
	argv[6] = "max_sectors_kb=44,128,1024";
	assert_int_equal(cli_parse("trace", 7, argv, &o, &d), 0);
	assert_string_equal(o.wl.set_knob, "max_sectors_kb");
	assert_int_equal(o.wl.nr_set_values, 3);
	assert_string_equal(o.wl.set_values[0], "44");
	assert_string_equal(o.wl.set_values[2], "1024");
	assert_string_equal(argv[6], "max_sectors_kb=44,128,1024"); /* argv intact */
	memset(arg, '1', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = '\0';
	memcpy(arg, "nr_requests=", 12);
	argv[6] = arg;
	assert_int_equal(cli_parse("trace", 7, argv, &o, &d), -EINVAL);
}

/* argv of words, NULL-terminated, parsed for cmd: its outcome, the message in d. */
static int parse_words(const char *cmd, char **words, struct diag *d)
{
	struct options o;
	int argc = 0;

	while (words[argc])
		argc++;
	memset(d, 0, sizeof(*d));
	return cli_parse(cmd, argc, words, &o, d);
}

static void assert_refused(const char *cmd, char **words, const char *msg)
{
	struct diag d;

	assert_int_equal(parse_words(cmd, words, &d), -EINVAL);
	assert_true(d.usage);
	if (!strstr(d.msg, msg))
		fail_msg("\"%s\" not in \"%s\"", msg, d.msg);
}

/*
 * Every option of the built-in workload is refused in passive and command mode, where
 * it would change nothing and exit 0; each names itself and what it is for.
 */
static void test_cli_workload_options_need_rw(void **state)
{
	static const char *const workload[][2] = {
		{ "--set", "read_ahead_kb=64" },
		{ "--repeat", "3" },
		{ "--recommend", NULL },
		{ "--drop-caches", NULL },
		{ "--bs", "4k" },
		{ "--size", "1M" },
		{ "--engine", "io_uring" },
		{ "--direct", NULL },
		{ "--brief", NULL },
		{ "--file", "x" },
		{ "--raw", NULL },
		{ "--wrap", NULL },
	};
	char *words[8];
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(workload) / sizeof(workload[0]); i++) {
		n = 0;
		words[n++] = "blktrace-bench";
		words[n++] = "--trace";
		words[n++] = "loop1";
		words[n++] = (char *)workload[i][0];
		if (workload[i][1])
			words[n++] = (char *)workload[i][1];
		words[n] = NULL;
		/* Passive: --trace DEV alone. */
		assert_refused("trace", words, "is not used in passive mode");
		assert_refused("trace", words, workload[i][0]);
		words[n++] = "--";
		words[n++] = "true";
		words[n] = NULL;
		assert_refused("trace", words, "is not used in command mode");
	}
}

/*
 * --interval has a floor: 10 ms for passive mode's reports, 1 s for serve's textfile. Below
 * them (1us, 1e-300) the report loop spun at 100% CPU, deaf to SIGTERM, or kept a report
 * per microsecond in memory.
 */
static void test_cli_interval_floor(void **state)
{
	char *trace_fine[] = { "blktrace-bench", "--trace", "loop1", "--interval", "10ms", NULL };
	char *trace_1us[] = { "blktrace-bench", "--trace", "loop1", "--interval", "1us", NULL };
	char *trace_tiny[] = { "blktrace-bench", "--trace", "loop1", "--interval", "1e-300", NULL };
	char *serve_fine[] = { "blktrace-bench serve", "--textfile", "d", "--interval", "1", NULL };
	char *serve_half[] = { "blktrace-bench serve", "--textfile", "d",
			       "--interval",	       "500ms",	     NULL };
	struct diag d;

	(void)state;
	assert_int_equal(parse_words("trace", trace_fine, &d), 0);
	assert_refused("trace", trace_1us, "--interval 1us: below the floor of 10ms");
	assert_refused("trace", trace_tiny, "--interval 1e-300: below the floor of 10ms");
	assert_int_equal(parse_words("serve", serve_fine, &d), 0);
	assert_refused("serve", serve_half, "--interval 500ms: below the floor of 1s");
}

/* info, compare and restore take their own few options; trace's are refused by name. */
static void test_cli_commands_refuse_others(void **state)
{
	char *info_rw[] = { "info", "--rw", "write", "loop0", NULL };
	char *info_destr[] = { "info", "--destructive", "loop0", NULL };
	char *info_set[] = { "info", "--set", "nomerges=1", "loop0", NULL };
	char *info_snoop[] = { "info", "--snoop", "x", "loop0", NULL };
	char *info_json[] = { "info", "--json=out.json", "loop0", NULL };
	char *compare_v[] = { "compare", "-v", "a.json", "b.json", NULL };
	char *restore_json[] = { "restore", "--json", "loop0", NULL };
	char *passive_dur[] = { "blktrace-bench", "--trace", "loop0", "--duration", "1", NULL };
	char *cmd_dur[] = { "blktrace-bench", "-t", "loop0", "-d", "1", "--", "true", NULL };
	char *work_interval[] = { "x", "-t", "loop0", "--rw", "read", "-i", "1", NULL };
	char *text_trace[] = { "x", "--snoop-text", "f", "--trace", "loop0", NULL };
	char *vv[] = { "blktrace-bench", "-vv", "--trace", "loop0", "-v", NULL };
	char *twice[] = { "blktrace-bench", "--trace", "loop0", "--trace", "loop1", NULL };
	char *info_bt[] = { "info", "--blktrace", "d", "loop0", NULL };
	char *import_bt[] = { "import", "--blktrace", "d", "t", NULL };
	char *import_v[] = { "import", "-v", "t", NULL };
	char *cmd_limits[] = { "x", "-t", "loop0", "--limits-from", "sda", "--", "true", NULL };
	char *import_two[] = { "import", "a", "b", NULL };
	struct diag d;

	(void)state;
	assert_refused("info", info_rw, "--rw is not used by info");
	assert_refused("info", info_destr, "--destructive is not used by info");
	assert_refused("info", info_set, "--set is not used by info: it sweeps a setting");
	assert_refused("info", info_snoop, "--snoop is not used by info");
	assert_int_equal(parse_words("info", info_json, &d), 0);
	assert_refused("compare", compare_v, "--verbose is not used by compare");
	assert_refused("restore", restore_json, "--json is not used by restore");
	assert_int_equal(parse_words("trace", passive_dur, &d), 0);
	assert_refused("trace", cmd_dur, "--duration is not used in command mode: it ends passive");
	assert_refused("trace", work_interval, "--interval is not used in workload mode");
	assert_refused("trace", text_trace, "--trace is not used with --snoop-text");
	/* -v counts: it may be given again. */
	assert_int_equal(parse_words("trace", vv, &d), 0);
	assert_refused("trace", twice, "--trace given twice");
	/* --blktrace is a trace's; import reads blktrace files and takes --limits-from. */
	assert_refused("info", info_bt, "--blktrace is not used by info: it writes the events");
	assert_refused("import", import_bt, "--blktrace is not used by import");
	assert_refused("import", import_v, "--verbose is not used by import");
	assert_refused("trace", cmd_limits,
		       "--limits-from is not used in command mode: it is "
		       "import's");
	assert_refused("import", import_two, "import takes one trace");
}

/* --sync was renamed --dsync (it is O_DSYNC, not fio's sync=1): the old name says so. */
static void test_cli_renamed_sync(void **state)
{
	char *trace[] = { "x", "-t", "loop0", "--rw", "write", "--sync", NULL };
	char *tune[] = { "tune", "--rw", "write", "--sync", "loop0", NULL };
	char *info[] = { "info", "--sync", "loop0", NULL };

	(void)state;
	assert_refused("trace", trace, "--sync is now --dsync (O_DSYNC on every write");
	assert_refused("tune", tune, "--sync is now --dsync");
	assert_refused("info", info, "--sync is now --dsync");
}

/* --help and --version print and leave nothing else to do: 1, nothing in d. */
static void test_cli_help(void **state)
{
	char *argv[] = { "info", "--version", NULL };
	struct options o;
	struct diag d = {};

	(void)state;
	assert_int_equal(cli_parse("info", 2, argv, &o, &d), 1);
	assert_int_equal(d.err, 0);
}

/*
 * Every option of the table, each parsed by a command (and mode) that takes it, and the
 * field it sets; an option of the table without a row here fails.
 */
enum field_kind { F_STR, F_DBL, F_BOOL, F_U64, F_INT, F_UINT };

struct option_row {
	const char *cmd, *line; /* the command and its words, space-separated */
	enum field_kind kind;
	size_t off;
	const char *str; /* F_STR: the value */
	double num;	 /* the others */
};

#define AT(f) offsetof(struct options, f)
#define TRACE "blktrace-bench --trace loop0 "
#define RW TRACE "--rw read "

static const struct option_row rows[] = {
	{ "trace", TRACE, F_STR, AT(trace), "loop0", 0 },
	{ "trace", TRACE "--duration 2m", F_DBL, AT(duration), NULL, 120 },
	{ "trace", TRACE "--interval 500ms", F_DBL, AT(interval), NULL, 0.5 },
	{ "trace", TRACE "--json r.json", F_STR, AT(json), "r.json", 0 },
	{ "trace", TRACE "--html r.html", F_STR, AT(html), "r.html", 0 },
	{ "report", "report r.json --output p.html", F_STR, AT(output), "p.html", 0 },
	{ "trace", TRACE "--snoop s.bin", F_STR, AT(snoop), "s.bin", 0 },
	{ "trace", "blktrace-bench --snoop-text s.bin", F_STR, AT(snoop_text), "s.bin", 0 },
	{ "trace", TRACE "--verbose", F_INT, AT(verbose), NULL, 1 },
	{ "trace", TRACE "--raw-tp", F_BOOL, AT(raw_tp), NULL, 1 },
	{ "trace", TRACE "--exact-depth", F_BOOL, AT(exact_depth), NULL, 1 },
	{ "compare", "compare a b --fail-on-regression 7.5", F_DBL, AT(fail_on_regression), NULL,
	  7.5 },
	{ "serve", "serve --listen 127.0.0.1:9000", F_STR, AT(listen), "127.0.0.1:9000", 0 },
	{ "serve", "serve --textfile /tmp", F_STR, AT(textfile), "/tmp", 0 },
	{ "trace", RW, F_STR, AT(wl.rw), "read", 0 },
	{ "trace", RW "--bs 4k,1M", F_U64, AT(wl.bs[1]), NULL, 1 << 20 },
	{ "trace", RW "--size 1MB", F_U64, AT(wl.size), NULL, 1000000 },
	{ "trace", RW "--count 3", F_U64, AT(wl.count), NULL, 3 },
	{ "trace", RW "--runtime 1.5", F_DBL, AT(wl.runtime), NULL, 1.5 },
	{ "trace", RW "--wrap", F_BOOL, AT(wl.wrap), NULL, 1 },
	{ "trace", RW "--engine io_uring", F_STR, AT(wl.engine), "io_uring", 0 },
	{ "trace", RW "--engine io_uring --iodepth 32", F_UINT, AT(wl.iodepth), NULL, 32 },
	{ "trace", RW "--engine io_uring --no-fixed-bufs", F_BOOL, AT(wl.no_fixed_bufs), NULL, 1 },
	{ "trace", RW "--hugepages", F_BOOL, AT(wl.hugepages), NULL, 1 },
	{ "trace", RW "--direct", F_BOOL, AT(wl.direct), NULL, 1 },
	{ "trace", TRACE "--rw write --dsync", F_BOOL, AT(wl.sync), NULL, 1 },
	{ "trace", TRACE "--rw write --fsync", F_BOOL, AT(wl.fsync), NULL, 1 },
	{ "trace", TRACE "--rw write --fdatasync", F_BOOL, AT(wl.fdatasync), NULL, 1 },
	{ "trace", RW "--repeat 5", F_UINT, AT(wl.repeat), NULL, 5 },
	{ "trace", RW "--drop-caches", F_BOOL, AT(wl.drop_caches), NULL, 1 },
	{ "trace", RW "--file f.bin", F_STR, AT(wl.file), "f.bin", 0 },
	{ "trace", RW "--file f.bin --overwrite", F_BOOL, AT(wl.overwrite), NULL, 1 },
	{ "trace", RW "--file f.bin --any-fs", F_BOOL, AT(wl.any_fs), NULL, 1 },
	{ "trace", RW "--raw", F_BOOL, AT(wl.raw), NULL, 1 },
	{ "trace", RW "--raw --destructive", F_BOOL, AT(wl.destructive), NULL, 1 },
	{ "trace", RW "--set nomerges=0,2", F_STR, AT(wl.set_knob), "nomerges", 0 },
	{ "trace", RW "--set nomerges=0,2 --recommend", F_BOOL, AT(wl.recommend), NULL, 1 },
	{ "restore", "restore loop0 --state-dir /tmp/s", F_STR, AT(state_dir), "/tmp/s", 0 },
	{ "trace", RW "--brief", F_BOOL, AT(brief), NULL, 1 },
	{ "tune", "tune loop0 --rw read --knobs scheduler", F_STR, AT(knobs), "scheduler", 0 },
	{ "tune", "tune loop0 --rw read --budget 90s", F_DBL, AT(budget), NULL, 90 },
	{ "tune", "tune loop0 --workload r.json", F_STR, AT(workload), "r.json", 0 },
	{ "tune", "tune loop0 --rw read --json t.json --apply", F_BOOL, AT(apply), NULL, 1 },
	{ "apply", "apply t.json --dry-run", F_BOOL, AT(dry_run), NULL, 1 },
	{ "apply", "apply --undo", F_BOOL, AT(undo), NULL, 1 },
	{ "resume", "resume --abort", F_BOOL, AT(abort), NULL, 1 },
	{ "apply", "apply t.json --root /tmp/r", F_STR, AT(root), "/tmp/r", 0 },
	{ "trace", TRACE "--blktrace bt", F_STR, AT(blktrace), "bt", 0 },
	{ "import", "import bt --limits-from sda.json", F_STR, AT(limits_from), "sda.json", 0 },
};

static int split(char *line, char **argv, int max)
{
	int n = 0;

	for (char *w = strtok(line, " "); w && n < max - 1; w = strtok(NULL, " "))
		argv[n++] = w;
	argv[n] = NULL;
	return n;
}

static void check_row(const struct option_row *r)
{
	char line[256], *argv[32];
	const char *at;
	struct options o;
	struct diag d = {};
	int argc;

	snprintf(line, sizeof(line), "%s", r->line);
	argc = split(line, argv, 32);
	if (cli_parse(r->cmd, argc, argv, &o, &d))
		fail_msg("%s: %s", r->line, d.msg);
	at = (const char *)&o + r->off;
	switch (r->kind) {
	case F_STR:
		/* set_knob is an array; the others point into argv. */
		assert_string_equal(r->off == AT(wl.set_knob) ? at : *(const char *const *)at,
				    r->str);
		break;
	case F_DBL:
		assert_true(*(const double *)at == r->num);
		break;
	case F_BOOL:
		assert_true(*(const bool *)at);
		break;
	case F_U64:
		assert_true(*(const uint64_t *)at == (uint64_t)r->num);
		break;
	case F_INT:
		assert_int_equal(*(const int *)at, (int)r->num);
		break;
	case F_UINT:
		assert_int_equal(*(const unsigned int *)at, (unsigned int)r->num);
		break;
	}
}

/* The row's own option: its last word that starts with "--". */
static void row_option(const struct option_row *r, char *out, size_t len)
{
	char line[256], *argv[32];
	int argc, k;

	snprintf(line, sizeof(line), "%s", r->line);
	argc = split(line, argv, 32);
	out[0] = '\0';
	for (k = 0; k < argc; k++)
		if (!strncmp(argv[k], "--", 2))
			snprintf(out, len, "%s", argv[k] + 2);
}

static void test_cli_every_option(void **state)
{
	const size_t nr_rows = sizeof(rows) / sizeof(rows[0]);
	char name[32];
	const char *opt;
	size_t i, j;

	(void)state;
	for (i = 0; i < nr_rows; i++)
		check_row(&rows[i]);
	/* Every option of the table has its row (help, usage and version aside). */
	for (i = 0; (opt = cli_option_name(i)); i++) {
		if (!strcmp(opt, "help") || !strcmp(opt, "usage") || !strcmp(opt, "version"))
			continue;
		for (j = 0; j < nr_rows; j++) {
			row_option(&rows[j], name, sizeof(name));
			if (!strcmp(name, opt))
				break;
		}
		if (j == nr_rows)
			fail_msg("--%s: no row parses it", opt);
	}
	assert_int_equal(i, nr_rows + 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_trace_command),
		cmocka_unit_test(test_cli_command_without_dashes),
		cmocka_unit_test(test_cli_renamed_sync),
		cmocka_unit_test(test_cli_info_json_flag),
		cmocka_unit_test(test_cli_passive),
		cmocka_unit_test(test_cli_wrap_and_state_dir),
		cmocka_unit_test(test_cli_tuning),
		cmocka_unit_test(test_cli_set),
		cmocka_unit_test(test_cli_help),
		cmocka_unit_test(test_cli_workload_options_need_rw),
		cmocka_unit_test(test_cli_commands_refuse_others),
		cmocka_unit_test(test_cli_interval_floor),
		cmocka_unit_test(test_cli_every_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
