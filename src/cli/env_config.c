// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The environment's configuration (env_config.h): its defaults and how each variable's
 * text is read. main() hands in getenv; tests hand in a table.
 */
#include <stdint.h>
#include <string.h>
#include "cli/env_config.h"
#include "base/parse.h"

static const char *value_or(char *(*lookup)(const char *), const char *name, const char *dflt)
{
	const char *v = lookup(name);

	return v && *v ? v : dflt;
}

void env_config__read(struct env_config *cfg, char *(*lookup)(const char *name))
{
	uint64_t n;

	cfg->sysfs_root = value_or(lookup, "BLKTRACE_BENCH_SYSFS", "/sys");
	cfg->xenstore = value_or(lookup, "BLKTRACE_BENCH_XENSTORE", NULL);
	cfg->kallsyms = value_or(lookup, "BLKTRACE_BENCH_KALLSYMS", "/proc/kallsyms");
	cfg->force_raw_tp = strcmp(value_or(lookup, "BLKTRACE_BENCH_RAW_TP", "0"), "0") != 0;
	cfg->force_kprobes = strcmp(value_or(lookup, "BLKTRACE_BENCH_KPROBES", "0"), "0") != 0;
	cfg->lose_completions = 0;
	if (!parse_uint(value_or(lookup, "BLKTRACE_BENCH_LOSE_COMPLETIONS", "0"), UINT32_MAX, &n))
		cfg->lose_completions = (unsigned int)n;
	cfg->stall_records = 0;
	if (!parse_uint(value_or(lookup, "BLKTRACE_BENCH_STALL_RECORDS", "0"), UINT32_MAX, &n))
		cfg->stall_records = (unsigned int)n;
}

struct device_env env_config__device(const struct env_config *cfg)
{
	return (struct device_env){ .sysfs_root = cfg->sysfs_root, .xenstore = cfg->xenstore };
}
