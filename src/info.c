// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The info command: what a tuner needs to know about a disk, as text or as the
 * same `device` object every result file carries.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "report.h"

static void print_limit(const char *name, int64_t v, const char *unit)
{
	if (v < 0)
		printf("  %-22s -\n", name);
	else
		printf("  %-22s %lld%s\n", name, (long long)v, unit);
}

static void info_text(const struct device *d)
{
	const struct queue_limits *l = &d->limits;
	char b[32];

	printf("%s (%u:%u), %s, driver %s, module %s\n", d->name, d->major, d->minor,
	       fmt_bytes(b, sizeof(b), (double)d->size_sectors * 512),
	       d->driver[0] ? d->driver : "-", d->module[0] ? d->module : "-");
	if (d->part_name[0])
		printf("partition %s (%u:%u): start sector %llu, %llu sectors\n", d->part_name,
		       d->part_major, d->part_minor, (unsigned long long)d->part_start,
		       (unsigned long long)d->part_sectors);
	printf("queue limits:\n");
	print_limit("max_sectors_kb", l->max_sectors_kb, " KiB");
	print_limit("max_hw_sectors_kb", l->max_hw_sectors_kb, " KiB");
	print_limit("max_segments", l->max_segments, "");
	print_limit("max_segment_size", l->max_segment_size, " B");
	print_limit("nr_requests", l->nr_requests, "");
	printf("  %-22s %s\n", "scheduler", l->scheduler[0] ? l->scheduler : "-");
	print_limit("read_ahead_kb", l->read_ahead_kb, " KiB");
	print_limit("wbt_lat_usec", l->wbt_lat_usec, " us");
	print_limit("rotational", l->rotational, "");
	print_limit("nomerges", l->nomerges, "");
	printf("  %-22s %s\n", "write_cache", l->write_cache[0] ? l->write_cache : "-");
	print_limit("logical_block_size", l->logical_block_size, " B");
	print_limit("physical_block_size", l->physical_block_size, " B");
	printf("  %-22s %u (largest nr_tags %u)\n", "hardware queues", d->nr_hw_queues,
	       d->max_tags);
	if (d->xen.present)
		printf("xen-blkfront: %lld segments negotiated (%s), module asks %lld\n",
		       (long long)d->xen.segments,
		       d->xen.indirect_descriptors ? "indirect descriptors" : "no indirect descriptors",
		       (long long)d->xen.max_indirect_segments);
}

int cmd_info(int argc, char **argv)
{
	struct device dev;
	struct options o;
	char err_msg[512];
	json_t *doc;
	int err;

	err = cli_parse("info", argc, argv, &o);
	if (err)
		return err == -ECANCELED ? EXIT_OK : EXIT_USAGE;
	if (o.nr_positional != 1) {
		die_msg("info takes one disk: blktrace-bench info DEV [--json]");
		return EXIT_USAGE;
	}
	if (device__resolve(o.positional[0], &dev, err_msg, sizeof(err_msg))) {
		die_msg("%s", err_msg);
		return EXIT_USAGE;
	}
	if (!o.json) {
		info_text(&dev);
		return finish_stdout() ? EXIT_FAIL : EXIT_OK;
	}
	doc = json_pack("{s:s, s:o}", "schema", RESULT_SCHEMA, "device", report_json_device(&dev));
	if (!doc || json_dumpf(doc, stdout, JSON_INDENT(2)) || putchar('\n') == EOF) {
		json_decref(doc);
		die_msg("cannot write the JSON document");
		return EXIT_FAIL;
	}
	json_decref(doc);
	return finish_stdout() ? EXIT_FAIL : EXIT_OK;
}
