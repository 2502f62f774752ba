// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Snoop mode: one record per completed request, from the BPF ring buffer to a file.
 * A thread of its own drains the ring buffer, so the command or the sleep of the
 * main thread never delays it. See snoop.h for the file layout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "files/infile.h"
#include "trace/ringbuf_drain.h"
#include "trace/snoop.h"
#include "result/run.h"
#include "base/text.h"

/* 20 ms at 150k IOPS is ~220 KB of the 4 MiB ring buffer. */
#define SNOOP_TICK_MS 20

struct snoop {
	struct ringbuf_drain *drain;
	FILE *f;
	int err;
	unsigned long long records;
};

static int on_event(void *ctx, void *data, size_t size)
{
	struct snoop *s = ctx;

	if (size < sizeof(struct blkio_event))
		return 0;
	if (fwrite(data, sizeof(struct blkio_event), 1, s->f) != 1) {
		s->err = -errno ?: -EIO;
		return s->err; /* stops ring_buffer__poll */
	}
	s->records++;
	return 0;
}

int snoop__start(int ringbuf_fd, FILE *f, struct snoop **out)
{
	struct snoop_header h = { .magic = SNOOP_MAGIC,
				  .version = SNOOP_VERSION,
				  .record_size = sizeof(struct blkio_event) };
	struct snoop *s;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->f = f;
	if (fwrite(&h, sizeof(h), 1, s->f) != 1) {
		err = -errno ?: -EIO;
		goto cleanup;
	}
	err = ringbuf_drain__start(ringbuf_fd, on_event, s, SNOOP_TICK_MS, &s->drain);
	if (err)
		goto cleanup;
	*out = s;
	return 0;
cleanup:
	free(s);
	return err;
}

int snoop__stop(struct snoop *s, unsigned long long *records)
{
	int err;

	if (!s)
		return 0;
	err = ringbuf_drain__stop(s->drain);
	if (s->err) /* our own write error first: it is what stopped the draining */
		err = s->err;
	if (records)
		*records = s->records;
	free(s);
	return err;
}

/* Process names are another process's bytes: escaped (text.h), never raw. */
static void print_record(FILE *out, const struct blkio_event *e)
{
	char comm[4 * sizeof(e->comm) + 1], sector[24] = "-";

	if (e->sector != SNOOP_NO_SECTOR)
		snprintf(sector, sizeof(sector), "%llu", (unsigned long long)e->sector);
	text__escape(comm, sizeof(comm), e->comm, sizeof(e->comm));
	fprintf(out, "%-18.9f %-7u %-16s %3u:%-4u %-5s %12s %8u %5u %5u %10.1f %10.1f %s\n",
		e->ts_ns / 1e9, e->pid, comm[0] ? comm : "?", e->dev >> 20, e->dev & 0xfffff,
		e->op < BLKIO_NR_OPS ? blkio_op_names[e->op] : "?", sector, e->bytes, e->segments,
		e->depth, e->queue_ns / 1e3, e->device_ns / 1e3, e->error ? "error" : "");
}

int snoop__print_stream(FILE *f, const char *name, FILE *out, struct diag *d)
{
	struct snoop_header h;
	struct blkio_event e;
	unsigned long long n = 0;
	size_t got;

	if (fread(&h, sizeof(h), 1, f) != 1 || memcmp(h.magic, SNOOP_MAGIC, sizeof(h.magic)))
		return diag__usage(d, "%s: not a blktrace-bench snoop file", name);
	if (h.version != SNOOP_VERSION || h.record_size != sizeof(e))
		return diag__usage(d,
				   "%s: snoop format %u with %u-byte records; this build reads "
				   "format %u with %zu-byte records",
				   name, h.version, h.record_size, SNOOP_VERSION, sizeof(e));
	fprintf(out, "%-18s %-7s %-16s %-8s %-5s %12s %8s %5s %5s %10s %10s %s\n", "TIME(s)", "PID",
		"COMM", "DEV", "OP", "SECTOR", "BYTES", "SEGS", "QD", "QUEUE(us)", "DEVICE(us)",
		"ERR");
	/* Bytes, not positions: a pipe has no ftell, and a part of a record is a cut. */
	while ((got = fread(&e, 1, sizeof(e), f)) == sizeof(e)) {
		print_record(out, &e);
		n++;
	}
	if (ferror(f))
		return diag__fail(d, -EIO, "%s: read error: %s", name, strerror(errno));
	if (got)
		return diag__usage(d, "%s: truncated after %llu records", name, n);
	return 0;
}

int snoop__print_text(const char *path, FILE *out, struct diag *d)
{
	const char *name = strcmp(path, "-") ? path : "stdin";
	FILE *f;
	int ret;

	ret = infile__open(path, true, &f, d);
	if (ret)
		return ret;
	ret = snoop__print_stream(f, name, out, d);
	infile__close(f);
	return ret;
}
