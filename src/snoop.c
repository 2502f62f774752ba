// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Snoop mode: one record per completed request, from the BPF ring buffer to a file.
 * A thread of its own drains the ring buffer, so the command or the sleep of the
 * main thread never delays it. See snoop.h for the file layout.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "snoop.h"
#include "summary.h"

struct snoop {
	struct ring_buffer *rb;
	FILE *f;
	pthread_t thread;
	volatile int stop;
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

static void *drain(void *arg)
{
	struct timespec tick = {.tv_nsec = 20 * 1000 * 1000};
	struct snoop *s = arg;
	int n;

	/*
	 * The programs submit without wakeups (cheaper per record), so nothing would
	 * wake an epoll: drain on a timer. 20 ms at 150k IOPS is ~220 KB of the 4 MiB.
	 */
	while (!s->stop && !s->err) {
		n = ring_buffer__consume(s->rb);
		if (n < 0 && !s->err)
			s->err = n;
		nanosleep(&tick, NULL);
	}
	return NULL;
}

int snoop__start(int ringbuf_fd, const char *path, struct snoop **out)
{
	struct snoop_header h = {.magic = SNOOP_MAGIC, .version = SNOOP_VERSION,
				 .record_size = sizeof(struct blkio_event)};
	struct snoop *s;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->f = fopen(path, "wb");
	if (!s->f) {
		err = -errno;
		goto cleanup;
	}
	if (fwrite(&h, sizeof(h), 1, s->f) != 1) {
		err = -EIO;
		goto cleanup;
	}
	s->rb = ring_buffer__new(ringbuf_fd, on_event, s, NULL);
	if (!s->rb) {
		err = -errno;
		goto cleanup;
	}
	err = -pthread_create(&s->thread, NULL, drain, s);
	if (err)
		goto cleanup;
	*out = s;
	return 0;
cleanup:
	ring_buffer__free(s->rb);
	if (s->f)
		fclose(s->f);
	free(s);
	return err;
}

int snoop__stop(struct snoop *s, unsigned long long *records)
{
	int err;

	if (!s)
		return 0;
	s->stop = 1;
	pthread_join(s->thread, NULL);
	/* What the programs wrote before they were detached. */
	if (!s->err)
		ring_buffer__consume(s->rb);
	err = s->err;
	if (fflush(s->f) && !err)
		err = -errno;
	if (fclose(s->f) && !err)
		err = -errno;
	ring_buffer__free(s->rb);
	if (records)
		*records = s->records;
	free(s);
	return err;
}

int snoop__print_text(const char *path, FILE *out, char *err, size_t errlen)
{
	struct snoop_header h;
	struct blkio_event e;
	unsigned long long n = 0;
	FILE *f = fopen(path, "rb");
	int ret = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (fread(&h, sizeof(h), 1, f) != 1 || memcmp(h.magic, SNOOP_MAGIC, sizeof(h.magic))) {
		snprintf(err, errlen, "%s: not a blktrace-bench snoop file", path);
		ret = -EINVAL;
		goto cleanup;
	}
	if (h.version != SNOOP_VERSION || h.record_size != sizeof(e)) {
		snprintf(err, errlen, "%s: snoop format %u with %u-byte records; this build reads "
			 "format %u with %zu-byte records", path, h.version, h.record_size,
			 SNOOP_VERSION, sizeof(e));
		ret = -EINVAL;
		goto cleanup;
	}
	fprintf(out, "%-18s %-7s %-16s %-8s %-5s %12s %8s %5s %5s %10s %10s %s\n", "TIME(s)",
		"PID", "COMM", "DEV", "OP", "SECTOR", "BYTES", "SEGS", "QD", "QUEUE(us)",
		"DEVICE(us)", "ERR");
	while (fread(&e, sizeof(e), 1, f) == 1) {
		fprintf(out, "%-18.9f %-7u %-16.16s %3u:%-4u %-5s %12llu %8u %5u %5u %10.1f %10.1f %s\n",
			e.ts_ns / 1e9, e.pid, e.comm[0] ? e.comm : "?", e.dev >> 20, e.dev & 0xfffff,
			e.op < BLKIO_NR_OPS ? blkio_op_names[e.op] : "?",
			(unsigned long long)e.sector, e.bytes, e.segments, e.depth, e.queue_ns / 1e3,
			e.device_ns / 1e3, e.error ? "error" : "");
		n++;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
		ret = -EIO;
	} else if (!feof(f) || ftell(f) != (long)(sizeof(h) + n * sizeof(e))) {
		snprintf(err, errlen, "%s: truncated after %llu records", path, n);
		ret = -EINVAL;
	}
cleanup:
	fclose(f);
	return ret;
}
