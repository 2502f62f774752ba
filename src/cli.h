/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Command-line model: one option table (cli.c) shared by every command, so a
 * flag means the same thing everywhere. Parsers are strict: "abc", "12Q", "-1"
 * and overflow are refused.
 */
#ifndef BLKTRACE_BENCH_CLI_H
#define BLKTRACE_BENCH_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_BS_LIST 32

struct options {
	const char *trace;	/* --trace DEV */
	double duration;	/* --duration SEC, 0 = until Ctrl-C */
	double interval;	/* --interval SEC, 0 = no periodic reports */
	const char *json;	/* --json FILE, "-" = stdout */
	bool json_flag;		/* info/compare: --json without a file */
	int verbose;		/* -v */
	bool raw_tp;		/* hidden: force the raw_tp programs */
	char **command;		/* after "--": the command to run, NULL-terminated */
	int nr_command;
	const char *positional[4]; /* info DEV, compare A B */
	int nr_positional;
};

/* Strict parsers: 0 on success, -EINVAL (garbage) or -ERANGE (overflow). */
int parse_size(const char *s, uint64_t *out);
int parse_duration(const char *s, double *out);
int parse_uint(const char *s, uint64_t max, uint64_t *out);

/* The command's name ("trace", "info", ...) selects which options are legal. */
int cli_parse(const char *cmd, int argc, char **argv, struct options *opts);

#endif /* BLKTRACE_BENCH_CLI_H */
