// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * print_device_plain (device_print.c), the text `info` shows, over a device built here
 * field by field (no sysfs, no fixture tree) and printed into a memory stream: every
 * line is where the device's own figures say, nothing goes anywhere else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/device_print.h"

/* The figures sysfs would give a 1 GiB virtio disk with mq-deadline. */
static void virtio_disk(struct device *d)
{
	memset(d, 0, sizeof(*d));
	strcpy(d->name, "vdb");
	d->major = 254;
	d->minor = 16;
	d->size_sectors = 2097152;
	strcpy(d->driver, "virtio_blk");
	strcpy(d->module, "virtio_blk");
	d->limits = (struct queue_limits){ .max_sectors_kb = 1024,
					   .max_hw_sectors_kb = 2048,
					   .max_segments = 254,
					   .max_segment_size = 65536,
					   .nr_requests = 256,
					   .scheduler = "mq-deadline",
					   .read_ahead_kb = 128,
					   .wbt_lat_usec = -1, /* no such file: said "-" */
					   .write_cache = "write back",
					   .logical_block_size = 512,
					   .physical_block_size = 4096 };
	d->nr_hw_queues = 2;
	d->max_tags = 256;
	d->nr_module_params = 1;
	strcpy(d->module_params[0].name, "queue_depth");
	strcpy(d->module_params[0].value, "0");
	d->virtio_blk = (struct virtio_blk_info){
		.present = true, .queue_depth = 256, .poll_queues = -1, .host_max_segments = 254
	};
	d->scsi_queue_depth = -1;
}

static const char disk_text[] =
	"vdb (254:16), 1 GiB, driver virtio_blk, module virtio_blk\n"
	"queue limits:\n"
	"  max_sectors_kb         1024 KiB\n"
	"  max_hw_sectors_kb      2048 KiB\n"
	"  max_segments           254\n"
	"  max_segment_size       65536 B\n"
	"  nr_requests            256\n"
	"  scheduler              mq-deadline\n"
	"  read_ahead_kb          128 KiB\n"
	"  wbt_lat_usec           -\n"
	"  rotational             0\n"
	"  nomerges               0\n"
	"  write_cache            write back\n"
	"  logical_block_size     512 B\n"
	"  physical_block_size    4096 B\n"
	"  hardware queues        2 (largest nr_tags 256)\n"
	"largest request: 1 MiB, set by max_sectors_kb; max_hw_sectors_kb would allow 2 MiB\n"
	"module parameters (virtio_blk):\n"
	"  queue_depth            0\n"
	"virtio_blk:\n"
	"  queue_depth            256 (per hardware queue: mq/*/nr_tags)\n"
	"  queue_depth parameter  0 (module parameter: 0 = the virtqueue size)\n"
	"  num_request_queues     0 (module parameter)\n"
	"  poll_queues            -\n"
	"  host segment limit     254 (seg_max)\n";

/* The text printed into a memory stream, returned whole (the caller frees it). */
static char *plain(const struct device *d, const struct stack *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	print_device_plain(f, d, st);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(buf), len);
	return buf;
}

static void test_plain_disk(void **state)
{
	struct stack st = {};
	struct device d;
	char *text;

	(void)state;
	virtio_disk(&d);
	text = plain(&d, &st);
	assert_string_equal(text, disk_text);
	free(text);
}

/* A stack: the table after the device's own sections, a layer indented by its level. */
static void test_plain_stack(void **state)
{
	static const char want[] =
		"stack (traced with vdb):\n"
		"  device             max_kb max_segs readahead scheduler    what\n"
		"  vdb                  1024      254       128 mq-deadline  dm-linear (1 target)\n"
		"    vdc                 512      128      4096 -            disk (virtio_blk)\n"
		"  note: vdd not followed\n";
	struct layer *layer = calloc(1, sizeof(*layer));
	struct stack st = { .layers = layer, .n = 1 };
	struct device d;
	char *text;

	(void)state;
	assert_non_null(layer);
	virtio_disk(&d);
	strcpy(st.top_kind, "dm-linear (1 target)");
	strcpy(st.note, "vdd not followed");
	strcpy(layer->dev.name, "vdc");
	layer->dev.limits.max_sectors_kb = 512;
	layer->dev.limits.max_segments = 128;
	layer->dev.limits.read_ahead_kb = 4096;
	layer->level = 1;
	layer->above = -1;
	strcpy(layer->role, "disk (virtio_blk)");
	text = plain(&d, &st);
	assert_memory_equal(text, disk_text, strlen(disk_text));
	assert_string_equal(text + strlen(disk_text), want);
	free(text);
	free(layer);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_disk),
		cmocka_unit_test(test_plain_stack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
